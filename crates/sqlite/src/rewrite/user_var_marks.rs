//! The front's marks on string user variables (`ts_uvs('value')`, written
//! by dialect.rs `substitute` inside a query's select list so that the
//! item is typed as MariaDB types a variable: `expr_type::USER_VAR_MARK`)
//! dropped before anything else reads the text: each becomes the literal it
//! wraps, the text every later pass saw before marks existed. The marked
//! text stays the client's text that names and types the result columns.

use turnstile_sqltext::expr_type::USER_VAR_MARK;
use turnstile_sqltext::lex::{Tok, Token};

/// Is `toks[i..]` a mark: the name, `(`, one string literal, `)`?
pub(crate) fn is_mark(toks: &[Token], i: usize) -> bool {
    matches!(&toks[i].tok, Tok::Word(w) if w.eq_ignore_ascii_case(USER_VAR_MARK))
        && toks.get(i + 1).is_some_and(|t| t.is_op("("))
        && matches!(toks.get(i + 2).map(|t| &t.tok), Some(Tok::Str(_)))
        && toks.get(i + 3).is_some_and(|t| t.is_op(")"))
        && !(i > 0 && toks[i - 1].is_op("."))
}

/// `sql` with every mark replaced by its literal; None when there is none.
/// One pass over the tokens.
pub(super) fn strip(sql: &str, toks: &[Token]) -> Option<String> {
    if !sql.as_bytes().windows(USER_VAR_MARK.len()).any(|w| w.eq_ignore_ascii_case(USER_VAR_MARK.as_bytes())) {
        return None;
    }
    let mut out = String::with_capacity(sql.len());
    let mut at = 0;
    let mut i = 0;
    let mut changed = false;
    while i < toks.len() {
        if is_mark(toks, i) {
            out.push_str(&sql[at..toks[i].start]);
            out.push_str(&sql[toks[i + 2].start..toks[i + 2].end]);
            at = toks[i + 3].end;
            changed = true;
            i += 4;
        } else {
            i += 1;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::strip;
    use turnstile_sqltext::lex;

    fn run(s: &str) -> Option<String> {
        strip(s, &lex::tokenize(s).expect("lexes"))
    }

    #[test]
    fn marks_become_their_literals() {
        assert_eq!(run("SELECT json_extract(ts_uvs('[1]'), '$[0]') AS `x`").as_deref(), Some("SELECT json_extract('[1]', '$[0]') AS `x`"));
        assert_eq!(run("SELECT TS_UVS('a''b'), ts_uvs('c')").as_deref(), Some("SELECT 'a''b', 'c'"));
        // Not a mark: another argument, a qualified name, none at all.
        assert_eq!(run("SELECT ts_uvs(1)"), None);
        assert_eq!(run("SELECT ts_uvs('a', 'b')"), None);
        assert_eq!(run("SELECT db.ts_uvs('a')"), None);
        assert_eq!(run("SELECT 'ts_uvs'"), None);
    }
}
