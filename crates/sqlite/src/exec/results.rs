//! Result sets: a result's MySQL column metadata (from the tables' MySQL
//! definitions, or worked out for an expression), and its rows converted from
//! SQLite values to wire values and streamed to the sink, which may pause them.

use crate::conn::{Cached, ColMeta, Conn, Conv, MemberCols, Stmt};
use crate::errors;
use crate::rewrite::ItemType;
use crate::schema::{Base, ColumnDef, TableDef};
use rusqlite::ffi;
use std::sync::Arc;
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::expr_type::{ColType, ExprType, Names};
use turnstile_wire::consts::{colflag, coltype};

thread_local! {
    /// Each thread's row for `stream_rows`. Its values keep their byte buffers
    /// from row to row and statement to statement, so a streamed text column
    /// costs no allocation (callgrind, oltp_point_select: two allocations and
    /// frees per query before).
    static ROW_BUF: std::cell::RefCell<Vec<Value>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A value's byte buffer larger than this is not kept in `ROW_BUF`.
const ROW_BUF_KEEP: usize = 64 * 1024;

/// Send rows from the current one on until the end, an error, or until the
/// sink asks to pause (Outcome::Paused: the statement is left positioned).
pub(super) fn stream_rows(conn: &Conn, st: &Stmt, first_rc: std::os::raw::c_int, meta: &ColMeta, sink: &mut dyn RowSink, sql: &str, sent: &mut u64) -> Result<Outcome, SqlError> {
    // Taken out of the slot (not borrowed) while rows go to the sink.
    let mut row = ROW_BUF.with_borrow_mut(std::mem::take);
    row.truncate(meta.convs.len());
    row.resize_with(meta.convs.len(), || Value::Null);
    let result = stream_rows_into(conn, st, first_rc, meta, sink, sql, sent, &mut row);
    for v in row.iter_mut() {
        if matches!(v, Value::Bytes(b) if b.capacity() > ROW_BUF_KEEP) {
            *v = Value::Null;
        }
    }
    ROW_BUF.with_borrow_mut(|slot| *slot = row);
    result
}

#[allow(clippy::too_many_arguments)]
fn stream_rows_into(conn: &Conn, st: &Stmt, first_rc: std::os::raw::c_int, meta: &ColMeta, sink: &mut dyn RowSink, sql: &str, sent: &mut u64, row: &mut [Value]) -> Result<Outcome, SqlError> {
    let mut rc = first_rc;
    while rc == ffi::SQLITE_ROW {
        for (i, (conv, slot)) in meta.convs.iter().zip(row.iter_mut()).enumerate() {
            convert_into(st, i, *conv, slot);
            // SQLite's arithmetic overflows to infinity, MariaDB's DOUBLE is ERR 1690.
            if matches!(slot, Value::Double(d) if d.is_infinite()) {
                let name = meta.cols.get(i).map_or("", |c| c.name.as_str());
                return Err(SqlError::new(1690, "22003", format!("DOUBLE value is out of range in '{}'", name)));
            }
        }
        sink.row(row)?;
        *sent += 1;
        rc = st.step();
        if rc == ffi::SQLITE_ROW && sink.wants_pause() {
            // SQLite has the next row ready; it is sent first on resume.
            return Ok(Outcome::Paused);
        }
    }
    if rc != ffi::SQLITE_DONE {
        return Err(errors::from_conn(conn, rc, sql));
    }
    Ok(Outcome::Rows)
}

/// `convert`, writing text into the byte buffer `slot` already holds where
/// it can (a new value otherwise).
fn convert_into(st: &Stmt, i: usize, conv: Conv, slot: &mut Value) {
    let ty = st.column_type(i);
    let text = ty != ffi::SQLITE_NULL
        && match conv {
            Conv::Text | Conv::CharTrim => true,
            Conv::Any => ty == ffi::SQLITE_TEXT || ty == ffi::SQLITE_BLOB,
            _ => false,
        };
    match slot {
        Value::Bytes(buf) if text => {
            let mut b = st.bytes(i);
            if matches!(conv, Conv::CharTrim) {
                while let [rest @ .., b' '] = b {
                    b = rest;
                }
            }
            buf.clear();
            buf.extend_from_slice(b);
        }
        _ => *slot = convert(st, i, conv, ty),
    }
}

/// A wire value from column `i` of the current row.
/// `ty` is the column's `sqlite3_column_type`, read before any text
/// conversion (the caller has it already).
fn convert(st: &Stmt, i: usize, conv: Conv, ty: std::os::raw::c_int) -> Value {
    if ty == ffi::SQLITE_NULL {
        return Value::Null;
    }
    match conv {
        Conv::Int => match ty {
            ffi::SQLITE_INTEGER => Value::Int(st.int64(i)),
            ffi::SQLITE_FLOAT => Value::Int(st.double(i).round() as i64),
            _ => integer_text(st.bytes(i), false),
        },
        // A BIGINT UNSIGNED above 2^63-1 is stored as its text (ddl/generate.rs).
        Conv::UInt => match ty {
            ffi::SQLITE_INTEGER => Value::UInt(st.int64(i) as u64),
            ffi::SQLITE_FLOAT => Value::UInt(st.double(i).round() as u64),
            _ => integer_text(st.bytes(i), true),
        },
        Conv::Double => match ty {
            ffi::SQLITE_INTEGER | ffi::SQLITE_FLOAT => Value::Double(st.double(i)),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::Float => match ty {
            ffi::SQLITE_INTEGER | ffi::SQLITE_FLOAT => Value::Float(st.double(i) as f32),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::Decimal(scale) => match ty {
            ffi::SQLITE_INTEGER if scale == 0 => Value::Bytes(st.int64(i).to_string().into_bytes()),
            ffi::SQLITE_INTEGER => Value::Bytes(format!("{}.{}", st.int64(i), "0".repeat(scale as usize)).into_bytes()),
            ffi::SQLITE_FLOAT => {
                let f = st.double(i);
                let s = format!("{:.*}", scale as usize, f);
                Value::Bytes(if s == "-0" || s.starts_with("-0.") && s[3..].bytes().all(|b| b == b'0') { s[1..].to_string() } else { s }.into_bytes())
            }
            _ => Value::Bytes(decimal_text(st.bytes(i), scale)),
        },
        Conv::Text => Value::Bytes(st.bytes(i).to_vec()),
        Conv::CharTrim => {
            let b = st.bytes(i);
            let mut e = b.len();
            while e > 0 && b[e - 1] == b' ' {
                e -= 1;
            }
            Value::Bytes(b[..e].to_vec())
        }
        Conv::Frac(n) => Value::Bytes(with_fraction(st.bytes(i), n)),
        Conv::Bit(n) => match ty {
            ffi::SQLITE_INTEGER => Value::Bytes(st.int64(i).to_be_bytes()[8 - n as usize..].to_vec()),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::Temporal(base) => {
            let b = st.bytes(i);
            turnstile_sqltext::temporal::parse_temporal(base, b).unwrap_or_else(|| Value::Bytes(b.to_vec()))
        }
        Conv::Any => match ty {
            ffi::SQLITE_INTEGER => Value::Int(st.int64(i)),
            ffi::SQLITE_FLOAT => Value::Double(st.double(i)),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
    }
}

/// A time or datetime text (`h:m:s[.f]`) with exactly `n` fraction digits
/// (cut or padded with zeros); any other text as it is.
fn with_fraction(b: &[u8], n: u8) -> Vec<u8> {
    let Some(colon) = b.iter().rposition(|c| *c == b':') else { return b.to_vec() };
    let end = b[colon..].iter().position(|c| *c == b'.').map_or(b.len(), |k| colon + k);
    let frac = b.get(end + 1..).unwrap_or(&[]);
    if !frac.iter().all(u8::is_ascii_digit) {
        return b.to_vec();
    }
    let mut out = b[..end].to_vec();
    if n > 0 {
        out.push(b'.');
        out.extend((0..usize::from(n)).map(|k| frac.get(k).copied().unwrap_or(b'0')));
    }
    out
}

/// SQLite names the second `f1` of a derived table's columns `f1:1` (and
/// the third `f1:2`); MariaDB keeps `f1` for each. A `:n` suffix is taken
/// off when what is left names another column of the same result (a
/// column really named `f1:1` beside no `f1` keeps its name).
fn unsuffix_duplicates(cols: &mut [Column]) {
    let names: Vec<String> = cols.iter().map(|c| c.name.to_ascii_lowercase()).collect();
    for c in cols.iter_mut() {
        let Some((base, n)) = c.name.rsplit_once(':') else { continue };
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && names.iter().any(|o| o.eq_ignore_ascii_case(base)) {
            let base = base.to_string();
            if c.org_name == c.name {
                c.org_name = base.clone();
            }
            c.name = base;
        }
    }
}

/// An integer column's value that SQLite holds as text (a BIGINT UNSIGNED
/// above 2^63-1, an exact function's integer result): the number when it
/// is one, so the binary protocol sends its 8 bytes; the text otherwise.
fn integer_text(b: &[u8], unsigned: bool) -> Value {
    let t = std::str::from_utf8(b).unwrap_or("");
    match (unsigned, t.parse::<u64>(), t.parse::<i64>()) {
        (true, Ok(u), _) => Value::UInt(u),
        (_, _, Ok(i)) => Value::Int(i),
        _ => Value::Bytes(b.to_vec()),
    }
}

/// A DECIMAL's stored text as MySQL shows it: with exactly `scale` digits
/// after the point. Stored values have that form already (`ts_dec`), and go
/// out as they are; a value that came another way (a table rebuilt from
/// another type) is put in that form.
fn decimal_text(b: &[u8], scale: u8) -> Vec<u8> {
    let frac = b.iter().position(|&c| c == b'.').map_or(0, |p| b.len() - p - 1);
    let plain = b.iter().all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'.'));
    if plain && frac == scale as usize {
        return b.to_vec();
    }
    match turnstile_sqltext::decimal::Decimal::parse(b) {
        Some(d) => d.round(scale as u32).to_string().into_bytes(),
        None => b.to_vec(),
    }
}

/// The result column of a select item the rewriter typed (`ItemType`): a
/// DECIMAL computed exactly, or an integer MySQL gives a length and a type
/// (DIV, CEIL, BIGINT UNSIGNED arithmetic...).
fn typed_item(name: &str, t: ItemType) -> (Column, Conv) {
    match t {
        ItemType::Decimal(t) => {
            let mut c = Column::computed(name, coltype::NEWDECIMAL);
            c.decimals = t.scale as u8;
            c.length = t.display_length();
            (c, Conv::Decimal(t.scale as u8))
        }
        ItemType::Int { length, unsigned, wide } => {
            let mut c = Column::computed(name, if wide { coltype::LONGLONG } else { coltype::LONG });
            c.length = length;
            if unsigned {
                c.flags |= colflag::UNSIGNED;
            }
            (c, if unsigned { Conv::UInt } else { Conv::Int })
        }
    }
}

/// The type MariaDB gives expression item `text` (`expr_type::infer`): its
/// names resolved in `scope` (the FROM items of the statement's outermost
/// SELECT, derived tables' and CTEs' columns typed by their items:
/// scopes.rs) when it was read, and, when `lookup_ok`, a name it does not
/// type looked up in the statement's `tables`.
fn infer_item(text: &str, tables: &[Arc<TableDef>], lookup_ok: bool, scope: Option<&super::scopes::Scope>) -> Option<ExprType> {
    struct Lookup<'a> {
        tables: &'a [Arc<TableDef>],
        lookup_ok: bool,
        scope: Option<&'a super::scopes::Scope<'a>>,
    }
    impl Names for Lookup<'_> {
        fn column(&self, qual: Option<&str>, name: &str) -> Option<ExprType> {
            if let Some(t) = self.scope.and_then(|s| s.column(qual, name)) {
                return Some(t);
            }
            table_column(self.tables, self.lookup_ok, qual, name).and_then(turnstile_sqltext::expr_type::of_column)
        }
        fn subquery(&self, sql: &str) -> Option<Option<ExprType>> {
            // Typed in its own scope; where that does not know it, as before.
            self.scope.and_then(|s| s.subquery(sql)).filter(Option::is_some)
        }
        fn user_var(&self, name: &str) -> Option<ExprType> {
            crate::functions::user_var_type(name)
        }
    }
    // A derived table's column named as it is keeps its own type (INT(1),
    // not the INT(11) it is as an operand).
    if let Some(scope) = scope {
        let toks = turnstile_sqltext::lex::tokenize(text).ok()?;
        if let Some(t) = super::scopes::column_ref(&toks).and_then(|(q, n)| scope.raw_column(q, n)) {
            return Some(t);
        }
    }
    turnstile_sqltext::expr_type::infer_in(text, &Lookup { tables, lookup_ok, scope })
}

/// The type of column `qual.name` among the statement's `tables` (a table
/// named `qual`, else any), when `lookup_ok`; None when two differ.
fn table_column(tables: &[Arc<TableDef>], lookup_ok: bool, qual: Option<&str>, name: &str) -> Option<ColType> {
    if !lookup_ok {
        return None;
    }
    let named: Vec<&Arc<TableDef>> = tables.iter().filter(|t| qual.is_some_and(|q| t.name.eq_ignore_ascii_case(q))).collect();
    let candidates: Vec<&Arc<TableDef>> = if named.is_empty() { tables.iter().collect() } else { named };
    let mut found: Option<ColType> = None;
    for t in candidates {
        let Some(cd) = t.column(name) else { continue };
        // A view's column typed only by its values (exec/views.rs) is
        // LONGTEXT: not known.
        let ct = super::scopes::column_type(cd, t.view.is_some())?;
        if found.is_some_and(|f| f != ct) {
            return None;
        }
        found = Some(ct);
    }
    found
}

/// The result column and conversion of an item `infer_item` typed.
fn inferred_item(name: &str, t: &ExprType) -> (Column, Conv) {
    let c = turnstile_sqltext::expr_type::column(name, t);
    let conv = match *t {
        ExprType::Int { unsigned: true, .. } => Conv::UInt,
        ExprType::Int { .. } => Conv::Int,
        ExprType::Decimal { scale, .. } => Conv::Decimal(scale as u8),
        ExprType::Double { .. } => Conv::Double,
        ExprType::Float => Conv::Float,
        ExprType::Str { fixed: true, binary: false, .. } => Conv::CharTrim,
        ExprType::DateStr { fsp, exact: true } => Conv::Frac(fsp),
        ExprType::Str { .. } | ExprType::Hybrid { .. } | ExprType::DateStr { .. } => Conv::Text,
        ExprType::Temporal { base, .. } => Conv::Temporal(base),
        ExprType::Null => Conv::Any,
    };
    (c, conv)
}

/// Is item `text` a string user variable alone, as the front marks its
/// value (rewrite/user_var_marks.rs)?
fn lone_user_var(text: &str) -> bool {
    turnstile_sqltext::lex::tokenize(text).is_ok_and(|t| t.len() == 4 && crate::rewrite::is_user_var_mark(&t, 0))
}

/// The column of a string user variable alone, as MariaDB 10.11 describes
/// it (as the front does a SELECT without a table: front/select.rs): a
/// LONGTEXT of 16,777,215 characters.
fn user_var_item(name: &str) -> (Column, Conv) {
    let mut c = Column::computed(name, coltype::LONG_BLOB);
    c.length = 67_108_860;
    c.charset = turnstile_wire::consts::charset::UTF8MB4_GENERAL_CI;
    c.flags = 0;
    c.decimals = 39;
    (c, Conv::Text)
}

/// Is upper-case item `up` one call, `f(...)` (not `f(a) + 1`)?
fn one_call(up: &str) -> bool {
    let Some(open) = up.find('(') else { return false };
    let mut depth = 0i32;
    for (i, c) in up.char_indices().skip_while(|(i, _)| *i < open) {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth == 0 {
            return up[i + 1..].trim().is_empty();
        }
    }
    false
}

/// Does the statement read a derived table (`FROM (SELECT ...)`, `JOIN (`),
/// whose column names may hide a table's?
fn has_derived_table(sql: &str) -> bool {
    let Ok(toks) = turnstile_sqltext::lex::tokenize(sql) else { return true };
    let Some(from) = toks.iter().position(|t| t.is_kw("FROM")) else { return false };
    toks[from..].windows(2).any(|w| (w[0].is_kw("FROM") || w[0].is_kw("JOIN") || w[0].is_op(",")) && w[1].is_op("("))
}

fn conv_of(col: &ColumnDef) -> Conv {
    match col.base {
        Base::Bit => Conv::Bit(col.length.unwrap_or(1).div_ceil(8).clamp(1, 8) as u8),
        b if b.is_integer() && col.unsigned => Conv::UInt,
        b if b.is_integer() => Conv::Int,
        Base::Decimal => Conv::Decimal(col.scale.unwrap_or(0) as u8),
        Base::Float => Conv::Float,
        Base::Double => Conv::Double,
        Base::Char => Conv::CharTrim,
        b if b.is_temporal() => Conv::Temporal(b),
        _ => Conv::Text,
    }
}

/// The name MySQL gives an unaliased select item.
fn mysql_item_name(text: &str) -> String {
    let toks = match turnstile_sqltext::lex::tokenize(text) {
        Ok(t) => t,
        Err(_) => return text.to_string(),
    };
    // A unary plus is no part of the name (MariaDB's parser drops it): all
    // leading ones at once (no recursion: `+ + + ... 1` may be long).
    let pluses = toks.iter().take_while(|t| t.is_op("+")).count();
    if pluses > 0 && pluses < toks.len() {
        let rest = text[toks[pluses - 1].end..].trim_start();
        return mysql_item_name_unsigned(rest, &toks[pluses..]);
    }
    mysql_item_name_unsigned(text, &toks)
}

/// `mysql_item_name` of a text without leading pluses, and its tokens.
fn mysql_item_name_unsigned(text: &str, toks: &[turnstile_sqltext::lex::Token]) -> String {
    use turnstile_sqltext::lex::Tok;
    // A string literal is named by its value; adjacent ones ('a' 'b') are one.
    if !toks.is_empty() && toks.iter().all(|t| matches!(t.tok, Tok::Str(_))) && !turnstile_sqltext::lex::written_in_hex(text) {
        let value: Vec<u8> = toks.iter().flat_map(|t| if let Tok::Str(b) = &t.tok { b.clone() } else { Vec::new() }).collect();
        return String::from_utf8_lossy(&value).into_owned();
    }
    // `c`, `t.c`, `db.t.c` name the column, also in parentheses (`(c)`);
    // `x DIV i` is words too, but no name.
    let open = toks.iter().take_while(|t| t.is_op("(")).count();
    let inner = match toks.len() > 2 * open && toks[toks.len() - open..].iter().all(|t| t.is_op(")")) {
        true => &toks[open..toks.len() - open],
        false => toks,
    };
    let idents = !inner.is_empty() && inner.iter().enumerate().all(|(k, t)| if k % 2 == 0 { t.ident().is_some() } else { t.is_op(".") });
    if idents && inner.len() % 2 == 1 {
        return inner.last().and_then(|t| t.ident()).unwrap_or(text).to_string();
    }
    text.to_string()
}

/// Is select item `text` a binary string expression (`strtype`), given the
/// statement's tables for its column references?
fn is_binary_item(text: &str, tables: &[Arc<TableDef>]) -> bool {
    turnstile_engine::strtype::is_binary_text(text, &|c| tables.iter().any(|t| t.column(c).is_some_and(|cd| cd.base.is_binary())))
}

/// A result column SQLite traced through a view to `table`, which the
/// statement does not name: described as the view's column, as MySQL
/// does (table and org_table the view, no key flags).
fn through_view(c: &mut Column, tables: &[Arc<TableDef>], table: &str, sqlite_name: &str) {
    if !tables.iter().any(|t| t.view.is_some()) || tables.iter().any(|t| t.view.is_none() && t.name.eq_ignore_ascii_case(table)) {
        return;
    }
    if let Some(v) = tables.iter().find(|t| t.view.is_some() && t.column(sqlite_name).is_some()) {
        c.table = v.name.clone();
        c.org_table = v.name.clone();
        c.org_name = v.column(sqlite_name).map(|x| x.name.clone()).unwrap_or_default();
        c.flags &= !(colflag::PRI_KEY | colflag::UNIQUE_KEY | colflag::MULTIPLE_KEY | colflag::AUTO_INCREMENT);
    }
}

/// The column a select item is when it is only a column reference (`c`,
/// `t.c`, `db.t.c`), its name; None for an expression.
fn plain_column(text: &str) -> Option<String> {
    let toks = turnstile_sqltext::lex::tokenize(text).ok()?;
    let idents = toks.iter().enumerate().all(|(k, t)| if k % 2 == 0 { t.ident().is_some() } else { t.is_op(".") });
    if !idents || toks.len() % 2 == 0 {
        return None;
    }
    toks.last().and_then(|t| t.ident()).map(str::to_string)
}

/// The column `name` of a view the statement names, when the view's
/// definition knows its type (not LONGTEXT/LONGBLOB: what a computed column
/// whose type is only known from its values is recorded as; exec/views.rs).
fn view_column<'a>(tables: &'a [Arc<TableDef>], name: &str) -> Option<(&'a TableDef, &'a ColumnDef)> {
    tables.iter().filter(|t| t.view.is_some()).find_map(|t| t.column(name).map(|c| (&**t, c))).filter(|(_, c)| !matches!(c.base, Base::LongText | Base::LongBlob))
}

/// Column definitions for a result. Returns whether they can be cached
/// (false when a type was guessed from a NULL or from no row at all).
pub(super) fn column_meta(conn: &Conn, entry: &Cached, sql: &str, have_row: bool) -> (ColMeta, bool) {
    let Described { mut cols, mut convs, stable, .. } = describe(conn, entry, sql, have_row);
    if let Some(members) = &entry.members {
        join_members(&mut cols, &mut convs, members);
    }
    // Aliases and derived tables: which FROM item each column comes from.
    if entry.rw.kind == crate::rewrite::Kind::Select {
        super::sources::name_sources(conn, sql, &entry.rw.ctes, &mut cols);
    }
    unsuffix_duplicates(&mut cols);
    let encoded = turnstile_wire::response::EncodedColumns::new(&cols);
    (ColMeta { cols, encoded, convs }, stable)
}

/// The result columns of `entry`, one member of a UNION compiled alone
/// (compile.rs), as `join_members` needs them: no row read.
pub(super) fn member_columns(conn: &Conn, entry: &Cached, sql: &str) -> MemberCols {
    let d = describe(conn, entry, sql, false);
    let origin = (0..d.cols.len()).map(|i| entry.stmt.origin(i)).collect();
    MemberCols { types: d.types, not_null: d.cols.iter().map(|c| c.flags & colflag::NOT_NULL != 0).collect(), origin }
}

/// The first member's table column behind a UNION's column `i` when every
/// member's column has its type (CREATE TABLE ... SELECT then copies its
/// definition: FLOAT(20,4) keeps its digits).
pub(super) fn union_origin(members: &[MemberCols], i: usize) -> Option<(String, String, String)> {
    let first = members.first()?;
    let t = first.types.get(i).copied().flatten()?;
    members.iter().all(|m| m.types.get(i).copied().flatten() == Some(t)).then(|| first.origin.get(i).cloned().flatten()).flatten()
}

/// A UNION's columns typed from all its members, not the first alone (what
/// SQLite's metadata follows): each column whose type every member knows is
/// their common type (`expr_type::union_of`), NOT NULL when no member's can
/// be NULL; the others keep their description.
fn join_members(cols: &mut [Column], convs: &mut [Conv], members: &[MemberCols]) {
    for (i, (col, conv)) in cols.iter_mut().zip(convs.iter_mut()).enumerate() {
        let Some(types) = members.iter().map(|m| m.types.get(i).copied().flatten()).collect::<Option<Vec<ExprType>>>() else { continue };
        let not_null = members.iter().all(|m| m.not_null.get(i).copied().unwrap_or(false));
        // A table column's type every member has stays as it is described
        // (FLOAT(20,4) keeps its digits), but for ENUM and SET (VARCHAR).
        if union_origin(members, i).is_some() && col.flags & (colflag::ENUM | colflag::SET) == 0 {
            col.flags = if not_null { col.flags | colflag::NOT_NULL } else { col.flags & !colflag::NOT_NULL };
            continue;
        }
        let Some(t) = turnstile_sqltext::expr_type::union_of(&types) else { continue };
        let (mut c, cv) = match t {
            // NULL beside NULL: MariaDB's BINARY(0).
            ExprType::Null => {
                let mut c = Column::varbinary(&col.name);
                c.coltype = coltype::STRING;
                c.length = 0;
                (c, Conv::Any)
            }
            // YEAR beside YEAR stays a YEAR.
            ExprType::Int { col: Some(Base::Year), .. } => {
                let cd = ColumnDef::new(String::new(), Base::Year);
                (cd.wire_column("", "", &col.name, 0), Conv::Int)
            }
            t => {
                let (mut c, cv) = inferred_item(&col.name, &t);
                if matches!(t, ExprType::Str { .. }) {
                    // MariaDB: no decimals on a UNION's string column.
                    c.decimals = 0;
                }
                (c, cv)
            }
        };
        if not_null {
            c.flags |= colflag::NOT_NULL;
        }
        *col = c;
        *conv = cv;
    }
}

/// A result's columns as the statement alone describes them, with each
/// one's type where it is known without a row (for `join_members`).
struct Described {
    cols: Vec<Column>,
    convs: Vec<Conv>,
    types: Vec<Option<ExprType>>,
    stable: bool,
}

fn describe(conn: &Conn, entry: &Cached, sql: &str, have_row: bool) -> Described {
    let st = &entry.stmt;
    let n = st.column_count();
    let items = &entry.rw.select_items;
    let items_ok = items.len() == n;
    let mut cols = Vec::with_capacity(n);
    let mut convs = Vec::with_capacity(n);
    let mut types = Vec::with_capacity(n);
    let mut stable = true;
    let tables: Vec<Arc<TableDef>> = entry
        .rw
        .tables
        .iter()
        .filter_map(|(d, t)| match d {
            None => conn.table_def("temp", t).or_else(|| conn.table_def("main", t)),
            Some(d) if conn.home.as_ref().is_some_and(|h| &h.name == d) => conn.table_def("main", t),
            Some(d) => conn.table_def(d, t),
        })
        .collect();
    // Column types for `infer_item` only where a name surely means a table's column.
    let lookup_ok = entry.rw.ctes.is_empty() && !has_derived_table(sql);
    // The outermost SELECT's FROM items, read when an item needs them.
    let table_cols = |db: Option<&str>, name: &str| super::scopes::table_cols(conn, db, name);
    let scope_toks = std::cell::OnceCell::new();
    let scope_cell = std::cell::OnceCell::new();
    let outer_cols = std::cell::OnceCell::new();
    let scope = || -> Option<&super::scopes::Scope> {
        scope_cell
            .get_or_init(|| {
                let toks = scope_toks.get_or_init(|| if entry.rw.kind == crate::rewrite::Kind::Select { turnstile_sqltext::lex::tokenize(sql).ok() } else { None });
                toks.as_deref().and_then(|t| super::scopes::outer_scope(&table_cols, sql, t))
            })
            .as_ref()
    };
    for i in 0..n {
        let sqlite_name = st.column_name(i);
        let name = match items.get(i) {
            Some((text, false)) if items_ok => mysql_item_name(text),
            _ => sqlite_name.clone(),
        };
        if let Some((dbn, tbl, orig)) = st.origin(i) {
            if let Some(def) = conn.table_def(&dbn, &tbl) {
                if let Some(cd) = def.column(&orig) {
                    let mut c = cd.wire_column(&conn.mysql_db_name(&dbn), &def.name, &name, def.key_flags(&orig));
                    through_view(&mut c, &tables, &def.name, &st.column_name(i));
                    convs.push(conv_of(cd));
                    types.push(turnstile_sqltext::expr_type::of_wire(&c));
                    cols.push(c);
                    continue;
                }
            }
            // information_schema and other tables without MySQL definitions
            // (Their declared types are MariaDB's: info_tables.rs.)
            let decl = st.decltype(i).unwrap_or_default();
            let (mut c, conv) = match crate::perf_tables::is_system_view_schema(&dbn) {
                true => crate::info_tables::wire_column(&name, &decl),
                false if decl.to_ascii_uppercase().contains("INT") => (Column::computed(&name, coltype::LONGLONG), Conv::Int),
                false => (Column::varchar(&name), Conv::Text),
            };
            c.schema = conn.mysql_db_name(&dbn);
            c.table = tbl.clone();
            c.org_table = tbl;
            c.org_name = orig;
            convs.push(conv);
            types.push(None);
            cols.push(c);
            continue;
        }
        // A view's computed column named as it is (`p2`, `v.p2`, `p2 AS x`),
        // typed when the view was made.
        let view_ref = match items.get(i) {
            Some((text, _)) if items_ok => plain_column(text),
            _ => Some(sqlite_name.clone()),
        };
        if let Some((v, cd)) = view_ref.and_then(|r| view_column(&tables, &r)) {
            let mut c = cd.wire_column("", &v.name, &name, 0);
            c.schema = conn.home.as_ref().map(|h| h.name.clone()).unwrap_or_default();
            c.flags &= !colflag::NOT_NULL;
            convs.push(conv_of(cd));
            types.push(turnstile_sqltext::expr_type::of_wire(&c));
            cols.push(c);
            continue;
        }
        // An expression: by the function it starts with, then by the value.
        let text = items.get(i).filter(|_| items_ok).map(|x| x.0.clone()).unwrap_or_else(|| sqlite_name.clone());
        let up = text.trim_start().to_ascii_uppercase();
        let func = up.split('(').next().unwrap_or("").trim().to_string();
        // (A `)` before the first `(` is in a string: `') UNION ('`.)
        let arg = up.find('(').and_then(|a| up.rfind(')').map(|b| (a, b))).filter(|(a, b)| a < b).map(|(a, b)| text.trim_start()[a + 1..b].trim().to_string()).unwrap_or_default();
        let arg_col = {
            let a = arg.trim_start_matches("DISTINCT ").trim_start_matches("distinct ").trim();
            let a = a.rsplit('.').next().unwrap_or(a).trim_matches('`');
            tables.iter().find_map(|t| t.column(a).cloned())
        };
        let vt = if have_row { st.column_type(i) } else { 0 };
        // By position; with a `*` in the list, by the column's name.
        let exact = match items_ok {
            true => entry.rw.item_types.get(i).and_then(|t| t.as_ref().map(|t| t.1)),
            false => entry.rw.item_types.iter().flatten().find(|t| t.0 == name).map(|t| t.1),
        };
        // With a `*` in the list, the column at this place of the list the scope expands.
        let inferred = infer_item(&text, &tables, lookup_ok, scope()).or_else(|| {
            // (MIN/MAX of a table's column named so keeps that column's description below.)
            if items_ok || matches!(func.as_str(), "MIN" | "MAX") && arg_col.is_some() {
                return None;
            }
            let cols = outer_cols.get_or_init(|| scope().and_then(|s| s.outer_columns()));
            cols.as_ref().filter(|c| c.len() == n).and_then(|c| c[i].ty)
        });
        // The DECIMAL pass types exact integers INT or BIGINT; ROUND(tinyint_col) keeps TINYINT.
        let exact = exact.filter(|e| !matches!((e, inferred), (ItemType::Int { length, .. }, Some(ExprType::Int { len, col: Some(_), .. })) if *length == len));
        let inferred = inferred.filter(|_| exact.is_none());
        // Typed by the value of the first row (or by none): not known alone.
        let mut by_value = false;
        let (mut c, conv) = match func.as_str() {
            _ if exact.is_some() => typed_item(&name, exact.expect("checked")),
            // (Where a derived table or a CTE may hold the name, its own type: `inferred`.)
            "MIN" | "MAX" if arg_col.is_some() && lookup_ok && one_call(&up) && inferred.is_some_and(|t| matches!(t, ExprType::Str { .. } | ExprType::Temporal { .. } | ExprType::Int { .. })) => {
                let cd = arg_col.clone().expect("checked");
                let mut c = cd.wire_column("", "", &name, 0);
                c.flags &= !colflag::NOT_NULL;
                c.org_name.clear();
                (c, conv_of(&cd))
            }
            // DEFAULT(col): the column's own type (a MEDIUMTEXT's BLOB).
            // A string user variable alone (the front's mark): LONGTEXT.
            "TS_UVS" if lone_user_var(&text) => user_var_item(&name),
            "DEFAULT" if arg_col.is_some() && lookup_ok && one_call(&up) => {
                let cd = arg_col.clone().expect("checked");
                let mut c = cd.wire_column("", "", &name, 0);
                c.flags &= !colflag::NOT_NULL;
                c.org_name.clear();
                (c, conv_of(&cd))
            }
            _ if inferred.is_some() => inferred_item(&name, inferred.as_ref().expect("checked")),
            "COUNT" => (Column::computed(&name, coltype::LONGLONG), Conv::Int),
            "SUM" | "AVG" => {
                let extra = if func == "AVG" { 4 } else { 0 };
                match &arg_col {
                    Some(cd) if matches!(cd.base, Base::Float | Base::Double) => (Column::computed(&name, coltype::DOUBLE), Conv::Double),
                    Some(cd) if cd.base.is_numeric() => {
                        let scale = cd.scale.unwrap_or(0) as u8 + extra;
                        let mut c = Column::computed(&name, coltype::NEWDECIMAL);
                        c.decimals = scale;
                        (c, Conv::Decimal(scale))
                    }
                    _ if vt == ffi::SQLITE_FLOAT => {
                        by_value = true;
                        (Column::computed(&name, coltype::DOUBLE), Conv::Double)
                    }
                    _ => {
                        let mut c = Column::computed(&name, coltype::NEWDECIMAL);
                        c.decimals = extra;
                        (c, Conv::Decimal(extra))
                    }
                }
            }
            "MIN" | "MAX" if arg_col.is_some() => {
                let cd = arg_col.clone().expect("checked");
                let mut c = cd.wire_column("", "", &name, 0);
                c.flags &= !colflag::NOT_NULL;
                c.org_name.clear();
                (c, conv_of(&cd))
            }
            "NOW" | "CURRENT_TIMESTAMP" | "SYSDATE" | "UTC_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => (Column::computed(&name, coltype::DATETIME), Conv::Temporal(Base::DateTime)),
            "CURDATE" | "CURRENT_DATE" | "UTC_DATE" | "LAST_DAY" => (Column::computed(&name, coltype::DATE), Conv::Temporal(Base::Date)),
            "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => (Column::computed(&name, coltype::TIME), Conv::Temporal(Base::Time)),
            "CAST" | "CONVERT" | "TIME" | "DATE" | "TIMESTAMP" if temporal_item(&func, &up, arg_col.as_ref()).is_some() => {
                let (base, fsp) = temporal_item(&func, &up, arg_col.as_ref()).expect("checked");
                (temporal_column(&name, base, fsp), Conv::Temporal(base))
            }
            _ if matches!(vt, 0 | ffi::SQLITE_INTEGER | ffi::SQLITE_NULL) && turnstile_sqltext::item_type::long_item(&text).is_some() => {
                let (length, unsigned) = turnstile_sqltext::item_type::long_item(&text).expect("checked");
                let mut c = Column::computed(&name, coltype::LONG);
                c.length = length;
                if unsigned {
                    c.flags |= colflag::UNSIGNED;
                }
                (c, Conv::Int)
            }
            _ => {
                by_value = true;
                match vt {
                    ffi::SQLITE_INTEGER => (Column::computed(&name, coltype::LONGLONG), Conv::Int),
                    ffi::SQLITE_FLOAT => (Column::computed(&name, coltype::DOUBLE), Conv::Double),
                    ffi::SQLITE_BLOB => (Column::computed(&name, coltype::BLOB), Conv::Text),
                    ffi::SQLITE_TEXT => (Column::varchar(&name), Conv::Text),
                    _ => {
                        stable = false;
                        (Column::varchar(&name), Conv::Any)
                    }
                }
            }
        };
        if inferred.is_none() && items_ok && matches!(vt, 0 | ffi::SQLITE_NULL | ffi::SQLITE_TEXT) && matches!(conv, Conv::Text | Conv::Any) && is_binary_item(&text, &tables) {
            c = Column::varbinary(&name);
        }
        if items_ok && turnstile_sqltext::expr_type::never_null(&text) {
            c.flags |= colflag::NOT_NULL;
        }
        c.name = name;
        types.push(match (by_value, inferred) {
            (true, _) => None,
            (false, Some(t)) => Some(t),
            (false, None) => turnstile_sqltext::expr_type::of_wire(&c),
        });
        convs.push(conv);
        cols.push(c);
    }
    Described { cols, convs, types, stable }
}

/// The MySQL type and fractional digits of a temporal expression item (upper
/// case `up`): `CAST(x AS TIME(3))`, `CONVERT(x, DATE)`, `TIME(x)`, `DATE(x)`,
/// `TIMESTAMP(x)`; `arg` the column x names, whose digits TIME(x) keeps.
fn temporal_item(func: &str, up: &str, arg: Option<&ColumnDef>) -> Option<(Base, u8)> {
    // One call, the whole item: not `TIME(x) + 1`, nor a column named `date`.
    let open = up.find('(')?;
    let mut depth = 0i32;
    let closes_at_end = up.trim_end().char_indices().skip_while(|(i, _)| *i < open).all(|(i, c)| {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        depth > 0 || i + c.len_utf8() == up.trim_end().len()
    });
    if !closes_at_end {
        return None;
    }
    // TIME(col) keeps the column's digits, TIME('12:30:45.5') the literal's.
    let literal = up[open + 1..up.trim_end().len() - 1].trim();
    let arg_fsp = || match arg {
        Some(c) if matches!(c.base, Base::Time | Base::DateTime | Base::Timestamp) => c.length.unwrap_or(0).min(6) as u8,
        _ if literal.starts_with(['\'', '"']) => turnstile_sqltext::temporal_cast::fraction_digits(literal.trim_matches(['\'', '"'])),
        _ => 0,
    };
    match func {
        "TIME" => Some((Base::Time, arg_fsp())),
        "DATE" => Some((Base::Date, 0)),
        "TIMESTAMP" => Some((Base::DateTime, arg_fsp())),
        _ => {
            // The target after the last AS (or comma, CONVERT), up to the final ')'.
            let body = up.trim_end().strip_suffix(')')?;
            let at = body.rfind(" AS ").map(|a| a + 4).or_else(|| body.rfind(',').map(|a| a + 1))?;
            let target = body[at..].trim();
            let (kind, fsp) = match target.split_once('(') {
                Some((k, f)) => (k.trim(), f.trim_end_matches(')').trim().parse::<u8>().ok().filter(|f| *f <= 6)?),
                None => (target, 0),
            };
            let base = match kind {
                "DATE" => Base::Date,
                "DATETIME" => Base::DateTime,
                "TIME" => Base::Time,
                _ => return None,
            };
            Some((base, fsp))
        }
    }
}

/// A computed DATE/DATETIME/TIME column with `fsp` fractional digits, as
/// MariaDB describes one (TIME(3): length 14, decimals 3).
fn temporal_column(name: &str, base: Base, fsp: u8) -> Column {
    let ty = match base {
        Base::Date => coltype::DATE,
        Base::Time => coltype::TIME,
        _ => coltype::DATETIME,
    };
    let mut c = Column::computed(name, ty);
    if fsp > 0 && ty != coltype::DATE {
        c.decimals = fsp;
        c.length += u32::from(fsp) + 1;
    }
    c
}
