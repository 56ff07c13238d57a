//! Parsing of account statements: CREATE USER, DROP USER, ALTER USER,
//! SET PASSWORD, GRANT, REVOKE, SHOW GRANTS. The server applies them to its
//! account store (turnstile-server's `accounts`).

use crate::expr::Parser;
use crate::privs;
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::Tok;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserName {
    pub user: String,
    pub host: String,
}

impl std::fmt::Display for UserName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}'@'{}'", self.user, self.host)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSpec {
    pub name: UserName,
    /// Plugin named with IDENTIFIED WITH, if any.
    pub plugin: Option<String>,
    /// Clear-text password from IDENTIFIED BY, if any.
    pub password: Option<String>,
    /// A hash as stored, from `IDENTIFIED WITH plugin AS 'hash'` or
    /// `IDENTIFIED BY PASSWORD 'hash'` (mysql_native_password's `*HEX`).
    pub hash: Option<String>,
    /// `REQUIRE ...` after the user list (it applies to each); None: not given.
    pub require: Option<Require>,
}

/// What an account's connection must be (`REQUIRE`; MariaDB's mysql.user
/// ssl_type, ssl_cipher, x509_issuer, x509_subject). `Default` is REQUIRE NONE.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Require {
    /// TLS (SSL, and every form below).
    pub tls: bool,
    /// A client certificate signed by ssl_ca (X509; ISSUER and SUBJECT imply it).
    pub x509: bool,
    /// The certificate's issuer and subject as OpenSSL's oneline form prints them.
    pub issuer: Option<String>,
    pub subject: Option<String>,
    /// The TLS cipher, by its OpenSSL name (no certificate needed, as in MariaDB).
    pub cipher: Option<String>,
}

impl Require {
    /// mysql.user's ssl_type: '', ANY, X509 or SPECIFIED.
    pub fn ssl_type(&self) -> &'static str {
        if self.issuer.is_some() || self.subject.is_some() || self.cipher.is_some() {
            "SPECIFIED"
        } else if self.x509 {
            "X509"
        } else if self.tls {
            "ANY"
        } else {
            ""
        }
    }

    /// SHOW GRANTS's clause, as MariaDB prints it (with its leading space; '' for NONE).
    pub fn clause(&self) -> String {
        let quote = |s: &str| format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"));
        match self.ssl_type() {
            "SPECIFIED" => {
                let parts: Vec<String> =
                    [("ISSUER", &self.issuer), ("SUBJECT", &self.subject), ("CIPHER", &self.cipher)].iter().filter_map(|(k, v)| v.as_deref().map(|v| format!("{k} {}", quote(v)))).collect();
                format!(" REQUIRE {}", parts.join(" "))
            }
            "X509" => " REQUIRE X509".into(),
            "ANY" => " REQUIRE SSL".into(),
            _ => String::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountStmt {
    CreateUser {
        users: Vec<UserSpec>,
        if_not_exists: bool,
    },
    DropUser {
        users: Vec<UserName>,
        if_exists: bool,
    },
    AlterUser {
        users: Vec<UserSpec>,
        if_exists: bool,
    },
    /// `None` user: the current user.
    SetPassword {
        user: Option<UserName>,
        password: String,
    },
    /// db `None` means `*.*`; `Some("")` the session's current database
    /// (`ON *`, `ON t`), which the front fills in before the server applies it.
    Grant {
        privs: u32,
        db: Option<String>,
        /// A table-level grant (`ON db.t`): the table.
        table: Option<String>,
        /// Column-level grants (`SELECT (a, b)`): bits and columns.
        columns: Vec<(u32, Vec<String>)>,
        users: Vec<UserSpec>,
        grant_option: bool,
        /// Create a missing account (sql_mode without NO_AUTO_CREATE_USER);
        /// set by the front from the session's sql_mode.
        create_missing: bool,
    },
    Revoke {
        privs: u32,
        db: Option<String>,
        table: Option<String>,
        columns: Vec<(u32, Vec<String>)>,
        users: Vec<UserName>,
    },
    /// `REVOKE ALL PRIVILEGES, GRANT OPTION FROM ...`: every privilege at
    /// every level.
    RevokeAll {
        users: Vec<UserName>,
    },
    ShowGrants {
        user: Option<UserName>,
    },
}

pub fn user_name(p: &mut Parser<'_>) -> Result<UserName, SqlError> {
    if p.eat_kw("CURRENT_USER") {
        if p.eat_op("(") {
            p.expect_op(")")?;
        }
        return Ok(UserName { user: String::new(), host: String::new() });
    }
    let user = p.name()?;
    // 'u'@'h' lexes as Str, UserVar("'h'") because of the @; handle both shapes.
    let host = match p.peek().map(|t| &t.tok) {
        Some(Tok::UserVar(h)) => {
            p.next();
            h.clone()
        }
        _ => "%".to_string(),
    };
    Ok(UserName { user, host })
}

fn user_spec(p: &mut Parser<'_>) -> Result<UserSpec, SqlError> {
    let name = user_name(p)?;
    let mut spec = UserSpec { name, plugin: None, password: None, hash: None, require: None };
    if p.eat_kw("IDENTIFIED") {
        if p.eat_kw("WITH") {
            spec.plugin = Some(p.name()?.to_ascii_lowercase());
            if p.eat_kw("BY") {
                spec.password = Some(string(p)?);
            } else if p.eat_kw("AS") {
                spec.hash = Some(string(p)?);
            }
        } else {
            p.expect_kw("BY")?;
            if p.eat_kw("PASSWORD") {
                // MariaDB's form, always a mysql_native_password hash.
                spec.plugin = Some("mysql_native_password".into());
                spec.hash = Some(string(p)?);
            } else {
                spec.password = Some(string(p)?);
            }
        }
    }
    Ok(spec)
}

fn string(p: &mut Parser<'_>) -> Result<String, SqlError> {
    match p.peek().map(|t| &t.tok) {
        Some(Tok::Str(s)) => {
            p.next();
            Ok(String::from_utf8_lossy(s).into_owned())
        }
        _ => Err(p.error().into()),
    }
}

fn list<T>(p: &mut Parser<'_>, mut f: impl FnMut(&mut Parser<'_>) -> Result<T, SqlError>) -> Result<Vec<T>, SqlError> {
    let mut v = vec![f(p)?];
    while p.eat_op(",") {
        v.push(f(p)?);
    }
    Ok(v)
}

fn if_exists(p: &mut Parser<'_>) -> Result<bool, SqlError> {
    if p.eat_kw("IF") {
        p.expect_kw("EXISTS")?;
        return Ok(true);
    }
    Ok(false)
}

/// The options after CREATE/ALTER USER's list: `REQUIRE NONE | SSL | X509 |
/// {ISSUER | SUBJECT | CIPHER} 'text' [[AND] ...]` is kept on every user of
/// the list (an option given twice is MariaDB's 1225); the rest (PASSWORD
/// EXPIRE NEVER, resource limits, ...) is accepted and ignored.
fn account_options(p: &mut Parser<'_>, users: &mut [UserSpec]) -> Result<(), SqlError> {
    while !p.exhausted() && !p.peek().is_some_and(|t| t.is_op(";")) {
        if p.eat_kw("REQUIRE") {
            let require = require(p)?;
            users.iter_mut().for_each(|u| u.require = Some(require.clone()));
            continue;
        }
        p.next();
    }
    Ok(())
}

fn require(p: &mut Parser<'_>) -> Result<Require, SqlError> {
    if p.eat_kw("NONE") {
        return Ok(Require::default());
    }
    if p.eat_kw("SSL") {
        return Ok(Require { tls: true, ..Default::default() });
    }
    if p.eat_kw("X509") {
        return Ok(Require { tls: true, x509: true, ..Default::default() });
    }
    let mut r = Require { tls: true, ..Default::default() };
    loop {
        let (name, slot) = if p.eat_kw("ISSUER") {
            ("ISSUER", &mut r.issuer)
        } else if p.eat_kw("SUBJECT") {
            ("SUBJECT", &mut r.subject)
        } else if p.eat_kw("CIPHER") {
            ("CIPHER", &mut r.cipher)
        } else {
            break;
        };
        if slot.is_some() {
            return Err(SqlError::new(1225, "HY000", format!("Option '{name}' used twice in statement")));
        }
        *slot = Some(string(p)?);
        p.eat_kw("AND");
    }
    if r.issuer.is_none() && r.subject.is_none() && r.cipher.is_none() {
        return Err(p.error().into());
    }
    r.x509 = r.issuer.is_some() || r.subject.is_some();
    Ok(r)
}

/// The privileges of a GRANT or REVOKE: table/database/global bits, and
/// column-level ones (`SELECT (a, b)`) with their columns.
type PrivList = (u32, Vec<(u32, Vec<String>)>);

fn priv_list(p: &mut Parser<'_>) -> Result<PrivList, SqlError> {
    let mut bits = 0;
    let mut columns = Vec::new();
    loop {
        if p.peek().is_some_and(|t| t.is_kw("GRANT")) {
            // `REVOKE SELECT, GRANT OPTION ON ...`
            p.next();
            p.expect_kw("OPTION")?;
            bits |= privs::GRANT_OPTION;
        } else {
            let bit = one_priv(p)?;
            // Only SELECT, INSERT, UPDATE and REFERENCES take columns (MariaDB: 1064).
            if bit & !privs::COLUMN_ALL == 0 && bit != 0 && p.eat_op("(") {
                let cols = list(p, |p| p.name())?;
                p.expect_op(")")?;
                columns.push((bit, cols));
            } else {
                bits |= bit;
            }
        }
        if !p.eat_op(",") {
            return Ok((bits, columns));
        }
    }
}

fn one_priv(p: &mut Parser<'_>) -> Result<u32, SqlError> {
    let w = p.name()?.to_ascii_uppercase();
    Ok(match w.as_str() {
        "ALL" => {
            p.eat_kw("PRIVILEGES");
            privs::ALL
        }
        "CREATE" if p.eat_kw("TEMPORARY") => {
            p.expect_kw("TABLES")?;
            privs::CREATE_TMP_TABLE
        }
        "LOCK" => {
            p.expect_kw("TABLES")?;
            privs::LOCK_TABLES
        }
        "CREATE" if p.eat_kw("ROUTINE") => privs::CREATE_ROUTINE,
        "ALTER" if p.eat_kw("ROUTINE") => privs::ALTER_ROUTINE,
        "USAGE" => 0,
        name if privs::NAMES.iter().any(|(_, n)| *n == name) => privs::NAMES.iter().find(|(_, n)| *n == name).map_or(0, |(b, _)| *b),
        other => return Err(SqlError::unsupported(&format!("privilege {}", other))),
    })
}

/// The level a GRANT or REVOKE applies at: `*.*` → (None, None), `db.*` →
/// (Some(db), None), `db.t` → (Some(db), Some(t)); `*` and an unqualified
/// `t` name the current database as `Some("")`.
fn priv_level(p: &mut Parser<'_>) -> Result<(Option<String>, Option<String>), SqlError> {
    if p.peek().is_some_and(|t| t.is_kw("PROCEDURE") || t.is_kw("FUNCTION") || t.is_kw("PACKAGE")) {
        return Err(SqlError::unsupported("privileges on routines"));
    }
    p.eat_kw("TABLE");
    if p.eat_op("*") {
        if p.eat_op(".") {
            p.expect_op("*")?;
            return Ok((None, None));
        }
        return Ok((Some(String::new()), None));
    }
    let first = p.name()?;
    if !p.eat_op(".") {
        return Ok((Some(String::new()), Some(first)));
    }
    if p.eat_op("*") {
        // `a\_b` (as mysqldump writes grants) is the database `a_b`; grants
        // match names exactly (MySQL reads an unescaped `_` or `%` as a
        // wildcard).
        return Ok((Some(first.replace("\\_", "_").replace("\\%", "%")), None));
    }
    Ok((Some(first), Some(p.name()?)))
}

/// Parse an account statement; `None` if the text is not one.
/// (Each `else if { rewind; try the next form }` reads as the list of forms.)
#[allow(clippy::blocks_in_conditions)]
pub fn parse(p: &mut Parser<'_>) -> Result<Option<AccountStmt>, SqlError> {
    let start = p.pos;
    let stmt = if p.eat_kw("CREATE") && p.eat_kw("USER") {
        let mut if_not_exists = false;
        if p.eat_kw("IF") {
            p.expect_kw("NOT")?;
            p.expect_kw("EXISTS")?;
            if_not_exists = true;
        }
        let mut users = list(p, user_spec)?;
        account_options(p, &mut users)?;
        AccountStmt::CreateUser { users, if_not_exists }
    } else if {
        p.pos = start;
        p.eat_kw("DROP") && p.eat_kw("USER")
    } {
        let if_exists = if_exists(p)?;
        AccountStmt::DropUser { users: list(p, user_name)?, if_exists }
    } else if {
        p.pos = start;
        p.eat_kw("ALTER") && p.eat_kw("USER")
    } {
        let if_exists = if_exists(p)?;
        let mut users = list(p, user_spec)?;
        account_options(p, &mut users)?;
        AccountStmt::AlterUser { users, if_exists }
    } else if {
        p.pos = start;
        p.eat_kw("SET") && p.eat_kw("PASSWORD")
    } {
        let user = if p.eat_kw("FOR") { Some(user_name(p)?) } else { None };
        p.expect_op("=")?;
        if p.eat_kw("PASSWORD") {
            p.expect_op("(")?;
            let pw = string(p)?;
            p.expect_op(")")?;
            AccountStmt::SetPassword { user, password: pw }
        } else {
            AccountStmt::SetPassword { user, password: string(p)? }
        }
    } else if {
        p.pos = start;
        p.eat_kw("GRANT")
    } {
        let (privs, columns) = priv_list(p)?;
        p.expect_kw("ON")?;
        let (db, table) = priv_level(p)?;
        p.expect_kw("TO")?;
        let users = list(p, user_spec)?;
        let grant_option = p.eat_kw("WITH") && p.eat_kw("GRANT") && p.eat_kw("OPTION");
        AccountStmt::Grant { privs, db, table, columns, users, grant_option, create_missing: false }
    } else if {
        p.pos = start;
        p.eat_kw("REVOKE")
    } {
        let (privs, columns) = priv_list(p)?;
        if privs & privs::ALL == privs::ALL && privs & privs::GRANT_OPTION != 0 && columns.is_empty() && p.eat_kw("FROM") {
            AccountStmt::RevokeAll { users: list(p, user_name)? }
        } else {
            p.expect_kw("ON")?;
            let (db, table) = priv_level(p)?;
            p.expect_kw("FROM")?;
            AccountStmt::Revoke { privs, db, table, columns, users: list(p, user_name)? }
        }
    } else if {
        p.pos = start;
        p.eat_kw("SHOW") && p.eat_kw("GRANTS")
    } {
        let user = if p.eat_kw("FOR") { Some(user_name(p)?) } else { None };
        AccountStmt::ShowGrants { user }
    } else {
        p.pos = start;
        return Ok(None);
    };
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    Ok(Some(stmt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use turnstile_sqltext::lex::tokenize;

    fn parse_str(s: &str) -> Result<Option<AccountStmt>, SqlError> {
        let t = tokenize(s).unwrap();
        parse(&mut Parser::new(s, &t))
    }

    #[test]
    fn statements() {
        assert_eq!(
            parse_str("CREATE USER 'bob'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'").unwrap(),
            Some(AccountStmt::CreateUser {
                users: vec![UserSpec { name: UserName { user: "bob".into(), host: "%".into() }, plugin: Some("mysql_native_password".into()), password: Some("pw".into()), hash: None, require: None }],
                if_not_exists: false
            })
        );
        assert!(matches!(parse_str("DROP USER IF EXISTS bob, 'x'@'localhost'").unwrap(), Some(AccountStmt::DropUser { if_exists: true, .. })));
        let required = |sql: &str| match parse_str(sql) {
            Ok(Some(AccountStmt::AlterUser { users, .. })) => users[0].require.clone().map(|r| (r.ssl_type(), r.clause())),
            other => panic!("{other:?}"),
        };
        assert_eq!(required("ALTER USER u REQUIRE NONE"), Some(("", String::new())));
        assert_eq!(required("ALTER USER u REQUIRE SSL"), Some(("ANY", " REQUIRE SSL".into())));
        assert_eq!(required("ALTER USER u REQUIRE X509"), Some(("X509", " REQUIRE X509".into())));
        assert_eq!(required("ALTER USER u REQUIRE CIPHER 'c' AND SUBJECT 's''q' ISSUER 'i'"), Some(("SPECIFIED", " REQUIRE ISSUER 'i' SUBJECT 's\\'q' CIPHER 'c'".into())));
        assert_eq!(parse_str("ALTER USER u REQUIRE SUBJECT 'a' AND SUBJECT 'b'").unwrap_err().code, 1225);
        assert_eq!(parse_str("ALTER USER u REQUIRE").unwrap_err().code, 1064);
        assert_eq!(parse_str("ALTER USER u REQUIRE CIPHER").unwrap_err().code, 1064);
        assert!(matches!(
            parse_str("GRANT SELECT, INSERT ON db1.* TO 'bob'@'%'").unwrap(),
            Some(AccountStmt::Grant { privs, db: Some(_), .. }) if privs == privs::SELECT | privs::INSERT
        ));
        assert!(matches!(parse_str("REVOKE ALL PRIVILEGES ON *.* FROM bob").unwrap(), Some(AccountStmt::Revoke { db: None, .. })));
        assert!(matches!(parse_str("SET PASSWORD FOR 'u'@'%' = 'x'").unwrap(), Some(AccountStmt::SetPassword { user: Some(_), .. })));
        assert!(matches!(parse_str("SHOW GRANTS").unwrap(), Some(AccountStmt::ShowGrants { user: None })));
        assert_eq!(parse_str("SELECT 1").unwrap(), None);
        assert!(
            matches!(parse_str("GRANT ALTER, INDEX, CREATE TEMPORARY TABLES, LOCK TABLES ON d.* TO x").unwrap(), Some(AccountStmt::Grant { privs: b, .. }) if b == privs::ALTER | privs::INDEX | privs::CREATE_TMP_TABLE | privs::LOCK_TABLES)
        );
        assert_eq!(parse_str("GRANT EVENT ON *.* TO x").unwrap_err().code, 1235);
    }

    #[test]
    fn table_and_column_levels() {
        let Some(AccountStmt::Grant { privs, db, table, columns, .. }) = parse_str("GRANT SELECT, SELECT (a, `b c`), UPDATE (b) ON d.t TO x").unwrap() else { panic!() };
        assert_eq!((privs, db.as_deref(), table.as_deref()), (privs::SELECT, Some("d"), Some("t")));
        assert_eq!(columns, vec![(privs::SELECT, vec!["a".to_string(), "b c".to_string()]), (privs::UPDATE, vec!["b".to_string()])]);
        // The current database is "" until the front fills it in.
        assert!(matches!(parse_str("GRANT ALL ON TABLE t TO x").unwrap(), Some(AccountStmt::Grant { db: Some(d), table: Some(t), .. }) if d.is_empty() && t == "t"));
        assert!(matches!(parse_str("GRANT SELECT ON * TO x").unwrap(), Some(AccountStmt::Grant { db: Some(d), table: None, .. }) if d.is_empty()));
        assert!(matches!(parse_str("REVOKE ALL PRIVILEGES, GRANT OPTION FROM x, y").unwrap(), Some(AccountStmt::RevokeAll { users }) if users.len() == 2));
        assert!(matches!(parse_str("REVOKE SELECT, GRANT OPTION ON d.* FROM x").unwrap(), Some(AccountStmt::Revoke { privs: b, .. }) if b == privs::SELECT | privs::GRANT_OPTION));
        // Only SELECT, INSERT, UPDATE and REFERENCES take columns.
        assert_eq!(parse_str("GRANT DELETE (a) ON d.t TO x").unwrap_err().code, 1064);
        assert_eq!(parse_str("GRANT SELECT () ON d.t TO x").unwrap_err().code, 1064);
        assert_eq!(parse_str("GRANT EXECUTE ON PROCEDURE d.p TO x").unwrap_err().code, 1235);
    }
}
