//! Privileges, as the engine sees them: what a session may do to each table
//! a statement names.
//!
//! Why here and not in the SQL front: only the engine knows every table a
//! statement really touches (a subquery, a JOIN, a CTE, `INSERT ... SELECT`,
//! `db.table` under any quoting). The SQLite engine learns them from SQLite's
//! own authorizer while it compiles a statement and checks them against the
//! session's `Access` on every execution, so a cached statement run by another
//! session, or after a REVOKE, is checked again. The front supplies `Access`
//! (it knows the account and caches its privileges); an engine never looks up
//! accounts itself.
//!
//! Privileges are granted globally (`*.*`), per database (`db.*`), per table
//! (`db.t`) and per column (`SELECT (a) ON db.t`), as bits. A statement's
//! need on a table is met by the global, database and table bits together;
//! what they leave of SELECT and UPDATE may be met column by column, when the
//! engine knows every column the statement reads or writes.

use crate::SqlError;

/// Privilege bits. `ADMIN` stands for the administrative privileges (SUPER,
/// PROCESS, CREATE USER, ...) that only `GRANT ALL ON *.*` gives.
pub mod privs {
    pub const SELECT: u32 = 1;
    pub const INSERT: u32 = 2;
    pub const UPDATE: u32 = 4;
    pub const DELETE: u32 = 8;
    pub const CREATE: u32 = 16;
    pub const DROP: u32 = 32;
    pub const ALTER: u32 = 64;
    pub const INDEX: u32 = 128;
    pub const REFERENCES: u32 = 256;
    pub const CREATE_TMP_TABLE: u32 = 512;
    pub const LOCK_TABLES: u32 = 1024;
    /// Stored routines: CALL or use in an expression.
    pub const EXECUTE: u32 = 2048;
    /// CREATE PROCEDURE / FUNCTION.
    pub const CREATE_ROUTINE: u32 = 4096;
    /// DROP (and ALTER) PROCEDURE / FUNCTION.
    pub const ALTER_ROUTINE: u32 = 8192;
    /// CREATE / DROP TRIGGER on the database's tables.
    pub const TRIGGER: u32 = 16384;
    pub const ADMIN: u32 = 1 << 30;
    pub const GRANT_OPTION: u32 = 1 << 29;
    /// The privileges of a database-level grant (`ALL ON db.*`).
    pub const DB_ALL: u32 = SELECT | INSERT | UPDATE | DELETE | CREATE | DROP | ALTER | INDEX | REFERENCES | CREATE_TMP_TABLE | LOCK_TABLES | EXECUTE | CREATE_ROUTINE | ALTER_ROUTINE | TRIGGER;
    pub const ALL: u32 = DB_ALL | ADMIN;
    /// What a table-level grant can hold (`ALL ON db.t`); MariaDB refuses
    /// the others there with 1144.
    pub const TABLE_ALL: u32 = SELECT | INSERT | UPDATE | DELETE | CREATE | DROP | REFERENCES | INDEX | ALTER | TRIGGER;
    /// What a column-level grant can hold.
    pub const COLUMN_ALL: u32 = SELECT | INSERT | UPDATE | REFERENCES;

    /// Names in MySQL's canonical order, for GRANT, SHOW GRANTS and error
    /// messages.
    pub const NAMES: [(u32, &str); 15] = [
        (SELECT, "SELECT"),
        (INSERT, "INSERT"),
        (UPDATE, "UPDATE"),
        (DELETE, "DELETE"),
        (CREATE, "CREATE"),
        (DROP, "DROP"),
        (REFERENCES, "REFERENCES"),
        (INDEX, "INDEX"),
        (ALTER, "ALTER"),
        (CREATE_TMP_TABLE, "CREATE TEMPORARY TABLES"),
        (LOCK_TABLES, "LOCK TABLES"),
        (EXECUTE, "EXECUTE"),
        (CREATE_ROUTINE, "CREATE ROUTINE"),
        (ALTER_ROUTINE, "ALTER ROUTINE"),
        (TRIGGER, "TRIGGER"),
    ];

    /// The name of the first privilege of `need` that `held` lacks.
    pub fn first_missing(need: u32, held: u32) -> &'static str {
        NAMES.iter().find(|(b, _)| need & b != 0 && held & b == 0).map_or("ALL", |(_, n)| n)
    }
}

/// The privileges of the session a statement runs for.
pub trait Access {
    /// Privilege bits held on database `db` (global ones included).
    fn privileges(&self, db: &str) -> u32;
    /// Bits held on the table `db`.`table` itself (table-level grants only).
    fn table_privileges(&self, _db: &str, _table: &str) -> u32 {
        0
    }
    /// Bits held on the column `column` of `db`.`table` (column-level grants only).
    fn column_privileges(&self, _db: &str, _table: &str, _column: &str) -> u32 {
        0
    }
    /// Bits held on some column of `db`.`table` (column-level grants only).
    fn any_column_privileges(&self, _db: &str, _table: &str) -> u32 {
        0
    }
    /// Does the session hold a table- or column-level grant on some table of `db`?
    fn has_grants_within(&self, _db: &str) -> bool {
        false
    }
    /// The login's user and host, for error messages (and USER()).
    fn who(&self) -> (&str, &str);
    /// The account the login matched (CURRENT_USER()); the login's by default.
    fn account(&self) -> (&str, &str) {
        self.who()
    }
    /// The session's connection id (CONNECTION_ID()); 0 for the engine's own work.
    fn connection_id(&self) -> u64 {
        0
    }
    /// The session's character_set_client and collation_connection (kept
    /// with a view, as MariaDB shows them).
    fn client_charset(&self) -> (String, String) {
        ("utf8mb4".into(), "utf8mb4_general_ci".into())
    }
    /// The sessions this one may see (all for an administrator, else its
    /// own user's), for information_schema.PROCESSLIST: only the front knows
    /// the server's sessions. None by default.
    fn processlist(&self) -> Vec<ProcessRow> {
        Vec::new()
    }
    /// The statement digests, for performance_schema: only the server keeps
    /// them. None by default.
    fn digests(&self) -> Vec<DigestRow> {
        Vec::new()
    }
    /// The connection attributes of the sessions this one may see (as
    /// `processlist`). None by default.
    fn connect_attrs(&self) -> Vec<AttrsRow> {
        Vec::new()
    }
    /// The server's accounts, for `mysql.user`: all of them for an
    /// administrator, none for anyone else (password hashes are only an
    /// administrator's to read). Only the front knows the accounts.
    fn accounts(&self) -> Vec<AccountRow> {
        Vec::new()
    }
    /// The accounts whose grants this session may read, for
    /// information_schema.USER_PRIVILEGES and SCHEMA_PRIVILEGES: all of them
    /// for an administrator, else its own (MariaDB's rule). None by default.
    fn grantees(&self) -> Vec<AccountRow> {
        Vec::new()
    }
    /// The system variables (`global`: the server's values, else as this
    /// session sees them), named and shown as SHOW VARIABLES shows them, for
    /// information_schema.GLOBAL_VARIABLES and SESSION_VARIABLES. Only the
    /// front knows them; none by default.
    fn variables(&self, _global: bool) -> Vec<(String, String)> {
        Vec::new()
    }
    /// SHOW [GLOBAL] STATUS's rows, for information_schema.GLOBAL_STATUS and
    /// SESSION_STATUS. None by default.
    fn status(&self, _global: bool) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// A table-level grant and the column-level grants on that table, of one
/// account (`mysql.tables_priv` and `mysql.columns_priv`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableGrant {
    pub db: String,
    pub table: String,
    /// Table-level bits (`privs`), GRANT_OPTION included.
    pub privs: u32,
    /// (column, bits) of the column-level grants.
    pub columns: Vec<(String, u32)>,
}

impl TableGrant {
    pub fn is_for(&self, db: &str, table: &str) -> bool {
        self.db == db && self.table.eq_ignore_ascii_case(table)
    }
}

/// One account as `mysql.user` shows it.
#[derive(Debug, Clone)]
pub struct AccountRow {
    pub user: String,
    pub host: String,
    pub plugin: String,
    /// The stored hash as MariaDB shows it (`*HEX` for mysql_native_password).
    pub authentication_string: String,
    /// REQUIRE: ssl_type ('', ANY, X509, SPECIFIED) and its conditions.
    pub ssl_type: String,
    pub ssl_cipher: String,
    pub x509_issuer: String,
    pub x509_subject: String,
    /// Global privilege bits (`privs`).
    pub global_privs: u32,
    /// Each database-level grant: the database and its bits.
    pub db_privs: Vec<(String, u32)>,
    /// Each table grant with the column grants on that table.
    pub table_privs: Vec<TableGrant>,
}

/// One session as SHOW PROCESSLIST and information_schema.PROCESSLIST show it.
#[derive(Debug, Clone)]
pub struct ProcessRow {
    pub id: u64,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub command: &'static str,
    /// Seconds in the current command (or idle).
    pub time: u64,
    pub state: &'static str,
    pub info: Option<String>,
}

/// One session's connection attributes (performance_schema.session_connect_attrs).
#[derive(Debug, Clone)]
pub struct AttrsRow {
    pub id: u64,
    pub user: String,
    pub attrs: Vec<(String, String)>,
}

/// One row of performance_schema.events_statements_summary_by_digest (a
/// digest, or the overflow row with none).
#[derive(Debug, Clone)]
pub struct DigestRow {
    pub schema: Option<String>,
    /// 32 hex digits; None for the overflow row.
    pub digest: Option<String>,
    pub text: Option<String>,
    pub count: u64,
    pub sum_ps: u64,
    pub min_ps: u64,
    pub max_ps: u64,
    pub errors: u64,
    pub warnings: u64,
    pub rows_affected: u64,
    pub rows_sent: u64,
    /// Seconds and microseconds since the epoch.
    pub first_seen_us: u64,
    pub last_seen_us: u64,
}

impl dyn Access + '_ {
    /// Ok if the session holds `need` on `db`; ERR 1142 naming the table and
    /// the first missing privilege otherwise (MariaDB's wording).
    pub fn check_table(&self, db: &str, table: &str, need: u32) -> Result<(), SqlError> {
        let held = self.held_on_table(db, table);
        if held & need == need {
            return Ok(());
        }
        let (user, host) = self.who();
        Err(SqlError::table_access_denied(privs::first_missing(need, held), user, host, db, table))
    }

    /// Ok if the session holds some privilege on `db` (what MySQL asks for
    /// SHOW CREATE TABLE, SHOW COLUMNS, DESCRIBE: "any privilege on the
    /// table"); ERR 1142 naming `command` otherwise.
    pub fn check_table_any(&self, db: &str, table: &str, command: &str) -> Result<(), SqlError> {
        if self.sees_table(db, table) {
            return Ok(());
        }
        let (user, host) = self.who();
        Err(SqlError::table_access_denied(command, user, host, db, table))
    }

    /// Ok if the session holds some privilege on `db`; ERR 1044 otherwise.
    pub fn check_db(&self, db: &str) -> Result<(), SqlError> {
        if self.sees(db) {
            return Ok(());
        }
        let (user, host) = self.who();
        Err(SqlError::db_access_denied(user, host, db))
    }

    /// May the session see that `db` and what is in it exists (SHOW
    /// DATABASES, SHOW TABLES, information_schema)? information_schema is
    /// everyone's.
    pub fn sees(&self, db: &str) -> bool {
        db.eq_ignore_ascii_case("information_schema") || self.privileges(db) & privs::ALL != 0 || self.has_grants_within(db)
    }

    /// The global, database and table bits held on `db`.`table`.
    pub fn held_on_table(&self, db: &str, table: &str) -> u32 {
        let held = self.privileges(db);
        if held & privs::TABLE_ALL == privs::TABLE_ALL {
            return held;
        }
        held | self.table_privileges(db, table)
    }

    /// May the session see that `db`.`table` exists (SHOW TABLES, SHOW
    /// COLUMNS, information_schema)? Some privilege on it at any level.
    pub fn sees_table(&self, db: &str, table: &str) -> bool {
        db.eq_ignore_ascii_case("information_schema") || self.held_on_table(db, table) & privs::ALL != 0 || self.any_column_privileges(db, table) != 0
    }
}

/// Every privilege everywhere: for work the engine does on its own behalf
/// (shutdown checkpoints, tests of engine internals), never for a client.
pub struct Unrestricted;

impl Access for Unrestricted {
    fn privileges(&self, _db: &str) -> u32 {
        privs::ALL
    }
    fn who(&self) -> (&str, &str) {
        ("", "")
    }
}

/// No privilege at all: what a context starts with until the SQL front puts
/// the session's own privileges in, so that a path that forgets to fails
/// closed.
pub struct NoAccess;

impl Access for NoAccess {
    fn privileges(&self, _db: &str) -> u32 {
        0
    }
    fn who(&self) -> (&str, &str) {
        ("", "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ro;
    impl Access for Ro {
        fn privileges(&self, db: &str) -> u32 {
            if db == "d1" {
                privs::SELECT
            } else {
                0
            }
        }
        fn who(&self) -> (&str, &str) {
            ("ro", "localhost")
        }
    }

    #[test]
    fn table_checks_name_the_missing_privilege_and_the_table() {
        let a: &dyn Access = &Ro;
        assert!(a.check_table("d1", "t", privs::SELECT).is_ok());
        let e = a.check_table("d1", "t", privs::SELECT | privs::UPDATE).unwrap_err();
        assert_eq!((e.code, e.state), (1142, "42000"));
        assert_eq!(e.message, "UPDATE command denied to user 'ro'@'localhost' for table `d1`.`t`");
        let e = a.check_table("d2", "secret", privs::SELECT).unwrap_err();
        assert!(e.message.starts_with("SELECT command denied"), "{}", e.message);
        assert_eq!(a.check_db("d2").unwrap_err().code, 1044);
        assert!(a.sees("d1") && a.sees("INFORMATION_SCHEMA") && !a.sees("d2"));
        let none: &dyn Access = &NoAccess;
        assert!(none.check_table("d1", "t", privs::SELECT).is_err());
    }
}
