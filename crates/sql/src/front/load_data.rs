//! LOAD DATA [LOCAL] INFILE: the statement's grammar, the file's fields and
//! lines as MySQL splits them, and the rows written through the engine as
//! parameterised multi-row INSERTs (INSERT IGNORE / REPLACE), so the engine's
//! own rules apply to every value: strict and lenient modes, warnings,
//! defaults, keys and privileges, exactly as for INSERT.
//!
//! Where the bytes come from is not decided here. A LOCAL file is streamed
//! by the client while the session waits in a state of its own (the
//! session's `infile`: the server never blocks on the client); the session
//! hands the whole file to `load_local` once the client's empty packet ends
//! it. A server file (no LOCAL) is read here, only from `secure_file_priv`
//! (its real path, symlinks resolved) and only by an account with FILE
//! privilege (an administrator: ALL ON *.*); otherwise MariaDB's 1290/1045.
//!
//! The load is one statement: it runs in a transaction of its own (or a
//! savepoint of the session's), so a failure leaves the table as it was.
//! With LOCAL, as in MySQL and MariaDB, duplicates and bad values are
//! warnings (the server cannot stop the client's transfer): IGNORE is implied
//! unless REPLACE is given. Rows of too few fields get their columns'
//! defaults and Warning 1261, rows of too many Warning 1262, per line.
//!
//! Not done: fixed-width rows (empty FIELDS TERMINATED BY and ENCLOSED BY),
//! LOAD XML, SET expressions naming the loaded columns (they may name `@var`s,
//! which are bound per row), and character sets other than utf8mb4/utf8/
//! ascii/binary and latin1 (converted to UTF-8).

use super::access::{privileges, session_access};
use super::engine::engine_run;
use super::{diagnostics, note_row_count, Call};
use crate::expr::Parser;
use crate::privs;
use turnstile_engine::{Column, Done, Level, Outcome, RowSink, SqlError, Value, Warning};
use turnstile_sqltext::lex::{self, Tok};

/// Parameters per INSERT at most (SQLite's default limit is 32,766).
const MAX_PARAMS: usize = 30_000;
/// Rows per INSERT at most.
const MAX_BATCH_ROWS: usize = 1000;

/// Where a field goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Column(String),
    Var(String),
}

/// What to do with a row whose key is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicates {
    Error,
    Ignore,
    Replace,
}

/// One LOAD DATA statement.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    pub local: bool,
    pub file: String,
    pub duplicates: Duplicates,
    pub db: Option<String>,
    pub table: String,
    pub charset: Option<String>,
    pub fields_terminated: Vec<u8>,
    pub enclosed: Option<u8>,
    pub optionally: bool,
    pub escaped: Option<u8>,
    pub lines_starting: Vec<u8>,
    pub lines_terminated: Vec<u8>,
    pub ignore_lines: u64,
    /// Empty: the table's columns in order.
    pub targets: Vec<Target>,
    /// `SET col = expr`: the column and the expression's text with each
    /// `@var` written as `?`, and the variables in that order.
    pub sets: Vec<(String, String, Vec<String>)>,
}

/// Is `sql` a LOAD DATA statement (cheap: the first byte decides most)?
pub fn is_load_data(sql: &str) -> bool {
    let first = sql.bytes().find(|b| !b.is_ascii_whitespace());
    matches!(first, Some(b'L' | b'l' | b'/' | b'#' | b'-')) && turnstile_sqltext::scan::first_keyword(sql) == "LOAD"
}

/// ENCLOSED BY and ESCAPED BY take one character (or none).
fn single_byte(s: Vec<u8>) -> Result<Option<u8>, SqlError> {
    match s.len() {
        0 => Ok(None),
        1 => Ok(Some(s[0])),
        _ => Err(SqlError::new(1083, "42000", "Field separator argument is not what is expected; check the manual")),
    }
}

fn bytes_literal(p: &mut Parser<'_>) -> Result<Vec<u8>, SqlError> {
    let mut out = Vec::new();
    let mut any = false;
    while let Some(Tok::Str(s)) = p.peek().map(|t| &t.tok) {
        out.extend_from_slice(s);
        p.pos += 1;
        any = true;
    }
    if !any {
        return Err(p.error().into());
    }
    Ok(out)
}

/// Parse LOAD DATA; Err(1064) on bad syntax, 1235 for LOAD XML.
pub fn parse(sql: &str) -> Result<LoadSpec, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut p = Parser::new(sql, &toks);
    p.expect_kw("LOAD")?;
    if p.is_kw("XML") {
        return Err(SqlError::unsupported("LOAD XML"));
    }
    p.expect_kw("DATA")?;
    let _ = p.eat_kw("LOW_PRIORITY") || p.eat_kw("CONCURRENT");
    let local = p.eat_kw("LOCAL");
    p.expect_kw("INFILE")?;
    let file = String::from_utf8_lossy(&bytes_literal(&mut p)?).into_owned();
    let duplicates = if p.eat_kw("REPLACE") {
        Duplicates::Replace
    } else if p.eat_kw("IGNORE") {
        Duplicates::Ignore
    } else {
        Duplicates::Error
    };
    p.expect_kw("INTO")?;
    p.expect_kw("TABLE")?;
    let (db, table) = p.qualified()?;
    let mut spec = LoadSpec {
        local,
        file,
        duplicates,
        db,
        table,
        charset: None,
        fields_terminated: b"\t".to_vec(),
        enclosed: None,
        optionally: false,
        escaped: Some(b'\\'),
        lines_starting: Vec::new(),
        lines_terminated: b"\n".to_vec(),
        ignore_lines: 0,
        targets: Vec::new(),
        sets: Vec::new(),
    };
    if p.is_kw("CHARACTER") || p.is_kw("CHARSET") {
        if !p.eat_kw("CHARSET") {
            p.expect_kw("CHARACTER")?;
            p.expect_kw("SET")?;
        }
        spec.charset = Some(p.name()?.to_ascii_lowercase());
    }
    if p.eat_kw("FIELDS") || p.eat_kw("COLUMNS") {
        field_options(&mut p, &mut spec)?;
    }
    if p.eat_kw("LINES") {
        line_options(&mut p, &mut spec)?;
    }
    if p.eat_kw("IGNORE") {
        spec.ignore_lines = p.number()?;
        if !p.eat_kw("LINES") {
            p.expect_kw("ROWS")?;
        }
    }
    if p.eat_op("(") {
        targets(&mut p, &mut spec)?;
    }
    if p.eat_kw("SET") {
        sets(sql, &mut p, &mut spec)?;
    }
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    if spec.lines_terminated.is_empty() && spec.fields_terminated.is_empty() {
        return Err(SqlError::unsupported("LOAD DATA with empty FIELDS and LINES TERMINATED BY"));
    }
    if spec.fields_terminated.is_empty() && spec.enclosed.is_none() {
        return Err(SqlError::unsupported("LOAD DATA of fixed-width rows (empty FIELDS TERMINATED BY and ENCLOSED BY)"));
    }
    Ok(spec)
}

fn field_options(p: &mut Parser<'_>, spec: &mut LoadSpec) -> Result<(), SqlError> {
    let mut any = false;
    loop {
        if p.eat_kw("TERMINATED") {
            p.expect_kw("BY")?;
            spec.fields_terminated = bytes_literal(p)?;
        } else if p.is_kw("OPTIONALLY") || p.is_kw("ENCLOSED") {
            spec.optionally = p.eat_kw("OPTIONALLY");
            p.expect_kw("ENCLOSED")?;
            p.expect_kw("BY")?;
            let b = bytes_literal(p)?;
            spec.enclosed = single_byte(b)?;
        } else if p.eat_kw("ESCAPED") {
            p.expect_kw("BY")?;
            let b = bytes_literal(p)?;
            spec.escaped = single_byte(b)?;
        } else {
            break;
        }
        any = true;
    }
    if !any {
        return Err(p.error().into());
    }
    Ok(())
}

fn line_options(p: &mut Parser<'_>, spec: &mut LoadSpec) -> Result<(), SqlError> {
    let mut any = false;
    loop {
        if p.eat_kw("STARTING") {
            p.expect_kw("BY")?;
            spec.lines_starting = bytes_literal(p)?;
        } else if p.eat_kw("TERMINATED") {
            p.expect_kw("BY")?;
            spec.lines_terminated = bytes_literal(p)?;
        } else {
            break;
        }
        any = true;
    }
    if !any {
        return Err(p.error().into());
    }
    Ok(())
}

fn targets(p: &mut Parser<'_>, spec: &mut LoadSpec) -> Result<(), SqlError> {
    if p.eat_op(")") {
        return Ok(());
    }
    loop {
        match p.peek().map(|t| &t.tok) {
            Some(Tok::UserVar(v)) => {
                spec.targets.push(Target::Var(v.to_ascii_lowercase()));
                p.pos += 1;
            }
            _ => {
                let (_, col) = p.qualified()?;
                spec.targets.push(Target::Column(col));
            }
        }
        if p.eat_op(")") {
            return Ok(());
        }
        p.expect_op(",")?;
    }
}

/// `SET col = expr, ...`: each expression's text up to a comma outside
/// parentheses, its `@var`s written as `?`.
fn sets(sql: &str, p: &mut Parser<'_>, spec: &mut LoadSpec) -> Result<(), SqlError> {
    loop {
        let (_, col) = p.qualified()?;
        if !p.eat_op("=") {
            p.expect_op(":=")?;
        }
        let mut text = String::new();
        let mut vars = Vec::new();
        let mut depth = 0usize;
        let mut last_end: Option<usize> = None;
        while let Some(t) = p.peek() {
            if depth == 0 && (t.is_op(",") || t.is_op(";")) {
                break;
            }
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth = depth.checked_sub(1).ok_or_else(|| SqlError::from(p.error()))?;
            }
            if let Some(end) = last_end {
                text.push_str(&sql[end..t.start]);
            }
            match &t.tok {
                Tok::UserVar(v) => {
                    vars.push(v.to_ascii_lowercase());
                    text.push('?');
                }
                Tok::Param => return Err(p.error().into()),
                _ => text.push_str(&sql[t.start..t.end]),
            }
            last_end = Some(t.end);
            p.pos += 1;
        }
        if text.trim().is_empty() {
            return Err(p.error().into());
        }
        spec.sets.push((col, text, vars));
        if !p.eat_op(",") {
            return Ok(());
        }
    }
}

/// One field: its bytes, or NULL (`\N`, or the word NULL with no escape).
type Field = Option<Vec<u8>>;

/// The lines of a file as MySQL splits them into fields.
pub struct Splitter<'a> {
    data: &'a [u8],
    pos: usize,
    spec: &'a LoadSpec,
}

impl<'a> Splitter<'a> {
    pub fn new(data: &'a [u8], spec: &'a LoadSpec) -> Splitter<'a> {
        Splitter { data, pos: 0, spec }
    }

    fn at(&self, pos: usize, s: &[u8]) -> bool {
        !s.is_empty() && self.data[pos..].starts_with(s)
    }

    /// Skip one line without reading its fields (IGNORE n LINES).
    fn skip_line(&mut self) -> bool {
        if self.pos >= self.data.len() {
            return false;
        }
        let term = &self.spec.lines_terminated;
        match find(&self.data[self.pos..], term) {
            Some(i) => self.pos += i + term.len(),
            None => self.pos = self.data.len(),
        }
        true
    }

    /// Move past LINES STARTING BY; false when no line is left.
    fn line_start(&mut self) -> bool {
        let start = &self.spec.lines_starting;
        if start.is_empty() {
            return self.pos < self.data.len();
        }
        match find(&self.data[self.pos..], start) {
            Some(i) => {
                self.pos += i + start.len();
                true
            }
            None => {
                self.pos = self.data.len();
                false
            }
        }
    }

    /// The next line's fields.
    pub fn next_row(&mut self) -> Option<Vec<Field>> {
        if !self.line_start() {
            return None;
        }
        let mut fields = Vec::new();
        loop {
            let (field, end_of_line) = self.field();
            fields.push(field);
            if end_of_line {
                return Some(fields);
            }
        }
    }

    /// One field; true when it ended its line (or the data).
    fn field(&mut self) -> (Field, bool) {
        let spec = self.spec;
        let enclosed = spec.enclosed.filter(|&q| self.pos < self.data.len() && self.data[self.pos] == q);
        let mut out = Vec::new();
        let mut pos = self.pos + enclosed.is_some() as usize;
        let raw_start = pos;
        let mut escaped_any = false;
        loop {
            if pos >= self.data.len() {
                self.pos = pos;
                if let Some(q) = enclosed {
                    return (Some(unclosed(q, out)), true);
                }
                return (self.value(out, false, escaped_any, raw_start, pos), true);
            }
            let b = self.data[pos];
            if let Some(q) = enclosed {
                if b == q {
                    if self.data.get(pos + 1) == Some(&q) {
                        out.push(q);
                        pos += 2;
                        continue;
                    }
                    let after = pos + 1;
                    if after >= self.data.len() {
                        self.pos = after;
                        return (Some(out), true);
                    }
                    if self.at(after, &spec.fields_terminated) {
                        self.pos = after + spec.fields_terminated.len();
                        return (Some(out), false);
                    }
                    if self.at(after, &spec.lines_terminated) {
                        self.pos = after + spec.lines_terminated.len();
                        return (Some(out), true);
                    }
                    out.push(b);
                    pos += 1;
                    continue;
                }
            } else {
                if self.at(pos, &spec.fields_terminated) {
                    self.pos = pos + spec.fields_terminated.len();
                    return (self.value(out, false, escaped_any, raw_start, pos), false);
                }
                if self.at(pos, &spec.lines_terminated) {
                    self.pos = pos + spec.lines_terminated.len();
                    return (self.value(out, false, escaped_any, raw_start, pos), true);
                }
            }
            if Some(b) == spec.escaped && pos + 1 < self.data.len() {
                escaped_any = true;
                out.push(unescape(self.data[pos + 1]));
                pos += 2;
                continue;
            }
            out.push(b);
            pos += 1;
        }
    }

    /// A field's value: `\N` (the escape character and N) is NULL, and so is
    /// the word NULL unenclosed when FIELDS ENCLOSED BY is set (MariaDB;
    /// `"NULL"` is the string).
    fn value(&self, out: Vec<u8>, enclosed: bool, escaped_any: bool, raw_start: usize, raw_end: usize) -> Field {
        if enclosed {
            return Some(out);
        }
        let raw = &self.data[raw_start..raw_end];
        match self.spec.escaped {
            Some(e) if escaped_any && raw.len() == 2 && raw[0] == e && raw[1] == b'N' => None,
            _ if self.spec.enclosed.is_some() && raw == b"NULL" => None,
            _ => Some(out),
        }
    }
}

/// A field whose opening quote is never closed: the rest of the data, with
/// the quote (MariaDB).
fn unclosed(quote: u8, rest: Vec<u8>) -> Vec<u8> {
    let mut v = Vec::with_capacity(rest.len() + 1);
    v.push(quote);
    v.extend_from_slice(&rest);
    v
}

/// MySQL's escape sequences in a data file.
fn unescape(c: u8) -> u8 {
    match c {
        b'0' => 0,
        b'b' => 8,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'Z' => 26,
        other => other,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Collects the column names of `SELECT * ... LIMIT 0`.
struct ColumnNames(Vec<String>);

impl RowSink for ColumnNames {
    fn columns(&mut self, columns: &[Column]) -> Result<(), SqlError> {
        self.0 = columns.iter().map(|c| c.name.to_string()).collect();
        Ok(())
    }
    fn row(&mut self, _: &[Value]) -> Result<(), SqlError> {
        Ok(())
    }
}

fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

fn table_ref(spec: &LoadSpec) -> String {
    match &spec.db {
        Some(db) => format!("{}.{}", quote_ident(db), quote_ident(&spec.table)),
        None => quote_ident(&spec.table),
    }
}

/// The table's columns (1146 if there is no such table), and the INSERT
/// privilege (DELETE too for REPLACE) checked before any byte is read.
fn table_columns(call: &mut Call<'_, '_>, spec: &LoadSpec) -> Result<Vec<String>, SqlError> {
    let db = spec.db.clone().or_else(|| call.sess.db.clone()).ok_or_else(SqlError::no_database)?;
    let need = privs::INSERT | if spec.duplicates == Duplicates::Replace { privs::DELETE } else { 0 };
    {
        let access = session_access(call.sess, call.ops);
        let access: &dyn turnstile_engine::Access = &access;
        access.check_table(&db, &spec.table, need)?;
    }
    if spec.db.is_none() || spec.db == call.sess.db {
        let access = session_access(call.sess, call.ops);
        let cols = call.engine.field_list(&access, &spec.table)?;
        return Ok(cols.iter().map(|c| c.column.name.to_string()).collect());
    }
    let mut names = ColumnNames(Vec::new());
    let sql = format!("SELECT * FROM {} LIMIT 0", table_ref(spec));
    let mut sub = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &[] };
    engine_run(&mut sub, &sql, &mut names)?;
    Ok(names.0)
}

/// Before a LOCAL file is asked for: the table exists and may be written.
/// An error is the statement's (kept for SHOW WARNINGS).
pub fn check_local(call: &mut Call<'_, '_>, sql: &str, spec: &LoadSpec) -> Result<(), SqlError> {
    let mut result = table_columns(call, spec).map(|_| Outcome::Done(Done::default()));
    if result.is_err() {
        note_row_count(call, &result);
        diagnostics::record(call, sql, &mut result);
    }
    result.map(|_| ())
}

/// The LOCAL file the client sent (`over`: it was larger than
/// load_data_max_bytes and was dropped).
pub fn load_local(call: &mut Call<'_, '_>, sql: &str, spec: &LoadSpec, data: &[u8], over: bool) -> Result<Outcome, SqlError> {
    let mut result = if over { Err(too_large(call)) } else { load(call, spec, data) };
    note_row_count(call, &result);
    diagnostics::record(call, sql, &mut result);
    result
}

fn max_bytes(call: &Call<'_, '_>) -> u64 {
    crate::vars::lookup("load_data_max_bytes").and_then(|d| call.ops.globals().get(d).as_i64()).unwrap_or(0).max(0) as u64
}

fn too_large(call: &Call<'_, '_>) -> SqlError {
    SqlError::new(1105, "HY000", format!("The LOAD DATA file is larger than load_data_max_bytes ({} bytes)", max_bytes(call)))
}

/// The limit of a LOCAL file, in bytes.
pub fn local_limit_bytes(call: &Call<'_, '_>) -> u64 {
    max_bytes(call)
}

/// LOAD DATA as a statement of the front: a server file, or a LOCAL one the
/// session could not ask for (4166).
pub(super) fn statement(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let spec = parse(sql)?;
    if spec.local {
        return Err(SqlError::new(4166, "HY000", "The used command is not allowed because the MariaDB server or client has disabled the local infile capability"));
    }
    if privileges(call.sess, call.ops, None) & privs::ADMIN == 0 {
        return Err(SqlError::access_denied(&call.sess.user, &call.sess.host, true));
    }
    let data = read_server_file(call, &spec.file)?;
    load(call, &spec, &data)
}

fn secure_file_priv_error() -> SqlError {
    SqlError::new(1290, "HY000", "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement")
}

/// A server file, only inside secure_file_priv (its real path: `..` and
/// symlinks resolved), a regular file of at most load_data_max_bytes.
fn read_server_file(call: &Call<'_, '_>, file: &str) -> Result<Vec<u8>, SqlError> {
    use std::io::Read;
    let dir = crate::vars::lookup("secure_file_priv").and_then(|d| call.ops.globals().get(d).to_text().map(|t| String::from_utf8_lossy(&t).into_owned())).unwrap_or_default();
    if dir.is_empty() {
        return Err(secure_file_priv_error());
    }
    let dir = std::fs::canonicalize(&dir).map_err(|_| secure_file_priv_error())?;
    let not_found = |e: std::io::Error| {
        let code = e.raw_os_error().unwrap_or(2);
        let text = std::io::Error::from_raw_os_error(code).to_string();
        let text = text.split(" (os error").next().unwrap_or("").to_string();
        SqlError::new(29, "HY000", format!("File '{}' not found (Errcode: {} \"{}\")", file, code, text))
    };
    let path = dir.join(file);
    let real = std::fs::canonicalize(&path).map_err(not_found)?;
    if !real.starts_with(&dir) {
        return Err(secure_file_priv_error());
    }
    let f = std::fs::File::open(&real).map_err(not_found)?;
    let meta = f.metadata().map_err(not_found)?;
    if !meta.is_file() {
        return Err(SqlError::new(29, "HY000", format!("File '{}' not found (Errcode: 21 \"Is a directory\")", file)));
    }
    let limit = max_bytes(call);
    if meta.len() > limit {
        return Err(too_large(call));
    }
    let mut data = Vec::new();
    f.take(limit + 1).read_to_end(&mut data).map_err(not_found)?;
    if data.len() as u64 > limit {
        return Err(too_large(call));
    }
    Ok(data)
}

/// What the rows go into: the INSERT's columns, and for each field where
/// it goes (a column's place among them, or a variable).
struct Plan {
    columns: Vec<String>,
    /// Per target: Some(index into `columns`) or None for a variable.
    slots: Vec<Option<usize>>,
    var_names: Vec<Option<String>>,
}

fn plan(call: &mut Call<'_, '_>, spec: &LoadSpec) -> Result<Plan, SqlError> {
    let table_cols = table_columns(call, spec)?;
    let targets: Vec<Target> = if spec.targets.is_empty() { table_cols.iter().map(|c| Target::Column(c.clone())).collect() } else { spec.targets.clone() };
    let mut columns = Vec::new();
    let mut slots = Vec::new();
    let mut var_names = Vec::new();
    for t in &targets {
        match t {
            Target::Column(c) => {
                slots.push(Some(columns.len()));
                var_names.push(None);
                columns.push(c.clone());
            }
            Target::Var(v) => {
                slots.push(None);
                var_names.push(Some(v.clone()));
            }
        }
    }
    Ok(Plan { columns, slots, var_names })
}

/// Text of a field in the file's character set, as UTF-8 (latin1 is
/// converted; binary and utf8 are taken as they are).
fn field_value(spec: &LoadSpec, f: Field) -> Value {
    match f {
        None => Value::Null,
        Some(b) if spec.charset.as_deref() == Some("latin1") && !b.is_ascii() => Value::Bytes(b.iter().map(|&c| c as char).collect::<String>().into_bytes()),
        Some(b) => Value::Bytes(b),
    }
}

struct Counts {
    records: u64,
    affected: u64,
    deleted: u64,
    skipped: u64,
    /// Warnings raised so far, with row numbers of the whole file.
    kept: Vec<Warning>,
    raised: u64,
    /// This batch's own warnings (1261, 1262) and their lines, merged with
    /// the engine's by line when the batch ran (MariaDB's order).
    pending: Vec<(u64, Warning)>,
}

/// Split, bind and insert the rows; the statement's OK.
fn load(call: &mut Call<'_, '_>, spec: &LoadSpec, data: &[u8]) -> Result<Outcome, SqlError> {
    // Rows loaded do not fire triggers yet: refused, never loaded without them.
    if let Some(db) = spec.db.clone().or_else(|| call.sess.db.clone()) {
        if !crate::routine::trigger::none_anywhere() && !crate::routine::trigger::of_table(call, &db, &spec.table)?.is_empty() {
            return Err(SqlError::unsupported("LOAD DATA into a table with triggers"));
        }
    }
    if let Some(cs) = &spec.charset {
        if !matches!(cs.as_str(), "utf8mb4" | "utf8" | "utf8mb3" | "binary" | "ascii" | "latin1") {
            return Err(SqlError::unsupported(&format!("LOAD DATA CHARACTER SET {}", cs)));
        }
    }
    let plan = plan(call, spec)?;
    let in_txn = call.engine.in_transaction();
    if in_txn {
        sub_run(call, "SAVEPOINT ts_load_data", &[])?;
    } else {
        call.engine.begin(call.ctx, false)?;
    }
    let result = load_rows(call, spec, &plan, data);
    match (&result, in_txn) {
        (Ok(_), true) => sub_run(call, "RELEASE SAVEPOINT ts_load_data", &[]).map(|_| ())?,
        (Ok(_), false) if call.sess.autocommit => call.engine.commit(call.ctx)?,
        (Ok(_), false) => {}
        (Err(_), true) => {
            let _ = sub_run(call, "ROLLBACK TO SAVEPOINT ts_load_data", &[]);
        }
        (Err(_), false) => {
            let _ = call.engine.rollback(call.ctx);
        }
    }
    let c = result?;
    if let Some(w) = call.ctx.warnings() {
        for x in &c.kept {
            w.push(x.level, x.code, x.message.clone());
        }
        w.add_uncounted(c.raised.saturating_sub(c.kept.len() as u64));
    }
    let warnings = u16::try_from(c.raised).unwrap_or(u16::MAX);
    let info = format!("Records: {}  Deleted: {}  Skipped: {}  Warnings: {}", c.records, c.deleted, c.skipped, c.raised);
    Ok(Outcome::Done(Done { affected_rows: c.affected, warnings, info, ..Default::default() }))
}

fn sub_run(call: &mut Call<'_, '_>, sql: &str, params: &[Value]) -> Result<Outcome, SqlError> {
    let mut sink = ColumnNames(Vec::new());
    let mut sub = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params };
    engine_run(&mut sub, sql, &mut sink)
}

fn load_rows(call: &mut Call<'_, '_>, spec: &LoadSpec, plan: &Plan, data: &[u8]) -> Result<Counts, SqlError> {
    let mut split = Splitter::new(data, spec);
    for _ in 0..spec.ignore_lines {
        if !split.skip_line() {
            break;
        }
    }
    let per_row = plan.columns.len() + spec.sets.iter().map(|s| s.2.len()).sum::<usize>();
    let batch_rows = (MAX_PARAMS / per_row.max(1)).clamp(1, MAX_BATCH_ROWS);
    let mut c = Counts { records: 0, affected: 0, deleted: 0, skipped: 0, kept: Vec::new(), raised: 0, pending: Vec::new() };
    let mut params: Vec<Value> = Vec::new();
    let mut tuples: Vec<String> = Vec::new();
    let mut rows_in_batch = 0usize;
    // Strict mode makes 1261/1262 errors, unless IGNORE or LOCAL (MariaDB).
    let strict = !spec.local && spec.duplicates == Duplicates::Error && call.sess.sql_mode(call.ops.globals()).strict();
    let mut vars: Vec<(String, Value)> = Vec::new();
    while let Some(fields) = split.next_row() {
        c.records += 1;
        let line = c.records;
        if strict && fields.len() < plan.slots.len() {
            return Err(SqlError::new(1261, "01000", format!("Row {} doesn't contain data for all columns", line)));
        }
        if strict && cut_line(&fields, plan.slots.len()) {
            return Err(SqlError::new(1262, "01000", format!("Row {} was truncated; it contained more data than there were input columns", line)));
        }
        if fields.len() < plan.slots.len() {
            for _ in fields.len()..plan.slots.len() {
                note(&mut c, line, 1261, format!("Row {} doesn't contain data for all columns", line));
            }
        } else if cut_line(&fields, plan.slots.len()) {
            note(&mut c, line, 1262, format!("Row {} was truncated; it contained more data than there were input columns", line));
        }
        let mut row: Vec<Option<Value>> = vec![None; plan.columns.len()];
        vars.clear();
        for (i, f) in fields.into_iter().enumerate().take(plan.slots.len()) {
            let v = field_value(spec, f);
            match (plan.slots[i], &plan.var_names[i]) {
                (Some(k), _) => row[k] = Some(v),
                (None, Some(name)) => vars.push((name.clone(), v)),
                (None, None) => {}
            }
        }
        // A missing field is its column's DEFAULT, as MySQL sets it.
        let mut tuple: Vec<String> = Vec::with_capacity(row.len() + spec.sets.len());
        for v in row {
            match v {
                Some(v) => {
                    params.push(v);
                    tuple.push("?".into());
                }
                None => tuple.push("DEFAULT".into()),
            }
        }
        tuple.extend(spec.sets.iter().map(|s| format!("({})", s.1)));
        tuples.push(format!("({})", tuple.join(", ")));
        for (_, _, names) in &spec.sets {
            for n in names {
                let v = vars.iter().rev().find(|(k, _)| k == n).map(|(_, v)| v.clone()).or_else(|| call.sess.user_vars.get(n).cloned()).unwrap_or(Value::Null);
                params.push(v);
            }
        }
        for (k, v) in vars.drain(..) {
            call.sess.user_vars.insert(k, v);
        }
        rows_in_batch += 1;
        if rows_in_batch == batch_rows {
            insert_batch(call, spec, plan, (&mut params, &mut tuples), line + 1 - rows_in_batch as u64, &mut c)?;
            rows_in_batch = 0;
        }
    }
    if rows_in_batch > 0 {
        insert_batch(call, spec, plan, (&mut params, &mut tuples), c.records + 1 - rows_in_batch as u64, &mut c)?;
    }
    Ok(c)
}

/// More fields than targets, as MariaDB counts them (1262): a line that
/// ends with the field terminator right after the last target's field
/// (`1,2,` for two columns) is not cut.
fn cut_line(fields: &[Field], targets: usize) -> bool {
    match fields.len().checked_sub(targets) {
        None | Some(0) => false,
        Some(1) => fields.last().is_some_and(|f| f.as_ref().is_none_or(|b| !b.is_empty())),
        Some(_) => true,
    }
}

fn note(c: &mut Counts, line: u64, code: u16, message: String) {
    c.raised += 1;
    if c.kept.len() + c.pending.len() < turnstile_engine::warnings::MAX_KEPT {
        c.pending.push((line, Warning { level: Level::Warning, code, message }));
    }
}

fn insert_text(spec: &LoadSpec, plan: &Plan, tuples: &[String]) -> String {
    let verb = match (spec.duplicates, spec.local) {
        (Duplicates::Replace, _) => "REPLACE",
        (Duplicates::Ignore, _) | (Duplicates::Error, true) => "INSERT IGNORE",
        (Duplicates::Error, false) => "INSERT",
    };
    let mut cols: Vec<String> = plan.columns.iter().map(|c| quote_ident(c)).collect();
    cols.extend(spec.sets.iter().map(|s| quote_ident(&s.0)));
    format!("{} INTO {} ({}) VALUES {}", verb, table_ref(spec), cols.join(", "), tuples.join(", "))
}

/// Insert the rows of `batch` (their parameters and VALUES tuples); the
/// first is line `first_line` of the file (warnings' "at row N" are
/// renumbered to it).
fn insert_batch(call: &mut Call<'_, '_>, spec: &LoadSpec, plan: &Plan, batch: (&mut Vec<Value>, &mut Vec<String>), first_line: u64, c: &mut Counts) -> Result<(), SqlError> {
    let (params, tuples) = batch;
    let sql = insert_text(spec, plan, tuples);
    let rows = tuples.len();
    let out = sub_run(call, &sql, params);
    params.clear();
    tuples.clear();
    let (raised, count) = call.ctx.warnings().map(|w| w.take()).unwrap_or_default();
    let mut out = out.map_err(|e| renumber(e.message.clone(), first_line).map_or(e.clone(), |m| SqlError { message: m, ..e }))?;
    let Outcome::Done(d) = &mut out else { return Ok(()) };
    let engine_count = (d.warnings as u64).max(count);
    c.raised += engine_count;
    // The engine's warnings first on each line, then ours; a warning with
    // no line (1062) goes with the one before it.
    let mut merged: Vec<(u64, u8, Warning)> = Vec::new();
    let mut last_line = first_line;
    for w in raised {
        let message = renumber(w.message.clone(), first_line).unwrap_or(w.message);
        last_line = row_of(&message).unwrap_or(last_line);
        merged.push((last_line, 0, Warning { message, ..w }));
    }
    merged.extend(c.pending.drain(..).map(|(line, w)| (line, 1, w)));
    merged.sort_by_key(|(line, order, _)| (*line, *order));
    for (_, _, w) in merged {
        if c.kept.len() < turnstile_engine::warnings::MAX_KEPT {
            c.kept.push(w);
        }
    }
    let rows = rows as u64;
    match spec.duplicates {
        Duplicates::Replace => {
            c.deleted += d.affected_rows.saturating_sub(rows);
        }
        _ => c.skipped += rows.saturating_sub(d.affected_rows),
    }
    c.affected += d.affected_rows;
    Ok(())
}

/// N of "... at row N".
fn row_of(message: &str) -> Option<u64> {
    let at = message.rfind(" at row ")?;
    message[at + 8..].trim().parse().ok()
}

/// "... at row N" of a batch as the row of the file: N + first_line - 1.
fn renumber(message: String, first_line: u64) -> Option<String> {
    let at = message.rfind(" at row ")?;
    let n: u64 = message[at + 8..].trim().parse().ok()?;
    Some(format!("{} at row {}", &message[..at], n + first_line - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(sql: &str, data: &[u8]) -> Vec<Vec<Field>> {
        let spec = parse(sql).unwrap();
        let mut s = Splitter::new(data, &spec);
        let mut out = Vec::new();
        for _ in 0..spec.ignore_lines {
            s.skip_line();
        }
        while let Some(r) = s.next_row() {
            out.push(r);
        }
        out
    }

    fn f(s: &str) -> Field {
        Some(s.as_bytes().to_vec())
    }

    #[test]
    fn tabs_lines_escapes_and_null() {
        let r = rows("LOAD DATA LOCAL INFILE 'x' INTO TABLE t", b"1\ta\\tb\n2\t\\N\n3\n");
        assert_eq!(r, vec![vec![f("1"), f("a\tb")], vec![f("2"), None], vec![f("3")]]);
    }

    #[test]
    fn csv_with_enclosures_and_ignore() {
        let sql = "LOAD DATA INFILE 'x' IGNORE INTO TABLE d.t CHARACTER SET utf8mb4 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\r\\n' IGNORE 1 LINES (a, @b) SET c = UPPER(@b)";
        let spec = parse(sql).unwrap();
        assert_eq!(spec.duplicates, Duplicates::Ignore);
        assert_eq!(spec.targets, vec![Target::Column("a".into()), Target::Var("b".into())]);
        assert_eq!(spec.sets, vec![("c".to_string(), "UPPER(?)".to_string(), vec!["b".to_string()])]);
        let r = rows(sql, b"h1,h2\r\n1,\"x,\"\"y\"\"\"\r\n2,plain\r\n");
        assert_eq!(r, vec![vec![f("1"), f("x,\"y\"")], vec![f("2"), f("plain")]]);
    }

    #[test]
    fn null_words_as_mariadb_reads_them() {
        let data = b"x,NULL\ny,\"NULL\"\nz,\\N\n";
        let enclosed = "LOAD DATA INFILE 'x' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '\"'";
        assert_eq!(rows(enclosed, data).iter().map(|r| r[1].clone()).collect::<Vec<_>>(), vec![None, f("NULL"), None]);
        let no_escape = "LOAD DATA INFILE 'x' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '\"' ESCAPED BY ''";
        assert_eq!(rows(no_escape, data).iter().map(|r| r[1].clone()).collect::<Vec<_>>(), vec![None, f("NULL"), f("\\N")]);
        let plain = "LOAD DATA INFILE 'x' INTO TABLE t FIELDS TERMINATED BY ','";
        assert_eq!(rows(plain, b"x,NULL\n").iter().map(|r| r[1].clone()).collect::<Vec<_>>(), vec![f("NULL")]);
    }

    #[test]
    fn lines_starting_by_skips_lines_without_it() {
        let r = rows("LOAD DATA INFILE 'x' INTO TABLE t FIELDS TERMINATED BY ',' LINES STARTING BY 'xxx'", b"xxx1,a\nno\nxxx2,b\n");
        assert_eq!(r, vec![vec![f("1"), f("a")], vec![f("2"), f("b")]]);
    }

    #[test]
    fn a_trailing_field_terminator_does_not_cut_the_line() {
        let (one, empty) = (f("1"), f(""));
        assert!(!cut_line(&[one.clone(), one.clone(), empty.clone()], 2));
        assert!(cut_line(&[one.clone(), one.clone(), f(" ")], 2));
        assert!(cut_line(&[one.clone(), one.clone(), empty.clone(), empty], 2));
        assert!(!cut_line(&[one.clone(), one], 2));
    }

    #[test]
    fn warnings_renumbered() {
        assert_eq!(renumber("Data truncated for column 'b' at row 2".into(), 1001).as_deref(), Some("Data truncated for column 'b' at row 1002"));
    }

    #[test]
    fn bad_syntax_is_1064() {
        assert_eq!(parse("LOAD DATA LOCAL INFILE INTO TABLE t").unwrap_err().code, 1064);
        assert_eq!(parse("LOAD XML INFILE 'x' INTO TABLE t").unwrap_err().code, 1235);
    }
}
