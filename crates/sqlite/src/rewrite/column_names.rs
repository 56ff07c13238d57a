//! Result column names: the client's text, never the translation.
//!
//! SQLite names an unaliased expression column by its text in the SQLite
//! statement, which is the translation: `LENGTH(c)` is `octet_length(c)`,
//! `x*2` of a DECIMAL is `ts_dval(ts_dmul(x, 2), 2) COLLATE ts_dec`, `c ||
//! 'a'` is `c OR 'a'`. The outermost select list's names are taken from the
//! client's text by the result metadata (`Rewritten::select_items`), but a
//! column reaches the client with SQLite's name wherever that list is not
//! known item by item: `SELECT *, LENGTH(c)`, `SELECT t.*, ...`, the columns
//! of a derived table or a CTE read with `*`. So every select item, at every
//! depth, whose translation is not what MySQL names it gets an alias in the
//! SQLite text: `AS "LENGTH(c)"`. MySQL's name of an unaliased item is its
//! text as written, except a column (its name) and a string literal (its
//! value).

use super::store::top_level_end;
use turnstile_sqltext::lex::{Tok, Token};

/// A select item: tokens [s, e) of its expression, without any alias.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Item {
    pub s: usize,
    pub e: usize,
    /// Where the item ends, alias included (the `,` or clause after it).
    pub end: usize,
    pub aliased: bool,
}

pub(super) const MODIFIERS: &[&str] =
    &["DISTINCT", "ALL", "DISTINCTROW", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS", "STRAIGHT_JOIN", "HIGH_PRIORITY", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT"];
const AFTER_LIST: &[&str] = &["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTO", "FOR", "LOCK", "WINDOW", "EXCEPT", "INTERSECT"];

/// The items of every select list in `toks`, outermost and nested, in the
/// order their SELECTs appear; `*` and `t.*` are left out.
pub(super) fn all_items(toks: &[Token]) -> Vec<Vec<Item>> {
    let mut lists = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_kw("SELECT") {
            lists.push(list_at(toks, i + 1));
        }
    }
    lists
}

/// The items of the select list starting at token `i` (after SELECT).
fn list_at(toks: &[Token], mut i: usize) -> Vec<Item> {
    while i < toks.len() && MODIFIERS.iter().any(|k| toks[i].is_kw(k)) {
        i += 1;
    }
    let mut items = Vec::new();
    loop {
        let end = top_level_end(toks, i, |e| toks[e].is_op(",") || toks[e].is_op(";") || AFTER_LIST.iter().any(|k| toks[e].is_kw(k)));
        if let Some(item) = item(toks, i, end) {
            items.push(item);
        }
        if end < toks.len() && toks[end].is_op(",") {
            i = end + 1;
            continue;
        }
        return items;
    }
}

/// The item of tokens [s, end): its expression and whether it has an alias
/// (`AS name`, or a name right after a value); None for `*`, `t.*`, nothing.
pub(super) fn item(toks: &[Token], s: usize, end: usize) -> Option<Item> {
    if s >= end {
        return None;
    }
    let part = &toks[s..end];
    if part.last().is_some_and(|t| t.is_op("*")) && (part.len() == 1 || part.len() >= 3 && part[part.len() - 2].is_op(".")) {
        return None;
    }
    let n = part.len();
    let with_as = n >= 2 && part[n - 2].is_kw("AS");
    // `CASE ... END`: END is no alias.
    let bare = n >= 2
        && matches!(part[n - 1].tok, Tok::Word(_) | Tok::Quoted(_) | Tok::Str(_))
        && !part[n - 1].is_kw("END")
        && !part[n - 2].is_op(".")
        && super::select::is_value_end(&part[n - 2])
        && !super::typed_literals::is_typed_literal(&part[n - 2], &part[n - 1]);
    let e = end - if with_as { 2 } else { bare as usize };
    (e > s).then_some(Item { s, e, end, aliased: with_as || bare })
}

/// Is tokens [s, e) a column reference (`c`, `t.c`, `db.t.c`), which SQLite
/// names as MySQL does?
pub(super) fn is_column(toks: &[Token], s: usize, e: usize) -> bool {
    let n = e - s;
    n % 2 == 1 && toks[s..e].iter().enumerate().all(|(k, t)| if k % 2 == 0 { t.ident().is_some() && !t.is_kw("NULL") } else { t.is_op(".") })
}

/// The name MySQL gives the unaliased item [s, e) of `sql`: a column's
/// name, a string literal's value, else the text as written.
pub(super) fn mysql_name(sql: &str, toks: &[Token], s: usize, e: usize) -> String {
    if is_column(toks, s, e) {
        return toks[e - 1].ident().unwrap_or("").to_string();
    }
    if let (Tok::Str(b), true) = (&toks[s].tok, e == s + 1) {
        if !turnstile_sqltext::lex::written_in_hex(&sql[toks[s].start..toks[s].end]) {
            return String::from_utf8_lossy(b).into_owned();
        }
    }
    sql[toks[s].start..toks[e - 1].end].to_string()
}

/// Aliases for the translation `out` of `toks` (whose tokens began at
/// `out_at`, usize::MAX where not written): for each unaliased item whose
/// translation is not its MySQL name (taken from the client's text
/// `names_sql`/`names_toks`, whose select lists match `toks`' one for one),
/// the output offset after it and the alias text to insert there.
pub(super) fn aliases(toks: &[Token], out: &str, out_at: &[usize], names_sql: &str, names_toks: &[Token]) -> Vec<(usize, String)> {
    let ours = all_items(toks);
    let theirs = all_items(names_toks);
    if ours.len() != theirs.len() || ours.iter().zip(&theirs).any(|(a, b)| a.len() != b.len()) {
        return Vec::new();
    }
    let mut out_aliases = Vec::new();
    for (a, b) in ours.iter().flatten().zip(theirs.iter().flatten()) {
        if a.aliased || is_column(names_toks, b.s, b.e) {
            continue;
        }
        let start = out_at.get(a.s).copied().unwrap_or(usize::MAX);
        let stop = if a.e == toks.len() { out.len() } else { out_at.get(a.e).copied().unwrap_or(usize::MAX) };
        if start > stop || stop > out.len() || !out.is_char_boundary(start) || !out.is_char_boundary(stop) {
            continue;
        }
        let written = out[start..stop].trim_end();
        let name = mysql_name(names_sql, names_toks, b.s, b.e);
        if written.trim_start() != name {
            out_aliases.push((start + written.len(), format!(" AS \"{}\"", name.replace('"', "\"\"").replace('\0', ""))));
        }
    }
    out_aliases
}

/// The result column name of the item [s, end) of `sql`: its alias, or
/// MySQL's name of its expression.
pub(super) fn result_name(sql: &str, toks: &[Token], s: usize, end: usize) -> Option<String> {
    let it = item(toks, s, end)?;
    if !it.aliased {
        return Some(mysql_name(sql, toks, it.s, it.e));
    }
    match &toks[end - 1].tok {
        Tok::Str(b) => Some(String::from_utf8_lossy(b).into_owned()),
        t => toks[end - 1].ident().map(str::to_string).or_else(|| Some(format!("{:?}", t))),
    }
}

/// `out` with the aliases inserted (offsets ascending or not).
pub(super) fn insert_aliases(out: &mut String, mut aliases: Vec<(usize, String)>) {
    aliases.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (at, alias) in aliases {
        out.insert_str(at, &alias);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn hex_strings_are_named_as_written() {
        let r = rewrite("SELECT _utf8 0x41, X'42', _utf8'c'", Kind::Select, &resolver()).unwrap();
        assert_eq!(r.sql, "SELECT 'A' AS \"_utf8 0x41\", 'B' AS \"X'42'\", 'c' AS \"c\"");
    }
}
