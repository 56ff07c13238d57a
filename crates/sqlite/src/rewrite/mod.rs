//! MySQL DML text → SQLite DML text, token by token.
//!
//! Runs once per distinct statement text (the result is cached with the
//! compiled SQLite statement), never on the hot path of a cached statement.
//! Most tokens are copied unchanged, keeping the original spacing so that
//! SQLite names expression columns as MySQL would. What is patched:
//! - quoting: "strings" → 'strings', backslash escapes resolved, `ids` → "ids";
//! - from_dual: `FROM DUAL` dropped (no table);
//! - typed_literals: DATE '...', TIME '...', TIMESTAMP '...' → CAST;
//! - group_order: `GROUP BY a DESC` → `GROUP BY a ORDER BY a DESC`;
//! - paren_union: parenthesised UNION / INTERSECT / EXCEPT members → derived tables;
//! - operators: `||` → OR, `&&` → AND, `!` → NOT, `<=>` → IS, `/` → real
//!   division (MySQL's 5/2 is 2.5), `DIV`, `MOD`, `->`/`->>`;
//! - functions SQLite spells differently or lacks (IF, LEFT, RIGHT, LENGTH,
//!   CHAR_LENGTH, GREATEST, LEAST, DATE_ADD(... INTERVAL n unit), EXTRACT,
//!   CAST types, CONVERT, SUBSTRING ... FROM ... FOR, TIMESTAMPDIFF units,
//!   GROUP_CONCAT ... SEPARATOR);
//! - clauses SQLite lacks: index hints, SELECT modifiers, FOR UPDATE / LOCK IN
//!   SHARE MODE (dropped; FOR UPDATE marks the statement as a writer),
//!   LIKE's default backslash escape;
//! - `db.table` names: the current database becomes `main`, others are
//!   ATTACHed, information_schema is a per-connection in-memory database;
//! - hex and bit literals (`0x41`, `b'1'`): the string of their bytes (TEXT,
//!   as binary columns store it), or their number in numeric context
//!   (`numeric_context`: MySQL's operator precedence decides which operator
//!   a literal is an operand of);
//! - INSERT: IGNORE, ON DUPLICATE KEY UPDATE (→ UPSERT, VALUES(c) →
//!   excluded.c), INSERT ... SET, DEFAULT values, 0/NULL into AUTO_INCREMENT;
//! - values written to a column (INSERT, UPDATE, upsert; `emit_store`): dates
//!   in canonical form, a hybrid literal into a number column as its number,
//!   bytes for a binary column as TEXT padded to BINARY(n) (`ts_bin`);
//! - UPDATE/DELETE with ORDER BY/LIMIT (→ rowid IN (subquery));
//! - UPDATE and ON DUPLICATE KEY UPDATE write only rows whose values change
//!   (`ts_chg`, for MySQL's affected rows: see `Translator::update`).
//!
//! Anything with no SQLite equivalent is refused with 1235 naming it.
//!
//! Module map. This file: the public interface (`rewrite`, `expression`, what
//! they return, the `Resolver` they ask about the schema). Before the
//! translation: `enum_numbers` (an ENUM or SET column where MariaDB reads
//! its index or bitmask: `ts_enum_num`, `ts_enum_lit`), `temporal_numbers` (a date or time operand of arithmetic
//! or of a numeric CAST as its number, `ts_tnum`), `decimal` (exact DECIMAL and BIGINT UNSIGNED arithmetic as
//! calls of the engine's exact functions, with MySQL's result types) and
//! `exact_calls` (the functions it computes exactly: ROUND, CAST AS DECIMAL,
//! COALESCE, ...), and `int_args` (an integer literal beyond BIGINT where a
//! string function reads an integer: `ts_int_arg`, MariaDB's Warning 1916). After it: `column_names` (an alias for every select item
//! whose translation is not its MySQL name). Statement-level
//! work: `nesting` (nesting limits checked before anything else), `select`
//! (TABLE t, SQL_CALC_FOUND_ROWS, the select list for result metadata),
//! `having` (HAVING without GROUP BY moved into WHERE), `insert` (INSERT and
//! REPLACE forms), `upsert` (ON DUPLICATE KEY UPDATE), `update_delete` (UPDATE
//! and DELETE, ORDER BY/LIMIT, the change test), `outer_aggregates` (an
//! aggregate computed in the query MariaDB computes it in), `select_alias`
//! (a select-list alias named in a subquery of the list, after a 1054), `multi_table` (multi-table
//! UPDATE and DELETE: a join, then a write per target), `store` (values written to a
//! column), `subquery` (scalar subqueries: 1242 past one row), `quantified`
//! (`x op ANY|SOME|ALL (subquery)`). Token-level translation: `translator` (the state, the output and
//! the token loop), which hands each word to `names` (identifiers, `db.table`,
//! tables and CTEs named), `operators`, `clauses` (modifiers, hints and
//! locking clauses dropped), `interval` (INTERVAL forms), `casts` (CAST,
//! CONVERT, BINARY, COLLATE) and `function_calls` (functions renamed or
//! rewritten), and literals to `literals` (strings, numbers, hex and bit
//! literals in MySQL's numeric context).

mod casts;
mod clauses;
mod column_names;
mod decimal;
mod decimal_gen;
mod default_calls;
mod double_text;
mod enum_numbers;
mod exact_calls;
mod from_dual;
mod function_calls;
mod group_order;
mod having;
mod insert;
mod int_args;
mod interval;
mod item_names;
mod join_columns;
mod literals;
mod multi_table;
mod names;
mod nested_joins;
mod nesting;
mod operators;
mod order_aggregates;
mod outer_aggregates;
mod paren_union;
mod quantified;
mod rollup;
mod select;
mod select_alias;
mod store;
mod subquery;
mod temporal_numbers;
#[cfg(test)]
mod test_support;
mod translator;
mod typed_literals;
mod update_delete;
mod upsert;
mod user_var_marks;
pub(crate) use user_var_marks::is_mark as is_user_var_mark;
mod user_vars;
mod xor;

pub use decimal::{is_wide_unsigned, ItemType};
pub use literals::str_literal;
pub use multi_table::{MultiInfo, MultiTarget};
pub use nesting::{MAX_SELECT_NESTING, MAX_WITH_ELEMENTS};
pub use paren_union::member_texts;
pub(crate) use select::split_alias;
pub use select_alias::alias_references;
pub use store::affinity_code;

use super::schema::TableDef;
use std::sync::Arc;
use translator::Translator;
use turnstile_engine::{SqlError, SqlMode};
use turnstile_sqltext::lex::{self, Token};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Select,
    Insert,
    Update,
    Delete,
}

#[derive(Debug, Clone, Default)]
pub struct InsertInfo {
    /// The target table has an AUTO_INCREMENT column.
    pub has_ai: bool,
    /// ...and the statement names it (values go through `ts_ai`).
    pub ai_named: bool,
    /// ...which is not the rowid: `ts_ai_key` generates its values.
    pub ai_keyed: bool,
    pub odku: bool,
    /// INSERT IGNORE / REPLACE (for the OK packet's "Duplicates").
    pub ignore: bool,
    pub replace: bool,
    /// Rows of a VALUES list; 0 for INSERT ... SELECT.
    pub rows: usize,
    /// Target columns, and the SQLite text of the first row's values (used to
    /// name the duplicate value in ERR 1062).
    pub cols: Vec<String>,
    pub first_row: Vec<String>,
    /// SQLite text naming the target table with its schema (`main."t"`).
    pub target: String,
    /// The same as its parts: the schema as SQLite text (`main`, `temp`, an
    /// attached database) and the table's plain name.
    pub schema: String,
    pub table: String,
    /// "Field 'a' doesn't have a default value" for each NOT NULL column
    /// without a default the INSERT leaves out (insert.rs), raised when it
    /// runs: the statement's ERR 1364 (`no_default_fails`, a strict write)
    /// or a warning each.
    pub no_default: Vec<String>,
    pub no_default_fails: bool,
    /// Warning 1906 for each value a lenient INSERT gave a generated column
    /// (insert.rs drops them).
    pub generated: Vec<String>,
    /// Positions in `cols` of generated columns a lenient INSERT gave
    /// values: kept in its `ts_src` rows, left out of what it writes.
    pub skipped: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct Rewritten {
    pub sql: String,
    pub kind: Kind,
    /// Other databases the statement names (to ATTACH).
    pub dbs: Vec<String>,
    pub info_schema: bool,
    pub for_update: bool,
    pub insert: Option<InsertInfo>,
    /// Each top-level select item: (original expression text, has an alias);
    /// empty when the list has a `*`.
    pub select_items: Vec<(String, bool)>,
    /// Tables named in the statement (db, table), for result metadata.
    pub tables: Vec<(Option<String>, String)>,
    /// Names defined by WITH (not tables).
    pub ctes: Vec<String>,
    /// SELECT SQL_CALC_FOUND_ROWS ... LIMIT: the query counting every row
    /// without the LIMIT, for FOUND_ROWS().
    pub count_sql: Option<String>,
    /// A recursive CTE carries its depth (cte.rs): cte_max_recursion_depth
    /// must be set before the statement runs.
    pub cte_limited: bool,
    /// The result column name and type of each item of the outermost select
    /// list computed exactly (`decimal`: DECIMAL, DIV, BIGINT UNSIGNED...),
    /// in list order, a `*` included; empty when there is none.
    pub item_types: Vec<Option<(String, ItemType)>>,
    /// The columns a lenient write's `ts_fit` calls name, installed on the
    /// connection when it runs (functions/fit.rs); empty for a strict one.
    pub fits: Arc<[crate::functions::FitColumn]>,
    /// A multi-table UPDATE or DELETE (multi_table.rs): `sql` is its join,
    /// this what runs after it.
    pub multi: Option<Arc<MultiInfo>>,
}

/// What the rewriter needs to know about the schema.
pub trait Resolver {
    /// Current database (the one SQLite calls `main`).
    fn home(&self) -> Option<&str>;
    fn is_database(&self, name: &str) -> bool;
    fn table(&self, db: Option<&str>, name: &str) -> Option<Arc<TableDef>>;
    /// A TEMPORARY table of the session (SQLite's `temp` schema).
    fn is_temp(&self, _name: &str) -> bool {
        false
    }
    /// The session's sql_mode: strict or lenient writes (store.rs),
    /// division by zero (operators.rs).
    fn sql_mode(&self) -> SqlMode {
        SqlMode::DEFAULT
    }
    /// The session's foreign_key_checks (INSERT IGNORE skips a row whose
    /// parent is missing while they are on: insert.rs).
    fn foreign_key_checks(&self) -> bool {
        true
    }
    /// Write `db.` naming the current database as `main.` (false: leave it
    /// out, for a view's body, which SQLite resolves in the view's own
    /// database whatever name that database is attached under).
    fn qualify_home(&self) -> bool {
        true
    }
}

/// The `ts_*` functions are the rewriter's own (what it writes for MySQL's
/// semantics, with arguments it vouches for): a client calling one gets
/// 1305 as for any function that does not exist. Checked on the client's
/// text (`compile` calls it before cte.rs and the rewriter write such calls).
pub fn refuse_internal_functions(sql: &str, resolver: &dyn Resolver) -> Result<(), SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let toks = toks.as_slice();
    const NAMES_A_TABLE: [&str; 8] = ["INTO", "TABLE", "REFERENCES", "UPDATE", "FROM", "JOIN", "WITH", "RECURSIVE"];
    for (i, t) in toks.iter().enumerate() {
        let Some(name) = t.ident() else { continue };
        if !(name.len() > 3 && name.as_bytes()[..3].eq_ignore_ascii_case(b"ts_") && toks.get(i + 1).is_some_and(|n| n.is_op("("))) {
            continue;
        }
        // The front's mark of a string user variable's value (an identity on a literal).
        if user_var_marks::is_mark(toks, i) {
            continue;
        }
        // `INTO ts_x (cols)`, `db.ts_x`, `WITH ..., ts_x (cols) AS (...)`: a table's name.
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        if prev.is_some_and(|p| p.is_op(".") || NAMES_A_TABLE.iter().any(|k| p.is_kw(k))) || names_a_cte(toks, i + 1) {
            continue;
        }
        return Err(SqlError::new(1305, "42000", format!("FUNCTION {}.{} does not exist", resolver.home().unwrap_or(""), name)));
    }
    Ok(())
}

/// MariaDB's 1052 for an ORDER BY name two select items answer to, and its
/// 1054 for a HAVING name no select item or GROUP BY column answers to
/// (item_names.rs). Checked on the client's text; statements without ORDER
/// or HAVING are not even tokenized again.
pub fn refuse_misnamed_columns(sql: &str) -> Result<(), SqlError> {
    let b = sql.as_bytes();
    let has = |w: &[u8]| b.windows(w.len()).any(|x| x.eq_ignore_ascii_case(w));
    if !has(b"order") && !has(b"having") {
        return Ok(());
    }
    let Ok(toks) = lex::tokenize(sql) else { return Ok(()) };
    item_names::check(&toks)
}

/// Is the `(` at `open` a CTE's column list (`AS` follows its `)`)?
fn names_a_cte(toks: &[Token], open: usize) -> bool {
    crate::cte::close_of(toks, open).is_some_and(|close| toks.get(close + 1).is_some_and(|n| n.is_kw("AS")))
}

/// Translate a standalone expression (column DEFAULT (expr)).
pub fn expression(e: &str) -> Result<String, SqlError> {
    struct NoSchema;
    impl Resolver for NoSchema {
        fn home(&self) -> Option<&str> {
            None
        }
        fn is_database(&self, _: &str) -> bool {
            false
        }
        fn table(&self, _: Option<&str>, _: &str) -> Option<Arc<TableDef>> {
            None
        }
    }
    let mut text = e.to_string();
    let mut toks = lex::tokenize(&text).map_err(|x| SqlError::syntax(&text[x.at..]))?;
    // `TIME'10:20:30'` as its CAST, as in a statement.
    if let Some(plain) = typed_literals::rewrite(&text, &toks) {
        text = plain;
        toks = lex::tokenize(&text).map_err(|x| SqlError::syntax(&text[x.at..]))?;
    }
    // XOR written out, one per pass (at most xor::MAX_XORS).
    while let Some(next) = xor::rewrite(&text, &toks) {
        text = next;
        toks = lex::tokenize(&text).map_err(|x| SqlError::syntax(&text[x.at..]))?;
    }
    let mut translator = Translator::new(&text, &toks, &NoSchema);
    translator.emit(0, toks.len())?;
    Ok(translator.out)
}

pub fn rewrite(sql: &str, kind: Kind, resolver: &dyn Resolver) -> Result<Rewritten, SqlError> {
    rewrite_named(sql, kind, resolver, None)
}

/// `rewrite` of a text written from the client's `client` that keeps its
/// select items (`select_alias`): the result columns keep `client`'s names.
pub fn rewrite_as(sql: &str, kind: Kind, resolver: &dyn Resolver, client: &str) -> Result<Rewritten, SqlError> {
    rewrite_named(sql, kind, resolver, Some(client))
}

/// `rewrite`; `client`: the client's text when `sql` is user_vars.rs's
/// output for it, or the output of a text-level pass that keeps its select
/// items (FROM DUAL dropped, `INTERVAL n unit + x` turned around, a typed
/// literal as a CAST: `DATE '2024-01-02'` is named as written), whose
/// select items name the result columns at every depth (its select lists
/// line up with `sql`'s; where they do not, as after a later pass adds a
/// derived table, `column_names` leaves them alone).
fn rewrite_named(sql: &str, kind: Kind, resolver: &dyn Resolver, client: Option<&str>) -> Result<Rewritten, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let toks = one_statement(sql, &toks)?;
    if let Some(plain) = user_vars::rewrite(sql, toks) {
        // No `@name` is left: the recursion ends. The result columns keep
        // the names of the client's text.
        return rewrite_named(&plain, kind, resolver, Some(sql));
    }
    if let Some(plain) = user_var_marks::strip(sql, toks) {
        // No mark is left: the recursion ends. The marked text names and
        // types the result columns.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = nested_joins::rewrite(sql, toks) {
        // Every nested join has its parentheses now: the recursion ends.
        return rewrite_named(&plain, kind, resolver, client);
    }
    if let Some(plain) = join_columns::rewrite(sql, toks, resolver) {
        // No bare `*` is left in the outermost select list: the recursion
        // ends. Its columns are named by the written-out list.
        return rewrite_named(&plain, kind, resolver, None);
    }
    if let Some(plain) = from_dual::rewrite(sql, toks) {
        // No bare FROM DUAL is left: the recursion ends.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = interval::interval_first(sql, toks) {
        // Every `INTERVAL ... +` is after its `+` now: the recursion ends.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = xor::rewrite(sql, toks) {
        // One XOR fewer: the recursion ends after at most MAX_XORS passes.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = typed_literals::rewrite(sql, toks) {
        // No typed literal is left: the recursion ends.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = rollup::rewrite(sql, toks)? {
        // One WITH ROLLUP fewer: the recursion ends after at most MAX_ROLLUPS passes.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = group_order::rewrite(sql, toks) {
        // No GROUP BY direction is left: the recursion ends.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = outer_aggregates::rewrite(sql, toks, resolver) {
        // Each aggregate stands where SQLite computes it in MariaDB's query:
        // none is left to move, the recursion ends.
        return rewrite_named(&plain, kind, resolver, client.or(Some(sql)));
    }
    if let Some(plain) = paren_union::unwrap_nested(sql, toks) {
        // Each query in parentheses has plain members now: the recursion ends.
        return rewrite_named(&plain, kind, resolver, client);
    }
    if kind == Kind::Insert {
        if let Some(plain) = paren_union::unwrap_insert(sql, toks) {
            // Its query's members are derived tables now: the recursion ends.
            return rewrite(&plain, kind, resolver);
        }
    }
    if kind == Kind::Select {
        if let Some(plain) = paren_union::unwrap(sql, toks) {
            // Its members are derived tables now: no parenthesised member is left.
            return rewrite_named(&plain, kind, resolver, client);
        }
    }
    let client_toks = client.and_then(|c| lex::tokenize(c).ok());
    let names = match (client, client_toks.as_deref()) {
        (Some(c), Some(ct)) if select::select_items(c, ct).len() == select::select_items(sql, toks).len() => (c, ct),
        _ => (sql, toks),
    };
    // Dates and times as numbers (`temporal_numbers`), then exact numbers
    // (`decimal`): both translate a text with calls added, the result
    // columns keeping the names and types of the client's text.
    // ENUM and SET columns as numbers where MariaDB reads them so (`enum_numbers`).
    let numbered = enum_numbers::rewrite(sql, toks, resolver);
    let numbered_toks;
    let (sql, toks) = match &numbered {
        Some(w) => {
            numbered_toks = lex::tokenize(w).map_err(|e| SqlError::syntax(&w[e.at..]))?;
            (w.as_str(), one_statement(w, &numbered_toks)?)
        }
        None => (sql, toks),
    };
    let wrapped = temporal_numbers::rewrite(sql, toks, resolver);
    let wrapped_toks;
    let (sql, toks) = match &wrapped {
        Some(w) => {
            wrapped_toks = lex::tokenize(w).map_err(|e| SqlError::syntax(&w[e.at..]))?;
            (w.as_str(), one_statement(w, &wrapped_toks)?)
        }
        None => (sql, toks),
    };
    let mut rw = match decimal::rewrite_decimal(sql, toks, kind, resolver)? {
        Some(exact) => {
            let exact_toks = lex::tokenize(&exact.sql).map_err(|e| SqlError::syntax(&exact.sql[e.at..]))?;
            let mut rw = translate_tokens(&exact.sql, one_statement(&exact.sql, &exact_toks)?, kind, resolver, names)?;
            rw.item_types = exact.item_types;
            rw
        }
        None => translate_tokens(sql, toks, kind, resolver, names)?,
    };
    if kind == Kind::Select {
        rw.select_items = select::select_items(names.0, names.1);
    }
    Ok(rw)
}

/// `sql` with each byte range `start..end` of `edits` (in order, not overlapping) replaced by its
/// text; None when there is no edit. The text-level passes (`from_dual`, `typed_literals`,
/// `interval::interval_first`) describe their changes this way.
fn splice(sql: &str, edits: Vec<(usize, usize, String)>) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len() + 32);
    let mut at = 0;
    for (start, end, text) in edits {
        debug_assert!(at <= start && start <= end, "edits in order, not overlapping");
        out.push_str(&sql[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

/// Translate the statement `sql` (tokens `toks`); `names`: the client's
/// text of it (before the DECIMAL pass), whose select items name the
/// result columns (`column_names`).
fn translate_tokens(sql: &str, toks: &[Token], kind: Kind, resolver: &dyn Resolver, names: (&str, &[Token])) -> Result<Rewritten, SqlError> {
    if kind == Kind::Select {
        if let Some(again) = order_aggregates::aggregate_by_order(sql, toks) {
            // Once: the added GROUP BY stops the pass from matching again.
            let again_toks = lex::tokenize(&again).map_err(|e| SqlError::syntax(&again[e.at..]))?;
            let again_toks = one_statement(&again, &again_toks)?;
            return translate_tokens(&again, again_toks, kind, resolver, names);
        }
    }
    match having::having_without_group_by(sql, toks) {
        // Moved once, to the end: the moved text is not looked at again.
        Some(again) => {
            let again_toks = lex::tokenize(&again).map_err(|e| SqlError::syntax(&again[e.at..]))?;
            let again_toks = one_statement(&again, &again_toks)?;
            translate_moved(&again, again_toks, kind, resolver, (&again, again_toks))
        }
        None => translate_moved(sql, toks, kind, resolver, names),
    }
}

/// `translate_tokens` once HAVING without GROUP BY has moved into WHERE.
fn translate_moved(sql: &str, toks: &[Token], kind: Kind, resolver: &dyn Resolver, names: (&str, &[Token])) -> Result<Rewritten, SqlError> {
    let mut translator = Translator::new(sql, toks, resolver);
    let mut insert = None;
    let mut count_sql = None;
    match kind {
        Kind::Insert => insert = Some(translator.insert()?),
        Kind::Update => translator.update_delete(true)?,
        Kind::Delete => translator.update_delete(false)?,
        Kind::Select => {
            count_sql = translator.select()?;
            let aliases = column_names::aliases(toks, &translator.out, &translator.out_at, names.0, names.1);
            column_names::insert_aliases(&mut translator.out, aliases);
        }
    }
    let select_items = if kind == Kind::Select { select::select_items(names.0, names.1) } else { Vec::new() };
    Ok(Rewritten {
        sql: translator.out,
        kind,
        dbs: translator.dbs,
        info_schema: translator.info_schema,
        for_update: translator.for_update,
        insert,
        select_items,
        tables: translator.tables,
        ctes: translator.ctes,
        count_sql,
        cte_limited: false,
        item_types: Vec::new(),
        fits: translator.fits.into(),
        multi: translator.multi,
    })
}

/// The tokens of the one statement `sql` holds: trailing `;` dropped, the
/// nesting limits checked (`nesting`), a `;` between statements refused.
fn one_statement<'t>(sql: &str, toks: &'t [Token]) -> Result<&'t [Token], SqlError> {
    let mut end = toks.len();
    while end > 0 && toks[end - 1].is_op(";") {
        end -= 1;
    }
    let toks = &toks[..end];
    nesting::check_nesting(toks)?;
    if toks.iter().any(|t| t.is_op(";")) {
        return Err(SqlError::syntax(&sql[toks.iter().find(|t| t.is_op(";")).map_or(0, |t| t.start)..]));
    }
    Ok(toks)
}

#[cfg(test)]
mod tests {
    use super::test_support::{resolver, rewrite_select};
    use super::*;

    #[test]
    fn selects() {
        assert_eq!(rewrite_select("SELECT c FROM sbtest1 WHERE id=?"), "SELECT c FROM sbtest1 WHERE id=?");
        assert_eq!(rewrite_select("SELECT `c`, \"x\" FROM sbtest.sbtest1"), "SELECT \"c\", 'x' AS \"x\" FROM main.sbtest1");
        assert_eq!(rewrite_select("SELECT IF(a,1,2) FROM t WHERE a || b && !c"), "SELECT iif(a,1,2) AS \"IF(a,1,2)\" FROM t WHERE a OR b AND NOT c");
        assert_eq!(rewrite_select("SELECT 'it\\'s' FROM t FOR UPDATE"), "SELECT 'it''s' AS \"it's\" FROM t");
        // ERROR_FOR_DIVISION_BY_ZERO (the default): a divisor that may be 0 warns (ts_nz)
        assert_eq!(rewrite_select("SELECT a/b FROM t LIMIT 1, 2"), "SELECT a* 1.0 /ts_nz(b, 1) AS \"a/b\" FROM t LIMIT 1, 2");
        assert_eq!(
            rewrite_select("SELECT a/2, a DIV (b-1), a % t.c, MOD(a, -b), a/0 FROM t"),
            "SELECT a* 1.0 /2 AS \"a/2\", a / ts_nz((b-1), 1) AS \"a DIV (b-1)\", a % ts_nz(t.c, 1) AS \"a % t.c\", MOD(a, ts_nz(-b, 1)) AS \"MOD(a, -b)\", a* 1.0 /ts_nz(0, 1) AS \"a/0\" FROM t"
        );
        assert_eq!(rewrite_select("SELECT DATE_ADD(d, INTERVAL 1 DAY) FROM t"), "SELECT DATE_ADD(d, 1, 'DAY') AS \"DATE_ADD(d, INTERVAL 1 DAY)\" FROM t");
        assert_eq!(rewrite_select("SELECT c FROM t WHERE c LIKE 'a\\_b'"), "SELECT c FROM t WHERE c LIKE 'a\\_b' ESCAPE '\\'");
        assert_eq!(rewrite_select("SELECT CAST(x AS UNSIGNED), CONVERT(y, CHAR) FROM t"), "SELECT ts_ucast(x) AS \"CAST(x AS UNSIGNED)\", CAST(y AS TEXT) AS \"CONVERT(y, CHAR)\" FROM t");
        assert_eq!(rewrite_select("SELECT SQL_NO_CACHE c FROM t USE INDEX (k) WHERE 1"), "SELECT c FROM t WHERE 1");
        assert_eq!(rewrite_select("SELECT * FROM other.sbtest1"), "SELECT * FROM \"other\".sbtest1");
        assert_eq!(rewrite_select("SELECT 0x41 + 0, 0xfffe00112233445566 FROM t"), "SELECT 65 + 0 AS \"0x41 + 0\", CAST(X'FFFE00112233445566' AS TEXT) AS \"0xfffe00112233445566\" FROM t");
        assert_eq!(
            rewrite_select("SELECT 0x41, b'1000001', 0x00, -0x41, 0x41 AND 1 FROM t"),
            "SELECT 'A' AS \"0x41\", 'A' AS \"b'1000001'\", CAST(X'00' AS TEXT) AS \"0x00\", -65 AS \"-0x41\", 65 AND 1 AS \"0x41 AND 1\" FROM t"
        );
        assert_eq!(
            rewrite_select("SELECT 0x41 = 'A', 0x41 = 65, 65 < 0x41, CAST(0x41 AS UNSIGNED), ABS(0x41), HEX(0x41) FROM t"),
            "SELECT 'A' = 'A' AS \"0x41 = 'A'\", 65 = 65 AS \"0x41 = 65\", 65 < 65 AS \"65 < 0x41\", ts_ucast(65) AS \"CAST(0x41 AS UNSIGNED)\", ABS(65) AS \"ABS(0x41)\", HEX('A') AS \"HEX(0x41)\" FROM t"
        );
        assert_eq!(rewrite_select("SELECT 0x14243444546474849 FROM t"), "SELECT '\u{1}BCDEFGHI' AS \"0x14243444546474849\" FROM t");
        assert_eq!(
            rewrite_select("SELECT CAST(a AS BINARY(4)), CONVERT(b, BINARY(2)), CAST(c AS BINARY) FROM t"),
            "SELECT ts_bin_n(a, 4) AS \"CAST(a AS BINARY(4))\", ts_bin_n(b, 2) AS \"CONVERT(b, BINARY(2))\", (CAST(c AS TEXT) COLLATE BINARY) AS \"CAST(c AS BINARY)\" FROM t"
        );
        assert_eq!(
            rewrite_select("SELECT a FROM t WHERE BINARY a = 'x' AND b = BINARY 'y' AND BINARY(c) = BINARY t.d AND BINARY LOWER(e) < 'z'"),
            "SELECT a FROM t WHERE (a) COLLATE BINARY = 'x' AND b = ('y') COLLATE BINARY AND ((c)) COLLATE BINARY = (t.d) COLLATE BINARY AND (LOWER(e)) COLLATE BINARY < 'z'"
        );
        assert_eq!(
            rewrite_select("SELECT CAST(d AS TIME(3)), CONVERT(d, DATE) FROM t"),
            "SELECT ts_cast_temporal(d, 'time', 3) AS \"CAST(d AS TIME(3))\", ts_cast_temporal(d, 'date', 0) AS \"CONVERT(d, DATE)\" FROM t"
        );
        assert_eq!(rewrite_select("SELECT 'a\\0b', 'c' FROM t WHERE x = 'd\\0'"), "SELECT CAST(X'610062' AS TEXT) AS \"ab\", 'c' AS \"c\" FROM t WHERE x = CAST(X'6400' AS TEXT)");
        assert_eq!(rewrite_select("SELECT sbtest.tmp1.c FROM sbtest.tmp1"), "SELECT temp.tmp1.c FROM temp.tmp1");
        assert_eq!(
            rewrite_select("SELECT a, CASE WHEN b = 1 THEN 'x' ELSE b END AS b FROM t WHERE a > 1 OR a < 0 HAVING b IN ('x', 'y') ORDER BY b"),
            "SELECT a, CASE WHEN b = 1 THEN 'x' ELSE b END AS b FROM t WHERE (a > 1 OR a < 0) AND ((CASE WHEN b = 1 THEN 'x' ELSE b END) IN ('x', 'y')) ORDER BY b"
        );
        assert_eq!(rewrite_select("SELECT a AS k FROM t HAVING k = 1"), "SELECT a AS k FROM t WHERE (a) = 1");
        assert_eq!(rewrite_select("SELECT COUNT(*) AS n FROM t HAVING n > 0"), "SELECT COUNT(*) AS n FROM t HAVING n > 0");
        // A statement whose literals became parameters (exec.rs: normalize) keeps HAVING; the
        // literal text it falls back to moves it.
        assert_eq!(rewrite_select("SELECT IF(a = ?, 1, 2) AS k FROM t HAVING k = ?"), "SELECT iif(a = ?, 1, 2) AS k FROM t HAVING k = ?");
        assert_eq!(
            rewrite_select("SELECT 1.5E3, 2.5, 0.30000000000000004, 123456789012345.6, -1.0e-300, 10 FROM t"),
            "SELECT ts_f64('1.5E3') AS \"1.5E3\", ts_dval('2.5', 1) COLLATE ts_dec AS \"2.5\", ts_dval('0.30000000000000004', 17) COLLATE ts_dec AS \"0.30000000000000004\", ts_dval('123456789012345.6', 1) COLLATE ts_dec AS \"123456789012345.6\", -ts_f64('1.0e-300') AS \"-1.0e-300\", 10 FROM t"
        );
        // XOR is written out (xor.rs), the column keeps the client's name.
        assert_eq!(rewrite_select("SELECT a XOR b FROM t"), "SELECT ((NOT (a)) <> (NOT (b))) AS \"a XOR b\" FROM t");
        let rw = rewrite("SELECT DISTINCT c, COUNT(*), k AS kk FROM sbtest1", Kind::Select, &resolver()).unwrap();
        assert_eq!(rw.select_items, vec![("c".into(), false), ("COUNT(*)".into(), false), ("k".into(), true)]);
    }
}
