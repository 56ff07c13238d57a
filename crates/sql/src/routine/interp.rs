//! The interpreter of stored routines: runs a parsed body (`parse.rs`)
//! for CALL, with its variables, control flow, cursors, handlers and
//! SIGNAL, and each plain SQL statement through the front as the client's
//! statements run, with the variables bound as parameters (`subst.rs`).
//!
//! Expressions (conditions, SET, DEFAULT, RETURN, arguments) are evaluated
//! as `SELECT expr` the same way, so everything a SELECT understands works
//! in them. A SELECT's rows go to the client as one result set each, ended
//! with SERVER_MORE_RESULTS_EXISTS (`RowSink::end_result`); the CALL then
//! ends with its own OK, as MySQL sends it.
//!
//! Limits: a routine may call itself (directly or not) only
//! max_sp_recursion_depth times (ERR 1456; default 0: no recursion, as
//! MariaDB), and every loop iteration asks the statement's context whether
//! it must stop (KILL QUERY, max_statement_time, a vanished client), as the
//! engine does every 1,000 VM steps. Recursion of blocks and calls is also
//! bounded by the thread's stack (`stack::check`, ERR 1436).

use super::parse::{Cond, Mode, Param, Stmt};
use crate::front::{self, Call};
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Value};

/// A variable of the running routine: a parameter or a DECLAREd local.
struct Var {
    name: String,
    value: Value,
    /// The declared type, which an assigned value is converted to.
    ty: String,
}

struct Cursor {
    name: String,
    query: String,
    rows: Option<std::collections::VecDeque<Vec<Value>>>,
}

struct Handler {
    exit: bool,
    conds: Vec<Cond>,
    body: Stmt,
    /// The block that declared it (how many blocks were open).
    block: usize,
}

/// How a statement ended, besides an error.
enum Flow {
    Next,
    Leave(String),
    Iterate(String),
    Return(Value),
    /// An EXIT handler ran: leave the block it was declared in.
    ExitBlock(usize),
}

/// Rows a cursor may hold (OPEN reads the whole result).
const CURSOR_MAX_ROWS: usize = 100_000;

/// A trigger's rows: the table's columns with their declared types, NEW
/// (assignable in a BEFORE trigger; `set` marks the columns assigned) and OLD.
pub struct RowVars {
    pub cols: Vec<String>,
    pub types: Vec<String>,
    pub new: Option<Vec<Value>>,
    pub old: Option<Vec<Value>>,
    pub set: Vec<bool>,
}

impl RowVars {
    fn index(&self, col: &str) -> Option<usize> {
        self.cols.iter().position(|c| c.eq_ignore_ascii_case(col))
    }

    fn get(&self, which: &str, col: &str) -> Option<Value> {
        let i = self.index(col)?;
        let row = if which == "NEW" { self.new.as_ref()? } else { self.old.as_ref()? };
        row.get(i).cloned()
    }
}

/// One activation of a routine.
pub struct Interp<'x, 'a, 'b> {
    pub call: &'x mut Call<'a, 'b>,
    vars: Vec<Var>,
    conds: Vec<(String, Cond)>,
    cursors: Vec<Cursor>,
    handlers: Vec<Handler>,
    blocks: usize,
    /// A procedure (may send result sets) or a function (may not).
    procedure: bool,
    /// Affected rows of the statements run so far, summed as MariaDB sums
    /// them for the OK of a CALL or a compound statement (a SELECT ... INTO
    /// counts 1, a result set and SET nothing).
    pub affected_rows: u64,
    /// A trigger's NEW and OLD rows (None in a procedure).
    pub row: Option<RowVars>,
}

/// Collects a statement's rows (evaluations, SELECT INTO, cursors).
pub(super) struct Capture {
    pub rows: Vec<Vec<Value>>,
    pub limit: usize,
    pub over: bool,
}

impl RowSink for Capture {
    fn columns(&mut self, _: &[Column]) -> Result<(), SqlError> {
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        if self.rows.len() >= self.limit {
            self.over = true;
            return Ok(());
        }
        self.rows.push(row.to_vec());
        Ok(())
    }
}

/// The client's sink, never paused (a procedure's statements run to their end).
struct NoPause<'s>(&'s mut dyn RowSink);

impl RowSink for NoPause<'_> {
    fn columns(&mut self, c: &[Column]) -> Result<(), SqlError> {
        self.0.columns(c)
    }
    fn columns_encoded(&mut self, c: &[Column], e: &turnstile_wire::response::EncodedColumns) -> Result<(), SqlError> {
        self.0.columns_encoded(c, e)
    }
    fn row(&mut self, r: &[Value]) -> Result<(), SqlError> {
        self.0.row(r)
    }
    fn end_result(&mut self) -> Result<(), SqlError> {
        self.0.end_result()
    }
}

fn sqlstate_of(e: &SqlError) -> &str {
    e.state
}

/// SQLSTATEs SIGNAL has raised, kept for the process (`SqlError::state` is
/// `&'static str`): at most `MAX_STATES` distinct ones; past that a new
/// state is raised as 45000.
const MAX_STATES: usize = 1024;

fn intern_state(state: &str) -> &'static str {
    static STATES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut known = STATES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = known.iter().find(|s| **s == state) {
        return s;
    }
    if known.len() >= MAX_STATES {
        return "45000";
    }
    let s: &'static str = Box::leak(state.to_string().into_boxed_str());
    known.push(s);
    s
}

/// Does a handler condition catch this error?
fn catches(c: &Cond, e: &SqlError, named: &[(String, Cond)]) -> bool {
    let state = sqlstate_of(e);
    match c {
        Cond::SqlException => !state.starts_with("00") && !state.starts_with("01") && !state.starts_with("02"),
        Cond::SqlWarning => state.starts_with("01"),
        Cond::NotFound => state.starts_with("02"),
        Cond::State(s) => s == state,
        Cond::Code(code) => *code == e.code,
        Cond::Named(n) => named.iter().rev().find(|(m, _)| m.eq_ignore_ascii_case(n)).is_some_and(|(_, c)| !matches!(c, Cond::Named(_)) && catches(c, e, &[])),
    }
}

fn not_found() -> SqlError {
    SqlError::new(1329, "02000", "No data - zero rows fetched, selected, or processed")
}

/// The CAST type a declared type's values are converted with (None: kept as they are).
pub(super) fn cast_of(ty: &str) -> Option<String> {
    let t = ty.trim().to_ascii_uppercase();
    let base = t.split(['(', ' ']).next().unwrap_or("");
    let args = t.find('(').and_then(|a| t[a..].find(')').map(|b| &t[a..a + b + 1])).unwrap_or("");
    let unsigned = t.contains("UNSIGNED");
    Some(match base {
        "INT" | "INTEGER" | "BIGINT" | "SMALLINT" | "TINYINT" | "MEDIUMINT" | "BOOL" | "BOOLEAN" | "SERIAL" => (if unsigned { "UNSIGNED" } else { "SIGNED" }).to_string(),
        "DECIMAL" | "NUMERIC" | "DEC" | "FIXED" => format!("DECIMAL{}", if args.is_empty() { "(10,0)" } else { args }),
        "FLOAT" | "DOUBLE" | "REAL" => "DOUBLE".to_string(),
        "DATE" => "DATE".to_string(),
        "DATETIME" | "TIMESTAMP" => format!("DATETIME{}", args),
        "TIME" => format!("TIME{}", args),
        "CHAR" | "VARCHAR" => format!("CHAR{}", args),
        _ => return None,
    })
}

impl<'x, 'a, 'b> Interp<'x, 'a, 'b> {
    pub fn new(call: &'x mut Call<'a, 'b>, procedure: bool) -> Self {
        Interp { call, vars: Vec::new(), conds: Vec::new(), cursors: Vec::new(), handlers: Vec::new(), blocks: 0, procedure, affected_rows: 0, row: None }
    }

    /// Bind the parameters (already evaluated) as the first variables.
    pub fn bind_params(&mut self, params: &[Param], values: Vec<Value>) -> Result<(), SqlError> {
        for (p, v) in params.iter().zip(values) {
            let value = if p.mode == Mode::Out { Value::Null } else { self.coerce(v, &p.ty)? };
            self.vars.push(Var { name: p.name.clone(), value, ty: p.ty.clone() });
        }
        Ok(())
    }

    /// A parameter's value after the body (OUT and INOUT).
    pub fn param_value(&self, i: usize) -> Value {
        self.vars.get(i).map_or(Value::Null, |v| v.value.clone())
    }

    /// Is `name` a variable of this routine?
    pub fn has_var(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// Store an OUT parameter's value into the caller's argument (`@x` or a variable).
    pub fn assign_arg(&mut self, target: &str, v: Value) -> Result<(), SqlError> {
        self.assign(target, v)
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|v| v.name.eq_ignore_ascii_case(name))
    }

    /// Run `sql` through the front with the variables bound.
    fn run(&mut self, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        let bound = {
            let vars = &self.vars;
            let row = &self.row;
            let var = |n: &str| vars.iter().rev().find(|v| v.name.eq_ignore_ascii_case(n)).map(|v| v.value.clone());
            super::subst::bind_row(sql, &var, &|which: &str, col: &str| row.as_ref().and_then(|r| r.get(which, col)))?
        };
        let (text, params) = match &bound {
            Some((t, p)) => (t.as_str(), p.as_slice()),
            None => (sql, &[][..]),
        };
        let mut inner = Call { sess: &mut *self.call.sess, engine: &mut *self.call.engine, ops: self.call.ops, ctx: self.call.ctx, params };
        front::routine_statement(&mut inner, text, sink)
    }

    /// Evaluate an expression to one value.
    pub fn eval(&mut self, expr: &str) -> Result<Value, SqlError> {
        let mut cap = Capture { rows: Vec::new(), limit: 1, over: false };
        self.run(&format!("SELECT {}", expr), &mut cap)?;
        Ok(cap.rows.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
    }

    fn truth(&mut self, expr: &str) -> Result<bool, SqlError> {
        let v = self.eval(&format!("({}) IS TRUE", expr))?;
        Ok(v.as_i64().unwrap_or(0) != 0)
    }

    /// A value converted to a declared type.
    pub fn coerce(&mut self, v: Value, ty: &str) -> Result<Value, SqlError> {
        let Some(cast) = cast_of(ty) else { return Ok(v) };
        if v.is_null() {
            return Ok(v);
        }
        let mut cap = Capture { rows: Vec::new(), limit: 1, over: false };
        let params = [v];
        let mut inner = Call { sess: &mut *self.call.sess, engine: &mut *self.call.engine, ops: self.call.ops, ctx: self.call.ctx, params: &params };
        front::routine_statement(&mut inner, &format!("SELECT CAST(? AS {})", cast), &mut cap)?;
        Ok(cap.rows.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
    }

    /// Assign to a variable of the routine, a user variable `@x`, or a
    /// trigger's `NEW.col` (converted to the column's type).
    fn assign(&mut self, target: &str, v: Value) -> Result<(), SqlError> {
        if let Some(col) = target.strip_prefix("NEW.") {
            let r = self.row.as_ref().ok_or_else(|| SqlError::new(1327, "42000", format!("Undeclared variable: {}", target)))?;
            let i = r.index(col).ok_or_else(|| SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'NEW'", col)))?;
            let ty = r.types[i].clone();
            let v = self.coerce(v, &ty)?;
            let r = self.row.as_mut().expect("checked above");
            if let Some(new) = r.new.as_mut() {
                new[i] = v;
                r.set[i] = true;
            }
            return Ok(());
        }
        if let Some(name) = target.strip_prefix('@') {
            let name = name.trim_matches(|c| c == '`' || c == '\'' || c == '"').to_ascii_lowercase();
            self.call.sess.user_vars.insert(name, v);
            return Ok(());
        }
        let i = self.lookup(target).ok_or_else(|| SqlError::new(1327, "42000", format!("Undeclared variable: {}", target)))?;
        let ty = self.vars[i].ty.clone();
        self.vars[i].value = self.coerce(v, &ty)?;
        Ok(())
    }

    fn interrupted(&self) -> Result<(), SqlError> {
        match self.call.ctx.interruption() {
            Some(i) => Err(i.error()),
            None => Ok(()),
        }
    }

    /// Run a routine's body; a function's RETURN value.
    pub fn run_body(&mut self, body: &[Stmt], sink: &mut dyn RowSink) -> Result<Option<Value>, SqlError> {
        let mut sink = NoPause(sink);
        match self.list(body, &mut sink)? {
            Flow::Return(v) => Ok(Some(v)),
            Flow::Leave(l) | Flow::Iterate(l) => Err(SqlError::new(1308, "42000", format!("LEAVE with no matching label: {}", l))),
            Flow::Next | Flow::ExitBlock(_) => Ok(None),
        }
    }

    /// Statements in order; an error goes to the innermost handler that catches it.
    fn list(&mut self, stmts: &[Stmt], sink: &mut dyn RowSink) -> Result<Flow, SqlError> {
        for s in stmts {
            match self.stmt(s, sink) {
                Ok(Flow::Next) => {}
                Ok(other) => return Ok(other),
                Err(e) => match self.handle(e, sink)? {
                    Flow::Next => {}
                    other => return Ok(other),
                },
            }
        }
        Ok(Flow::Next)
    }

    /// An error raised in a statement: run the handler that catches it (an
    /// interruption is never caught).
    fn handle(&mut self, e: SqlError, sink: &mut dyn RowSink) -> Result<Flow, SqlError> {
        if matches!(e.code, 1317 | 1969 | 3024 | 1436 | 1456) {
            return Err(e);
        }
        let Some(h) = self.handlers.iter().rposition(|h| h.conds.iter().any(|c| catches(c, &e, &self.conds))) else { return Err(e) };
        // The handler's body runs with only the handlers declared outside its block.
        let (exit, block, body) = (self.handlers[h].exit, self.handlers[h].block, self.handlers[h].body.clone());
        let saved: Vec<Handler> = self.handlers.drain(h..).collect();
        let r = self.stmt(&body, sink);
        self.handlers.extend(saved);
        match r? {
            Flow::Next if exit => Ok(Flow::ExitBlock(block)),
            Flow::Next => Ok(Flow::Next),
            other => Ok(other),
        }
    }

    fn block(&mut self, label: &Option<String>, body: &[Stmt], sink: &mut dyn RowSink) -> Result<Flow, SqlError> {
        turnstile_engine::stack::check()?;
        self.blocks += 1;
        let id = self.blocks;
        let (nv, nc, nk, nh) = (self.vars.len(), self.conds.len(), self.cursors.len(), self.handlers.len());
        let r = self.list(body, sink);
        self.vars.truncate(nv);
        self.conds.truncate(nc);
        self.cursors.truncate(nk);
        self.handlers.truncate(nh);
        self.blocks -= 1;
        match r? {
            Flow::ExitBlock(b) if b == id => Ok(Flow::Next),
            Flow::Leave(l) if label.as_ref().is_some_and(|x| x.eq_ignore_ascii_case(&l)) => Ok(Flow::Next),
            other => Ok(other),
        }
    }

    /// One pass of a loop's body: None to go round again, Some to stop with it.
    fn iteration(&mut self, label: &Option<String>, body: &[Stmt], sink: &mut dyn RowSink) -> Result<Option<Flow>, SqlError> {
        self.interrupted()?;
        let mine = |l: &String| label.as_ref().is_some_and(|x| x.eq_ignore_ascii_case(l));
        match self.list(body, sink)? {
            Flow::Next => Ok(None),
            Flow::Iterate(l) if mine(&l) => Ok(None),
            Flow::Leave(l) if mine(&l) => Ok(Some(Flow::Next)),
            other => Ok(Some(other)),
        }
    }

    /// `FOR var IN [REVERSE] lower .. upper`: MariaDB's loop, a WHILE over
    /// an INT variable of its own that the body may change; the bounds are
    /// read once, and a NULL bound is MariaDB's 1048.
    #[allow(clippy::too_many_arguments)]
    fn for_loop(&mut self, label: &Option<String>, var: &str, reverse: bool, lower: &str, upper: &str, body: &[Stmt], sink: &mut dyn RowSink) -> Result<Flow, SqlError> {
        let bound = |v: Value, name: &str| v.as_i64().ok_or_else(|| SqlError::new(1048, "23000", format!("Column '{}' cannot be null", name)));
        let (first, last) = if reverse { (upper, lower) } else { (lower, upper) };
        let i0 = bound(self.eval(first)?, var)?;
        let end = bound(self.eval(last)?, "[target_bound]")?;
        let (lo, hi) = if reverse { (end, i0) } else { (i0, end) };
        let (mut i, end) = if reverse { (hi, lo) } else { (lo, hi) };
        let slot = self.vars.len();
        self.vars.push(Var { name: var.to_string(), value: Value::Int(i), ty: "INT".to_string() });
        let r = loop {
            if if reverse { i < end } else { i > end } {
                break Ok(Flow::Next);
            }
            self.vars[slot].value = Value::Int(i);
            match self.iteration(label, body, sink) {
                Ok(None) => {}
                Ok(Some(f)) => break Ok(f),
                Err(e) => break Err(e),
            }
            let now = self.vars[slot].value.as_i64().unwrap_or(i);
            match if reverse { now.checked_sub(1) } else { now.checked_add(1) } {
                Some(n) => i = n,
                None => break Ok(Flow::Next),
            }
        };
        self.vars.truncate(slot);
        r
    }

    fn stmt(&mut self, s: &Stmt, sink: &mut dyn RowSink) -> Result<Flow, SqlError> {
        match s {
            Stmt::Block { label, body } => self.block(label, body, sink),
            Stmt::Declare { names, ty, default } => {
                let v = match default {
                    Some(e) => {
                        let v = self.eval(e)?;
                        self.coerce(v, ty)?
                    }
                    None => Value::Null,
                };
                for n in names {
                    self.vars.push(Var { name: n.clone(), value: v.clone(), ty: ty.clone() });
                }
                Ok(Flow::Next)
            }
            Stmt::Cursor { name, query } => {
                self.cursors.push(Cursor { name: name.clone(), query: query.clone(), rows: None });
                Ok(Flow::Next)
            }
            Stmt::Condition { name, cond } => {
                self.conds.push((name.clone(), cond.clone()));
                Ok(Flow::Next)
            }
            Stmt::Handler { exit, conds, body } => {
                self.handlers.push(Handler { exit: *exit, conds: conds.clone(), body: (**body).clone(), block: self.blocks });
                Ok(Flow::Next)
            }
            Stmt::Set(items) => {
                for (target, raw, e) in items {
                    if target.starts_with('@') && !target.starts_with("@@") || self.lookup(target).is_some() && !raw.starts_with('@') || target.starts_with("NEW.") {
                        let v = self.eval(e)?;
                        self.assign(target, v)?;
                    } else {
                        // A system variable (`SET autocommit = 0`, `SET @@x = ...`).
                        self.run(&format!("SET {} = {}", raw, e), &mut turnstile_engine::DiscardRows)?;
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::If { arms, other } => {
                for (cond, body) in arms {
                    if self.truth(cond)? {
                        return self.list(body, sink);
                    }
                }
                match other {
                    Some(body) => self.list(body, sink),
                    None => Ok(Flow::Next),
                }
            }
            Stmt::Case { operand, arms, other } => {
                for (v, body) in arms {
                    let hit = match operand {
                        Some(op) => self.truth(&format!("({}) = ({})", op, v))?,
                        None => self.truth(v)?,
                    };
                    if hit {
                        return self.list(body, sink);
                    }
                }
                match other {
                    Some(body) => self.list(body, sink),
                    None => Err(SqlError::new(1339, "20000", "Case not found for CASE statement")),
                }
            }
            Stmt::While { label, cond, body } => {
                while self.truth(cond)? {
                    if let Some(f) = self.iteration(label, body, sink)? {
                        return Ok(f);
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::Repeat { label, body, until } => loop {
                if let Some(f) = self.iteration(label, body, sink)? {
                    return Ok(f);
                }
                if self.truth(until)? {
                    return Ok(Flow::Next);
                }
            },
            Stmt::Loop { label, body } => loop {
                if let Some(f) = self.iteration(label, body, sink)? {
                    return Ok(f);
                }
            },
            Stmt::For { label, var, reverse, lower, upper, body } => self.for_loop(label, var, *reverse, lower, upper, body, sink),
            Stmt::Leave(l) => Ok(Flow::Leave(l.clone())),
            Stmt::Iterate(l) => Ok(Flow::Iterate(l.clone())),
            Stmt::Return(e) => {
                if self.procedure {
                    return Err(SqlError::new(1313, "42000", "RETURN is only allowed in a FUNCTION"));
                }
                Ok(Flow::Return(self.eval(e)?))
            }
            Stmt::Signal { state, items } => {
                let e = self.signal(state, items)?;
                if e.state.starts_with("01") {
                    // A warning: raised, and the routine goes on.
                    // A stored function's leaves no warning (MariaDB 10.11: `SELECT f()` shows none).
                    if self.procedure || self.row.is_some() {
                        self.call.ctx.warn(e.code, e.message);
                    }
                    return Ok(Flow::Next);
                }
                Err(e)
            }
            Stmt::Open(c) => {
                let i = self.cursor(c)?;
                if self.cursors[i].rows.is_some() {
                    return Err(SqlError::new(1325, "24000", "Cursor is already open"));
                }
                let query = self.cursors[i].query.clone();
                let mut cap = Capture { rows: Vec::new(), limit: CURSOR_MAX_ROWS, over: false };
                self.run(&query, &mut cap)?;
                if cap.over {
                    return Err(SqlError::new(1114, "HY000", format!("The cursor {} holds more than {} rows", c, CURSOR_MAX_ROWS)));
                }
                self.cursors[i].rows = Some(cap.rows.into());
                Ok(Flow::Next)
            }
            Stmt::Fetch { cursor, into } => {
                let i = self.cursor(cursor)?;
                let row = match self.cursors[i].rows.as_mut() {
                    None => return Err(SqlError::new(1326, "24000", "Cursor is not open")),
                    Some(rows) => rows.pop_front(),
                };
                let row = row.ok_or_else(not_found)?;
                if row.len() != into.len() {
                    return Err(SqlError::new(1328, "HY000", "Incorrect number of FETCH variables"));
                }
                for (t, v) in into.iter().zip(row) {
                    self.assign(t, v)?;
                }
                // MariaDB counts no affected row for a FETCH.
                Ok(Flow::Next)
            }
            Stmt::Close(c) => {
                let i = self.cursor(c)?;
                if self.cursors[i].rows.take().is_none() {
                    return Err(SqlError::new(1326, "24000", "Cursor is not open"));
                }
                Ok(Flow::Next)
            }
            Stmt::Call { db, name, args } => {
                super::call_routine(self, db.as_deref(), name, args, sink)?;
                Ok(Flow::Next)
            }
            Stmt::SelectInto { query, into, .. } => {
                let mut cap = Capture { rows: Vec::new(), limit: 1, over: false };
                self.run(query, &mut cap)?;
                if cap.over {
                    return Err(SqlError::new(1172, "42000", "Result consisted of more than one row"));
                }
                let Some(row) = cap.rows.pop() else {
                    // No row: a NOT FOUND condition, a warning unless a handler takes it.
                    let e = not_found();
                    if self.handlers.iter().any(|h| h.conds.iter().any(|c| catches(c, &e, &self.conds))) {
                        return Err(e);
                    }
                    // A stored function's leaves no warning (MariaDB 10.11: `SELECT f()` shows none).
                    if self.procedure || self.row.is_some() {
                        self.call.ctx.warn(e.code, e.message);
                    }
                    return Ok(Flow::Next);
                };
                if row.len() != into.len() {
                    return Err(SqlError::new(1222, "21000", "The used SELECT statements have a different number of columns"));
                }
                for (t, v) in into.iter().zip(row) {
                    self.assign(t, v)?;
                }
                // The row selected (MariaDB counts 1 for `SELECT ... INTO @v`).
                self.affected_rows += 1;
                Ok(Flow::Next)
            }
            Stmt::Sql(sql) => {
                // In a procedure each statement starts the diagnostics area
                // afresh unless it raises nothing and is one that keeps it
                // (MariaDB: after CALL, SHOW WARNINGS shows the last
                // statement's); a function's all reach its caller.
                let prior = if self.procedure && self.row.is_none() { self.call.ctx.warnings().map(|w| w.take()) } else { None };
                let out = self.run(sql, sink);
                if let (Some(prior), Some(w)) = (prior, self.call.ctx.warnings()) {
                    if w.count() == 0 && front::keeps_diagnostics(sql) {
                        w.put_back(prior);
                    }
                }
                let out = out?;
                match out {
                    Outcome::Rows | Outcome::Paused => {
                        if !self.procedure {
                            return Err(SqlError::new(1415, "0A000", "Not allowed to return a result set from a function"));
                        }
                        sink.end_result()?;
                    }
                    Outcome::Done(d) => self.affected_rows += d.affected_rows,
                }
                Ok(Flow::Next)
            }
        }
    }

    fn cursor(&self, name: &str) -> Result<usize, SqlError> {
        self.cursors.iter().rposition(|c| c.name.eq_ignore_ascii_case(name)).ok_or_else(|| SqlError::new(1324, "42000", format!("Undefined CURSOR: {}", name)))
    }

    /// The error SIGNAL raises.
    fn signal(&mut self, state: &str, items: &[(String, String)]) -> Result<SqlError, SqlError> {
        let state = match state.strip_prefix('@') {
            Some(name) => match self.conds.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, c)| c.clone()) {
                Some(Cond::State(s)) => s,
                Some(_) => return Err(SqlError::new(1645, "0K000", "RESIGNAL when handler not active")),
                None => return Err(SqlError::new(1319, "42000", format!("Undefined CONDITION: {}", name))),
            },
            None => state.to_string(),
        };
        let (default_code, default_text) = match &state[..2] {
            "01" => (1642u16, "Unhandled user-defined warning condition"),
            "02" => (1643, "Unhandled user-defined not found condition"),
            _ => (1644, "Unhandled user-defined exception condition"),
        };
        let mut code = default_code;
        let mut text = default_text.to_string();
        for (item, e) in items {
            let v = self.eval(e)?;
            match item.as_str() {
                "MESSAGE_TEXT" => text = String::from_utf8_lossy(&v.to_text().unwrap_or_default()).chars().take(128).collect(),
                "MYSQL_ERRNO" => code = v.as_i64().filter(|n| (1..=65534).contains(n)).ok_or_else(|| SqlError::new(1231, "42000", "Variable 'MYSQL_ERRNO' can't be set to the value"))? as u16,
                "CLASS_ORIGIN" | "SUBCLASS_ORIGIN" | "CONSTRAINT_CATALOG" | "CONSTRAINT_SCHEMA" | "CONSTRAINT_NAME" | "CATALOG_NAME" | "SCHEMA_NAME" | "TABLE_NAME" | "COLUMN_NAME" | "CURSOR_NAME" => {
                }
                other => return Err(SqlError::syntax(other)),
            }
        }
        Ok(SqlError::new(code, intern_state(&state), text))
    }
}
