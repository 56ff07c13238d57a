//! MySQL errors: code, SQLSTATE and message, with constructors for the errors
//! Turnstile raises so that each code keeps MySQL's wording in one place.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    pub code: u16,
    pub state: &'static str,
    pub message: String,
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl std::error::Error for SqlError {}

/// A parser's syntax error (turnstile-sqltext's cursor knows no engine
/// error): MySQL's 1064 near the same text. Kept out of line, as the error
/// path of recursive parsers should not grow their frames.
impl From<turnstile_sqltext::cursor::SyntaxError<'_>> for SqlError {
    #[cold]
    #[inline(never)]
    fn from(e: turnstile_sqltext::cursor::SyntaxError<'_>) -> SqlError {
        SqlError::syntax(e.near)
    }
}

impl SqlError {
    pub fn new(code: u16, state: &'static str, message: impl Into<String>) -> Self {
        SqlError { code, state, message: message.into() }
    }

    pub fn access_denied(user: &str, host: &str, using_password: bool) -> Self {
        Self::new(1045, "28000", format!("Access denied for user '{}'@'{}' (using password: {})", user, host, if using_password { "YES" } else { "NO" }))
    }
    pub fn db_access_denied(user: &str, host: &str, db: &str) -> Self {
        Self::new(1044, "42000", format!("Access denied for user '{}'@'{}' to database '{}'", user, host, db))
    }
    /// ERR 1142 in MariaDB's wording, which names the database too.
    pub fn table_access_denied(command: &str, user: &str, host: &str, db: &str, table: &str) -> Self {
        Self::new(1142, "42000", format!("{} command denied to user '{}'@'{}' for table `{}`.`{}`", command, user, host, db.replace('`', "``"), table.replace('`', "``")))
    }
    pub fn column_access_denied(command: &str, user: &str, host: &str, column: &str, table: &str) -> Self {
        Self::new(1143, "42000", format!("{} command denied to user '{}'@'{}' for column '{}' in table '{}'", command, user, host, column, table))
    }
    pub fn specific_access_denied(privilege: &str) -> Self {
        Self::new(1227, "42000", format!("Access denied; you need (at least one of) the {} privilege(s) for this operation", privilege))
    }
    pub fn unknown_database(db: &str) -> Self {
        Self::new(1049, "42000", format!("Unknown database '{}'", db))
    }
    pub fn database_exists(db: &str) -> Self {
        Self::new(1007, "HY000", format!("Can't create database '{}'; database exists", db))
    }
    pub fn drop_missing_database(db: &str) -> Self {
        Self::new(1008, "HY000", format!("Can't drop database '{}'; database doesn't exist", db))
    }
    pub fn bad_database_name(db: &str) -> Self {
        Self::new(1102, "42000", format!("Incorrect database name '{}'", db))
    }
    pub fn no_such_table(db: &str, table: &str) -> Self {
        Self::new(1146, "42S02", format!("Table '{}.{}' doesn't exist", db, table))
    }
    pub fn no_database() -> Self {
        Self::new(1046, "3D000", "No database selected")
    }
    pub fn too_many_connections() -> Self {
        Self::new(1040, "08004", "Too many connections")
    }
    pub fn packet_too_large() -> Self {
        Self::new(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes")
    }
    pub fn unknown_command() -> Self {
        Self::new(1047, "08S01", "Unknown command")
    }
    pub fn syntax(near: &str) -> Self {
        let near: String = near.chars().take(80).collect();
        Self::new(1064, "42000", format!("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{}' at line 1", near))
    }
    pub fn empty_query() -> Self {
        Self::new(1065, "42000", "Query was empty")
    }
    pub fn unknown_system_variable(name: &str) -> Self {
        Self::new(1193, "HY000", format!("Unknown system variable '{}'", name))
    }
    pub fn wrong_value_for_var(var: &str, value: &str) -> Self {
        Self::new(1231, "42000", format!("Variable '{}' can't be set to the value of '{}'", var, value))
    }
    pub fn wrong_type_for_var(var: &str) -> Self {
        Self::new(1232, "42000", format!("Incorrect argument type to variable '{}'", var))
    }
    pub fn read_only_var(var: &str) -> Self {
        Self::new(1238, "HY000", format!("Variable '{}' is a read only variable", var))
    }
    pub fn global_only_var(var: &str) -> Self {
        Self::new(1229, "HY000", format!("Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL", var))
    }
    pub fn unsupported(what: &str) -> Self {
        Self::new(1235, "42000", format!("This version of MySQL doesn't yet support '{}'", what))
    }
    pub fn unknown_thread(id: u64) -> Self {
        Self::new(1094, "HY000", format!("Unknown thread id: {}", id))
    }
    pub fn not_owner_of_thread(id: u64) -> Self {
        Self::new(1095, "HY000", format!("You are not owner of thread {}", id))
    }
    pub fn query_interrupted() -> Self {
        Self::new(1317, "70100", "Query execution was interrupted")
    }
    pub fn server_shutdown() -> Self {
        Self::new(1053, "08S01", "Server shutdown in progress")
    }
    pub fn unknown_stmt_handler(id: u32, call: &str) -> Self {
        Self::new(1243, "HY000", format!("Unknown prepared statement handler ({}) given to {}", id, call))
    }
    pub fn wrong_arguments(call: &str) -> Self {
        Self::new(1210, "HY000", format!("Incorrect arguments to {}", call))
    }
    pub fn operation_failed(op: &str, user: &str) -> Self {
        Self::new(1396, "HY000", format!("Operation {} failed for {}", op, user))
    }
    pub fn nonexisting_grant(user: &str, host: &str) -> Self {
        Self::new(1141, "42000", format!("There is no such grant defined for user '{}' on host '{}'", user, host))
    }
    pub fn unknown_function(name: &str) -> Self {
        Self::new(1305, "42000", format!("FUNCTION {} does not exist", name))
    }
    pub fn unknown_column(name: &str, context: &str) -> Self {
        Self::new(1054, "42S22", format!("Unknown column '{}' in '{}'", name, context))
    }
    pub fn no_tables_used() -> Self {
        Self::new(1096, "HY000", "No tables used")
    }
    pub fn internal(msg: impl Into<String>) -> Self {
        Self::new(1105, "HY000", msg)
    }
}
