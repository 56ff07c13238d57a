//! MySQL DDL: parsing CREATE/ALTER/DROP/RENAME/TRUNCATE (tables, indexes,
//! views; CREATE TABLE ... SELECT) and generating SQLite.
//!
//! MySQL's CREATE TABLE carries far more than SQLite's (display widths,
//! UNSIGNED, character sets, key names, comments, table options), so DDL is the
//! one place Turnstile parses a statement fully. The parser produces a
//! `TableDef` (schema.rs), which is stored as JSON beside the table, and the
//! generator turns it into a SQLite STRICT table whose CHECK constraints carry
//! MySQL's strict-mode rules (lengths, integer ranges, ENUM members, date
//! formats) so that every write path — INSERT, UPDATE, upserts, INSERT ...
//! SELECT — is checked by SQLite itself, named so that the error mapper can
//! answer with MySQL's code (1406, 1264, 1265, 1292, 3140).
//!
//! ALTER TABLE changes the definition in Rust and rebuilds the table (create,
//! copy, drop, rename), as MySQL's COPY algorithm does: one code path for every
//! column change SQLite's own ALTER cannot do.
//!
//! Module map: `view_parser` (CREATE/ALTER/DROP VIEW), `parser` (DDL statements, CREATE TABLE's elements and
//! options, ALTER TABLE's clauses), `column_parser` (one column definition),
//! `definition` (a new `TableDef` and the checks a finished one passes),
//! `alter` (ALTER operations applied to a `TableDef`), `generate` (SQLite DDL
//! from a `TableDef`), `expr_text` (the CHECK / DEFAULT / generated-column expressions a
//! definition keeps: what each clause refuses, the text shown). This file holds the parsed statement's types; the
//! functions the rest of the engine uses are re-exported here.

mod alter;
mod column_parser;
mod definition;
mod expr_text;
mod generate;
mod parser;
mod view_parser;

use super::schema::{ColumnDef, Default_, ForeignKey, IndexDef, TableDef, ViewDef};

pub use alter::{apply_alter, Altered};
pub use column_parser::{column_def, default_collation_for};
pub use definition::{empty_def, finish_def};
pub use expr_text::{named_columns, spaced as expr_spaced};
pub use generate::{implicit_default, is_rowid_column, sqlite_collation, sqlite_create_index, sqlite_create_table, sqlite_triggers, storage_affinity};
pub use parser::parse;

pub const DEFAULT_COLLATION: &str = "utf8mb4_general_ci";

pub type Name = (Option<String>, String);

#[derive(Debug, Clone)]
pub enum Ddl {
    /// `select`: CREATE TABLE ... [IGNORE|REPLACE] [AS] SELECT (then `def`
    /// holds only the columns and keys written before it, unchecked).
    CreateTable {
        temporary: bool,
        if_not_exists: bool,
        table: Name,
        def: Box<TableDef>,
        auto_increment: Option<u64>,
        like: Option<Name>,
        select: Option<Box<Ctas>>,
    },
    /// CREATE VIEW (`alter`: ALTER VIEW).
    CreateView {
        or_replace: bool,
        alter: bool,
        view: Name,
        def: Box<ViewDef>,
    },
    DropView {
        if_exists: bool,
        views: Vec<Name>,
    },
    DropTable {
        temporary: bool,
        if_exists: bool,
        tables: Vec<Name>,
    },
    CreateIndex {
        table: Name,
        index: IndexDef,
        /// `CREATE INDEX IF NOT EXISTS` (MariaDB): an index of that name is a note.
        if_not_exists: bool,
    },
    DropIndex {
        table: Name,
        name: String,
        /// `DROP INDEX IF EXISTS` (MariaDB): a missing index is a note.
        if_exists: bool,
    },
    Alter {
        /// `ALTER TABLE IF EXISTS` (MariaDB): a missing table is a note.
        if_exists: bool,
        table: Name,
        ops: Vec<AlterOp>,
    },
    Rename {
        /// `RENAME TABLE IF EXISTS` (MariaDB): a missing source is a note.
        if_exists: bool,
        pairs: Vec<(Name, Name)>,
    },
    Truncate {
        table: Name,
    },
}

/// The SELECT of CREATE TABLE ... SELECT and what a duplicate key does.
#[derive(Debug, Clone, PartialEq)]
pub struct Ctas {
    /// The SELECT as the client wrote it.
    pub select: String,
    /// IGNORE (`Some(false)`) or REPLACE (`Some(true)`); None: an error.
    pub on_duplicate: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Position {
    Last,
    First,
    After(String),
}

#[derive(Debug, Clone)]
pub enum AlterOp {
    AddColumn {
        col: ColumnDef,
        position: Position,
        primary: bool,
        unique: bool,
    },
    DropColumn(String),
    /// MODIFY (old == new name) or CHANGE.
    ChangeColumn {
        old: String,
        col: ColumnDef,
        position: Position,
        primary: bool,
        unique: bool,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    SetDefault {
        col: String,
        default: Option<Default_>,
    },
    AddIndex(IndexDef),
    /// Columns and their prefix lengths.
    AddPrimary(Vec<String>, Vec<Option<u64>>),
    DropIndex(String),
    DropPrimary,
    RenameIndex {
        old: String,
        new: String,
    },
    RenameTable(Name),
    AddForeignKey(ForeignKey),
    DropForeignKey(String),
    /// `ADD [CONSTRAINT [name]] CHECK (expr)`: the clause as shown.
    AddCheck {
        name: Option<String>,
        clause: String,
    },
    /// `DROP CONSTRAINT name` / `DROP CHECK name`.
    DropCheck(String),
    Options {
        engine: Option<String>,
        collation: Option<String>,
        comment: Option<String>,
        auto_increment: Option<u64>,
    },
    /// `ORDER BY col [ASC|DESC], ...`: the rows copied in this order (a
    /// table with a primary key keeps its order and warns, as InnoDB does).
    OrderBy(Vec<(String, bool)>),
    /// `CONVERT TO CHARACTER SET cs [COLLATE c]`: every text column and the
    /// table's default take the collation.
    ConvertTo(String),
    /// `ALGORITHM=COPY`: MariaDB copies the rows (and counts them in its OK).
    CopyAlgorithm,
    /// `FORCE`: the table rebuilt (MariaDB copies a non-InnoDB table).
    Force,
    /// `ENABLE KEYS` / `DISABLE KEYS`: nothing to do (SQLite keeps its
    /// indexes current); MariaDB's Note 1031 for an engine without the option.
    Keys,
    /// MariaDB's `IF [NOT] EXISTS` on one operation: an ADD of something that
    /// exists, or a DROP/CHANGE/MODIFY/RENAME of something that does not, is
    /// skipped with a note instead of failing the statement.
    Guarded(Box<AlterOp>),
}

impl AlterOp {
    /// The operation itself, under any `IF [NOT] EXISTS`.
    pub fn inner(&self) -> &AlterOp {
        match self {
            AlterOp::Guarded(op) => op,
            op => op,
        }
    }
}

/// The definition a CREATE TABLE statement parses to (for the tests).
#[cfg(test)]
fn parse_create_table(sql: &str) -> TableDef {
    match parse(sql).unwrap().unwrap() {
        Ddl::CreateTable { def, .. } => *def,
        other => panic!("{:?}", other),
    }
}
