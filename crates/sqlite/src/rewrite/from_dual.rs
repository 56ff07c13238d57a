//! `FROM DUAL`: MySQL's name for "no table" (`SELECT 1 FROM DUAL WHERE ...`,
//! `INSERT ... SELECT 1 FROM DUAL WHERE NOT EXISTS (...)`). SQLite reads a
//! SELECT without FROM, so the two words are dropped from the statement's
//! text before the translation. DUAL is a reserved word in MySQL: no table
//! has that bare name (a quoted `dual` is a table and stays).

use turnstile_sqltext::lex::{Tok, Token};

/// `sql` without its `FROM DUAL`s, or None when it has none.
pub(super) fn rewrite(sql: &str, toks: &[Token]) -> Option<String> {
    let mut edits = Vec::new();
    for (k, pair) in toks.windows(2).enumerate() {
        let (from, dual) = (&pair[0], &pair[1]);
        let bare = matches!(&dual.tok, Tok::Word(w) if w.eq_ignore_ascii_case("DUAL"));
        if from.is_kw("FROM") && bare && !toks.get(k + 2).is_some_and(|t| t.is_op(".")) {
            edits.push((from.start, dual.end, String::new()));
        }
    }
    super::splice(sql, edits)
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use turnstile_sqltext::lex::tokenize;

    fn run(sql: &str) -> Option<String> {
        rewrite(sql, &tokenize(sql).unwrap())
    }

    #[test]
    fn dual_is_no_table() {
        assert_eq!(run("INSERT INTO t SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM t)").as_deref(), Some("INSERT INTO t SELECT 1  WHERE NOT EXISTS (SELECT 1 FROM t)"));
        assert_eq!(run("SELECT 1 FROM `dual`"), None);
        assert_eq!(run("SELECT 1 FROM dual.t"), None);
        assert_eq!(run("SELECT 1 FROM t"), None);
    }
}
