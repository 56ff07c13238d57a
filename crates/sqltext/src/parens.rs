//! Parentheses over the lexer's tokens, the walks every statement reader
//! needs: the `)` that closes a `(`, the first token at the outer level that
//! a test picks, and a token list cut at its outer-level separators. Written
//! once here: the engine, the SQLite rewriter and the front had each their
//! own copy.

use crate::lex::Token;

/// Index of the `)` that closes the `(` at `open` (None: it is never closed,
/// or a `)` closes more than was opened).
pub fn closing(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// From `from` on, the first token outside parentheses for which `pick` is
/// true (a `)` with nothing open is passed over).
pub fn find_top_level(toks: &[Token], from: usize, pick: impl Fn(usize, &Token) -> bool) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(from) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && pick(k, t) {
            return Some(k);
        }
    }
    None
}

/// `toks` cut at the operator `sep` where it stands outside parentheses
/// (`a, f(b, c), d` at `,`: three pieces; an empty list is one empty piece).
pub fn split_top_level<'t>(toks: &'t [Token], sep: &str) -> Vec<&'t [Token]> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = find_top_level(toks, from, |_, t| t.is_op(sep)) {
        out.push(&toks[from..at]);
        from = at + 1;
    }
    out.push(&toks[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::tokenize;

    #[test]
    fn walks() {
        let t = tokenize("f(a, (b)), c ) x").unwrap();
        assert_eq!(closing(&t, 1), Some(7));
        assert_eq!(closing(&t, 4), Some(6));
        assert_eq!(find_top_level(&t, 0, |_, t| t.is_op(",")), Some(8));
        assert_eq!(find_top_level(&t, 0, |_, t| t.ident() == Some("x")), Some(11));
        assert_eq!(split_top_level(&t[..10], ",").iter().map(|p| p.len()).collect::<Vec<_>>(), vec![8, 1]);
        assert_eq!(split_top_level(&[], ",").len(), 1);
        assert_eq!(closing(&tokenize("(a").unwrap(), 0), None);
    }
}
