//! MySQL table definitions kept beside the SQLite schema.
//!
//! SQLite stores every value as INTEGER, REAL or TEXT; what MySQL clients need
//! to see (the declared type, its length, UNSIGNED, the key flags, the
//! character set, the default, the comment, index names) lives here. Each
//! database file has a hidden table `turnstile_meta` with one JSON document per
//! table, written in the same SQLite transaction as the DDL that changes the
//! table, so the two never disagree after a crash. The engine keeps a parsed
//! copy per database (`Schema`) that result-set metadata, SHOW statements and
//! information_schema read without touching SQLite.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use turnstile_engine::Column;
use turnstile_wire::consts::{charset, colflag, coltype};

/// Name of the hidden table holding MySQL definitions in each database file.
pub const META_TABLE: &str = "turnstile_meta";

/// The MySQL column types (turnstile-sqltext: the SQL front reads them too).
pub use turnstile_sqltext::types::Base;

/// A column default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Default_ {
    Null,
    /// A literal, as MySQL shows it (numbers and strings alike are text).
    Literal(String),
    CurrentTimestamp,
    /// `DEFAULT (expr)`: the MySQL expression text.
    Expr(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnDef {
    pub name: String,
    pub base: Base,
    /// Declared length / precision (`VARCHAR(20)`, `DECIMAL(10,2)`, `INT(11)`, `DATETIME(6)`).
    pub length: Option<u64>,
    /// Declared scale (`DECIMAL(10,2)`).
    pub scale: Option<u64>,
    pub unsigned: bool,
    pub zerofill: bool,
    pub nullable: bool,
    pub default: Option<Default_>,
    pub on_update_now: bool,
    pub auto_increment: bool,
    pub comment: String,
    /// Collation of text columns (None for non-text types).
    pub collation: Option<String>,
    /// ENUM / SET members.
    pub members: Vec<String>,
    /// `CHECK (json_valid(col))` on a text column: MariaDB's JSON type, as
    /// mariadb-dump writes it; values must be valid JSON (error 3819).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub json_check: bool,
    /// The column's own `CHECK (expr)` (MariaDB names it as the column), as
    /// MariaDB shows it (ddl/expr_text.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// `[GENERATED ALWAYS] AS (expr) VIRTUAL|STORED`: a SQLite generated
    /// column of the translated expression (ddl/generate.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<Generated>,
    /// The width a YEAR column was declared with when it was not 4
    /// (`YEAR(2)`, `YEAR(0)`), for MariaDB's deprecation note at CREATE and
    /// ALTER; not stored.
    #[serde(skip)]
    pub year_width: Option<u64>,
}

/// A generated column's expression, as MariaDB shows it (ddl/expr_text.rs),
/// and whether it is STORED (PERSISTENT) rather than VIRTUAL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generated {
    pub expr: String,
    pub stored: bool,
}

impl ColumnDef {
    /// MariaDB's Note 1287 for a YEAR column declared with a width other than 4.
    pub fn year_note(&self) -> Option<(u16, String)> {
        let w = self.year_width?;
        Some((1287, format!("'YEAR({})' is deprecated and will be removed in a future release. Please use YEAR(4) instead", w)))
    }

    /// A nullable column of `base` with no length, default or options.
    pub fn new(name: String, base: Base) -> ColumnDef {
        ColumnDef {
            name,
            base,
            length: None,
            scale: None,
            unsigned: false,
            zerofill: false,
            nullable: true,
            default: None,
            on_update_now: false,
            auto_increment: false,
            comment: String::new(),
            collation: None,
            members: Vec::new(),
            json_check: false,
            check: None,
            generated: None,
            year_width: None,
        }
    }

    /// A DEFAULT expression that names columns of the row (`DEFAULT (a + 1)`):
    /// SQLite keeps no such default; the INSERT computes it (rewrite/insert.rs).
    pub fn row_default(&self) -> Option<&str> {
        match &self.default {
            Some(Default_::Expr(e)) if !crate::ddl::named_columns(e).is_empty() => Some(e),
            _ => None,
        }
    }

    pub fn charset_name(&self) -> Option<&'static str> {
        match self.collation.as_deref() {
            None => None,
            Some(c) if c.starts_with("utf8mb3") || c.starts_with("utf8_") => Some("utf8mb3"),
            Some(c) if c.starts_with("latin1") => Some("latin1"),
            Some(c) if c.starts_with("ascii") => Some("ascii"),
            Some("binary") => Some("binary"),
            Some(_) => Some("utf8mb4"),
        }
    }

    /// Case-insensitive collation (utf8mb4_general_ci and friends)?
    pub fn is_ci(&self) -> bool {
        self.collation.as_deref().is_some_and(|c| !c.ends_with("_bin") && c != "binary" && !c.ends_with("_cs"))
    }

    /// The type as MariaDB 10.11 prints it in SHOW CREATE TABLE / COLUMN_TYPE
    /// / DESCRIBE: integers with their display width (the one given, else
    /// the type's own: int(11), int(10) unsigned, bigint(20)).
    pub fn column_type(&self) -> String {
        let mut s = self.base.sql_name().to_string();
        match self.base {
            Base::TinyInt | Base::SmallInt | Base::MediumInt | Base::Int | Base::BigInt => {
                s.push_str(&format!("({})", self.length.unwrap_or_else(|| self.base.display_width(self.unsigned || self.zerofill))));
            }
            Base::Decimal => s.push_str(&format!("({},{})", self.length.unwrap_or(10), self.scale.unwrap_or(0))),
            Base::Float | Base::Double => {
                if let (Some(l), Some(d)) = (self.length, self.scale) {
                    s.push_str(&format!("({},{})", l, d));
                }
            }
            Base::Bit | Base::Char | Base::VarChar | Base::Binary | Base::VarBinary => s.push_str(&format!("({})", self.length.unwrap_or(1))),
            Base::Year => s.push_str(&format!("({})", self.length.unwrap_or(4))),
            Base::DateTime | Base::Timestamp | Base::Time => {
                if let Some(l) = self.length.filter(|l| *l > 0) {
                    s.push_str(&format!("({})", l));
                }
            }
            Base::Enum | Base::Set => {
                let m: Vec<String> = self.members.iter().map(|m| quote_str(m)).collect();
                s.push_str(&format!("({})", m.join(",")));
            }
            _ => {}
        }
        if self.unsigned {
            s.push_str(" unsigned");
        }
        if self.zerofill {
            s.push_str(" zerofill");
        }
        s
    }

    /// The protocol column type code.
    pub fn wire_type(&self) -> u8 {
        match self.base {
            Base::TinyInt => coltype::TINY,
            Base::SmallInt => coltype::SHORT,
            Base::MediumInt => coltype::INT24,
            Base::Int => coltype::LONG,
            Base::BigInt => coltype::LONGLONG,
            Base::Decimal => coltype::NEWDECIMAL,
            Base::Float => coltype::FLOAT,
            Base::Double => coltype::DOUBLE,
            Base::Bit => coltype::BIT,
            Base::Char | Base::Binary | Base::Enum | Base::Set => coltype::STRING,
            Base::VarChar | Base::VarBinary => coltype::VAR_STRING,
            Base::TinyText | Base::Text | Base::MediumText | Base::LongText => coltype::BLOB,
            Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob => coltype::BLOB,
            Base::Date => coltype::DATE,
            Base::DateTime => coltype::DATETIME,
            Base::Timestamp => coltype::TIMESTAMP,
            Base::Time => coltype::TIME,
            Base::Year => coltype::YEAR,
            // MySQL's JSON type (245): MariaDB sends a LONGTEXT BLOB, but
            // drivers (node mysql2) decode 245 into objects, which
            // applications written for MySQL rely on (tests/clients).
            Base::Json => coltype::JSON,
        }
    }

    /// Column definition as sent in a result set.
    pub fn wire_column(&self, schema: &str, table: &str, name: &str, keys: u16) -> Column {
        let text = self.base.is_text();
        // latin1 and ascii values are kept (and sent) as UTF-8: described,
        // as MariaDB does with character_set_results=utf8mb4, in utf8mb4.
        let mbmax: u64 = match self.charset_name() {
            Some("utf8mb4") | Some("latin1") | Some("ascii") => 4,
            Some("utf8mb3") => 3,
            _ => 1,
        };
        let length: u64 = match self.base {
            // An integer's declared display width (INT(5): 5, what ZEROFILL pads to).
            b if b.is_integer() && !matches!(b, Base::Bit | Base::Year) && self.length.is_some_and(|l| l > 0) => self.length.unwrap_or(0),
            Base::TinyInt => {
                if self.unsigned {
                    3
                } else {
                    4
                }
            }
            Base::SmallInt => {
                if self.unsigned {
                    5
                } else {
                    6
                }
            }
            Base::MediumInt => {
                if self.unsigned {
                    8
                } else {
                    9
                }
            }
            Base::Int => {
                if self.unsigned {
                    10
                } else {
                    11
                }
            }
            Base::BigInt => 20,
            Base::Decimal => {
                let p = self.length.unwrap_or(10);
                let s = self.scale.unwrap_or(0);
                p + (s > 0) as u64 + (!self.unsigned) as u64
            }
            Base::Float => 12,
            Base::Double => 22,
            Base::Bit => self.length.unwrap_or(1),
            Base::Date => 10,
            Base::DateTime | Base::Timestamp => 19 + self.length.filter(|l| *l > 0).map_or(0, |l| l + 1),
            Base::Time => 10 + self.length.filter(|l| *l > 0).map_or(0, |l| l + 1),
            Base::Year => self.length.unwrap_or(4),
            Base::Json | Base::LongText | Base::LongBlob => 4_294_967_295,
            Base::Enum | Base::Set => self.members.iter().map(|m| m.chars().count() as u64).max().unwrap_or(1) * mbmax,
            other => other.max_len(self.length).unwrap_or(0) * if text { mbmax } else { 1 },
        };
        let mut flags = keys;
        if !self.nullable {
            flags |= colflag::NOT_NULL;
        }
        // YEAR is UNSIGNED ZEROFILL in MariaDB's column definitions (a driver picks
        // its scan type by them: go-sql-driver/mysql's uint16).
        if self.unsigned || self.base == Base::Year {
            flags |= colflag::UNSIGNED;
        }
        if self.zerofill || self.base == Base::Year {
            flags |= colflag::ZEROFILL;
        }
        if self.auto_increment {
            flags |= colflag::AUTO_INCREMENT;
        }
        if self.base.is_numeric() {
            flags |= colflag::NUM;
        }
        if matches!(self.base, Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob | Base::Json) {
            flags |= colflag::BLOB;
        }
        if self.base.is_binary() || !(text || self.base == Base::Json) {
            flags |= colflag::BINARY;
        }
        if self.base == Base::Enum {
            flags |= colflag::ENUM;
        }
        if self.base == Base::Set {
            flags |= colflag::SET;
        }
        if self.base == Base::Timestamp && self.on_update_now {
            flags |= colflag::TIMESTAMP;
        }
        if self.base == Base::Bit {
            // MariaDB: BIT is UNSIGNED, neither NUM nor BINARY (its value is bytes).
            flags = (flags | colflag::UNSIGNED) & !(colflag::NUM | colflag::BINARY);
        }
        let cs = if text {
            match self.charset_name() {
                Some("utf8mb3") => charset::UTF8_GENERAL_CI,
                Some("latin1") | Some("ascii") => charset::UTF8MB4_GENERAL_CI,
                _ => collation_id(self.collation.as_deref().unwrap_or("utf8mb4_general_ci")),
            }
        } else {
            charset::BINARY
        };
        let decimals = match self.base {
            Base::Decimal => self.scale.unwrap_or(0) as u8,
            Base::Float | Base::Double => self.scale.map_or(31, |s| s as u8),
            Base::DateTime | Base::Timestamp | Base::Time => self.length.unwrap_or(0) as u8,
            Base::Char | Base::VarChar | Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::Enum | Base::Set | Base::Json => 0,
            _ => 0,
        };
        Column {
            schema: schema.to_string(),
            table: table.to_string(),
            org_table: table.to_string(),
            name: name.to_string(),
            org_name: self.name.clone(),
            charset: cs,
            length: length.min(u32::MAX as u64) as u32,
            coltype: self.wire_type(),
            flags,
            decimals,
        }
    }

    /// A BIT column's literal default as its bits (`b'101'`, `0x05`, `5`).
    pub fn bit_default(&self) -> Option<u64> {
        let Some(Default_::Literal(v)) = &self.default else { return None };
        if self.base != Base::Bit {
            return None;
        }
        match turnstile_sqltext::lex::hybrid_bytes(v) {
            Some(b) if b.iter().skip_while(|&&x| x == 0).count() <= 8 => Some(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))),
            Some(_) => None,
            None => v.parse().ok(),
        }
    }

    /// A literal default as MariaDB shows it: a DECIMAL's with its scale's
    /// digits (1.50 in DECIMAL(10,2)), others as stored.
    fn literal_shown(&self, v: &str) -> String {
        if self.base == Base::Year {
            if let Ok(n) = v.parse::<i64>() {
                return format!("{:04}", n);
            }
        }
        let Some(scale) = self.scale.filter(|_| self.base == Base::Decimal) else { return v.to_string() };
        let (int, frac) = v.split_once('.').unwrap_or((v, ""));
        if !frac.bytes().all(|b| b.is_ascii_digit()) || frac.len() > scale as usize {
            return v.to_string();
        }
        match scale {
            0 => int.to_string(),
            _ => format!("{}.{:0<width$}", int, frac, width = scale as usize),
        }
    }

    /// DEFAULT / ON UPDATE CURRENT_TIMESTAMP as MariaDB's SHOW CREATE TABLE
    /// prints it: a call with the column's fractional digits
    /// (`current_timestamp(6)` in a TIMESTAMP(6)), `current_timestamp()`.
    fn now_shown(&self) -> String {
        match self.length.filter(|&n| n > 0 && matches!(self.base, Base::DateTime | Base::Timestamp)) {
            Some(n) => format!("current_timestamp({})", n),
            None => "current_timestamp()".into(),
        }
    }

    /// The DEFAULT value as information_schema / SHOW COLUMNS print it.
    pub fn default_text(&self) -> Option<String> {
        if let Some(bits) = self.bit_default() {
            return Some(format!("b'{:b}'", bits));
        }
        match &self.default {
            None | Some(Default_::Null) => None,
            Some(Default_::Literal(s)) => Some(self.literal_shown(s)),
            Some(Default_::CurrentTimestamp) => Some("CURRENT_TIMESTAMP".into()),
            Some(Default_::Expr(e)) => Some(shown_expression_default(e)),
        }
    }

    pub fn extra(&self) -> String {
        if let Some(g) = &self.generated {
            return if g.stored { "STORED GENERATED" } else { "VIRTUAL GENERATED" }.into();
        }
        let mut e = Vec::new();
        if self.auto_increment {
            e.push("auto_increment".to_string());
        }
        if matches!(self.default, Some(Default_::CurrentTimestamp)) || matches!(self.default, Some(Default_::Expr(_))) {
            e.push("DEFAULT_GENERATED".into());
        }
        if self.on_update_now {
            e.push("on update CURRENT_TIMESTAMP".into());
        }
        e.join(" ")
    }
}

/// MySQL collation ids for the collations Turnstile names.
pub fn collation_id(name: &str) -> u16 {
    match name {
        "utf8mb4_general_ci" => 45,
        "utf8mb4_bin" => 46,
        "utf8mb4_unicode_ci" => 224,
        "utf8mb4_0900_ai_ci" => 255,
        "utf8mb4_0900_bin" => 309,
        "utf8mb3_general_ci" | "utf8_general_ci" => 33,
        "utf8mb3_bin" | "utf8_bin" => 83,
        "latin1_swedish_ci" => 8,
        "latin1_bin" => 47,
        "ascii_general_ci" => 11,
        "binary" => 63,
        _ => 45,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexDef {
    /// MySQL name (`PRIMARY` for the primary key).
    pub name: String,
    /// Name of the SQLite index (unique per database file); empty for the
    /// primary key, which is part of the table.
    pub sqlite_name: String,
    pub unique: bool,
    pub columns: Vec<String>,
    /// Prefix lengths as declared (`KEY (c(10))`); SQLite indexes the whole value.
    pub prefix: Vec<Option<u64>>,
    pub comment: String,
    /// `FULLTEXT KEY`: kept and shown as MariaDB does, an ordinary SQLite
    /// index underneath (MATCH ... AGAINST is refused, 1235).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fulltext: bool,
    /// `USING BTREE` / `USING HASH` as declared: SHOW CREATE TABLE shows
    /// the algorithm only when one was named (MariaDB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub using: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForeignKey {
    pub name: String,
    pub columns: Vec<String>,
    /// The database REFERENCES named, if it named one (only the table's own
    /// is supported: `check_ddl` refuses another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_db: Option<String>,
    pub ref_table: String,
    pub ref_columns: Vec<String>,
    pub on_delete: String,
    pub on_update: String,
}

impl ForeignKey {
    /// `CONSTRAINT .. FOREIGN KEY (..) REFERENCES .. (..) [ON DELETE ..] [ON UPDATE ..]`,
    /// with identifiers quoted by `quote` (MySQL's backticks or SQLite's quotes).
    pub fn clause(&self, quote: fn(&str) -> String) -> String {
        let list = |cols: &[String]| cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ");
        let mut s = format!("CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})", quote(&self.name), list(&self.columns), quote(&self.ref_table), list(&self.ref_columns));
        if !self.on_delete.is_empty() {
            s.push_str(&format!(" ON DELETE {}", self.on_delete));
        }
        if !self.on_update.is_empty() {
            s.push_str(&format!(" ON UPDATE {}", self.on_update));
        }
        s
    }
}

/// A table's `[CONSTRAINT name] CHECK (expr)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckDef {
    /// As given, or MariaDB's `CONSTRAINT_<n>`.
    pub name: String,
    /// The expression as MariaDB shows it (ddl/expr_text.rs).
    pub clause: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableDef {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// Primary key columns (empty: none).
    pub primary: Vec<String>,
    /// The primary key's `USING BTREE` / `USING HASH`, if declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_using: Option<String>,
    pub indexes: Vec<IndexDef>,
    #[serde(default)]
    pub foreign_keys: Vec<ForeignKey>,
    /// Table-level CHECK constraints (a column's own is `ColumnDef::check`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckDef>,
    pub engine: String,
    pub collation: String,
    pub comment: String,
    /// Seconds since the epoch.
    pub created: u64,
    /// A view: what CREATE VIEW said (exec/views.rs). Its `columns` are the
    /// result columns' types, worked out when it was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<ViewDef>>,
}

/// A view's MySQL definition, kept for SHOW CREATE VIEW and
/// information_schema.VIEWS; SQLite holds the translated view itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewDef {
    /// The SELECT as the client wrote it.
    pub select: String,
    /// The column list of `CREATE VIEW v (a, b)`, empty when none was given.
    pub column_list: Vec<String>,
    /// UNDEFINED, MERGE or TEMPTABLE.
    pub algorithm: String,
    /// `user`@`host`, quoted.
    pub definer: String,
    /// DEFINER or INVOKER.
    pub security: String,
    /// NONE, CASCADED or LOCAL.
    pub check_option: String,
    /// The tables and views its SELECT names (all in the view's database),
    /// once per reference.
    pub names: Vec<String>,
    /// The SELECT as MariaDB shows it (exec/view_text.rs: its columns named
    /// and qualified), when it is one printed there; else `select` is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    /// character_set_client and collation_connection of the session that
    /// made it (None: a view made before they were kept, utf8mb4's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_charset: Option<(String, String)>,
    /// A view SQLite cannot hold (its query reads information_schema): no
    /// SQLite view reads it; each statement that names it reads this MySQL
    /// query as a derived table instead (view_expand.rs), its tables
    /// qualified by the view's database.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expand: Option<String>,
}

impl ViewDef {
    /// The query SHOW CREATE VIEW and information_schema.VIEWS show.
    pub fn shown_select(&self) -> &str {
        self.shown.as_deref().unwrap_or(&self.select)
    }

    /// Its character_set_client and collation_connection.
    pub fn charset(&self) -> (&str, &str) {
        self.client_charset.as_ref().map_or(("utf8mb4", "utf8mb4_general_ci"), |(c, o)| (c.as_str(), o.as_str()))
    }
}

impl TableDef {
    pub fn column(&self, name: &str) -> Option<&ColumnDef> {
        self.columns.iter().find(|c| c.name.eq_ignore_ascii_case(name))
    }
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name))
    }
    pub fn auto_increment_column(&self) -> Option<&ColumnDef> {
        self.columns.iter().find(|c| c.auto_increment)
    }

    /// Key flags of a column (PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY) as MySQL sets them.
    pub fn key_flags(&self, col: &str) -> u16 {
        let mut f = 0;
        if self.primary.iter().any(|c| c.eq_ignore_ascii_case(col)) {
            f |= colflag::PRI_KEY;
        }
        for ix in &self.indexes {
            if ix.columns.first().is_some_and(|c| c.eq_ignore_ascii_case(col)) {
                if ix.unique && ix.columns.len() == 1 {
                    f |= colflag::UNIQUE_KEY;
                } else {
                    f |= colflag::MULTIPLE_KEY;
                }
            }
        }
        f
    }

    /// The columns MariaDB shows as the primary key: the PRIMARY KEY's, else
    /// those of the first UNIQUE key whose columns are all NOT NULL and
    /// whole (no prefix), which MariaDB takes for the primary key when a
    /// table has none (Key PRI in SHOW COLUMNS).
    fn shown_primary(&self) -> &[String] {
        if !self.primary.is_empty() {
            return &self.primary;
        }
        let promoted = |ix: &&IndexDef| ix.unique && !ix.fulltext && ix.prefix.iter().all(Option::is_none) && ix.columns.iter().all(|c| self.column(c).is_some_and(|cd| !cd.nullable));
        self.indexes.iter().find(promoted).map_or(&[], |ix| &ix.columns)
    }

    /// COLUMN_KEY / the Key column of SHOW COLUMNS.
    pub fn column_key(&self, col: &str) -> &'static str {
        if self.shown_primary().iter().any(|c| c.eq_ignore_ascii_case(col)) {
            return "PRI";
        }
        for ix in &self.indexes {
            if ix.columns.first().is_some_and(|c| c.eq_ignore_ascii_case(col)) {
                return if ix.unique && ix.columns.len() == 1 { "UNI" } else { "MUL" };
            }
        }
        ""
    }

    /// SHOW TABLE STATUS's Row_format as MariaDB's engines give it: MEMORY
    /// rows are Fixed, Aria's Page, MyISAM's Fixed unless a column is of
    /// variable length, InnoDB's (and others') Dynamic.
    pub fn row_format(&self) -> &'static str {
        let variable = |b: Base| {
            matches!(
                b,
                Base::VarChar | Base::VarBinary | Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob | Base::Json
            )
        };
        match self.engine.to_ascii_lowercase().as_str() {
            "memory" | "heap" => "Fixed",
            "aria" => "Page",
            "myisam" if !self.columns.iter().any(|c| variable(c.base)) => "Fixed",
            _ => "Dynamic",
        }
    }

    /// SHOW CREATE TABLE, in MariaDB 10.11's layout.
    pub fn show_create(&self, auto_increment: Option<i64>) -> String {
        self.show_create_quoted(auto_increment, quote_ident)
    }

    /// SHOW CREATE TABLE with names quoted by `quote` (`quote_ident`, or
    /// `quote_if_needed` when sql_quote_show_create is off).
    pub fn show_create_quoted(&self, auto_increment: Option<i64>, quote: fn(&str) -> String) -> String {
        let mut lines: Vec<String> = Vec::new();
        for c in &self.columns {
            let mut l = format!("  {} {}", quote(&c.name), c.column_type());
            if c.base.is_text() {
                if let Some(coll) = &c.collation {
                    if coll != &self.collation {
                        l.push_str(&format!(" CHARACTER SET {} COLLATE {}", c.charset_name().unwrap_or("utf8mb4"), coll));
                    }
                }
            }
            if let Some(g) = &c.generated {
                // MariaDB: no NULL / DEFAULT on a generated column.
                l.push_str(&format!(" GENERATED ALWAYS AS ({}) {}", g.expr, if g.stored { "STORED" } else { "VIRTUAL" }));
            } else if !c.nullable {
                l.push_str(" NOT NULL");
            } else if c.base == Base::Timestamp {
                l.push_str(" NULL");
            }
            match &c.default {
                _ if c.generated.is_some() => {}
                // MariaDB: DEFAULT b'101' for a BIT column.
                Some(Default_::Literal(_)) if c.bit_default().is_some() => l.push_str(&format!(" DEFAULT b'{:b}'", c.bit_default().unwrap_or(0))),
                Some(Default_::Null) if c.nullable => l.push_str(" DEFAULT NULL"),
                // MariaDB leaves numbers unquoted: DEFAULT 0, DEFAULT 1.50.
                Some(Default_::Literal(v)) if c.base.is_numeric() && v.parse::<f64>().is_ok() => l.push_str(&format!(" DEFAULT {}", c.literal_shown(v))),
                Some(Default_::Literal(v)) => l.push_str(&format!(" DEFAULT {}", quote_str(v))),
                Some(Default_::CurrentTimestamp) => l.push_str(&format!(" DEFAULT {}", c.now_shown())),
                Some(Default_::Expr(e)) => l.push_str(&format!(" DEFAULT {}", shown_expression_default(e))),
                // MariaDB: DEFAULT NULL for BLOB and TEXT columns too.
                None if c.nullable && c.base != Base::Json => l.push_str(" DEFAULT NULL"),
                _ => {}
            }
            if c.on_update_now {
                l.push_str(&format!(" ON UPDATE {}", c.now_shown()));
            }
            if c.auto_increment {
                l.push_str(" AUTO_INCREMENT");
            }
            if !c.comment.is_empty() {
                l.push_str(&format!(" COMMENT {}", quote_str(&c.comment)));
            }
            if c.json_check {
                l.push_str(&format!(" CHECK (json_valid({}))", quote(&c.name)));
            }
            if let Some(check) = &c.check {
                l.push_str(&format!(" CHECK ({})", check));
            }
            lines.push(l);
        }
        if !self.primary.is_empty() {
            let using = self.primary_using.as_ref().map(|u| format!(" USING {}", u)).unwrap_or_default();
            lines.push(format!("  PRIMARY KEY ({}){}", self.primary.iter().map(|c| quote(c)).collect::<Vec<_>>().join(","), using));
        }
        for ix in &self.indexes {
            let cols: Vec<String> = ix
                .columns
                .iter()
                .zip(ix.prefix.iter().chain(std::iter::repeat(&None)))
                .map(|(c, p)| match p {
                    Some(n) => format!("{}({})", quote(c), n),
                    None => quote(c),
                })
                .collect();
            let kind = if ix.unique {
                "UNIQUE "
            } else if ix.fulltext {
                "FULLTEXT "
            } else {
                ""
            };
            let mut l = format!("  {}KEY {} ({})", kind, quote(&ix.name), cols.join(","));
            if let Some(u) = &ix.using {
                l.push_str(&format!(" USING {}", u));
            }
            if !ix.comment.is_empty() {
                l.push_str(&format!(" COMMENT {}", quote_str(&ix.comment)));
            }
            lines.push(l);
        }
        for fk in &self.foreign_keys {
            lines.push(format!("  {}", fk.clause(quote)));
        }
        for ck in &self.checks {
            lines.push(format!("  CONSTRAINT {} CHECK ({})", quote(&ck.name), ck.clause));
        }
        let cs = charset_of(&self.collation);
        let mut s = format!("CREATE TABLE {} (\n{}\n) ENGINE={}", quote(&self.name), lines.join(",\n"), self.engine);
        if let Some(ai) = auto_increment.filter(|v| *v > 1) {
            s.push_str(&format!(" AUTO_INCREMENT={}", ai));
        }
        s.push_str(&format!(" DEFAULT CHARSET={} COLLATE={}", cs, self.collation));
        if !self.comment.is_empty() {
            s.push_str(&format!(" COMMENT={}", quote_str(&self.comment)));
        }
        s
    }
}

/// An expression default as MariaDB shows it: a call as it is
/// (`uuid()`), anything else in parentheses (`(1 + 2)`).
pub fn shown_expression_default(e: &str) -> String {
    // A call, or another column (`DEFAULT a`), is shown bare; MariaDB
    // parenthesizes any other expression.
    let call = turnstile_sqltext::lex::tokenize(e).is_ok_and(|toks| {
        (toks.len() == 1 && matches!(&toks[0].tok, turnstile_sqltext::lex::Tok::Quoted(_)))
            || toks.len() >= 3
                && matches!(&toks[0].tok, turnstile_sqltext::lex::Tok::Word(_))
                && toks[1].is_op("(")
                && toks.last().is_some_and(|t| t.is_op(")"))
                && toks
                    .iter()
                    .scan(0i32, |depth, t| {
                        *depth += i32::from(t.is_op("(")) - i32::from(t.is_op(")"));
                        Some(*depth)
                    })
                    .skip(1)
                    .take(toks.len() - 2)
                    .all(|d| d > 0)
    });
    if call && !parenthesized_cast(e) {
        e.to_string()
    } else {
        format!("({})", e)
    }
}

/// A CAST (or CONVERT to a type) MariaDB parenthesizes as an operator: all
/// but those to DATE, TIME and DATETIME, which print as calls.
fn parenthesized_cast(e: &str) -> bool {
    use turnstile_sqltext::lex::{tokenize, Tok};
    let Ok(toks) = tokenize(e) else { return false };
    let cast = toks.first().is_some_and(|t| t.is_kw("cast"));
    let convert = toks.first().is_some_and(|t| t.is_kw("convert")) && !toks.iter().any(|t| t.is_kw("using"));
    if !cast && !convert {
        return false;
    }
    // The type: the word after the last top-level AS (CAST) or comma (CONVERT).
    let mut depth = 0i32;
    let mut ty = None;
    for (k, t) in toks.iter().enumerate() {
        depth += i32::from(t.is_op("(")) - i32::from(t.is_op(")"));
        if depth == 1 && ((cast && t.is_kw("as")) || (convert && t.is_op(","))) {
            ty = toks.get(k + 1);
        }
    }
    !ty.is_some_and(|t| matches!(&t.tok, Tok::Word(w) if ["date", "time", "datetime"].iter().any(|d| d.eq_ignore_ascii_case(w))))
}

pub fn charset_of(collation: &str) -> &'static str {
    if collation.starts_with("utf8mb3") || collation.starts_with("utf8_") {
        "utf8mb3"
    } else if collation.starts_with("latin1") {
        "latin1"
    } else if collation.starts_with("ascii") {
        "ascii"
    } else if collation == "binary" {
        "binary"
    } else {
        "utf8mb4"
    }
}

/// A name as SHOW CREATE writes it with sql_quote_show_create off: bare
/// unless MariaDB would quote it (a keyword, a character outside a plain
/// name, digits only).
pub fn quote_if_needed(s: &str) -> String {
    if turnstile_sqltext::keywords::needs_quotes(s) {
        quote_ident(s)
    } else {
        s.to_string()
    }
}

pub fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

pub fn quote_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('\'');
    for c in s.chars() {
        match c {
            '\'' => o.push_str("''"),
            '\\' => o.push_str("\\\\"),
            '\0' => o.push_str("\\0"),
            c => o.push(c),
        }
    }
    o.push('\'');
    o
}

/// SQLite identifier quoting.
pub fn sq_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// SQLite string literal. A NUL would end SQLite's reading of the
/// statement's text: such a string is written as its bytes, cast to TEXT.
pub fn sq_str(s: &str) -> String {
    if s.contains('\0') {
        let hex: String = s.bytes().map(|b| format!("{:02X}", b)).collect();
        return format!("(CAST(X'{}' AS TEXT))", hex);
    }
    format!("'{}'", s.replace('\'', "''"))
}

/// All MySQL table definitions of one database, shared read-only by sessions.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    /// Keyed by lowercased table name.
    pub tables: HashMap<String, std::sync::Arc<TableDef>>,
}

impl Schema {
    pub fn table(&self, name: &str) -> Option<&std::sync::Arc<TableDef>> {
        self.tables.get(&name.to_ascii_lowercase())
    }
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.tables.values().map(|t| t.name.clone()).collect();
        v.sort();
        v
    }
}

/// `temporal_kind` with the column's fractional-second precision: `time(3)`
/// (see `normalize_temporal`).
pub fn temporal_kind_fsp(base: Base, fsp: u64) -> Option<&'static str> {
    const TIME: [&str; 7] = ["time(0)", "time(1)", "time(2)", "time(3)", "time(4)", "time(5)", "time(6)"];
    const DATETIME: [&str; 7] = ["datetime(0)", "datetime(1)", "datetime(2)", "datetime(3)", "datetime(4)", "datetime(5)", "datetime(6)"];
    const TIMESTAMP: [&str; 7] = ["timestamp(0)", "timestamp(1)", "timestamp(2)", "timestamp(3)", "timestamp(4)", "timestamp(5)", "timestamp(6)"];
    let f = fsp.min(6) as usize;
    match base {
        Base::Time => Some(TIME[f]),
        Base::DateTime => Some(DATETIME[f]),
        Base::Timestamp => Some(TIMESTAMP[f]),
        _ => temporal_kind(base),
    }
}

/// The temporal column kind a value is written to, as the SQL functions name it.
pub fn temporal_kind(base: Base) -> Option<&'static str> {
    match base {
        Base::Date => Some("date"),
        Base::Time => Some("time"),
        Base::Timestamp => Some("timestamp"),
        Base::DateTime => Some("datetime"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(base: Base) -> ColumnDef {
        ColumnDef { collation: if base.is_text() { Some("utf8mb4_general_ci".into()) } else { None }, ..ColumnDef::new("c".into(), base) }
    }

    #[test]
    fn defaults_shown_as_mariadb() {
        assert_eq!(shown_expression_default("cast(`a` as signed)"), "(cast(`a` as signed))");
        assert_eq!(shown_expression_default("cast(`a` as date)"), "cast(`a` as date)");
        assert_eq!(shown_expression_default("convert(`a`,char)"), "(convert(`a`,char))");
        assert_eq!(shown_expression_default("convert(`b` using latin1)"), "convert(`b` using latin1)");
        assert_eq!(shown_expression_default("ucase(`a`)"), "ucase(`a`)");
        let mut t = col(Base::Timestamp);
        assert_eq!(t.now_shown(), "current_timestamp()");
        t.length = Some(6);
        assert_eq!(t.now_shown(), "current_timestamp(6)");
        let mut y = col(Base::Year);
        y.default = Some(Default_::Literal("0".into()));
        assert_eq!(y.default_text().as_deref(), Some("0000"));
    }

    #[test]
    fn column_types_print_like_mysql() {
        let mut c = col(Base::Int);
        assert_eq!(c.column_type(), "int(11)");
        c.length = Some(5);
        assert_eq!(c.column_type(), "int(5)");
        c.length = None;
        c.unsigned = true;
        assert_eq!(c.column_type(), "int(10) unsigned");
        assert_eq!(col(Base::BigInt).column_type(), "bigint(20)");
        let mut d = col(Base::Decimal);
        d.length = Some(10);
        d.scale = Some(2);
        assert_eq!(d.column_type(), "decimal(10,2)");
        let w = d.wire_column("db", "t", "c", 0);
        assert_eq!((w.coltype, w.length, w.decimals), (coltype::NEWDECIMAL, 12, 2));
        let mut e = col(Base::Enum);
        e.members = vec!["a".into(), "b'c".into()];
        assert_eq!(e.column_type(), "enum('a','b''c')");
        let mut v = col(Base::VarChar);
        v.length = Some(20);
        let w = v.wire_column("db", "t", "c", 0);
        assert_eq!((w.coltype, w.length, w.charset), (coltype::VAR_STRING, 80, 45));
        let y = col(Base::Year).wire_column("db", "t", "c", 0);
        assert_eq!(y.flags & (colflag::UNSIGNED | colflag::ZEROFILL), colflag::UNSIGNED | colflag::ZEROFILL);
        let b = col(Base::Blob).wire_column("db", "t", "c", 0);
        assert_eq!(b.charset, 63);
        assert!(b.flags & colflag::BINARY != 0 && b.flags & colflag::BLOB != 0);
    }
}
