//! Typed temporal literals, `DATE '2024-01-02'`, `TIME '10:00'`, `TIMESTAMP
//! '2024-01-02 03:04:05'` (standard SQL, and MySQL's): read as `CAST('...'
//! AS DATE | TIME | DATETIME)`, so the value is normalised and described with
//! its temporal type by the CAST translation (`TIME '10:00:00.123'` a
//! TIME(3), as MariaDB types it by the literal's fraction digits). The text is rewritten before the
//! translation, which then sees plain MySQL. One difference stays: a literal
//! that is no valid date is NULL with the CAST's warning here, where MariaDB
//! refuses the statement (ERR 1525).

use turnstile_sqltext::lex::{Tok, Token};

/// `sql` with each typed temporal literal as a CAST, or None when it has none.
pub(super) fn rewrite(sql: &str, toks: &[Token]) -> Option<String> {
    let mut edits = Vec::new();
    for (k, pair) in toks.windows(2).enumerate() {
        let (word, lit) = (&pair[0], &pair[1]);
        let target = match () {
            _ if word.is_kw("DATE") => "DATE",
            _ if word.is_kw("TIME") => "TIME",
            _ if word.is_kw("TIMESTAMP") => "DATETIME",
            _ => continue,
        };
        // `t.date 'x'` is a column and an alias, not a literal.
        if !matches!(lit.tok, Tok::Str(_)) || (k > 0 && toks[k - 1].is_op(".")) {
            continue;
        }
        // TIME'10:00:00.123' is a TIME(3): the literal's fraction digits.
        let fsp = match (&lit.tok, target) {
            (Tok::Str(b), "TIME" | "DATETIME") => turnstile_sqltext::temporal_cast::fraction_digits(&String::from_utf8_lossy(b)),
            _ => 0,
        };
        let target = if fsp > 0 { format!("{}({})", target, fsp) } else { target.to_string() };
        edits.push((word.start, lit.end, format!("CAST({} AS {})", &sql[lit.start..lit.end], target)));
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
    fn literals_become_casts() {
        assert_eq!(run("SELECT DATE '2024-01-02', time '10:00:00'").as_deref(), Some("SELECT CAST('2024-01-02' AS DATE), CAST('10:00:00' AS TIME)"));
        assert_eq!(run("SELECT * FROM t WHERE d > TIMESTAMP '2024-01-02 03:04:05'").as_deref(), Some("SELECT * FROM t WHERE d > CAST('2024-01-02 03:04:05' AS DATETIME)"));
        assert_eq!(
            run("SELECT TIME'10:00:00.123', TIMESTAMP'2001-01-01 10:00:00.1234567'").as_deref(),
            Some("SELECT CAST('10:00:00.123' AS TIME(3)), CAST('2001-01-01 10:00:00.1234567' AS DATETIME(6))")
        );
        assert_eq!(run("SELECT date FROM t"), None);
        assert_eq!(run("SELECT DATE(d) FROM t"), None);
        assert_eq!(run("SELECT t.date 'x' FROM t"), None);
    }
}
