//! LIKE patterns (`%`, `_`, backslash escape), matched without recursion.
//!
//! Used where Turnstile itself matches: SHOW ... LIKE in the SQLite engine
//! and in the SQL front, and LIKE in statements without a table (the front),
//! which is why it lives in turnstile-sqltext, below both. SQLite matches
//! LIKE inside queries with its own matcher. The obvious recursive
//! matcher recursed once per character and backtracked exponentially on
//! patterns such as `%a%a%a...b`, so a long string or pattern from any client
//! could exhaust a worker's stack or its time. This is the two-cursor
//! matcher: on a mismatch it resumes after the last `%`, one character
//! further on, so it takes at most len(text) x len(pattern) steps and no
//! stack.
//!
//! Case-insensitive matching folds each character with the case-insensitive
//! collation's own rule (`collate::fold`), so LIKE and `=` on a ts_ci column
//! agree on which characters are equal, and both agree with MariaDB's
//! utf8mb4_general_ci on accents and case (É, ä, final sigma, dotless i).

#[derive(Clone, Copy, PartialEq)]
enum Item {
    Any,
    One,
    Lit(char),
}

fn items(pat: &str, fold_case: bool) -> Vec<Item> {
    let mut out = Vec::with_capacity(pat.len());
    let mut chars = pat.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '%' => Item::Any,
            '_' => Item::One,
            '\\' => match chars.next() {
                Some(e) => Item::Lit(fold(e, fold_case)),
                None => Item::Lit('\\'),
            },
            c => Item::Lit(fold(c, fold_case)),
        });
    }
    out
}

fn fold(c: char, fold_case: bool) -> char {
    if fold_case {
        crate::collate::fold(c)
    } else {
        c
    }
}

/// Does `text` match the LIKE pattern `pat`? `fold_case`: compare as a
/// case-insensitive collation does.
pub fn like(text: &str, pat: &str, fold_case: bool) -> bool {
    let p = items(pat, fold_case);
    let s: Vec<char> = text.chars().map(|c| fold(c, fold_case)).collect();
    let (mut si, mut pi) = (0usize, 0usize);
    // The last `%` seen, and the text position it currently stands for.
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(Item::One) => {
                si += 1;
                pi += 1;
            }
            Some(Item::Lit(c)) if *c == s[si] => {
                si += 1;
                pi += 1;
            }
            Some(Item::Any) => {
                star = Some((pi, si));
                pi += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|i| *i == Item::Any)
}

#[cfg(test)]
mod tests {
    use super::like;

    #[test]
    fn mysql_like_rules() {
        assert!(like("hello", "h%o", false));
        assert!(like("hello", "h_llo", false));
        assert!(!like("hello", "h_lo", false));
        assert!(like("a%b", "a\\%b", false));
        assert!(!like("axb", "a\\%b", false));
        assert!(like("", "%", false));
        assert!(!like("", "_", false));
        assert!(!like("Straße", "STRASSE", false));
        assert!(like("ABC", "a%", true));
        assert!(!like("ABC", "a%", false));
        assert!(like("abcabd", "%ab_", false));
        assert!(like("mississippi", "%iss%ppi", false));
        assert!(like("x\\", "x\\", false));
    }

    #[test]
    fn case_folds_as_general_ci() {
        // MariaDB 10.11, utf8mb4_general_ci: 1 1 0 1 1 1 0 1.
        assert!(like("Ä", "ä", true));
        assert!(like("Ä", "a", true));
        assert!(!like("ß", "ss", true));
        assert!(like("é", "E", true));
        assert!(like("Σ", "ς", true));
        assert!(like("I", "ı", true));
        assert!(!like("\u{212a}", "k", true));
        assert!(like("ÿ", "Ÿ", true));
        assert!(!like("é", "E", false));
    }

    #[test]
    fn hostile_patterns_are_quick_and_shallow() {
        let text = "a".repeat(20_000);
        let pat = "%a".repeat(2_000) + "b";
        let t = std::time::Instant::now();
        // On a 64 KiB stack: the old recursive matcher recursed per character.
        let r = std::thread::Builder::new().stack_size(64 * 1024).spawn(move || like(&text, &pat, true)).unwrap().join().unwrap();
        assert!(!r);
        assert!(t.elapsed().as_secs() < 30);
    }
}
