//! SET statements: system and user variables (with MySQL's scope rules and
//! side effects), NAMES, CHARACTER SET, TRANSACTION ISOLATION LEVEL / READ
//! ONLY / READ WRITE.

use super::access::privileges;
use super::session_env::SessionEnv;
use super::{ok, Call};
use crate::expr::{self, Expr, Parser};
use crate::vars::{self, Scope};
use crate::{privs, SessionState};
use turnstile_engine::{EngineSession, Outcome, SqlError, Value};
use turnstile_sqltext::lex::{self, Tok, Token};

/// SET statements: variables, NAMES, CHARACTER SET, TRANSACTION.
pub(super) fn set_statement(call: &mut Call<'_, '_>, sql: &str, toks: &[Token]) -> Result<Outcome, SqlError> {
    let mut p = Parser::new(sql, toks);
    p.expect_kw("SET")?;
    loop {
        set_one(call, &mut p)?;
        if !p.eat_op(",") {
            break;
        }
    }
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    Ok(ok())
}

/// Variables MariaDB refuses in SET STATEMENT (1971): they change what
/// outlives the statement.
const NOT_PER_STATEMENT: [&str; 7] =
    ["autocommit", "character_set_client", "character_set_connection", "character_set_results", "collation_connection", "transaction_isolation", "transaction_read_only"];

/// MariaDB's `SET STATEMENT var = value [, ...] FOR statement`: the session
/// variables take the values for that one statement and get their own back
/// after it, also when it fails. Nested forms (`SET STATEMENT a=1 FOR SET
/// STATEMENT b=2 FOR ...`) are taken apart in one pass over the tokens, not
/// by recursion: any depth costs linear time and no stack.
pub(super) fn set_statement_for(call: &mut Call<'_, '_>, sql: &str, toks: &[Token], sink: &mut dyn turnstile_engine::RowSink) -> Result<Outcome, SqlError> {
    let mut groups = Vec::new();
    let mut at = 0;
    let inner_at = loop {
        let for_at = turnstile_sqltext::parens::find_top_level(toks, at + 2, |_, t| t.is_kw("FOR")).ok_or_else(|| SqlError::syntax(toks.get(at + 2).map_or("", |t| &sql[t.start..])))?;
        if for_at == at + 2 {
            return Err(SqlError::syntax(&sql[toks[for_at].start..]));
        }
        groups.push((at + 2, for_at));
        let next = for_at + 1;
        if toks.get(next).is_some_and(|t| t.is_kw("SET")) && toks.get(next + 1).is_some_and(|t| t.is_kw("STATEMENT")) {
            at = next;
        } else {
            break next;
        }
    };
    let inner = toks.get(inner_at).map(|t| &sql[t.start..]).ok_or_else(|| SqlError::syntax(""))?;
    let mut saved = Vec::new();
    for &(from, to) in &groups {
        for item in split_assignments(&toks[from..to]) {
            let name = item.first().and_then(|t| t.ident()).ok_or_else(|| SqlError::syntax(item.first().map_or("", |t| &sql[t.start..])))?;
            let def = vars::lookup(&name.to_ascii_lowercase()).ok_or_else(|| SqlError::unknown_system_variable(name))?;
            if NOT_PER_STATEMENT.contains(&def.name) {
                return Err(SqlError::new(1971, "42000", format!("The system variable {} cannot be set in SET STATEMENT.", def.name)));
            }
            saved.push((def, call.sess.vars.get(def.name).cloned()));
        }
    }
    let mut result = Ok(());
    for &(from, to) in &groups {
        let assignments = format!("SET SESSION {}", &sql[toks[from].start..toks[to - 1].end]);
        result = lex::tokenize(&assignments).map_err(|e| SqlError::syntax(&assignments[e.at..])).and_then(|t| set_statement(call, &assignments, &t).map(|_| ()));
        if result.is_err() {
            break;
        }
    }
    let result = result.and_then(|()| super::statement(call, inner, sink));
    for (def, old) in saved.into_iter().rev() {
        match old {
            Some(v) => assign(call, def, Some("session"), v)?,
            None => {
                call.sess.vars.remove(def.name);
                if def.name == "sql_mode" {
                    call.sess.sql_mode = None;
                }
            }
        }
    }
    result
}

/// Assignments at top-level commas.
fn split_assignments(toks: &[Token]) -> Vec<&[Token]> {
    let mut out = Vec::new();
    let mut from = 0;
    while from < toks.len() {
        let end = assignment_end(toks, from);
        out.push(&toks[from..end]);
        from = end + 1;
    }
    out
}

/// Set a session variable by name, as SET SESSION does.
fn set_session(call: &mut Call<'_, '_>, name: &str, v: Value) -> Result<(), SqlError> {
    let def = vars::lookup(name).ok_or_else(|| SqlError::unknown_system_variable(name))?;
    assign(call, def, Some("session"), v)
}

/// One assignment of a SET statement: NAMES, CHARACTER SET, [scope]
/// TRANSACTION ..., @user_var = expr, or [scope] system_var = expr | DEFAULT.
fn set_one(call: &mut Call<'_, '_>, p: &mut Parser<'_>) -> Result<(), SqlError> {
    if p.eat_kw("NAMES") {
        return set_names(call, p);
    }
    if p.peek().is_some_and(|t| t.is_kw("CHARSET")) || (p.peek().is_some_and(|t| t.is_kw("CHARACTER")) && p.toks.get(p.pos + 1).is_some_and(|t| t.is_kw("SET"))) {
        return set_character_set(call, p);
    }
    // Scope keyword.
    let mut scope: Option<&'static str> = None;
    if p.eat_kw("GLOBAL") || p.eat_kw("PERSIST") || p.eat_kw("PERSIST_ONLY") {
        scope = Some("global");
    } else if p.eat_kw("SESSION") || p.eat_kw("LOCAL") {
        scope = Some("session");
    }
    if p.eat_kw("TRANSACTION") {
        return set_transaction(call, p, scope);
    }
    let target = p.next().ok_or_else(|| p.error())?;
    enum Target {
        UserVar(String),
        SystemVar(Option<String>, String),
    }
    let target = match &target.tok {
        Tok::UserVar(n) => Target::UserVar(n.clone()),
        Tok::SysVar(var_scope, n) => Target::SystemVar(var_scope.clone().or(scope.map(str::to_string)), n.clone()),
        Tok::Word(w) | Tok::Quoted(w) => {
            let mut name = w.as_str().to_ascii_lowercase();
            if p.eat_op(".") {
                // SET @@session.x is lexed as SysVar; `SET session.x` is not valid.
                name = p.name()?.to_ascii_lowercase();
            }
            Target::SystemVar(scope.map(str::to_string), name)
        }
        _ => {
            p.pos -= 1;
            return Err(p.error().into());
        }
    };
    if !(p.eat_op("=") || p.eat_op(":=")) {
        return Err(p.error().into());
    }
    let value_at = p.pos;
    let e = match p.expr() {
        Ok(e) => e,
        // `SET @x = (SELECT MAX(id) FROM t)`: a query the front cannot evaluate, for the engine.
        Err(_) if matches!(target, Target::UserVar(_)) && reads_a_table(&p.toks[value_at..]) && call.engine.evaluates_expressions() => {
            let Target::UserVar(name) = target else { unreachable!("matched above") };
            let end = assignment_end(p.toks, value_at);
            let text = &p.sql[p.toks[value_at].start..p.toks[end - 1].end];
            let (v, decimal) = value_of_query(call, text)?;
            if decimal {
                call.sess.decimal_vars.insert(name.clone(), v.clone());
            }
            call.sess.user_vars.insert(name, v);
            p.pos = end;
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    match target {
        Target::UserVar(name) => {
            let v = expr::eval(&e, &mut SessionEnv { call, words_are_values: false })?;
            call.sess.user_vars.insert(name, v);
            Ok(())
        }
        Target::SystemVar(scope, name) => {
            let def = vars::lookup(&name).ok_or_else(|| SqlError::unknown_system_variable(&name))?;
            let v = if e == Expr::Default {
                match scope.as_deref() {
                    // The compiled-in default, as MariaDB's (not the start-up setting).
                    Some("global") => return assign(call, def, Some("global"), vars::default_value(def)),
                    _ => {
                        call.sess.vars.remove(def.name);
                        if def.name == "sql_mode" {
                            call.sess.sql_mode = None;
                        }
                        if def.name == "autocommit" {
                            return assign(call, def, None, call.ops.globals().get(def));
                        }
                        return Ok(());
                    }
                }
            } else {
                expr::eval(&e, &mut SessionEnv { call, words_are_values: true })?
            };
            assign(call, def, scope.as_deref(), v)
        }
    }
}

/// Does the value (tokens from its start) hold a subquery that reads a table (`FROM` in parentheses)?
fn reads_a_table(toks: &[Token]) -> bool {
    let mut depth = 0usize;
    for t in toks {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_op(",") {
            return false;
        } else if depth > 0 && t.is_kw("FROM") {
            return true;
        }
    }
    false
}

/// The index after the value that starts at `from`: the next `,` or `;` outside parentheses, or the end.
fn assignment_end(toks: &[Token], from: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(from) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && (t.is_op(",") || t.is_op(";")) {
            return k;
        }
    }
    toks.len()
}

/// The value of expression `text` as a statement's operand (EXECUTE
/// IMMEDIATE's text and USING values, PREPARE ... FROM): evaluated here when
/// the front's grammar covers it (literals, variables, CONCAT), otherwise by
/// the engine as `SELECT text` (its privileges checked as that SELECT's),
/// as is a call of a function the front does not know (`CURRENT_TIME(6)`).
pub(crate) fn value_of_expression(call: &mut Call<'_, '_>, text: &str) -> Result<Value, SqlError> {
    let toks = lex::tokenize(text).map_err(|e| SqlError::syntax(&text[e.at..]))?;
    let mut p = Parser::new(text, &toks);
    match p.expr() {
        Ok(e) if p.pos == toks.len() => match expr::eval(&e, &mut SessionEnv { call, words_are_values: false }) {
            Err(e) if e.code == 1305 && call.engine.evaluates_expressions() => value_of_query(call, text).map(|(v, _)| v),
            r => r,
        },
        Ok(_) | Err(_) if call.engine.evaluates_expressions() => value_of_query(call, text).map(|(v, _)| v),
        Ok(_) => Err(SqlError::syntax(text)),
        Err(e) => Err(e),
    }
}

/// The value of expression `text` evaluated by the engine as `SELECT text` (its privileges
/// checked as that SELECT's): the first column of its one row.
/// The query's first value, and whether its column is a DECIMAL.
fn value_of_query(call: &mut Call<'_, '_>, text: &str) -> Result<(Value, bool), SqlError> {
    let mut sink = FirstValue(None, false);
    super::engine::engine_statement(call, &format!("SELECT {}", text), &mut sink)?;
    let decimal = sink.1 && matches!(sink.0, Some(Value::Bytes(_)));
    Ok((sink.0.unwrap_or(Value::Null), decimal))
}

/// A sink that keeps the first value of the first row, and whether its column is a DECIMAL.
struct FirstValue(Option<Value>, bool);

impl turnstile_engine::RowSink for FirstValue {
    fn columns(&mut self, cols: &[turnstile_engine::Column]) -> Result<(), SqlError> {
        self.1 = cols.first().is_some_and(|c| c.coltype == turnstile_wire::consts::coltype::NEWDECIMAL);
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        if self.0.is_none() {
            self.0 = Some(row.first().cloned().unwrap_or(Value::Null));
        }
        Ok(())
    }
}

/// SET NAMES x [COLLATE y] (after NAMES): the client, connection and
/// results character sets and the connection's collation.
fn set_names(call: &mut Call<'_, '_>, p: &mut Parser<'_>) -> Result<(), SqlError> {
    let charset = if p.eat_kw("DEFAULT") { "utf8mb4".to_string() } else { p.name()?.to_ascii_lowercase() };
    let collation = if p.eat_kw("COLLATE") { Some(p.name()?.to_ascii_lowercase()) } else { None };
    check_charset(&charset)?;
    for var in ["character_set_client", "character_set_connection", "character_set_results"] {
        set_session(call, var, Value::str(&charset))?;
    }
    let collation = collation.unwrap_or_else(|| default_collation(&charset));
    set_session(call, "collation_connection", Value::str(&collation))?;
    Ok(())
}

/// SET CHARACTER SET x / SET CHARSET x (at CHARACTER or CHARSET): the client
/// and results character sets.
fn set_character_set(call: &mut Call<'_, '_>, p: &mut Parser<'_>) -> Result<(), SqlError> {
    if !p.eat_kw("CHARSET") {
        p.next();
        p.next();
    }
    let charset = if p.eat_kw("DEFAULT") { "utf8mb4".to_string() } else { p.name()?.to_ascii_lowercase() };
    check_charset(&charset)?;
    set_session(call, "character_set_client", Value::str(&charset))?;
    set_session(call, "character_set_results", Value::str(&charset))?;
    Ok(())
}

/// MariaDB 10.11's character sets (SHOW CHARACTER SET) and their default
/// collations. A client may name any of them but the four whose characters
/// are not ASCII-based (ucs2, utf16, utf16le, utf32). Text is kept and sent
/// as UTF-8, never converted: a client in a set other than utf8mb4, utf8mb3
/// or binary may send only ASCII text (`SessionState::unconverted_client_charset`).
const CHARSETS: [(&str, &str); 40] = [
    ("big5", "big5_chinese_ci"),
    ("dec8", "dec8_swedish_ci"),
    ("cp850", "cp850_general_ci"),
    ("hp8", "hp8_english_ci"),
    ("koi8r", "koi8r_general_ci"),
    ("latin1", "latin1_swedish_ci"),
    ("latin2", "latin2_general_ci"),
    ("swe7", "swe7_swedish_ci"),
    ("ascii", "ascii_general_ci"),
    ("ujis", "ujis_japanese_ci"),
    ("sjis", "sjis_japanese_ci"),
    ("hebrew", "hebrew_general_ci"),
    ("tis620", "tis620_thai_ci"),
    ("euckr", "euckr_korean_ci"),
    ("koi8u", "koi8u_general_ci"),
    ("gb2312", "gb2312_chinese_ci"),
    ("greek", "greek_general_ci"),
    ("cp1250", "cp1250_general_ci"),
    ("gbk", "gbk_chinese_ci"),
    ("latin5", "latin5_turkish_ci"),
    ("armscii8", "armscii8_general_ci"),
    ("utf8mb3", "utf8mb3_general_ci"),
    ("ucs2", "ucs2_general_ci"),
    ("cp866", "cp866_general_ci"),
    ("keybcs2", "keybcs2_general_ci"),
    ("macce", "macce_general_ci"),
    ("macroman", "macroman_general_ci"),
    ("cp852", "cp852_general_ci"),
    ("latin7", "latin7_general_ci"),
    ("utf8mb4", "utf8mb4_general_ci"),
    ("cp1251", "cp1251_general_ci"),
    ("utf16", "utf16_general_ci"),
    ("utf16le", "utf16le_general_ci"),
    ("cp1256", "cp1256_general_ci"),
    ("cp1257", "cp1257_general_ci"),
    ("utf32", "utf32_general_ci"),
    ("binary", "binary"),
    ("geostd8", "geostd8_general_ci"),
    ("cp932", "cp932_japanese_ci"),
    ("eucjpms", "eucjpms_japanese_ci"),
];

/// Refuse a character set the server does not know (ERR 1115) or that a
/// client may not use (1231, as MariaDB: ucs2, utf16, utf16le, utf32).
fn check_charset(cs: &str) -> Result<(), SqlError> {
    match cs {
        "ucs2" | "utf16" | "utf16le" | "utf32" => Err(SqlError::new(1231, "42000", format!("Variable 'character_set_client' can't be set to the value of '{}'", cs))),
        "utf8" => Ok(()),
        _ if CHARSETS.iter().any(|(name, _)| *name == cs) => Ok(()),
        other => Err(SqlError::new(1115, "42000", format!("Unknown character set: '{}'", other))),
    }
}

/// A character set's default collation.
pub(super) fn default_collation(cs: &str) -> String {
    let cs = if cs == "utf8" { "utf8mb3" } else { cs };
    CHARSETS.iter().find(|(name, _)| *name == cs).map_or("utf8mb4_general_ci", |(_, c)| c).to_string()
}

/// Store a system variable value with MySQL's scope rules and side effects.
fn assign(call: &mut Call<'_, '_>, def: &'static vars::VarDef, scope: Option<&str>, v: Value) -> Result<(), SqlError> {
    let mut mode = None;
    if let Some(text) = vars::deprecation(def.name) {
        call.ctx.warn(1287, text);
    }
    let v = if def.name == "sql_mode" {
        // Checked and shown as MariaDB does (names in bit order, combination modes expanded).
        let m = vars::sql_mode_of(&v)?;
        mode = Some(m);
        Value::str(&m.to_string())
    } else {
        let given = v.clone();
        let v = vars::coerce(def, v)?;
        if matches!(def.kind, vars::Kind::Int { .. } | vars::Kind::Float { .. }) && given.as_f64() != v.as_f64() {
            // Clamped into the variable's range: MariaDB's warning, with the value as written.
            let text = given.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
            call.ctx.warn(1292, format!("Truncated incorrect {} value: '{}'", def.name, text));
        }
        v
    };
    if scope == Some("global") {
        if privileges(call.sess, call.ops, None) & privs::ADMIN == 0 {
            return Err(SqlError::specific_access_denied("SUPER or SYSTEM_VARIABLES_ADMIN"));
        }
        if def.name.ends_with("_log_file") {
            log_file_usable(call, def.name, &v)?;
        }
        return call.ops.globals().set(def, v);
    }
    if def.scope == Scope::Global {
        return Err(SqlError::global_only_var(def.name));
    }
    if !def.dynamic {
        return Err(SqlError::read_only_var(def.name));
    }
    match def.name {
        "autocommit" => {
            let on = v == Value::Int(1);
            if on && !call.sess.autocommit && call.engine.in_transaction() {
                call.engine.commit(call.ctx)?;
            }
            call.sess.autocommit = on;
            call.engine.set_autocommit(on);
        }
        "transaction_read_only" | "tx_read_only" => set_session_read_only(call.sess, call.engine, v == Value::Int(1)),
        "transaction_isolation" | "tx_isolation" => {
            let Some(level) = vars::isolation_level(&v) else {
                return Err(SqlError::wrong_value_for_var(def.name, &String::from_utf8_lossy(&v.to_text().unwrap_or_default())));
            };
            set_session_isolation(call.sess, call.engine, level);
        }
        _ => {
            call.engine.set_variable(def.name, &v);
            call.sess.vars.insert(def.name, v);
            if mode.is_some() {
                call.sess.sql_mode = mode;
            }
        }
    }
    Ok(())
}

/// Make the session's transaction_read_only (both names) `on` and tell the engine.
pub fn set_session_read_only(sess: &mut SessionState, engine: &mut dyn EngineSession, on: bool) {
    let v = Value::Int(on as i64);
    engine.set_variable("transaction_read_only", &v);
    sess.vars.insert("tx_read_only", v.clone());
    sess.vars.insert("transaction_read_only", v);
}

/// Make `level` the session's transaction_isolation (both names) and tell the
/// engine, which applies it from the next transaction.
pub fn set_session_isolation(sess: &mut SessionState, engine: &mut dyn EngineSession, level: &'static str) {
    sess.vars.insert("transaction_isolation", Value::str(level));
    sess.vars.insert("tx_isolation", Value::str(level));
    engine.set_variable("transaction_isolation", &Value::str(level));
}

/// SET [GLOBAL|SESSION] TRANSACTION ISOLATION LEVEL ... | READ ONLY | READ WRITE
fn set_transaction(call: &mut Call<'_, '_>, p: &mut Parser<'_>, scope: Option<&str>) -> Result<(), SqlError> {
    // Without a scope it is the next transaction's: not while one runs (MariaDB).
    if scope.is_none() && call.engine.in_transaction() {
        return Err(SqlError::new(1568, "25001", "Transaction characteristics can't be changed while a transaction is in progress"));
    }
    let (mut isolation_said, mut access_said) = (false, false);
    loop {
        // One isolation level and one access mode: a second is a syntax error.
        if (isolation_said && p.peek().is_some_and(|t| t.is_kw("ISOLATION"))) || (access_said && p.peek().is_some_and(|t| t.is_kw("READ"))) {
            return Err(p.error().into());
        }
        if p.eat_kw("ISOLATION") {
            isolation_said = true;
            p.expect_kw("LEVEL")?;
            let level = if p.eat_kw("READ") {
                if p.eat_kw("COMMITTED") {
                    "READ-COMMITTED"
                } else {
                    p.expect_kw("UNCOMMITTED")?;
                    "READ-UNCOMMITTED"
                }
            } else if p.eat_kw("REPEATABLE") {
                p.expect_kw("READ")?;
                "REPEATABLE-READ"
            } else {
                p.expect_kw("SERIALIZABLE")?;
                "SERIALIZABLE"
            };
            match scope {
                // The next transaction's only (MariaDB: @@tx_isolation stays).
                None => {
                    call.sess.next_isolation = Some(level);
                    call.engine.set_variable("transaction_isolation", &Value::str(level));
                }
                Some(scope) => assign(call, vars::lookup("transaction_isolation").unwrap(), Some(scope), Value::str(level))?,
            }
        } else if p.eat_kw("READ") {
            access_said = true;
            let read_only = if p.eat_kw("ONLY") {
                1
            } else {
                p.expect_kw("WRITE")?;
                0
            };
            match scope {
                // The next transaction's only (MariaDB: @@tx_read_only stays).
                None => {
                    call.sess.next_read_only = Some(read_only == 1);
                    call.engine.set_variable("transaction_read_only", &Value::Int(read_only));
                }
                Some(scope) => assign(call, vars::lookup("transaction_read_only").unwrap(), Some(scope), Value::Int(read_only))?,
            }
        } else {
            return Err(p.error().into());
        }
        if !(p.peek().is_some_and(|t| t.is_op(",")) && p.toks.get(p.pos + 1).is_some_and(|t| t.is_kw("ISOLATION") || t.is_kw("READ"))) {
            return Ok(());
        }
        p.next();
    }
}

/// SET GLOBAL slow_query_log_file / general_log_file: refused (1231, as
/// MariaDB) unless `log_file_allowed` says yes.
fn log_file_usable(call: &Call<'_, '_>, name: &str, v: &Value) -> Result<(), SqlError> {
    let text = v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
    let datadir = call.ops.globals().text("datadir");
    if !crate::vars::log_file_allowed(std::path::Path::new(&datadir), &text) {
        return Err(SqlError::wrong_value_for_var(name, &text));
    }
    Ok(())
}
