//! The parser of stored routines: CREATE PROCEDURE / FUNCTION's header
//! (definer, name, parameters, RETURNS, characteristics) and the body's
//! compound statements (BEGIN ... END, DECLARE, IF, CASE, WHILE, REPEAT,
//! LOOP, LEAVE, ITERATE, RETURN, SIGNAL, cursors, handlers) into a tree the
//! interpreter (`interp.rs`) walks.
//!
//! What is not a compound statement stays text (`Stmt::Sql`): it is run as
//! the client's statements are, with the routine's variables bound as
//! parameters (`subst.rs`), so this parser needs no knowledge of SQL
//! beyond where a statement and an expression end. Expressions are text too
//! (evaluated as `SELECT expr`).
//!
//! Nesting is bounded twice: by `max_depth` (blocks and control statements
//! inside each other; the routine_max_nesting setting) and by the thread's
//! stack (`stack::check`), so a body of 10,000 nested BEGINs is refused with
//! an error, never a crash.

use turnstile_engine::{RoutineKind, SqlError};
use turnstile_sqltext::lex::{self, Tok, Token};

/// IN, OUT or INOUT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    In,
    Out,
    InOut,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub mode: Mode,
    pub name: String,
    pub ty: String,
}

/// CREATE PROCEDURE / FUNCTION as written.
#[derive(Debug, Clone, Default)]
pub struct Header {
    pub or_replace: bool,
    pub if_not_exists: bool,
    /// DEFINER = user@host; None: the current user (also for CURRENT_USER).
    pub definer: Option<(String, String)>,
    pub kind: Option<RoutineKind>,
    pub db: Option<String>,
    pub name: String,
    pub params: Vec<Param>,
    pub params_text: String,
    pub returns: String,
    pub invoker: bool,
    pub deterministic: bool,
    pub data_access: String,
    pub comment: String,
    pub body: String,
    /// From the name on (what SHOW CREATE shows after `DEFINER=... PROCEDURE`).
    pub tail: String,
}

/// A condition a handler catches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    SqlException,
    SqlWarning,
    NotFound,
    State(String),
    Code(u16),
    Named(String),
}

/// One statement of a routine body.
#[derive(Debug, Clone)]
pub enum Stmt {
    Block {
        label: Option<String>,
        body: Vec<Stmt>,
    },
    Declare {
        names: Vec<String>,
        ty: String,
        default: Option<String>,
    },
    Cursor {
        name: String,
        query: String,
    },
    Condition {
        name: String,
        cond: Cond,
    },
    Handler {
        exit: bool,
        conds: Vec<Cond>,
        body: Box<Stmt>,
    },
    /// `SET a = e, @b = e2`: (target as written, expression); a target that
    /// is not a variable of the routine runs as `SET target = e`.
    Set(Vec<(String, String, String)>),
    If {
        arms: Vec<(String, Vec<Stmt>)>,
        other: Option<Vec<Stmt>>,
    },
    Case {
        operand: Option<String>,
        arms: Vec<(String, Vec<Stmt>)>,
        other: Option<Vec<Stmt>>,
    },
    While {
        label: Option<String>,
        cond: String,
        body: Vec<Stmt>,
    },
    Repeat {
        label: Option<String>,
        body: Vec<Stmt>,
        until: String,
    },
    Loop {
        label: Option<String>,
        body: Vec<Stmt>,
    },
    /// `FOR var IN [REVERSE] lower .. upper DO ... END FOR`: an INT loop
    /// variable of its own, the bounds evaluated once.
    For {
        label: Option<String>,
        var: String,
        reverse: bool,
        lower: String,
        upper: String,
        body: Vec<Stmt>,
    },
    Leave(String),
    Iterate(String),
    Return(String),
    /// SIGNAL SQLSTATE '45000' | condition, SET item = expr, ...
    Signal {
        state: String,
        items: Vec<(String, String)>,
    },
    Open(String),
    Fetch {
        cursor: String,
        into: Vec<String>,
    },
    Close(String),
    Call {
        db: Option<String>,
        name: String,
        args: Vec<String>,
    },
    /// SELECT ... INTO targets: the query without its INTO clause;
    /// `trailing` when INTO follows the FROM clause or a UNION (MariaDB
    /// 10.11 deprecates that form: Warning 1287 where it is parsed).
    SelectInto {
        query: String,
        into: Vec<String>,
        trailing: bool,
    },
    Sql(String),
}

fn syntax_at(sql: &str, toks: &[Token], i: usize) -> SqlError {
    SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]))
}

fn unquote_host(h: &str) -> String {
    h.trim_matches(|c| c == '\'' || c == '`' || c == '"').to_string()
}

/// Parse a CREATE statement if it makes a stored routine (None otherwise).
pub fn parse_create(sql: &str) -> Result<Option<Header>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut i = 0;
    let kw = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    if !kw(0, "CREATE") {
        return Ok(None);
    }
    i += 1;
    let mut h = Header::default();
    if kw(i, "OR") && kw(i + 1, "REPLACE") {
        h.or_replace = true;
        i += 2;
    }
    if kw(i, "DEFINER") && toks.get(i + 1).is_some_and(|t| t.is_op("=")) {
        i += 2;
        if kw(i, "CURRENT_USER") {
            i += 1;
            if toks.get(i).is_some_and(|t| t.is_op("(")) && toks.get(i + 1).is_some_and(|t| t.is_op(")")) {
                i += 2;
            }
        } else {
            let user = match toks.get(i).map(|t| &t.tok) {
                Some(Tok::Word(w) | Tok::Quoted(w)) => w.to_string(),
                Some(Tok::Str(s)) => String::from_utf8_lossy(s).into_owned(),
                _ => return Err(syntax_at(sql, &toks, i)),
            };
            i += 1;
            let host = match toks.get(i).map(|t| &t.tok) {
                Some(Tok::UserVar(h)) => {
                    i += 1;
                    unquote_host(h)
                }
                _ => "%".to_string(),
            };
            h.definer = Some((user, host));
        }
    }
    if kw(i, "AGGREGATE") {
        return Err(SqlError::unsupported("CREATE AGGREGATE FUNCTION"));
    }
    h.kind = if kw(i, "PROCEDURE") {
        Some(RoutineKind::Procedure)
    } else if kw(i, "FUNCTION") {
        Some(RoutineKind::Function)
    } else {
        return Ok(None);
    };
    i += 1;
    if kw(i, "IF") && kw(i + 1, "NOT") && kw(i + 2, "EXISTS") {
        h.if_not_exists = true;
        i += 3;
    }
    // A user-defined function from a library: CREATE FUNCTION f RETURNS STRING SONAME 'x'.
    if toks.iter().any(|t| t.is_kw("SONAME")) {
        return Err(SqlError::unsupported("CREATE FUNCTION ... SONAME (loadable functions)"));
    }
    let tail_start = toks.get(i).map_or(sql.len(), |t| t.start);
    let first = toks.get(i).and_then(|t| t.ident()).ok_or_else(|| syntax_at(sql, &toks, i))?.to_string();
    i += 1;
    if toks.get(i).is_some_and(|t| t.is_op(".")) {
        h.db = Some(first);
        h.name = toks.get(i + 1).and_then(|t| t.ident()).ok_or_else(|| syntax_at(sql, &toks, i + 1))?.to_string();
        i += 2;
    } else {
        h.name = first;
    }
    if h.name.is_empty() || h.name.len() > 64 || h.name.ends_with(' ') {
        return Err(SqlError::new(1458, "42000", format!("Incorrect routine name '{}'", h.name)));
    }
    if !toks.get(i).is_some_and(|t| t.is_op("(")) {
        return Err(syntax_at(sql, &toks, i));
    }
    let open = i;
    i = close_paren(&toks, i).ok_or_else(|| SqlError::syntax(""))?;
    h.params_text = sql[toks[open].end..toks[i].start].trim().to_string();
    h.params = parse_params(sql, &toks[open + 1..i], h.kind == Some(RoutineKind::Function))?;
    i += 1;
    if h.kind == Some(RoutineKind::Function) {
        if !kw(i, "RETURNS") {
            return Err(syntax_at(sql, &toks, i));
        }
        i += 1;
        let start = i;
        i = type_end(&toks, i);
        if start == i {
            return Err(syntax_at(sql, &toks, i));
        }
        h.returns = sql[toks[start].start..toks[i - 1].end].to_string();
    } else if kw(i, "RETURNS") {
        return Err(syntax_at(sql, &toks, i));
    }
    i = characteristics(sql, &toks, i, &mut h)?;
    let body_start = toks.get(i).ok_or_else(|| SqlError::syntax(""))?.start;
    let mut end = sql.len();
    if toks.last().is_some_and(|t| t.is_op(";")) && toks.len() > i + 1 {
        end = toks[toks.len() - 1].start;
    }
    h.body = sql[body_start..end].trim_end().to_string();
    h.tail = sql[tail_start..end].trim_end().to_string();
    Ok(Some(h))
}

/// The index of the `)` that closes the `(` at `open`.
fn close_paren(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

const TYPE_END: [&str; 10] = ["COMMENT", "LANGUAGE", "NOT", "DETERMINISTIC", "CONTAINS", "NO", "READS", "MODIFIES", "SQL", "BEGIN"];

/// Where a data type starting at `i` ends: its words, `(...)`, and
/// CHARACTER SET / COLLATE / UNSIGNED ... up to a characteristic or the body.
fn type_end(toks: &[Token], mut i: usize) -> usize {
    let mut first = true;
    while let Some(t) = toks.get(i) {
        if t.is_op("(") {
            match close_paren(toks, i) {
                Some(j) => i = j + 1,
                None => return toks.len(),
            }
            continue;
        }
        let word = matches!(t.tok, Tok::Word(_));
        if !word || (!first && TYPE_END.iter().any(|k| t.is_kw(k))) {
            break;
        }
        // The body may start right after the type: `RETURNS INT RETURN 1`, `... INT SELECT`.
        if !first && (t.is_kw("RETURN") || t.is_kw("SELECT") || t.is_kw("SET") && !toks.get(i - 1).is_some_and(|p| p.is_kw("CHARACTER"))) {
            break;
        }
        if !first
            && ["CHARSET", "CHARACTER", "COLLATE", "UNSIGNED", "SIGNED", "ZEROFILL", "BINARY", "PRECISION", "VARYING"].iter().all(|k| !t.is_kw(k))
            && !toks.get(i - 1).is_some_and(|p| p.is_kw("SET") || p.is_kw("CHARSET") || p.is_kw("COLLATE"))
        {
            // A second plain word after a type name (`INT foo`) ends it unless a modifier.
            if !toks.get(i - 1).is_some_and(|p| p.is_kw("DOUBLE") || p.is_kw("LONG") || p.is_kw("NATIONAL")) {
                break;
            }
        }
        first = false;
        i += 1;
    }
    i
}

fn parse_params(sql: &str, toks: &[Token], function: bool) -> Result<Vec<Param>, SqlError> {
    let mut out: Vec<Param> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let mut mode = Mode::In;
        if !function {
            if toks[i].is_kw("IN") {
                i += 1;
            } else if toks[i].is_kw("OUT") {
                mode = Mode::Out;
                i += 1;
            } else if toks[i].is_kw("INOUT") {
                mode = Mode::InOut;
                i += 1;
            }
        }
        let name = toks.get(i).and_then(|t| t.ident()).ok_or_else(|| syntax_at(sql, toks, i))?.to_string();
        i += 1;
        let start = i;
        let mut depth = 0usize;
        while let Some(t) = toks.get(i) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth = depth.saturating_sub(1);
            } else if t.is_op(",") && depth == 0 {
                break;
            }
            i += 1;
        }
        if start == i {
            return Err(syntax_at(sql, toks, i));
        }
        if out.iter().any(|p| p.name.eq_ignore_ascii_case(&name)) {
            return Err(SqlError::new(1330, "42000", format!("Duplicate parameter: {}", name)));
        }
        out.push(Param { mode, name, ty: sql[toks[start].start..toks[i - 1].end].to_string() });
        i += 1;
    }
    Ok(out)
}

/// COMMENT, LANGUAGE SQL, [NOT] DETERMINISTIC, SQL SECURITY, data access.
fn characteristics(sql: &str, toks: &[Token], mut i: usize, h: &mut Header) -> Result<usize, SqlError> {
    h.data_access = "CONTAINS SQL".into();
    loop {
        let kw = |j: usize, k: &str| toks.get(j).is_some_and(|t| t.is_kw(k));
        if kw(i, "COMMENT") {
            match toks.get(i + 1).map(|t| &t.tok) {
                Some(Tok::Str(s)) => h.comment = String::from_utf8_lossy(s).into_owned(),
                _ => return Err(syntax_at(sql, toks, i + 1)),
            }
            i += 2;
        } else if kw(i, "LANGUAGE") && kw(i + 1, "SQL") {
            i += 2;
        } else if kw(i, "NOT") && kw(i + 1, "DETERMINISTIC") {
            h.deterministic = false;
            i += 2;
        } else if kw(i, "DETERMINISTIC") {
            h.deterministic = true;
            i += 1;
        } else if kw(i, "SQL") && kw(i + 1, "SECURITY") {
            h.invoker = if kw(i + 2, "INVOKER") {
                true
            } else if kw(i + 2, "DEFINER") {
                false
            } else {
                return Err(syntax_at(sql, toks, i + 2));
            };
            i += 3;
        } else if kw(i, "CONTAINS") && kw(i + 1, "SQL") {
            h.data_access = "CONTAINS SQL".into();
            i += 2;
        } else if kw(i, "NO") && kw(i + 1, "SQL") {
            h.data_access = "NO SQL".into();
            i += 2;
        } else if kw(i, "READS") && kw(i + 1, "SQL") && kw(i + 2, "DATA") {
            h.data_access = "READS SQL DATA".into();
            i += 3;
        } else if kw(i, "MODIFIES") && kw(i + 1, "SQL") && kw(i + 2, "DATA") {
            h.data_access = "MODIFIES SQL DATA".into();
            i += 3;
        } else {
            return Ok(i);
        }
    }
}

/// Parse a body into statements (one statement, or a labelled block).
/// A FOR loop's `lower .. upper` split at its `..` (outside quotes and
/// parentheses); None when there is none (a loop over a cursor).
fn split_range(range: &str) -> Option<(String, String)> {
    let b = range.as_bytes();
    let (mut depth, mut quote) = (0usize, None::<u8>);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == b'\\' && q != b'`' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                b'.' if depth == 0 && b.get(i + 1) == Some(&b'.') => {
                    let (lo, hi) = (range[..i].trim(), range[i + 2..].trim());
                    return (!lo.is_empty() && !hi.is_empty()).then(|| (lo.to_string(), hi.to_string()));
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

pub fn parse_body(body: &str, max_depth: usize) -> Result<Vec<Stmt>, SqlError> {
    let toks = lex::tokenize(body).map_err(|e| SqlError::syntax(&body[e.at..]))?;
    let mut p = BodyParser { sql: body, toks: &toks, i: 0, depth: 0, max_depth };
    let s = p.statement()?;
    p.eat_op(";");
    if p.i < toks.len() {
        return Err(p.syntax());
    }
    Ok(vec![s])
}

struct BodyParser<'a> {
    sql: &'a str,
    toks: &'a [Token],
    i: usize,
    depth: usize,
    max_depth: usize,
}

impl<'a> BodyParser<'a> {
    fn syntax(&self) -> SqlError {
        syntax_at(self.sql, self.toks, self.i)
    }
    fn kw(&self, k: &str) -> bool {
        self.toks.get(self.i).is_some_and(|t| t.is_kw(k))
    }
    fn kw_at(&self, n: usize, k: &str) -> bool {
        self.toks.get(self.i + n).is_some_and(|t| t.is_kw(k))
    }
    fn op_at(&self, n: usize, o: &str) -> bool {
        self.toks.get(self.i + n).is_some_and(|t| t.is_op(o))
    }
    fn eat_kw(&mut self, k: &str) -> bool {
        let y = self.kw(k);
        self.i += y as usize;
        y
    }
    fn eat_op(&mut self, o: &str) -> bool {
        let y = self.op_at(0, o);
        self.i += y as usize;
        y
    }
    fn expect_kw(&mut self, k: &str) -> Result<(), SqlError> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            Err(self.syntax())
        }
    }
    fn ident(&mut self) -> Result<String, SqlError> {
        let name = self.toks.get(self.i).and_then(|t| t.ident()).ok_or_else(|| self.syntax())?.to_string();
        self.i += 1;
        Ok(name)
    }
    fn text(&self, from: usize, to: usize) -> String {
        if from >= to {
            return String::new();
        }
        self.sql[self.toks[from].start..self.toks[to - 1].end].to_string()
    }

    /// An expression up to one of `stops` (or `;`) at depth 0, CASE ... END
    /// expressions inside it skipped whole.
    fn expr(&mut self, stops: &[&str]) -> Result<String, SqlError> {
        let start = self.i;
        let (mut parens, mut cases) = (0usize, 0usize);
        while let Some(t) = self.toks.get(self.i) {
            if t.is_op("(") {
                parens += 1;
            } else if t.is_op(")") {
                if parens == 0 {
                    break;
                }
                parens -= 1;
            } else if parens == 0 && t.is_kw("CASE") {
                cases += 1;
            } else if parens == 0 && cases > 0 && t.is_kw("END") {
                cases -= 1;
            } else if parens == 0 && cases == 0 && (t.is_op(";") || stops.iter().any(|k| t.is_kw(k)) || (stops.contains(&",") && t.is_op(","))) {
                break;
            }
            self.i += 1;
        }
        if start == self.i {
            return Err(self.syntax());
        }
        Ok(self.text(start, self.i))
    }

    /// Statements up to one of `ends` (not consumed), each ended by `;`.
    fn list(&mut self, ends: &[&str]) -> Result<Vec<Stmt>, SqlError> {
        let mut out = Vec::new();
        while !ends.iter().any(|k| self.kw(k)) {
            if self.i >= self.toks.len() {
                return Err(self.syntax());
            }
            out.push(self.statement()?);
            if !self.eat_op(";") {
                return Err(self.syntax());
            }
        }
        Ok(out)
    }

    fn end_label(&mut self, label: &Option<String>) -> Result<(), SqlError> {
        if let Some(Tok::Word(w) | Tok::Quoted(w)) = self.toks.get(self.i).map(|t| &t.tok) {
            if !self.op_at(0, ";") {
                match label {
                    Some(l) if l.eq_ignore_ascii_case(w) => {
                        self.i += 1;
                        return Ok(());
                    }
                    _ if self.op_at(1, ";") || self.i + 1 == self.toks.len() => {
                        return Err(SqlError::new(1310, "42000", format!("End-label {} without match", w)));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn statement(&mut self) -> Result<Stmt, SqlError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(SqlError::new(1436, "HY000", format!("Stored routine nesting deeper than {} levels (routine_max_nesting)", self.max_depth)));
        }
        turnstile_engine::stack::check()?;
        let r = self.statement_inner();
        self.depth -= 1;
        r
    }

    fn statement_inner(&mut self) -> Result<Stmt, SqlError> {
        let mut label = None;
        if self.toks.get(self.i).is_some_and(|t| t.ident().is_some()) && self.op_at(1, ":") {
            label = Some(self.ident()?);
            self.i += 1;
            if !(self.kw("BEGIN") || self.kw("LOOP") || self.kw("WHILE") || self.kw("REPEAT") || self.kw("FOR")) {
                return Err(self.syntax());
            }
        }
        let Some(first) = self.toks.get(self.i) else { return Err(self.syntax()) };
        let word = match &first.tok {
            Tok::Word(w) => w.to_ascii_uppercase().to_string(),
            _ => String::new(),
        };
        match word.as_str() {
            "BEGIN" if !self.kw_at(1, "WORK") => {
                self.i += 1;
                if self.kw("NOT") && self.kw_at(1, "ATOMIC") {
                    self.i += 2;
                }
                let body = self.list(&["END"])?;
                self.expect_kw("END")?;
                self.end_label(&label)?;
                Ok(Stmt::Block { label, body })
            }
            "DECLARE" => self.declare(),
            "SET" if self.is_variable_set() => self.set(),
            "IF" => {
                self.i += 1;
                let mut arms = Vec::new();
                let mut other = None;
                let cond = self.expr(&["THEN"])?;
                self.expect_kw("THEN")?;
                arms.push((cond, self.list(&["ELSEIF", "ELSE", "END"])?));
                loop {
                    if self.eat_kw("ELSEIF") {
                        let cond = self.expr(&["THEN"])?;
                        self.expect_kw("THEN")?;
                        arms.push((cond, self.list(&["ELSEIF", "ELSE", "END"])?));
                    } else if self.eat_kw("ELSE") {
                        other = Some(self.list(&["END"])?);
                    } else {
                        break;
                    }
                }
                self.expect_kw("END")?;
                self.expect_kw("IF")?;
                Ok(Stmt::If { arms, other })
            }
            "CASE" => {
                self.i += 1;
                let operand = if self.kw("WHEN") { None } else { Some(self.expr(&["WHEN"])?) };
                let mut arms = Vec::new();
                let mut other = None;
                while self.eat_kw("WHEN") {
                    let v = self.expr(&["THEN"])?;
                    self.expect_kw("THEN")?;
                    arms.push((v, self.list(&["WHEN", "ELSE", "END"])?));
                }
                if arms.is_empty() {
                    return Err(self.syntax());
                }
                if self.eat_kw("ELSE") {
                    other = Some(self.list(&["END"])?);
                }
                self.expect_kw("END")?;
                self.expect_kw("CASE")?;
                Ok(Stmt::Case { operand, arms, other })
            }
            "WHILE" => {
                self.i += 1;
                let cond = self.expr(&["DO"])?;
                self.expect_kw("DO")?;
                let body = self.list(&["END"])?;
                self.expect_kw("END")?;
                self.expect_kw("WHILE")?;
                self.end_label(&label)?;
                Ok(Stmt::While { label, cond, body })
            }
            "REPEAT" => {
                self.i += 1;
                let body = self.list(&["UNTIL"])?;
                self.expect_kw("UNTIL")?;
                let until = self.expr(&["END"])?;
                self.expect_kw("END")?;
                self.expect_kw("REPEAT")?;
                self.end_label(&label)?;
                Ok(Stmt::Repeat { label, body, until })
            }
            "LOOP" => {
                self.i += 1;
                let body = self.list(&["END"])?;
                self.expect_kw("END")?;
                self.expect_kw("LOOP")?;
                self.end_label(&label)?;
                Ok(Stmt::Loop { label, body })
            }
            "FOR" if label.is_some() || self.kw_at(2, "IN") => {
                self.i += 1;
                let var = self.ident()?;
                self.expect_kw("IN")?;
                let reverse = self.eat_kw("REVERSE");
                let range = self.expr(&["DO"])?;
                let Some((lower, upper)) = split_range(&range) else {
                    // `FOR rec IN cursor` / `FOR rec IN (SELECT ...)`.
                    return Err(SqlError::unsupported("FOR loops over a cursor"));
                };
                self.expect_kw("DO")?;
                let body = self.list(&["END"])?;
                self.expect_kw("END")?;
                self.expect_kw("FOR")?;
                self.end_label(&label)?;
                Ok(Stmt::For { label, var, reverse, lower, upper, body })
            }
            "LEAVE" | "ITERATE" => {
                self.i += 1;
                let l = self.ident()?;
                Ok(if word == "LEAVE" { Stmt::Leave(l) } else { Stmt::Iterate(l) })
            }
            "RETURN" => {
                self.i += 1;
                Ok(Stmt::Return(self.expr(&[])?))
            }
            "SIGNAL" => self.signal(),
            "RESIGNAL" => Err(SqlError::unsupported("RESIGNAL")),
            "OPEN" | "CLOSE" => {
                self.i += 1;
                let c = self.ident()?;
                Ok(if word == "OPEN" { Stmt::Open(c) } else { Stmt::Close(c) })
            }
            "FETCH" => {
                self.i += 1;
                if self.eat_kw("NEXT") {
                    self.expect_kw("FROM")?;
                } else {
                    self.eat_kw("FROM");
                }
                let cursor = self.ident()?;
                self.expect_kw("INTO")?;
                let into = self.targets()?;
                Ok(Stmt::Fetch { cursor, into })
            }
            "CALL" => self.call(),
            "ELSE" | "ELSEIF" | "END" | "UNTIL" | "WHEN" | "THEN" => Err(self.syntax()),
            _ => self.simple(),
        }
    }

    /// `SET x = ...` where every target is a name or a user variable (not
    /// SET NAMES, SET TRANSACTION, SET GLOBAL x, SET PASSWORD...).
    fn is_variable_set(&self) -> bool {
        let t = self.toks.get(self.i + 1);
        let plain = t.is_some_and(|t| matches!(t.tok, Tok::Word(_) | Tok::Quoted(_) | Tok::UserVar(_) | Tok::SysVar(..)));
        let reserved = ["NAMES", "CHARACTER", "CHARSET", "TRANSACTION", "PASSWORD", "GLOBAL", "SESSION", "LOCAL", "ROLE", "DEFAULT", "STATEMENT"];
        plain && !reserved.iter().any(|k| self.kw_at(1, k)) && (self.op_at(2, "=") || self.op_at(2, ":=") || self.row_target(1))
    }

    /// `NEW.col =` / `OLD.col =` at `n` (a trigger's row; its first target
    /// or one after a comma).
    fn row_target(&self, n: usize) -> bool {
        (self.kw_at(n, "NEW") || self.kw_at(n, "OLD")) && self.op_at(n + 1, ".") && (self.op_at(n + 3, "=") || self.op_at(n + 3, ":="))
    }

    fn set(&mut self) -> Result<Stmt, SqlError> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            let target_at = self.i;
            let t = self.toks.get(self.i).ok_or_else(|| self.syntax())?;
            let target = match &t.tok {
                Tok::Word(w) | Tok::Quoted(w) => w.to_string(),
                _ => self.text(self.i, self.i + 1),
            };
            let (target, raw) = if self.row_target(0) {
                // NEW.col: the target `NEW.col` (a trigger's row), as written.
                let col = self.toks.get(self.i + 2).and_then(|t| t.ident()).ok_or_else(|| self.syntax())?.to_string();
                self.i += 2;
                (format!("{}.{}", target.to_ascii_uppercase(), col), self.text(target_at, target_at + 3))
            } else {
                (target, self.text(target_at, target_at + 1))
            };
            self.i += 1;
            if !(self.eat_op("=") || self.eat_op(":=")) {
                return Err(self.syntax());
            }
            let e = self.expr(&[","])?;
            items.push((target, raw, e));
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(Stmt::Set(items))
    }

    fn targets(&mut self) -> Result<Vec<String>, SqlError> {
        let mut v = Vec::new();
        loop {
            let t = self.toks.get(self.i).ok_or_else(|| self.syntax())?;
            v.push(match &t.tok {
                Tok::Word(w) | Tok::Quoted(w) => w.to_string(),
                Tok::UserVar(_) => self.text(self.i, self.i + 1),
                _ => return Err(self.syntax()),
            });
            self.i += 1;
            if !self.eat_op(",") {
                return Ok(v);
            }
        }
    }

    fn declare(&mut self) -> Result<Stmt, SqlError> {
        self.i += 1;
        if self.kw("CONTINUE") || self.kw("EXIT") || self.kw("UNDO") {
            let exit = !self.kw("CONTINUE");
            if self.kw("UNDO") {
                return Err(SqlError::unsupported("UNDO handlers"));
            }
            self.i += 1;
            self.expect_kw("HANDLER")?;
            self.expect_kw("FOR")?;
            let mut conds = Vec::new();
            loop {
                conds.push(self.condition()?);
                if !self.eat_op(",") {
                    break;
                }
            }
            let body = Box::new(self.statement()?);
            return Ok(Stmt::Handler { exit, conds, body });
        }
        let first = self.ident()?;
        if self.eat_kw("CURSOR") {
            self.expect_kw("FOR")?;
            let start = self.i;
            while self.i < self.toks.len() && !self.op_at(0, ";") {
                self.i += 1;
            }
            return Ok(Stmt::Cursor { name: first, query: self.text(start, self.i) });
        }
        if self.eat_kw("CONDITION") {
            self.expect_kw("FOR")?;
            return Ok(Stmt::Condition { name: first, cond: self.condition()? });
        }
        let mut names = vec![first];
        while self.eat_op(",") {
            names.push(self.ident()?);
        }
        let start = self.i;
        while self.i < self.toks.len() && !self.op_at(0, ";") && !self.kw("DEFAULT") {
            self.i += 1;
        }
        let ty = self.text(start, self.i);
        if ty.is_empty() {
            return Err(self.syntax());
        }
        let default = if self.eat_kw("DEFAULT") { Some(self.expr(&[])?) } else { None };
        Ok(Stmt::Declare { names, ty, default })
    }

    fn condition(&mut self) -> Result<Cond, SqlError> {
        if self.eat_kw("SQLEXCEPTION") {
            return Ok(Cond::SqlException);
        }
        if self.eat_kw("SQLWARNING") {
            return Ok(Cond::SqlWarning);
        }
        if self.kw("NOT") && self.kw_at(1, "FOUND") {
            self.i += 2;
            return Ok(Cond::NotFound);
        }
        if self.eat_kw("SQLSTATE") {
            self.eat_kw("VALUE");
            return match self.toks.get(self.i).map(|t| &t.tok) {
                Some(Tok::Str(s)) if s.len() == 5 && s != b"00000" => {
                    self.i += 1;
                    Ok(Cond::State(String::from_utf8_lossy(s).into_owned()))
                }
                Some(Tok::Str(s)) => Err(SqlError::new(1407, "42000", format!("Bad SQLSTATE: '{}'", String::from_utf8_lossy(s)))),
                _ => Err(self.syntax()),
            };
        }
        if let Some(Tok::Number(n)) = self.toks.get(self.i).map(|t| &t.tok) {
            let code = n.parse::<u16>().map_err(|_| self.syntax())?;
            self.i += 1;
            return Ok(Cond::Code(code));
        }
        Ok(Cond::Named(self.ident()?))
    }

    fn signal(&mut self) -> Result<Stmt, SqlError> {
        self.i += 1;
        let state = if self.eat_kw("SQLSTATE") {
            self.eat_kw("VALUE");
            match self.toks.get(self.i).map(|t| &t.tok) {
                Some(Tok::Str(s)) => {
                    let s = String::from_utf8_lossy(s).into_owned();
                    if s.len() != 5 || s.starts_with("00") {
                        return Err(SqlError::new(1407, "42000", format!("Bad SQLSTATE: '{}'", s)));
                    }
                    self.i += 1;
                    s
                }
                _ => return Err(self.syntax()),
            }
        } else {
            format!("@{}", self.ident()?)
        };
        let mut items = Vec::new();
        if self.eat_kw("SET") {
            loop {
                let name = self.ident()?.to_ascii_uppercase();
                if !self.eat_op("=") {
                    return Err(self.syntax());
                }
                let e = self.expr(&[","])?;
                items.push((name, e));
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        Ok(Stmt::Signal { state, items })
    }

    fn call(&mut self) -> Result<Stmt, SqlError> {
        self.i += 1;
        let first = self.ident()?;
        let (db, name) = if self.eat_op(".") { (Some(first), self.ident()?) } else { (None, first) };
        let mut args = Vec::new();
        if self.eat_op("(") && !self.eat_op(")") {
            loop {
                args.push(self.expr(&[","])?);
                if self.eat_op(")") {
                    break;
                }
                if !self.eat_op(",") {
                    return Err(self.syntax());
                }
            }
        }
        Ok(Stmt::Call { db, name, args })
    }

    /// Any other statement, to its `;`; a SELECT with an INTO clause of
    /// variables is taken apart.
    fn simple(&mut self) -> Result<Stmt, SqlError> {
        let start = self.i;
        let mut depth = 0usize;
        let mut into: Option<(usize, usize)> = None;
        let select = self.kw("SELECT") || self.kw("WITH") || self.op_at(0, "(");
        let mut trailing = self.op_at(0, "(");
        while let Some(t) = self.toks.get(self.i) {
            if depth == 0 && into.is_none() && (t.is_kw("FROM") || t.is_kw("UNION") || t.is_kw("EXCEPT") || t.is_kw("INTERSECT")) {
                trailing = true;
            }
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth = depth.saturating_sub(1);
            } else if t.is_op(";") && depth == 0 {
                break;
            } else if select && depth == 0 && t.is_kw("INTO") && into.is_none() && !self.kw_at(1, "OUTFILE") && !self.kw_at(1, "DUMPFILE") {
                let from = self.i;
                self.i += 1;
                self.targets()?;
                into = Some((from, self.i));
                continue;
            }
            self.i += 1;
        }
        let end = self.i;
        if start == end {
            return Err(self.syntax());
        }
        match into {
            Some((a, b)) => {
                let targets: Vec<String> = {
                    let save = self.i;
                    self.i = a + 1;
                    let t = self.targets()?;
                    self.i = save;
                    t
                };
                let mut query = self.text(start, a);
                if b < end {
                    query.push(' ');
                    query.push_str(&self.text(b, end));
                }
                Ok(Stmt::SelectInto { query, into: targets, trailing })
            }
            None => Ok(Stmt::Sql(self.text(start, end))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_loop_ranges() {
        assert_eq!(split_range("1..31"), Some(("1".into(), "31".into())));
        assert_eq!(split_range("2023 + i .. (5)"), Some(("2023 + i".into(), "(5)".into())));
        assert_eq!(split_range("f('a..b') .. x"), Some(("f('a..b')".into(), "x".into())));
        assert_eq!(split_range("(SELECT a FROM t)"), None);
        assert_eq!(split_range(".."), None);
        let Ok(body) = parse_body("FOR i IN REVERSE 1 .. n DO SELECT i; END FOR", 16) else { panic!() };
        assert!(matches!(&body[0], Stmt::For { var, reverse: true, lower, upper, body, .. } if var == "i" && lower == "1" && upper == "n" && body.len() == 1));
        assert_eq!(parse_body("FOR r IN cur DO SELECT 1; END FOR", 16).unwrap_err().code, 1235);
        assert_eq!(parse_body("FOR i IN 1..2 DO SELECT 1; END WHILE", 16).unwrap_err().code, 1064);
    }

    #[test]
    fn header_and_body() {
        let h = parse_create("CREATE DEFINER=`root`@`localhost` PROCEDURE IF NOT EXISTS d.p(IN a INT, OUT b VARCHAR(10), INOUT c INT) COMMENT 'x' SQL SECURITY INVOKER BEGIN SELECT a; END")
            .unwrap()
            .unwrap();
        assert_eq!(h.name, "p");
        assert_eq!(h.db.as_deref(), Some("d"));
        assert_eq!(h.definer, Some(("root".into(), "localhost".into())));
        assert_eq!(h.params.len(), 3);
        assert_eq!(h.params[1].ty, "VARCHAR(10)");
        assert!(h.invoker && h.if_not_exists);
        assert_eq!(h.body, "BEGIN SELECT a; END");
        let f = parse_create("CREATE FUNCTION f(a INT) RETURNS INT DETERMINISTIC RETURN a * 2").unwrap().unwrap();
        assert_eq!(f.returns, "INT");
        assert_eq!(f.body, "RETURN a * 2");
        let f = parse_create("CREATE FUNCTION f() RETURNS VARCHAR(20) CHARSET utf8mb4 RETURN 'x'").unwrap().unwrap();
        assert_eq!(f.returns, "VARCHAR(20) CHARSET utf8mb4");
        assert!(parse_create("CREATE TABLE t (a INT)").unwrap().is_none());
    }

    #[test]
    fn compound_statements() {
        let b = parse_body(
            "l1: BEGIN DECLARE x INT DEFAULT 0; WHILE x < 3 DO SET x = x + 1; IF x = 2 THEN ITERATE l1; ELSEIF x > 5 THEN LEAVE l1; ELSE SELECT CASE WHEN x THEN 1 END; END IF; END WHILE; SELECT a INTO x FROM t; END l1",
            64,
        )
        .unwrap();
        let Stmt::Block { body, .. } = &b[0] else { panic!() };
        assert_eq!(body.len(), 3);
        assert!(matches!(&body[2], Stmt::SelectInto { query, into, .. } if query == "SELECT a FROM t" && into == &["x"]));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}SELECT 1;{}", "BEGIN ".repeat(100), "END;".repeat(100));
        assert_eq!(parse_body(&deep, 64).unwrap_err().code, 1436);
        assert!(parse_body(&format!("{}SELECT 1;{}", "BEGIN ".repeat(10), "END;".repeat(10)), 64).is_ok());
    }
}
