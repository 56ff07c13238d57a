//! Stored routines as the engine keeps them: one record per procedure or
//! function of a database, written by CREATE PROCEDURE/FUNCTION, read by
//! CALL, SHOW and information_schema, dropped with DROP or DROP DATABASE.
//!
//! The engine stores records and nothing more: it neither parses nor runs a
//! routine (the SQL front does, `crates/sql/src/routine/`), so any engine
//! that can keep a few strings per database can hold routines.

/// PROCEDURE, FUNCTION or TRIGGER: three namespaces (a procedure and a
/// function may share a name). A trigger's record reuses the fields: `params`
/// holds its table, `returns` its timing and event (`BEFORE INSERT`),
/// `data_access` its ACTION_ORDER among the table's triggers of that timing
/// and event (the SQL front's `routine/trigger.rs` reads them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoutineKind {
    Procedure,
    Function,
    Trigger,
}

impl RoutineKind {
    /// The keyword, as SHOW and information_schema spell it.
    pub fn keyword(self) -> &'static str {
        match self {
            RoutineKind::Procedure => "PROCEDURE",
            RoutineKind::Function => "FUNCTION",
            RoutineKind::Trigger => "TRIGGER",
        }
    }
}

/// One stored routine. `definition` is the statement's text from the word
/// PROCEDURE or FUNCTION on (name, parameters, RETURNS, characteristics,
/// body), as the client wrote it; everything else is what SHOW and
/// information_schema report without parsing it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineRow {
    pub db: String,
    pub kind: RoutineKind,
    pub name: String,
    /// `user@host`, unquoted.
    pub definer: String,
    pub definition: String,
    /// The body alone (information_schema.ROUTINES.ROUTINE_DEFINITION).
    pub body: String,
    /// The parameter list as written, without its parentheses.
    pub params: String,
    /// A function's RETURNS type as written ("" for a procedure).
    pub returns: String,
    /// SQL SECURITY INVOKER (false: DEFINER, the default).
    pub invoker: bool,
    pub deterministic: bool,
    /// CONTAINS SQL, NO SQL, READS SQL DATA or MODIFIES SQL DATA.
    pub data_access: String,
    pub comment: String,
    pub sql_mode: String,
    /// `YYYY-MM-DD hh:mm:ss`.
    pub created: String,
    pub modified: String,
}
