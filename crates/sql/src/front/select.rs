//! SELECT and DO without a table: the select list evaluated by the front's
//! own expression evaluator, one row with computed column definitions. What
//! the front cannot evaluate goes to an engine that evaluates SQL, and so
//! does DECIMAL arithmetic, which such an engine computes exactly.

use super::engine::engine_statement;
use super::session_env::eval_in;
use super::{lex_or_syntax, ok, Call};
use crate::expr::{self, Expr, Parser};
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::expr_type::{ExprType, VarValue};
use turnstile_sqltext::lex::{Tok, Token};
use turnstile_sqltext::types::Base;
use turnstile_wire::consts::{colflag, coltype};

/// A SELECT without a table (one that reads a table never comes here):
/// answered by the front, or by an engine that evaluates SQL when the front
/// does not know something in it.
pub(super) fn select_without_table(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    // `SELECT 1 UNION SELECT 2`: no table, but a query for the engine, which needs a database.
    if call.sess.db.is_some() && has_union(&toks) {
        return engine_statement(call, sql, sink);
    }
    // DECIMAL arithmetic (`0.1 + 0.2`, `1/3`) is exact in an engine that
    // evaluates SQL; the front's evaluator computes in doubles.
    if (has_decimal_arithmetic(&toks) || has_integer_cast(&toks)) && call.engine.evaluates_expressions() {
        return engine_statement(call, sql, sink);
    }
    // The conditions the front's attempt raises are its own: dropped when
    // the engine evaluates the statement again (it raises them itself).
    let earlier = call.ctx.warnings().map(|w| w.take());
    let r = local_select(call, sql, &toks, sink);
    let fallback = matches!(&r, Err(e) if matches!(e.code, 1064 | 1235 | 1054 | 1305)) && call.engine.evaluates_expressions();
    if let (Some(w), Some(earlier)) = (call.ctx.warnings(), earlier) {
        if fallback {
            w.take();
        }
        w.put_back(earlier);
    }
    match r {
        // What the front does not know (a function, an operator, a
        // clause) an engine that evaluates SQL may: it answers or
        // refuses with its own error. Nothing was sent yet.
        Err(_) if fallback => engine_statement(call, sql, sink),
        r => r,
    }
}

/// True if a statement has a UNION (at any depth: the local evaluator has none).
fn has_union(toks: &[Token]) -> bool {
    toks.iter().any(|t| t.is_kw("UNION"))
}

/// Does the statement CAST or CONVERT to SIGNED or UNSIGNED? Of a string,
/// MariaDB warns for what the cast cuts, which the engine's cast raises.
fn has_integer_cast(toks: &[Token]) -> bool {
    toks.iter().any(|t| t.is_kw("CAST") || t.is_kw("CONVERT")) && toks.iter().any(|t| t.is_kw("SIGNED") || t.is_kw("UNSIGNED"))
}

/// Does the statement have a decimal literal (`0.1`), an integer literal
/// beyond BIGINT (`18446744073709551616`), a division or a CAST to DECIMAL:
/// values whose MySQL type is DECIMAL (or BIGINT UNSIGNED).
fn has_decimal_arithmetic(toks: &[Token]) -> bool {
    toks.iter().any(|t| {
        t.is_op("/")
            || t.is_kw("DECIMAL")
            || t.is_kw("DEC")
            || matches!(&t.tok, Tok::Number(n) if turnstile_sqltext::lex::hybrid_bytes(n).is_none() && !n.contains(['e', 'E']) && (n.contains('.') || n.parse::<i64>().is_err()))
    })
}

/// What an item's text says about its type beyond its value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ItemKind {
    /// A binary string expression (`strtype`): a string value is one.
    Binary,
    /// Typed INT by MariaDB (`item_type::long_item`): display length, UNSIGNED.
    Long(u32, bool),
    /// Typed by its text (`expr_type::infer`).
    Typed(ExprType),
}

/// Does value `v` fit the column type `t` its text has (so the column goes out with `v` as it is)?
fn fits(t: &ExprType, v: &Value) -> bool {
    match t {
        _ if v.is_null() => true,
        ExprType::Int { .. } => matches!(v, Value::Int(_) | Value::UInt(_)),
        ExprType::Double { .. } | ExprType::Float => matches!(v, Value::Double(_) | Value::Float(_)),
        ExprType::Str { .. } | ExprType::DateStr { .. } => matches!(v, Value::Bytes(_)),
        ExprType::Temporal { base: Base::Date, .. } => matches!(v, Value::Date { .. }),
        ExprType::Temporal { base: Base::Time, .. } => matches!(v, Value::Time { .. }),
        ExprType::Temporal { .. } => matches!(v, Value::DateTime { .. }),
        ExprType::Decimal { .. } | ExprType::Hybrid { .. } | ExprType::Null => false,
    }
}

/// A value the front computed as text where its text says DATE, TIME or
/// DATETIME (`SEC_TO_TIME(5)`), as that temporal value.
fn as_typed(kind: Option<ItemKind>, v: Value) -> Value {
    match (kind, v) {
        (Some(ItemKind::Typed(ExprType::Temporal { base, .. })), Value::Bytes(b)) => turnstile_sqltext::temporal::parse_temporal(base, &b).unwrap_or(Value::Bytes(b)),
        (_, v) => v,
    }
}

/// A column definition that describes a computed value, given what its text says (`kind`).
fn column_for(name: &str, v: &Value, kind: Option<ItemKind>) -> Column {
    if let Some(ItemKind::Typed(t)) = kind.filter(|k| matches!(k, ItemKind::Typed(t) if fits(t, v))) {
        let mut c = turnstile_sqltext::expr_type::column(name, &t);
        if !v.is_null() {
            c.flags |= colflag::NOT_NULL;
        }
        return c;
    }
    let binary = kind == Some(ItemKind::Binary);
    let mut c = match v {
        Value::Int(_) | Value::Null if matches!(kind, Some(ItemKind::Long(..))) => {
            let Some(ItemKind::Long(len, unsigned)) = kind else { unreachable!("matched above") };
            let mut c = Column::computed(name, coltype::LONG);
            c.length = len;
            if unsigned {
                c.flags |= colflag::UNSIGNED;
            }
            c
        }
        Value::Bytes(b) if binary => {
            let mut c = Column::varbinary(name);
            c.length = b.len() as u32;
            c
        }
        Value::Int(_) => Column::computed(name, coltype::LONGLONG),
        Value::UInt(_) => {
            let mut c = Column::computed(name, coltype::LONGLONG);
            c.flags |= colflag::UNSIGNED;
            c
        }
        Value::Double(_) | Value::Float(_) => Column::computed(name, coltype::DOUBLE),
        Value::Null => Column::computed(name, coltype::NULL),
        Value::Date { .. } => Column::computed(name, coltype::DATE),
        Value::DateTime { .. } => Column::computed(name, coltype::DATETIME),
        Value::Time { .. } => Column::computed(name, coltype::TIME),
        Value::Bytes(_) => Column::varchar(name),
    };
    if !v.is_null() {
        c.flags |= colflag::NOT_NULL;
    }
    c
}

/// The column of `CAST(x AS DATE|DATETIME|TIME(n))`: typed by the target,
/// NULL or not, with n fractional digits, as MariaDB describes it.
fn temporal_cast_column(name: &str, e: &Expr) -> Option<Column> {
    let Expr::Func(f, args) = e else { return None };
    let (Some(Expr::Lit(ty)), len) = (args.get(1), args.get(2)) else { return None };
    let ty = match ty.to_text()?.as_ref() {
        b"DATE" => coltype::DATE,
        b"DATETIME" => coltype::DATETIME,
        b"TIME" => coltype::TIME,
        _ => return None,
    };
    if f != "CAST" {
        return None;
    }
    let mut c = Column::computed(name, ty);
    let fsp = match len {
        Some(Expr::Lit(v)) => v.as_i64().unwrap_or(0).clamp(0, 6) as u8,
        _ => 0,
    };
    if fsp > 0 && ty != coltype::DATE {
        c.decimals = fsp;
        c.length += u32::from(fsp) + 1;
    }
    Some(c)
}

/// The column of `@v` alone, as MariaDB 10.11 describes a user variable:
/// an integer BIGINT, a double DOUBLE, a DECIMAL a query set (`decimal`)
/// DECIMAL with 38 decimals, anything else (a string, NULL, a variable never
/// set) LONGTEXT (LONG_BLOB on the wire). A DECIMAL literal's value is kept
/// as text and goes out as LONGTEXT (MariaDB: DECIMAL).
fn user_var_column(name: &str, e: &Expr, v: &Value, decimal: bool) -> Option<Column> {
    if !matches!(e, Expr::UserVar(_)) {
        return None;
    }
    if decimal {
        let mut c = Column::computed(name, coltype::NEWDECIMAL);
        c.length = 83;
        c.decimals = 38;
        return Some(c);
    }
    let mut c = match v {
        Value::Int(_) | Value::UInt(_) => Column::computed(name, coltype::LONGLONG),
        Value::Double(_) | Value::Float(_) => return Some(Column::computed(name, coltype::DOUBLE)),
        _ => {
            let mut c = Column::computed(name, coltype::LONG_BLOB);
            c.length = if v.is_null() { 16_777_216 } else { 67_108_860 };
            c.flags = if v.is_null() { colflag::BINARY } else { 0 };
            c.charset = if v.is_null() { turnstile_wire::consts::charset::BINARY } else { turnstile_wire::consts::charset::UTF8MB4_GENERAL_CI };
            c.decimals = 39;
            return Some(c);
        }
    };
    c.length = 20;
    if matches!(v, Value::UInt(_)) {
        c.flags |= colflag::UNSIGNED;
    }
    Some(c)
}

/// What a user variable holds, for typing the items that use it (None:
/// NULL).
fn var_value(v: &Value, decimal: bool) -> Option<VarValue> {
    Some(match v {
        Value::Null => return None,
        _ if decimal => VarValue::Decimal,
        Value::Int(_) | Value::UInt(_) => VarValue::Int,
        Value::Double(_) | Value::Float(_) => VarValue::Real,
        Value::Bytes(b) if std::str::from_utf8(b).is_err() => VarValue::Bytes,
        _ => VarValue::Str,
    })
}

/// Is `e` a user variable a query set to the DECIMAL `v` it still holds?
fn is_decimal_var(call: &Call<'_, '_>, e: &Expr, v: &Value) -> bool {
    matches!(e, Expr::UserVar(n) if call.sess.decimal_vars.get(n) == Some(v))
}

/// COM_STMT_PREPARE of a SELECT without a table: its columns, described
/// from the select list without evaluating it (it may call SLEEP or assign a
/// variable), as MariaDB describes them at prepare: a literal by its type, a
/// `?` as MYSQL_TYPE_NULL, anything else as a string (execute sends the
/// exact definitions with its rows). None when the front cannot read the
/// list (the execute still answers, through the engine).
pub fn describe_without_table(sql: &str) -> Option<Vec<Column>> {
    let toks = turnstile_sqltext::lex::tokenize(sql).ok()?;
    if has_union(&toks) {
        return None;
    }
    let mut p = Parser::new(sql, &toks);
    p.expect_kw("SELECT").ok()?;
    while p.eat_kw("SQL_NO_CACHE") || p.eat_kw("SQL_CACHE") || p.eat_kw("DISTINCT") || p.eat_kw("ALL") || p.eat_kw("SQL_CALC_FOUND_ROWS") {}
    let mut cols = Vec::new();
    loop {
        let (name, e, kind) = select_item(&mut p, sql, &toks, &|_| None).ok()?;
        cols.push(match &e {
            Expr::Lit(v) => column_for(&name, v, kind),
            Expr::Param(_) => Column::computed(&name, coltype::NULL),
            _ => temporal_cast_column(&name, &e).unwrap_or_else(|| if kind == Some(ItemKind::Binary) { Column::varbinary(&name) } else { Column::varchar(&name) }),
        });
        if !p.eat_op(",") {
            return Some(cols);
        }
    }
}

/// SELECT without a table: evaluate the list, return one row.
fn local_select(call: &mut Call<'_, '_>, sql: &str, toks: &[Token], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let mut p = Parser::new(sql, toks);
    p.expect_kw("SELECT")?;
    while p.eat_kw("SQL_NO_CACHE") || p.eat_kw("SQL_CACHE") || p.eat_kw("DISTINCT") || p.eat_kw("ALL") || p.eat_kw("SQL_CALC_FOUND_ROWS") {}
    let mut names = Vec::new();
    let mut exprs = Vec::new();
    let mut kinds = Vec::new();
    let sess = &call.sess;
    let vars = |n: &str| sess.user_vars.get(n).and_then(|v| var_value(v, sess.decimal_vars.get(n) == Some(v)));
    loop {
        let (name, e, kind) = select_item(&mut p, sql, toks, &vars)?;
        kinds.push(kind);
        names.push(name);
        exprs.push(e);
        if !p.eat_op(",") {
            break;
        }
    }
    if p.eat_kw("FROM") {
        p.expect_kw("DUAL")?;
    }
    let mut limit: Option<u64> = None;
    if p.eat_kw("WHERE") {
        let cond = p.expr()?;
        if expr::truthy(&eval_in(call, &cond)?) != Some(true) {
            limit = Some(0);
        }
    }
    if p.eat_kw("LIMIT") {
        limit = Some(limit_rows(&mut p, limit)?);
    }
    if p.eat_kw("FOR") {
        p.expect_kw("UPDATE")?;
    }
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    let mut row = Vec::with_capacity(exprs.len());
    for (e, &kind) in exprs.iter().zip(&kinds) {
        row.push(as_typed(kind, eval_in(call, e)?));
    }
    let cols: Vec<Column> = names
        .iter()
        .zip(&row)
        .zip(&kinds)
        .zip(&exprs)
        .map(|(((n, v), &b), e)| temporal_cast_column(n, e).or_else(|| user_var_column(n, e, v, is_decimal_var(call, e, v))).unwrap_or_else(|| column_for(n, v, b)))
        .collect();
    sink.columns(&cols)?;
    if limit != Some(0) {
        sink.row(&row)?;
    }
    Ok(Outcome::Rows)
}

/// One item of the select list: its column name (the alias, else the text
/// of the expression, or a string literal's contents), the expression, and
/// what its text says about its type (`ItemKind`).
fn select_item(p: &mut Parser<'_>, sql: &str, toks: &[Token], vars: &dyn Fn(&str) -> Option<VarValue>) -> Result<(String, Expr, Option<ItemKind>), SqlError> {
    let start = p.peek().map_or(sql.len(), |t| t.start);
    let first = p.pos;
    let e = p.expr()?;
    let binary = turnstile_engine::strtype::is_binary_expr(sql, &toks[first..p.pos], &|_| false);
    let end = p.toks.get(p.pos.wrapping_sub(1)).map_or(sql.len(), |t| t.end);
    let long = turnstile_sqltext::item_type::long_item(&sql[start..end]);
    let typed = turnstile_sqltext::expr_type::infer_with_vars(&sql[start..end], &|_, _| None, vars);
    let kind = if binary {
        Some(ItemKind::Binary)
    } else if let Some(t) = typed {
        Some(ItemKind::Typed(t))
    } else {
        long.map(|(len, unsigned)| ItemKind::Long(len, unsigned))
    };
    let mut name = sql[start..end].to_string();
    if p.eat_kw("AS") {
        name = p.name()?;
    } else if let Some(Tok::Word(w)) | Some(Tok::Quoted(w)) = p.peek().map(|t| &t.tok) {
        if !is_clause_keyword(w) {
            name = w.to_string();
            p.next();
        }
    } else if let Some(Tok::Str(s)) = p.peek().map(|t| &t.tok) {
        name = String::from_utf8_lossy(s).into_owned();
        p.next();
    }
    // MySQL names a string literal column by its contents (X'41' by its text).
    if let (Expr::Lit(Value::Bytes(b)), true) = (&e, name == sql[start..end]) {
        if matches!(toks.iter().find(|t| t.start == start).map(|t| &t.tok), Some(Tok::Str(_))) && !turnstile_sqltext::lex::written_in_hex(&sql[start..end]) {
            name = String::from_utf8_lossy(b).into_owned();
        }
    }
    Ok((name, e, kind))
}

/// After LIMIT: `n`, `offset, n` or `n OFFSET offset`, as how many of the
/// one row to send (an offset past it sends none), at most `limit` (what
/// WHERE left).
fn limit_rows(p: &mut Parser<'_>, limit: Option<u64>) -> Result<u64, SqlError> {
    let first = unsigned_number(p)?;
    Ok(if p.eat_op(",") {
        let n = unsigned_number(p)?;
        if first > 0 {
            0
        } else {
            n
        }
    } else if p.eat_kw("OFFSET") {
        let off = unsigned_number(p)?;
        if off > 0 {
            0
        } else {
            first
        }
    } else {
        first
    }
    .min(limit.unwrap_or(u64::MAX)))
}

/// A word that ends a select item rather than naming it (`SELECT 1 FROM ...`).
fn is_clause_keyword(w: &str) -> bool {
    ["FROM", "WHERE", "LIMIT", "FOR", "INTO", "ORDER", "GROUP", "HAVING", "UNION"].iter().any(|k| k.eq_ignore_ascii_case(w))
}

/// An unsigned integer literal (LIMIT's arguments).
fn unsigned_number(p: &mut Parser<'_>) -> Result<u64, SqlError> {
    match p.peek().map(|t| &t.tok) {
        // Too large: 1064 near what follows the number.
        Some(Tok::Number(n)) => {
            p.pos += 1;
            n.parse().map_err(|_| p.error().into())
        }
        _ => Err(p.error().into()),
    }
}

/// DO expr, ...: evaluate for the side effects, return nothing. One that
/// reads a table (`DO (SELECT a FROM t)`) runs as that SELECT in the
/// engine, its rows discarded. As in MariaDB ("DO always is OK"), an error
/// of the evaluation itself becomes an Error condition of a statement that
/// succeeds; an unknown table, function or column stays the statement's error.
pub(super) fn do_statement(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    let mut p = Parser::new(sql, &toks);
    p.expect_kw("DO")?;
    if let Some(rest) = p.peek().map(|t| &sql[t.start..]) {
        let select = format!("SELECT {}", rest);
        if crate::dialect::select_reads_table(&select) {
            let r = super::engine::engine_statement(call, &select, &mut turnstile_engine::DiscardRows);
            return evaluation_error_as_condition(call, r);
        }
    }
    loop {
        let e = p.expr()?;
        let r = eval_in(call, &e).map(|_| ok());
        evaluation_error_as_condition(call, r)?;
        if !p.eat_op(",") {
            break;
        }
    }
    Ok(ok())
}

/// DO's rule: an error met while evaluating (more than one row from a
/// scalar subquery, a value out of range) is kept as an Error condition and
/// the statement succeeds.
fn evaluation_error_as_condition(call: &mut Call<'_, '_>, r: Result<Outcome, SqlError>) -> Result<Outcome, SqlError> {
    match r {
        Err(e) if matches!(e.code, 1242 | 1690 | 1365 | 1292 | 1366 | 1411) => {
            if let Some(w) = call.ctx.warnings() {
                w.push(turnstile_engine::Level::Error, e.code, e.message);
            }
            Ok(ok())
        }
        r => r.map(|_| ok()),
    }
}
