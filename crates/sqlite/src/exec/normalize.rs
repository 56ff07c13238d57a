//! Statement normalization: literals in value positions become parameters,
//! so that text-protocol statements differing only in values share one
//! compiled statement in the connection's cache (`dml_once`, run_dml.rs).

use turnstile_engine::Value;

/// Statements longer than this are not normalized (`normalize`).
const NORMALIZE_MAX_BYTES: usize = 64 * 1024;

/// A parameter of a normalized statement: the client's `?` number i, or a
/// literal taken out of the text.
pub(super) enum Slot {
    Param(usize),
    Lit(Value),
}

/// Replace literals in value positions (after a comparison operator, BETWEEN/AND,
/// LIMIT/OFFSET, inside IN (...) and VALUES (...) lists) by `?`. `None` when the
/// text has no such literal. Positions where a literal changes meaning as a
/// parameter (ORDER BY 1, select-list items, type arguments, LIKE patterns) are
/// left alone.
pub(super) fn normalize(sql: &str) -> Option<(String, Vec<Slot>)> {
    use turnstile_sqltext::lex::Tok;
    // A statement this long is not one of many that differ only in values
    // (and SQLite takes at most 32,766 parameters): compiled as it is, not
    // copied into a second text with a value per literal.
    if sql.len() > NORMALIZE_MAX_BYTES {
        return None;
    }
    let toks = turnstile_sqltext::lex::tokenize(sql).ok()?;
    let mut out = String::with_capacity(sql.len());
    let mut slots = Vec::new();
    let mut last = 0;
    let mut params = 0;
    let mut lists: Vec<bool> = Vec::new(); // per open paren: is it an IN/VALUES list
    let mut values_clause = false;
    let mut between = false;
    let mut changed = false;
    // Paren depth of the select list being read: its literals stay, because
    // the text of an expression column is its name (`SELECT a = 1 FROM t`).
    let mut select_list: Option<usize> = None;
    for (i, t) in toks.iter().enumerate() {
        let prev = if i > 0 { Some(&toks[i - 1]) } else { None };
        match &t.tok {
            Tok::Param => {
                slots.push(Slot::Param(params));
                params += 1;
            }
            Tok::Op("(") => {
                let is_list =
                    prev.is_some_and(|p| p.is_kw("IN") || p.is_kw("VALUES") || p.is_kw("VALUE") || p.is_kw("ROW")) || (values_clause && prev.is_some_and(|p| p.is_op(",")) && lists.is_empty());
                lists.push(is_list);
            }
            Tok::Op(")") => {
                lists.pop();
                if select_list.is_some_and(|d| lists.len() < d) {
                    select_list = None;
                }
            }
            Tok::Word(w) => {
                if w.eq_ignore_ascii_case("SELECT") && select_list.is_none() {
                    select_list = Some(lists.len());
                } else if w.eq_ignore_ascii_case("FROM") && select_list == Some(lists.len()) {
                    select_list = None;
                }
                if w.eq_ignore_ascii_case("VALUES") || w.eq_ignore_ascii_case("VALUE") {
                    values_clause = true;
                } else if w.eq_ignore_ascii_case("BETWEEN") {
                    between = true;
                } else if ["ON", "SELECT", "UPDATE", "WHERE", "SET"].iter().any(|k| w.eq_ignore_ascii_case(k)) {
                    values_clause = false;
                }
            }
            Tok::Number(_) | Tok::Str(_) => {
                let adjacent_word = prev.is_some_and(|p| matches!(p.tok, Tok::Word(_)) && p.end == t.start);
                let value_pos = match prev {
                    Some(p) => {
                        ["=", "<", ">", "<=", ">=", "<>", "!=", "<=>"].iter().any(|o| p.is_op(o))
                            || p.is_kw("BETWEEN")
                            || (p.is_kw("AND") && between)
                            || p.is_kw("LIMIT")
                            || p.is_kw("OFFSET")
                            || ((p.is_op("(") || p.is_op(",")) && lists.last() == Some(&true))
                    }
                    None => false,
                };
                let next_is_str = toks.get(i + 1).is_some_and(|n| matches!(n.tok, Tok::Str(_)));
                if ends_between(prev) {
                    between = false;
                }
                if value_pos && !adjacent_word && !next_is_str && select_list.is_none() {
                    let v = match &t.tok {
                        Tok::Number(n) => {
                            if let Ok(i) = n.parse::<i64>() {
                                Value::Int(i)
                            } else if turnstile_sqltext::lex::hybrid_bytes(n).is_some() || n.contains(['e', 'E']) {
                                continue;
                            } else if let Ok(f) = n.parse::<f64>() {
                                // keep DECIMAL literal text (exact); SQLite converts by affinity
                                let _ = f;
                                Value::Bytes(n.as_bytes().to_vec())
                            } else {
                                continue;
                            }
                        }
                        // Bytes that are not UTF-8 stay in the text: the
                        // rewrite refuses them for a text column (1366).
                        Tok::Str(b) if std::str::from_utf8(b).is_err() => continue,
                        Tok::Str(b) => Value::Bytes(b.clone()),
                        _ => unreachable!(),
                    };
                    if matches!(v, Value::Bytes(_)) && matches!(t.tok, Tok::Number(_)) {
                        // a decimal literal: binding it as text would compare as text
                        continue;
                    }
                    out.push_str(&sql[last..t.start]);
                    out.push('?');
                    last = t.end;
                    slots.push(Slot::Lit(v));
                    changed = true;
                }
            }
            _ => {}
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&sql[last..]);
    Some((out, slots))
}

/// Is the previous token the AND that ends a BETWEEN?
fn ends_between(prev: Option<&turnstile_sqltext::lex::Token>) -> bool {
    prev.is_some_and(|p| p.is_kw("AND"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_normalization() {
        let (n, s) = normalize("SELECT c FROM sbtest1 WHERE id=5").unwrap();
        assert_eq!(n, "SELECT c FROM sbtest1 WHERE id=?");
        assert!(matches!(s[..], [Slot::Lit(Value::Int(5))]));
        let (n, _) = normalize("INSERT INTO t VALUES (1,'a'),(2,'b')").unwrap();
        assert_eq!(n, "INSERT INTO t VALUES (?,?),(?,?)");
        let (n, s) = normalize("SELECT * FROM t WHERE a = ? AND b BETWEEN 3 AND 4 LIMIT 10").unwrap();
        assert_eq!(n, "SELECT * FROM t WHERE a = ? AND b BETWEEN ? AND ? LIMIT ?");
        assert!(matches!(s[0], Slot::Param(0)) && s.len() == 4);
        assert!(normalize("SELECT c FROM t ORDER BY 1").is_none());
        assert!(normalize("SELECT c FROM t WHERE c LIKE 'a%'").is_none());
        assert!(normalize("SELECT 1, 'x' FROM t").is_none());
        assert!(normalize("SELECT c FROM t WHERE d = 1.5").is_none());
        // select-list literals name their columns: left alone, the rest still normalized
        assert!(normalize("SELECT IF(a>0,'y','n'), b = 2 FROM t").is_none());
        assert_eq!(normalize("SELECT a = 1, (SELECT 2 > 1) FROM t WHERE b = 3").unwrap().0, "SELECT a = 1, (SELECT 2 > 1) FROM t WHERE b = ?");
        assert_eq!(normalize("SELECT a FROM t WHERE b IN (SELECT c FROM u WHERE d = 4)").unwrap().0, "SELECT a FROM t WHERE b IN (SELECT c FROM u WHERE d = ?)");
    }
}
