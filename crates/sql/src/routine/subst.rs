//! A routine's variables inside the statements it runs: every name that is
//! one of its variables (parameters, DECLAREd locals) where a value may
//! stand becomes a `?` placeholder and the variable's value its bound
//! parameter, never text spliced into the statement, so a parameter holding
//! `'; DROP TABLE t; --` is a string and nothing else.
//!
//! As in MySQL, a variable hides a column of the same name in an
//! expression. Names are left alone where they cannot be values: qualified
//! names (`t.a`, `a.b`), function names (`a(`), aliases (`AS a`), table
//! names (after FROM, JOIN, INTO, UPDATE, TABLE), an INSERT's column list
//! and the column an UPDATE's SET assigns. A select item that becomes a
//! placeholder keeps its name (`SELECT x` shows a column `x`).

use turnstile_engine::{SqlError, Value};
use turnstile_sqltext::lex::{self, Tok, Token};

/// Statement kinds whose text holds no values to bind (definitions).
const NO_VALUES: [&str; 8] = ["CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE", "GRANT", "REVOKE", "SHOW"];

const NAMES_A_TABLE: [&str; 8] = ["FROM", "JOIN", "INTO", "UPDATE", "TABLE", "AS", "STRAIGHT_JOIN", "DESCRIBE"];

/// `sql` with the variables `lookup` knows replaced by `?`, and their values
/// in order. `None` when nothing was replaced.
#[cfg(test)]
pub fn bind(sql: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Option<(String, Vec<Value>)>, SqlError> {
    bind_row(sql, lookup, &|_: &str, _: &str| None)
}

/// `bind`, and in a trigger's body `NEW.col` / `OLD.col` too: `row` gives
/// the value of (`NEW` or `OLD`, column), None for a name it does not know.
pub fn bind_row(sql: &str, lookup: &dyn Fn(&str) -> Option<Value>, row: &dyn Fn(&str, &str) -> Option<Value>) -> Result<Option<(String, Vec<Value>)>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    if toks.first().is_some_and(|t| NO_VALUES.iter().any(|k| t.is_kw(k))) {
        return Ok(None);
    }
    let skip = column_lists(&toks);
    let items = select_items(&toks);
    let mut out = String::with_capacity(sql.len() + 16);
    let mut params = Vec::new();
    let mut last = 0;
    let mut skip_to = 0;
    for (i, t) in toks.iter().enumerate() {
        if i < skip_to {
            continue;
        }
        let name = match &t.tok {
            Tok::Word(w) | Tok::Quoted(w) => w.as_str(),
            _ => continue,
        };
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        let next = toks.get(i + 1);
        // NEW.col / OLD.col of a trigger (not `x.NEW.col`).
        if matches!(t.tok, Tok::Word(_)) && (t.is_kw("NEW") || t.is_kw("OLD")) && next.is_some_and(|n| n.is_op(".")) && !prev.is_some_and(|p| p.is_op(".")) {
            if let Some(col) = toks.get(i + 2).and_then(|c| c.ident()) {
                if let Some(v) = row(&name.to_ascii_uppercase(), col) {
                    out.push_str(&sql[last..t.start]);
                    out.push('?');
                    last = toks[i + 2].end;
                    params.push(v);
                    skip_to = i + 3;
                    continue;
                }
            }
        }
        if prev.is_some_and(|p| p.is_op(".") || NAMES_A_TABLE.iter().any(|k| p.is_kw(k))) || next.is_some_and(|n| n.is_op(".") || n.is_op("(")) || skip.contains(&i) {
            continue;
        }
        let Some(v) = lookup(name) else { continue };
        // A select item made only of this name keeps it as its column name.
        let alone = items.contains(&i);
        out.push_str(&sql[last..t.start]);
        out.push('?');
        if alone {
            out.push_str(" AS `");
            out.push_str(&name.replace('`', "``"));
            out.push('`');
        }
        last = t.end;
        params.push(v);
    }
    if params.is_empty() {
        return Ok(None);
    }
    out.push_str(&sql[last..]);
    Ok(Some((out, params)))
}

/// Tokens that name columns, not values: `INSERT INTO t (a, b)`, an
/// UPDATE's or ON DUPLICATE KEY UPDATE's `SET a =`, `a = ` after `,` there.
fn column_lists(toks: &[Token]) -> Vec<usize> {
    let mut out = Vec::new();
    let insert = toks.first().is_some_and(|t| t.is_kw("INSERT") || t.is_kw("REPLACE"));
    let update = toks.first().is_some_and(|t| t.is_kw("UPDATE")) || toks.windows(2).any(|w| w[0].is_kw("KEY") && w[1].is_kw("UPDATE"));
    for (i, t) in toks.iter().enumerate() {
        // INSERT INTO t (cols) / INSERT INTO db.t (cols)
        if insert
            && t.is_op("(")
            && i >= 2
            && toks[i - 1].ident().is_some()
            && !["VALUES", "VALUE", "SELECT"].iter().any(|k| toks[i - 1].is_kw(k))
            && (toks[i - 2].is_kw("INTO") || toks[i - 2].is_op(".") || toks[i - 2].is_kw("INSERT") || toks[i - 2].is_kw("REPLACE"))
        {
            let mut j = i + 1;
            while j < toks.len() && !toks[j].is_op(")") {
                out.push(j);
                j += 1;
            }
        }
        if update && toks.get(i + 1).is_some_and(|n| n.is_op("=")) && i >= 1 && (toks[i - 1].is_kw("SET") || toks[i - 1].is_op(",") || toks[i - 1].is_kw("UPDATE")) {
            out.push(i);
        }
    }
    out
}

/// Indexes of names that are a whole unaliased select item on their own.
fn select_items(toks: &[Token]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.ident().is_none() {
            continue;
        }
        let before = i.checked_sub(1).map(|p| &toks[p]);
        let after = toks.get(i + 1);
        let starts = before.is_some_and(|p| p.is_kw("SELECT") || p.is_kw("DISTINCT") || (p.is_op(",") && in_select_list(toks, i)));
        let ends =
            after.is_none_or(|n| n.is_op(",") || n.is_kw("FROM") || n.is_kw("INTO") || n.is_op(";") || n.is_op(")") || n.is_kw("UNION") || n.is_kw("WHERE") || n.is_kw("LIMIT") || n.is_kw("ORDER"));
        if starts && ends {
            out.push(i);
        }
    }
    out
}

/// Is token `i` inside the select list of the nearest SELECT before it at its depth?
fn in_select_list(toks: &[Token], i: usize) -> bool {
    let mut depth = 0i32;
    for t in toks[..i].iter().rev() {
        if t.is_op(")") {
            depth += 1;
        } else if t.is_op("(") {
            if depth == 0 {
                return false;
            }
            depth -= 1;
        } else if depth == 0 {
            if t.is_kw("SELECT") {
                return true;
            }
            if ["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "SET", "VALUES", "BY"].iter().any(|k| t.is_kw(k)) {
                return false;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(sql: &str) -> Option<(String, Vec<Value>)> {
        bind(sql, &|n: &str| (n.eq_ignore_ascii_case("x") || n == "a").then_some(Value::Int(7))).unwrap()
    }

    #[test]
    fn variables_become_parameters() {
        assert_eq!(b("SELECT x").unwrap().0, "SELECT ? AS `x`");
        assert_eq!(b("SELECT x + 1, t.x FROM t WHERE a = x").unwrap().0, "SELECT ? + 1, t.x FROM t WHERE ? = ?");
        assert_eq!(b("INSERT INTO t (a, x) VALUES (x, a)").unwrap().0, "INSERT INTO t (a, x) VALUES (?, ?)");
        assert_eq!(b("UPDATE t SET a = x WHERE x > 1").unwrap().0, "UPDATE t SET a = ? WHERE ? > 1");
        assert!(b("CREATE TABLE x (a INT)").is_none());
        assert!(b("SELECT * FROM x").is_none());
        assert_eq!(b("SELECT x('1')"), None);
    }
}
