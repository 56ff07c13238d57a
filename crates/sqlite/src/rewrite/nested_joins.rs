//! Nested joins written without parentheses: `t1 JOIN t2 JOIN t3 ON c1 ON
//! c2`, which MySQL reads as `t1 JOIN (t2 JOIN t3 ON c1) ON c2` (each ON
//! belongs to the nearest JOIN still without one) and SQLite refuses. The
//! parentheses are written in, MySQL text to MySQL text, before the
//! translation; a statement without such a join costs one token scan.

use turnstile_sqltext::lex::{Tok, Token};

/// Words after which a FROM clause's joins are over (or not begun).
const RESETS: [&str; 14] = ["SELECT", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "SET", "RETURNING", "VALUES", "DUPLICATE"];

/// A JOIN of one parenthesis level: where its right operand starts, and
/// whether another JOIN came after it before its ON.
struct Join {
    operand: usize,
    nested: bool,
}

/// The statement with parentheses around each nested join's operand, or
/// None when it has no nested join.
pub(super) fn rewrite(sql: &str, toks: &[Token]) -> Option<String> {
    let mut frames: Vec<Vec<Join>> = vec![Vec::new()];
    // (byte offset, text) insertions
    let mut edits: Vec<(usize, &str)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            frames.push(Vec::new());
            continue;
        }
        if t.is_op(")") {
            frames.pop();
            if frames.is_empty() {
                return None; // unbalanced: left to the translator's error
            }
            continue;
        }
        let Tok::Word(_) = &t.tok else { continue };
        let joins = frames.last_mut().expect("one frame at least");
        if RESETS.iter().any(|k| t.is_kw(k)) {
            joins.clear();
        } else if t.is_kw("JOIN") || t.is_kw("STRAIGHT_JOIN") {
            if let Some(top) = joins.last_mut() {
                top.nested = true;
            }
            joins.push(Join { operand: i + 1, nested: false });
        } else if t.is_kw("ON") || t.is_kw("USING") {
            // USING ends a join too, but MariaDB nests only with ON (`a JOIN b
            // JOIN c USING (i) USING (j)` is its 1064, and stays SQLite's).
            if let Some(j) = joins.pop() {
                if j.nested && j.operand < i && t.is_kw("ON") {
                    edits.push((toks[j.operand].start, "("));
                    edits.push((toks[i - 1].end, ")"));
                }
            }
        }
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(sql.len() + edits.len() * 2);
    let mut at = 0;
    for (pos, text) in edits {
        out.push_str(&sql[at..pos]);
        out.push_str(text);
        at = pos;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use turnstile_sqltext::lex;

    fn run(sql: &str) -> Option<String> {
        rewrite(sql, &lex::tokenize(sql).unwrap())
    }

    #[test]
    fn each_on_belongs_to_the_nearest_join() {
        assert_eq!(run("SELECT * FROM a JOIN b ON x JOIN c ON y"), None);
        assert_eq!(run("SELECT * FROM a JOIN b JOIN c ON x"), None);
        assert_eq!(run("SELECT * FROM a JOIN b JOIN c ON x ON y").as_deref(), Some("SELECT * FROM a JOIN (b JOIN c ON x) ON y"));
        assert_eq!(run("SELECT * FROM a LEFT JOIN b LEFT JOIN c ON c.i = b.i ON b.i = a.i WHERE 1").as_deref(), Some("SELECT * FROM a LEFT JOIN (b LEFT JOIN c ON c.i = b.i) ON b.i = a.i WHERE 1"));
        assert_eq!(run("SELECT * FROM a JOIN b JOIN c JOIN d ON x ON y ON z").as_deref(), Some("SELECT * FROM a JOIN (b JOIN (c JOIN d ON x) ON y) ON z"));
        assert_eq!(run("SELECT * FROM a JOIN b JOIN c USING (i) USING (j)"), None);
        assert_eq!(run("SELECT * FROM a JOIN b JOIN c USING (i) ON y").as_deref(), Some("SELECT * FROM a JOIN (b JOIN c USING (i)) ON y"));
    }

    #[test]
    fn subqueries_and_unbalanced_text_are_their_own() {
        assert_eq!(run("SELECT * FROM a JOIN (SELECT * FROM b JOIN c ON x) d ON y"), None);
        assert_eq!(run("SELECT * FROM a JOIN b ON (x"), None);
        assert_eq!(run("SELECT * FROM a JOIN b ON x)"), None);
    }
}
