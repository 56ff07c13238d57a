//! MySQL session semantics the front adds on top of any engine.
//!
//! - `select_reads_table`: the hot-path test "does this SELECT read a table?"
//!   as one byte scan (no tokens, no allocation), so a prepared point select
//!   goes to the engine without being lexed here;
//! - `substitute`: @user_var, @@system_var, USER(), CURRENT_USER and
//!   CONNECTION_ID() inside engine-bound statements become literals (the
//!   engine knows nothing of session state); statements without `@` and
//!   without those names are passed through untouched after one scan;
//! - SQL-text prepared statements: PREPARE name FROM 'text' | @var,
//!   EXECUTE name [USING @a, ...], {DEALLOCATE | DROP} PREPARE name, kept in
//!   the session (each holds a place under max_prepared_stmt_count:
//!   prepared_slots.rs); the USING arguments are bound by bind.rs.

use crate::bind::Arg;
use crate::front::{self, Call};
use crate::SessionState;
use turnstile_engine::{Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{self, Tok};
use turnstile_sqltext::scan::{self, Comment};

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// True if a SELECT names a table anywhere (a FROM not followed by DUAL).
/// Strings (by the lexer's rule for this thread: NO_BACKSLASH_ESCAPES),
/// quoted identifiers and comments are skipped.
pub fn select_reads_table(sql: &str) -> bool {
    let b = sql.as_bytes();
    let escapes = lex::backslash_escapes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'`' => {
                i += 1;
                while i < b.len() && b[i] != c {
                    if b[i] == b'\\' && c != b'`' && escapes {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            // Comments, by the lexer's rules (an executable comment's content is scanned).
            b'#' | b'-' | b'/' => match scan::comment_at(b, i) {
                Some(Comment::Skip(next) | Comment::Executable(next)) => i = next,
                Some(Comment::Unterminated) => i = b.len(),
                None => i += 1,
            },
            b'F' | b'f'
                if (i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b'@' || b[i - 1] == b'.'))
                    && b.len() >= i + 4
                    && b[i..i + 4].eq_ignore_ascii_case(b"FROM")
                    && b.get(i + 4).is_none_or(|x| !is_ident(*x)) =>
            {
                let mut j = i + 4;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                let dual = b.len() >= j + 4 && b[j..j + 4].eq_ignore_ascii_case(b"DUAL") && b.get(j + 4).is_none_or(|x| !is_ident(*x));
                if !dual {
                    return true;
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    false
}

/// The text after leading whitespace, opening parentheses and comments (as
/// `scan::first_word_start` skips them), if it starts with the word `kw`
/// (ASCII, any case); no allocation.
fn after_word<'a>(sql: &'a str, kw: &str) -> Option<&'a str> {
    let t = &sql[scan::first_word_start(sql)?..];
    let b = t.as_bytes();
    if b.len() >= kw.len() && b[..kw.len()].eq_ignore_ascii_case(kw.as_bytes()) && b.get(kw.len()).is_none_or(|c| !is_ident(*c)) {
        Some(&t[kw.len()..])
    } else {
        None
    }
}

/// Is this a SELECT (or WITH ... SELECT): the statements max_execution_time
/// applies to, as in MySQL?
pub fn is_select(sql: &str) -> bool {
    after_word(sql, "SELECT").is_some() || after_word(sql, "WITH").is_some()
}

/// The milliseconds of a `SELECT /*+ ... MAX_EXECUTION_TIME(n) ... */` hint
/// (MySQL reads hints only right after the SELECT keyword).
pub fn max_execution_time_hint(sql: &str) -> Option<u64> {
    let rest = after_word(sql, "SELECT")?.trim_start();
    let body = rest.strip_prefix("/*+")?;
    let body = &body[..body.find("*/")?];
    let at = body.to_ascii_uppercase().find("MAX_EXECUTION_TIME")?;
    let args = body[at + "MAX_EXECUTION_TIME".len()..].trim_start().strip_prefix('(')?;
    let digits = args[..args.find(')')?].trim();
    digits.parse::<u64>().ok().map(|ms| ms.min(u32::MAX as u64))
}

/// Does the text need `substitute` (one pass, no allocation)?
pub fn needs_substitution(sql: &str) -> bool {
    let b = sql.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'@' => return true,
            b'U' | b'u' if b.len() >= i + 4 && b[i..i + 4].eq_ignore_ascii_case(b"USER") => return true,
            b'C' | b'c' if b.len() >= i + 13 && b[i..i + 13].eq_ignore_ascii_case(b"CONNECTION_ID") => return true,
            b'R' | b'r' if b.len() >= i + 9 && b[i..i + 9].eq_ignore_ascii_case(b"ROW_COUNT") => return true,
            b'F' | b'f' if b.len() >= i + 10 && b[i..i + 10].eq_ignore_ascii_case(b"FOUND_ROWS") => return true,
            b'C' | b'c' if [&b"COLLATION("[..], b"COERCIBILITY(", b"CHARSET("].iter().any(|w| b.len() >= i + w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w)) => return true,
            _ => {}
        }
    }
    false
}

/// A value as a MySQL literal, as the lexer reads it on this thread (under
/// NO_BACKSLASH_ESCAPES a backslash and a NUL are written as themselves);
/// bytes that are not UTF-8 as `X'..'`, which keeps every one of them.
pub fn literal(v: &Value) -> String {
    let escapes = lex::backslash_escapes();
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(_) | Value::Double(_) => String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned(),
        Value::Bytes(b) if std::str::from_utf8(b).is_err() => format!("X'{}'", b.iter().map(|x| format!("{:02X}", x)).collect::<String>()),
        other => {
            let t = other.to_text().unwrap_or_default();
            let mut s = String::with_capacity(t.len() + 2);
            s.push('\'');
            for ch in String::from_utf8_lossy(&t).chars() {
                match ch {
                    '\'' => s.push_str("''"),
                    '\\' if escapes => s.push_str("\\\\"),
                    '\0' if escapes => s.push_str("\\0"),
                    c => s.push(c),
                }
            }
            s.push('\'');
            s
        }
    }
}

use turnstile_sqltext::expr_type::USER_VAR_MARK;

/// A client's own call of `USER_VAR_MARK` (which only `substitute` writes
/// and the engine takes for a user variable's value) is an unknown
/// function, as it is in MariaDB: 1305.
pub fn refuse_forged_marks(sql: &str, db: Option<&str>) -> Result<(), SqlError> {
    let mark = USER_VAR_MARK.as_bytes();
    if !sql.as_bytes().windows(mark.len()).any(|w| w.eq_ignore_ascii_case(mark)) {
        return Ok(());
    }
    let Ok(toks) = lex::tokenize(sql) else { return Ok(()) };
    let forged = toks.windows(2).any(|w| w[0].ident().is_some_and(|n| n.eq_ignore_ascii_case(USER_VAR_MARK)) && matches!(w[0].tok, Tok::Word(_)) && w[1].is_op("("));
    if forged {
        return Err(SqlError::new(1305, "42000", format!("FUNCTION {}.{} does not exist", db.unwrap_or(""), USER_VAR_MARK)));
    }
    Ok(())
}

/// `literal(v)`, a UTF-8 string wrapped in `USER_VAR_MARK`.
fn marked(v: &Value) -> String {
    match v {
        Value::Bytes(b) if std::str::from_utf8(b).is_ok() => format!("{}({})", USER_VAR_MARK, literal(v)),
        _ => literal(v),
    }
}

/// The user variables a statement assigns (`@name :=`), each once.
pub(crate) fn assigned_user_vars(toks: &[lex::Token]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for w in toks.windows(2) {
        if let (Tok::UserVar(name), true) = (&w[0].tok, w[1].is_op(":=")) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// Replace session references with literals. `None`: nothing to replace.
pub fn substitute(call: &mut Call<'_, '_>, sql: &str) -> Result<Option<String>, SqlError> {
    if !needs_substitution(sql) {
        return Ok(None);
    }
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    // Variables the statement assigns stay `@name` for an engine that
    // evaluates them row by row (front/engine.rs hands it their values).
    let assigned = if call.engine.keeps_user_variables() { assigned_user_vars(&toks) } else { Vec::new() };
    let mut out = String::with_capacity(sql.len() + 16);
    let mut last = 0;
    let mut changed = false;
    let mut i = 0;
    let items = unaliased_select_items(&toks);
    // A query's select items typed by the variables they read (`marked`).
    let query = toks.first().is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH") || t.is_op("("));
    let all_items = if query { select_item_ranges(&toks) } else { Vec::new() };
    let mut all_item = 0;
    // Index into `items` of the next item to finish, and whether a value was
    // written into the current one.
    let mut item = 0;
    let mut item_changed = false;
    while i < toks.len() {
        let t = &toks[i];
        while items.get(item).is_some_and(|&(_, end)| end <= i) {
            if std::mem::take(&mut item_changed) {
                let (start, end) = items[item];
                alias_item(&mut out, &mut last, sql, &toks[start..end]);
            }
            item += 1;
        }
        let call_parens = toks.get(i + 1).is_some_and(|n| n.is_op("(")) && toks.get(i + 2).is_some_and(|n| n.is_op(")"));
        let replacement = match &t.tok {
            Tok::UserVar(name) => {
                // `@x := ...` is an assignment: leave it (the engine refuses it clearly).
                if toks.get(i + 1).is_some_and(|n| n.is_op(":=")) || assigned.contains(name) {
                    None
                } else {
                    while all_items.get(all_item).is_some_and(|&(_, end)| end <= i) {
                        all_item += 1;
                    }
                    let v = call.sess.user_vars.get(name).cloned().unwrap_or(Value::Null);
                    let in_item = all_items.get(all_item).is_some_and(|&(start, _)| start <= i);
                    let decimal = call.sess.decimal_vars.get(name) == Some(&v);
                    Some((if in_item && !decimal { marked(&v) } else { literal(&v) }, i + 1))
                }
            }
            Tok::SysVar(scope, name) => Some((literal(&front::read_sys_var(call.sess, call.ops, call.engine, scope.as_deref(), name)?), i + 1)),
            Tok::Word(w)
                if ["COLLATION", "CHARSET", "COERCIBILITY"].iter().any(|k| w.eq_ignore_ascii_case(k)) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) && !(i > 0 && toks[i - 1].is_op(".")) =>
            {
                derived_call(call, sql, &toks, i, w)?
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("CONNECTION_ID") && call_parens => Some((call.sess.connection_id.to_string(), i + 3)),
            // Parenthesized: `5-ROW_COUNT()` must not become `5--1`.
            Tok::Word(w) if w.eq_ignore_ascii_case("ROW_COUNT") && call_parens => Some((format!("({})", call.sess.row_count), i + 3)),
            Tok::Word(w) if w.eq_ignore_ascii_case("FOUND_ROWS") && call_parens => Some((call.engine.found_rows().to_string(), i + 3)),
            Tok::Word(w) if (w.eq_ignore_ascii_case("USER") || w.eq_ignore_ascii_case("SESSION_USER") || w.eq_ignore_ascii_case("SYSTEM_USER")) && call_parens => {
                Some((literal(&Value::str(&format!("{}@{}", call.sess.user, call.sess.host))), i + 3))
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("CURRENT_USER") && !(i > 0 && toks[i - 1].is_op(".")) => {
                let next = if call_parens { i + 3 } else { i + 1 };
                Some((literal(&Value::str(&format!("{}@{}", call.sess.account_user, call.sess.account_host))), next))
            }
            _ => None,
        };
        if let Some((text, next)) = replacement {
            out.push_str(&sql[last..t.start]);
            out.push_str(&text);
            last = toks[next - 1].end;
            item_changed |= items.get(item).is_some_and(|&(start, _)| start <= i);
            changed = true;
            i = next;
        } else {
            i += 1;
        }
    }
    if !changed {
        return Ok(None);
    }
    if item_changed {
        let (start, end) = items[item];
        alias_item(&mut out, &mut last, sql, &toks[start..end]);
    }
    out.push_str(&sql[last..]);
    Ok(Some(out))
}

/// COLLATION(x), CHARSET(x) or COERCIBILITY(x) at token `i` as a literal
/// when collation_of.rs knows the answer from the text of `x` (then the
/// literal and the index after the call), else None (the engine answers).
fn derived_call(call: &mut Call<'_, '_>, sql: &str, toks: &[lex::Token], i: usize, name: &str) -> Result<Option<(String, usize)>, SqlError> {
    let mut depth = 0usize;
    let Some(close) = toks.iter().enumerate().skip(i + 1).find_map(|(k, t)| {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
        None
    }) else {
        return Ok(None);
    };
    let connection = front::read_sys_var(call.sess, call.ops, call.engine, None, "collation_connection")?;
    let connection = String::from_utf8_lossy(&connection.to_text().unwrap_or_default()).into_owned();
    let vars = &call.sess.user_vars;
    let user_var = |n: &str| vars.get(n).cloned();
    let env = crate::collation_of::Env { sql, connection: &connection, user_var: &user_var };
    let Some(d) = crate::collation_of::derive(&toks[i + 2..close], &env) else { return Ok(None) };
    let text = match name.to_ascii_uppercase().as_str() {
        "COLLATION" => literal(&Value::str(&d.collation)),
        "CHARSET" => literal(&Value::str(d.charset())),
        _ => d.coercibility.to_string(),
    };
    Ok(Some((text, close + 1)))
}

/// Copy the text up to the end of `item` and name it with its original text.
pub(crate) fn alias_item(out: &mut String, last: &mut usize, sql: &str, item: &[lex::Token]) {
    let (from, to) = (item[0].start, item[item.len() - 1].end);
    out.push_str(&sql[*last..to]);
    out.push_str(" AS `");
    out.push_str(&sql[from..to].replace('`', "``"));
    out.push('`');
    *last = to;
}

/// The items of every select list in `toks` that have no alias, as token
/// ranges [start, end): a value `substitute` writes into one of them must not
/// rename its column (`@@foreign_key_checks`, not `1`; `CONCAT(@x, 1)`, not
/// `CONCAT('hi', 1)`), so the item gets its text as an alias.
pub(crate) fn unaliased_select_items(toks: &[lex::Token]) -> Vec<(usize, usize)> {
    select_item_ranges(toks).into_iter().filter(|&(start, end)| !has_alias(&toks[start..end])).collect()
}

/// The items of every select list in `toks` (aliased or not), as token
/// ranges [start, end), in order of their ends.
fn select_item_ranges(toks: &[lex::Token]) -> Vec<(usize, usize)> {
    const LIST_END: [&str; 10] = ["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTO", "WINDOW", "FOR"];
    let mut items = Vec::new();
    // (depth of the list, start of the current item) for each open select list.
    let mut lists: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let close = |items: &mut Vec<(usize, usize)>, start: usize, end: usize| {
        if end > start {
            items.push((start, end));
        }
    };
    for (i, t) in toks.iter().enumerate() {
        let at_list = lists.last().is_some_and(|&(d, _)| d == depth);
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") || t.is_op(";") || (at_list && LIST_END.iter().any(|k| t.is_kw(k))) {
            if at_list {
                let (_, start) = lists.pop().expect("at_list");
                close(&mut items, start, i);
            }
            depth = depth.saturating_sub(t.is_op(")") as usize);
        } else if at_list && t.is_op(",") {
            let start = lists.last().expect("at_list").1;
            close(&mut items, start, i);
            lists.last_mut().expect("at_list").1 = i + 1;
        } else if t.is_kw("SELECT") {
            let first = toks[i + 1..].iter().take_while(|n| n.is_kw("DISTINCT") || n.is_kw("ALL")).count();
            lists.push((depth, i + 1 + first));
        }
    }
    if let Some(&(_, start)) = lists.last() {
        close(&mut items, start, toks.len());
    }
    items
}

/// Does a select item end with an alias (`AS x`, or a name after a value)?
fn has_alias(item: &[lex::Token]) -> bool {
    let n = item.len();
    if n >= 2 && item[n - 2].is_kw("AS") {
        return true;
    }
    let last_is_name = matches!(&item[n - 1].tok, Tok::Quoted(_)) || matches!(&item[n - 1].tok, Tok::Word(w) if !["END", "NULL", "TRUE", "FALSE"].iter().any(|k| w.eq_ignore_ascii_case(k)));
    // A name after `)` is an alias too (`f(x) a`); after another operator
    // or an operator word an operand (`a + b`, `c COLLATE utf8mb4_bin`), as
    // is an INTERVAL's unit.
    const OPERAND_AFTER: [&str; 14] = ["BINARY", "NOT", "COLLATE", "DIV", "MOD", "AND", "OR", "XOR", "LIKE", "REGEXP", "RLIKE", "IS", "IN", "ESCAPE"];
    if n < 2 {
        return false;
    }
    let after_operator = matches!(&item[n - 2].tok, Tok::Op(o) if *o != ")") || OPERAND_AFTER.iter().any(|k| item[n - 2].is_kw(k));
    let interval_unit = n >= 3 && item[n - 3].is_kw("INTERVAL");
    last_is_name && !after_operator && !interval_unit
}

/// PREPARE / EXECUTE / DEALLOCATE PREPARE / DROP PREPARE.
pub fn sql_prepared(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Option<Outcome>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let ok = || Ok(Some(Outcome::Done(Default::default())));
    let word = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    let name_at =
        |i: usize| -> Result<String, SqlError> { toks.get(i).and_then(|t| t.ident()).map(|n| n.to_ascii_lowercase()).ok_or_else(|| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]))) };
    let trailing = |i: usize| -> Result<(), SqlError> {
        match toks.get(i) {
            None => Ok(()),
            Some(t) if t.is_op(";") && i + 1 == toks.len() => Ok(()),
            Some(t) => Err(SqlError::syntax(&sql[t.start..])),
        }
    };
    if word(0, "PREPARE") {
        let name = name_at(1)?;
        if !word(2, "FROM") {
            return Err(SqlError::syntax(toks.get(2).map_or("", |t| &sql[t.start..])));
        }
        // A statement of the same name goes first, whatever becomes of the
        // new one (MariaDB's order: then the limit, then the text's checks).
        call.sess.sql_prepared.remove(&name);
        let end = toks.iter().rposition(|t| !t.is_op(";")).map_or(3, |i| i + 1);
        let text = statement_text(call, sql, &toks[3.min(end)..end], toks.get(3))?;
        let max = call.ops.globals().hot.max_prepared_stmt_count.load(std::sync::atomic::Ordering::Relaxed);
        let slot = crate::prepared_slots::Slot::take(u64::try_from(max).unwrap_or(0))?;
        let params = check_prepared_text(&text)?;
        if call.sess.db.is_none() && crate::prepared_db::names_table_without_database(&text) {
            return Err(SqlError::no_database());
        }
        check_prepared_statement(call, &text)?;
        let db = call.sess.db.clone();
        call.sess.sql_prepared.insert(name, (text, params, slot, db));
        return ok();
    }
    if word(0, "EXECUTE") && word(1, "IMMEDIATE") {
        return execute_immediate(call, sql, &toks, sink).map(Some);
    }
    if word(0, "EXECUTE") {
        let name = name_at(1)?;
        let end = toks.iter().rposition(|t| !t.is_op(";")).map_or(0, |i| i + 1);
        let args = if word(2, "USING") { using_values(call, sql, &toks[3.min(end)..end])? } else { Vec::new() };
        let i = if word(2, "USING") { end } else { 2 };
        trailing(i)?;
        let (text, params, db) = call.sess.sql_prepared.get(&name).map(|(t, p, _, d)| (t.clone(), *p, d.clone())).ok_or_else(|| unknown_name(&name, "EXECUTE"))?;
        if params != args.len() {
            return Err(SqlError::wrong_arguments("EXECUTE"));
        }
        return crate::prepared_db::in_database(call, db, |call| execute_bound(call, &text, &args, sink)).map(Some);
    }
    if (word(0, "DEALLOCATE") || word(0, "DROP")) && word(1, "PREPARE") {
        let name = name_at(2)?;
        trailing(3)?;
        if call.sess.sql_prepared.remove(&name).is_none() {
            return Err(unknown_name(&name, "DEALLOCATE PREPARE"));
        }
        return ok();
    }
    Ok(None)
}

/// The text of a statement to prepare (PREPARE ... FROM, EXECUTE
/// IMMEDIATE): a string, a user variable or any expression (as MariaDB); a
/// NULL or a number is a syntax error near its value, as there.
fn statement_text(call: &mut Call<'_, '_>, sql: &str, toks: &[lex::Token], first: Option<&lex::Token>) -> Result<String, SqlError> {
    let (Some(a), Some(b)) = (toks.first(), toks.last()) else { return Err(SqlError::syntax(first.map_or("", |t| &sql[t.start..]))) };
    match crate::front::value_of_expression(call, &sql[a.start..b.end])? {
        Value::Null => Err(SqlError::syntax("NULL")),
        Value::Bytes(b) => Ok(String::from_utf8_lossy(&b).into_owned()),
        v => Err(SqlError::syntax(&String::from_utf8_lossy(&v.to_text().unwrap_or_default()))),
    }
}

/// What PREPARE refuses in the text itself (as MySQL, at PREPARE, not at
/// EXECUTE); the number of `?` placeholders when it is accepted.
fn check_prepared_text(text: &str) -> Result<usize, SqlError> {
    let params = lex::count_markers(text).map_err(|e| SqlError::syntax(&text[e.at..]))?;
    let first = scan::first_keyword(text);
    if first.is_empty() {
        return Err(SqlError::empty_query());
    }
    // What no statement starts with is a syntax error now, not at EXECUTE (as MySQL).
    if !crate::front::is_statement_keyword(&first) {
        return Err(SqlError::syntax(text.trim_start()));
    }
    // PREPARE s FROM 'EXECUTE s' would run itself for ever (MySQL refuses
    // these in a prepared statement, as here).
    if matches!(first.as_str(), "PREPARE" | "EXECUTE" | "DEALLOCATE") || (first == "DROP" && lex::tokenize(text).ok().and_then(|t| t.get(1).map(|t| t.is_kw("PREPARE"))).unwrap_or(false)) {
        return Err(SqlError::new(1295, "HY000", "This command is not supported in the prepared statement protocol yet"));
    }
    // One statement: MariaDB reports the second as a syntax error.
    if let Some(second) = lex::split_statements(text).get(1) {
        return Err(SqlError::syntax(second.trim_start()));
    }
    Ok(params)
}

/// PREPARE compiles a query or a row change the engine runs (a SELECT
/// that reads a table, INSERT, REPLACE, UPDATE, DELETE, WITH), as
/// COM_STMT_PREPARE does, so a syntax error or an unknown function is
/// PREPARE's error (1064/1305), as in MariaDB, and no statement is held
/// under its name. A call of a stored function is no error here: the front
/// writes those out when the statement runs. Other errors wait for
/// EXECUTE: the engine's compile refuses some statements at prepare that
/// run (a view's INSERT, a temporary table's, RAND(?)), so only these two
/// are taken from it.
fn check_prepared_statement(call: &mut Call<'_, '_>, text: &str) -> Result<(), SqlError> {
    let first = scan::first_keyword(text);
    let compiled = match first.as_str() {
        "SELECT" => lex::tokenize(text).is_ok_and(|t| crate::front::has_table(&t)),
        "INSERT" | "REPLACE" | "UPDATE" | "DELETE" | "WITH" => true,
        _ => false,
    };
    if !compiled {
        return Ok(());
    }
    match crate::front::prepare(call.sess, call.engine, call.ops, text) {
        Ok(_) => Ok(()),
        Err(e) if e.code == 1305 => match crate::routine::function::unknown_function(call, &e, text) {
            Some(f) if stored_function_exists(call, &f) => Ok(()),
            _ => Err(e),
        },
        // `db.f(...)` of a stored function is no SQL the engine knows.
        Err(e) if e.code == 1064 => match crate::routine::function::unknown_function(call, &e, text) {
            Some(_) => Ok(()),
            None => Err(e),
        },
        // A table named without a database and none current (as MariaDB).
        Err(e) if e.code == 1046 && call.sess.db.is_none() => Err(e),
        Err(_) => Ok(()),
    }
}

/// Is there a stored function `name` in the current database?
fn stored_function_exists(call: &mut Call<'_, '_>, name: &str) -> bool {
    let Some(db) = call.sess.db.clone() else { return false };
    call.engine.routine_load(&db, turnstile_engine::RoutineKind::Function, name).ok().flatten().is_some()
}

/// The arguments of EXECUTE's USING list (tokens after USING): each an
/// expression (`@a`, `1`, `'x'`) or DEFAULT or IGNORE (bind.rs); a subquery
/// is error 1970, as in MariaDB.
fn using_values(call: &mut Call<'_, '_>, sql: &str, toks: &[lex::Token]) -> Result<Vec<Arg>, SqlError> {
    let mut out = Vec::new();
    for item in turnstile_sqltext::parens::split_top_level(toks, ",") {
        let (Some(a), Some(b)) = (item.first(), item.last()) else { return Err(SqlError::syntax(toks.first().map_or("", |t| &sql[t.start..]))) };
        if item.iter().any(|t| t.is_kw("SELECT")) {
            return Err(SqlError::new(1970, "42000", "EXECUTE..USING does not support subqueries or stored functions"));
        }
        out.push(match item {
            [w] if w.is_kw("DEFAULT") => Arg::Default,
            [w] if w.is_kw("IGNORE") => Arg::Ignore,
            _ => Arg::Value { value: crate::front::value_of_expression(call, &sql[a.start..b.end])?, text: crate::bind::source_text(sql, item) },
        });
    }
    Ok(out)
}

/// Run prepared `text` with `args` (bind.rs places DEFAULT and IGNORE and
/// writes them into statements that cannot bind them).
fn execute_bound(call: &mut Call<'_, '_>, text: &str, args: &[Arg], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let (text, values) = crate::bind::bind(text, args)?;
    let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &values };
    front::execute(&mut inner, &text, sink)
}

/// EXECUTE IMMEDIATE text [USING v, ...] (MariaDB): PREPARE, EXECUTE and
/// DEALLOCATE in one, under no name.
fn execute_immediate(call: &mut Call<'_, '_>, sql: &str, toks: &[lex::Token], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let end = toks.iter().rposition(|t| !t.is_op(";")).map_or(2, |i| i + 1).max(2);
    let using = turnstile_sqltext::parens::find_top_level(&toks[..end], 2, |_, t| t.is_kw("USING"));
    let text = statement_text(call, sql, &toks[2..using.unwrap_or(end)], toks.get(2))?;
    let params = check_prepared_text(&text)?;
    let args = match using {
        Some(u) => using_values(call, sql, &toks[u + 1..end])?,
        None => Vec::new(),
    };
    if params != args.len() {
        return Err(SqlError::wrong_arguments("EXECUTE"));
    }
    execute_bound(call, &text, &args, sink)
}

fn unknown_name(name: &str, call: &str) -> SqlError {
    SqlError::new(1243, "HY000", format!("Unknown prepared statement handler ({}) given to {}", name, call))
}

/// Forget SQL-text prepared statements (COM_RESET_CONNECTION / CHANGE_USER).
pub fn reset(sess: &mut SessionState) {
    sess.sql_prepared.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_time_limit_hints() {
        assert!(is_select("  (SELECT 1)") && is_select("with c as (select 1) select * from c") && !is_select("SELECTX") && !is_select("INSERT INTO t SELECT 1"));
        assert!(is_select("/* c */ SELECT 1") && is_select("-- c\nSELECT 1") && !is_select("--c\nSELECT 1") && !is_select("/* c SELECT 1"));
        assert_eq!(max_execution_time_hint("/* c */ SELECT /*+ MAX_EXECUTION_TIME(7) */ 1"), Some(7));
        assert_eq!(max_execution_time_hint("SELECT /*+ MAX_EXECUTION_TIME(1500) */ * FROM t"), Some(1500));
        assert_eq!(max_execution_time_hint("select /*+ BKA(t) max_execution_time( 20 ) */ 1"), Some(20));
        assert_eq!(max_execution_time_hint("SELECT /* MAX_EXECUTION_TIME(5) */ 1"), None);
        assert_eq!(max_execution_time_hint("SELECT 1 /*+ MAX_EXECUTION_TIME(5) */"), None);
        assert_eq!(max_execution_time_hint("SELECT /*+ MAX_EXECUTION_TIME(x) */ 1"), None);
    }

    #[test]
    fn table_detection_by_scan() {
        assert!(select_reads_table("SELECT c FROM sbtest1 WHERE id=?"));
        assert!(select_reads_table("select (select count(*) from t)"));
        assert!(!select_reads_table("SELECT 1"));
        assert!(!select_reads_table("SELECT 1 FROM DUAL"));
        assert!(!select_reads_table("SELECT 'from x', `from` , @from"));
        assert!(!select_reads_table("SELECT 1 -- from t"));
        assert!(!select_reads_table("SELECT 1 /* from t */"));
        assert!(!select_reads_table("SELECT 1 /*!90000 from t */"));
        // `--` before a non-blank is two minus signs (MySQL): 1--1 is 2.
        assert!(select_reads_table("SELECT 1--1 FROM t"));
        assert!(select_reads_table("SELECT 1 /*!40101 FROM t */"));
        assert!(!select_reads_table("SELECT fromage"));
    }

    #[test]
    fn aliases_and_select_items() {
        let items = |s: &str| {
            let toks = lex::tokenize(s).expect("lexes");
            unaliased_select_items(&toks).iter().map(|&(a, b)| s[toks[a].start..toks[b - 1].end].to_string()).collect::<Vec<_>>()
        };
        // A name after `)` is an alias; after an operator word or as an INTERVAL's unit an operand.
        assert_eq!(items("SELECT json_remove(@j, '$') a, f(x), @v"), vec!["f(x)", "@v"]);
        assert_eq!(items("SELECT c COLLATE utf8mb4_bin, d + INTERVAL 1 DAY, (SELECT 1) s"), vec!["c COLLATE utf8mb4_bin", "d + INTERVAL 1 DAY", "1"]);
        let toks = lex::tokenize("SELECT a x, (SELECT b) FROM t WHERE c = @v").expect("lexes");
        assert_eq!(select_item_ranges(&toks), vec![(1, 3), (6, 7), (4, 8)]);
        assert_eq!(marked(&Value::str("it's")), "ts_uvs('it''s')");
        assert_eq!(marked(&Value::Int(1)), "1");
        assert_eq!(marked(&Value::Bytes(vec![0x80])), "X'80'");
    }

    #[test]
    fn literals() {
        assert_eq!(literal(&Value::str("it's \\")), "'it''s \\\\'");
        assert_eq!(literal(&Value::Bytes(vec![0x80, b'\''])), "X'8027'");
        assert_eq!(literal(&Value::Int(-3)), "-3");
        assert_eq!(literal(&Value::Null), "NULL");
        assert!(!needs_substitution("SELECT c FROM sbtest1 WHERE id=?"));
        assert!(needs_substitution("SELECT @x FROM t"));
    }
}
