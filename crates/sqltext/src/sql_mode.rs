//! `sql_mode`: MariaDB 10.11's modes by name and by bit, read and written as
//! `SET sql_mode` reads and `@@sql_mode` shows them.
//!
//! Why here: the modes change how SQL text is read (NO_BACKSLASH_ESCAPES is
//! a lexer rule) as well as what the front and the engine do with values
//! (STRICT_*, ERROR_FOR_DIVISION_BY_ZERO), and this crate is the one below
//! all of them. The bits are MariaDB's (`SET sql_mode = 1 << 20` is
//! NO_BACKSLASH_ESCAPES there and here), the combination modes (ANSI,
//! TRADITIONAL, ORACLE, ...) expand as MariaDB expands them, and a name
//! MariaDB does not know is its ERR 1231. Every mode is accepted and shown;
//! which ones Turnstile acts on is docs/compatibility.md's list.

/// A set of modes: bit n is `NAMES[n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SqlMode(pub u64);

/// MariaDB 10.11's mode names, in bit order.
pub const NAMES: [&str; 35] = [
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// The bit of a mode by its name (a compile-time lookup in `NAMES`).
const fn bit(name: &str) -> u64 {
    let mut i = 0;
    while i < NAMES.len() {
        if const_eq(NAMES[i].as_bytes(), name.as_bytes()) {
            return 1 << i;
        }
        i += 1;
    }
    panic!("unknown sql_mode name");
}

const fn const_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl SqlMode {
    pub const REAL_AS_FLOAT: u64 = bit("REAL_AS_FLOAT");
    /// The ANSI bit itself (besides the modes it sets).
    pub const ANSI: u64 = bit("ANSI");
    pub const PIPES_AS_CONCAT: u64 = bit("PIPES_AS_CONCAT");
    pub const ANSI_QUOTES: u64 = bit("ANSI_QUOTES");
    pub const IGNORE_SPACE: u64 = bit("IGNORE_SPACE");
    pub const NO_BACKSLASH_ESCAPES: u64 = bit("NO_BACKSLASH_ESCAPES");
    pub const STRICT_TRANS_TABLES: u64 = bit("STRICT_TRANS_TABLES");
    pub const STRICT_ALL_TABLES: u64 = bit("STRICT_ALL_TABLES");
    pub const ERROR_FOR_DIVISION_BY_ZERO: u64 = bit("ERROR_FOR_DIVISION_BY_ZERO");
    pub const NO_AUTO_CREATE_USER: u64 = bit("NO_AUTO_CREATE_USER");
    pub const NO_ENGINE_SUBSTITUTION: u64 = bit("NO_ENGINE_SUBSTITUTION");
    pub const NO_ZERO_IN_DATE: u64 = bit("NO_ZERO_IN_DATE");
    pub const NO_ZERO_DATE: u64 = bit("NO_ZERO_DATE");

    /// MariaDB 10.11's default: STRICT_TRANS_TABLES, ERROR_FOR_DIVISION_BY_ZERO,
    /// NO_AUTO_CREATE_USER, NO_ENGINE_SUBSTITUTION.
    pub const DEFAULT: SqlMode = SqlMode(Self::STRICT_TRANS_TABLES | Self::ERROR_FOR_DIVISION_BY_ZERO | Self::NO_AUTO_CREATE_USER | Self::NO_ENGINE_SUBSTITUTION);

    /// Every bit MariaDB knows (`SET sql_mode = n` takes up to this).
    pub const ALL: u64 = (1 << NAMES.len()) - 1;

    pub fn has(self, bits: u64) -> bool {
        self.0 & bits != 0
    }

    /// A write that fails rather than adjusts a value (STRICT_TRANS_TABLES or
    /// STRICT_ALL_TABLES: every table here is transactional).
    pub fn strict(self) -> bool {
        self.has(Self::STRICT_TRANS_TABLES | Self::STRICT_ALL_TABLES)
    }

    pub fn no_backslash_escapes(self) -> bool {
        self.has(Self::NO_BACKSLASH_ESCAPES)
    }

    pub fn error_for_division_by_zero(self) -> bool {
        self.has(Self::ERROR_FOR_DIVISION_BY_ZERO)
    }

    /// 0 into an AUTO_INCREMENT column stores 0; only NULL takes the next
    /// value (mariadb-dump sets it so a dumped row with id 0 keeps it).
    pub fn no_auto_value_on_zero(self) -> bool {
        self.has(bit("NO_AUTO_VALUE_ON_ZERO"))
    }

    /// The modes a combination mode stands for, added (MariaDB's
    /// `expand_sql_mode`).
    fn expanded(self) -> SqlMode {
        let mut m = self.0;
        let options = bit("NO_KEY_OPTIONS") | bit("NO_TABLE_OPTIONS") | bit("NO_FIELD_OPTIONS");
        let ansi_like = Self::PIPES_AS_CONCAT | Self::ANSI_QUOTES | Self::IGNORE_SPACE | options;
        if m & bit("ANSI") != 0 {
            m |= Self::REAL_AS_FLOAT | Self::PIPES_AS_CONCAT | Self::ANSI_QUOTES | Self::IGNORE_SPACE;
        }
        if m & (bit("POSTGRESQL") | bit("MSSQL") | bit("DB2")) != 0 {
            m |= ansi_like;
        }
        if m & bit("ORACLE") != 0 {
            m |= ansi_like | Self::NO_AUTO_CREATE_USER | bit("SIMULTANEOUS_ASSIGNMENT");
        }
        if m & bit("MAXDB") != 0 {
            m |= ansi_like | Self::NO_AUTO_CREATE_USER;
        }
        if m & (bit("MYSQL323") | bit("MYSQL40")) != 0 {
            m |= bit("HIGH_NOT_PRECEDENCE");
        }
        if m & bit("TRADITIONAL") != 0 {
            m |= Self::STRICT_TRANS_TABLES
                | Self::STRICT_ALL_TABLES
                | bit("NO_ZERO_IN_DATE")
                | bit("NO_ZERO_DATE")
                | Self::ERROR_FOR_DIVISION_BY_ZERO
                | Self::NO_AUTO_CREATE_USER
                | Self::NO_ENGINE_SUBSTITUTION;
        }
        SqlMode(m)
    }

    /// `SET sql_mode = n`: the modes of the bits of n, expanded; None for a
    /// bit MariaDB does not know.
    pub fn from_bits(n: u64) -> Option<SqlMode> {
        (n & !Self::ALL == 0).then(|| SqlMode(n).expanded())
    }

    /// `SET sql_mode = 'A,B'`: names in any case, empty elements skipped,
    /// trailing blanks of an element dropped (leading ones are not, as in
    /// MariaDB); Err with the element that names no mode, as it was written.
    pub fn parse(text: &str) -> Result<SqlMode, String> {
        let mut m = 0u64;
        for part in text.split(',') {
            let name = part.trim_end_matches([' ', '\t', '\n', '\r']);
            if name.is_empty() {
                continue;
            }
            match NAMES.iter().position(|n| n.eq_ignore_ascii_case(name)) {
                Some(i) => m |= 1 << i,
                None => return Err(part.to_string()),
            }
        }
        Ok(SqlMode(m).expanded())
    }
}

impl Default for SqlMode {
    fn default() -> SqlMode {
        SqlMode::DEFAULT
    }
}

/// As `@@sql_mode` shows it: the names in bit order, comma separated.
impl std::fmt::Display for SqlMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (i, name) in NAMES.iter().enumerate() {
            if self.0 & (1 << i) != 0 {
                if !first {
                    f.write_str(",")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_bits_are_mariadbs() {
        assert_eq!(SqlMode::NO_BACKSLASH_ESCAPES, 1 << 20);
        assert_eq!(SqlMode::STRICT_TRANS_TABLES, 1 << 21);
        assert_eq!(SqlMode::ERROR_FOR_DIVISION_BY_ZERO, 1 << 26);
        assert_eq!(SqlMode::DEFAULT.to_string(), "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION");
        assert_eq!(SqlMode::ALL, (1 << 35) - 1);
    }

    #[test]
    fn parse_as_mariadb() {
        assert_eq!(SqlMode::parse("").unwrap().0, 0);
        assert_eq!(SqlMode::parse(",,").unwrap().0, 0);
        assert_eq!(SqlMode::parse("strict_trans_tables,Strict_Trans_Tables").unwrap().to_string(), "STRICT_TRANS_TABLES");
        assert_eq!(SqlMode::parse("STRICT_TRANS_TABLES ").unwrap().to_string(), "STRICT_TRANS_TABLES");
        assert_eq!(SqlMode::parse(" STRICT_TRANS_TABLES"), Err(" STRICT_TRANS_TABLES".to_string()));
        assert_eq!(SqlMode::parse("STRICT_TRANS_TABLES, NO_BACKSLASH_ESCAPES"), Err(" NO_BACKSLASH_ESCAPES".to_string()));
        assert_eq!(SqlMode::parse("ANSI_QUOTES,foo,bar"), Err("foo".to_string()));
        assert_eq!(SqlMode::parse("ansi").unwrap().to_string(), "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI");
        assert_eq!(
            SqlMode::parse("traditional").unwrap().to_string(),
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
        );
        assert_eq!(SqlMode::parse("MYSQL40").unwrap().to_string(), "MYSQL40,HIGH_NOT_PRECEDENCE");
    }

    #[test]
    fn bits_as_mariadb() {
        assert_eq!(SqlMode::from_bits(1).unwrap().to_string(), "REAL_AS_FLOAT");
        assert_eq!(SqlMode::from_bits(1 << 8).unwrap().to_string(), "PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,POSTGRESQL,NO_KEY_OPTIONS,NO_TABLE_OPTIONS,NO_FIELD_OPTIONS");
        assert_eq!(
            SqlMode::from_bits(1 << 9).unwrap().to_string(),
            "PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ORACLE,NO_KEY_OPTIONS,NO_TABLE_OPTIONS,NO_FIELD_OPTIONS,NO_AUTO_CREATE_USER,SIMULTANEOUS_ASSIGNMENT"
        );
        assert!(SqlMode::from_bits(1 << 35).is_none());
        assert_eq!(SqlMode::from_bits(SqlMode::ALL).unwrap().0, SqlMode::ALL);
        assert!(SqlMode::parse("STRICT_ALL_TABLES").unwrap().strict());
        assert!(!SqlMode::parse("").unwrap().strict());
    }
}
