//! Comments and a statement's first word, by MySQL's rules, in one place.
//!
//! Why: the lexer, the SQLite engine's statement router, the SQL front's
//! byte scans (does a SELECT read a table? is this a SELECT?) and the
//! first-keyword classifiers used by the server and the blackhole engine each
//! skipped comments with their own loop, and they disagreed: the lexer read
//! `--` as a comment only before a blank, the first-keyword scanners took any
//! `--` for one, and only some of them knew which executable comments run.
//! They all ask `comment_at` now, so a statement is classified the way it is
//! lexed.
//!
//! The rules (MySQL's): `#` and `-- ` run to the end of the line, where `--`
//! starts a comment only when the second dash is followed by whitespace, a
//! control character or the end of the text (`SELECT 1--1` is 1 - -1);
//! `/* ... */` is a comment, except the executable comments `/*! ... */` and
//! `/*!NNNNN ... */` (exactly five digits) with NNNNN up to `VERSION_ID`,
//! whose content is SQL. MariaDB's `/*M! ... */` and a later version's
//! comment are comments (`executed_comment`).

/// The MySQL version Turnstile answers as (`SERVER_VERSION` 8.0.36), for
/// versioned executable comments.
pub const VERSION_ID: u32 = 80036;

/// What starts at a byte of the text, if it is a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comment {
    /// A comment; the text goes on at this offset (a line comment stops
    /// before its newline).
    Skip(usize),
    /// An executable comment that runs: its content, which is SQL, starts at
    /// this offset. Its closing `*/` is for the reader to skip when it gets
    /// there (`is_close`).
    Executable(usize),
    /// `/*` with no `*/` after it.
    Unterminated,
}

/// Does the text at `i` start a `--` comment? Only when the second dash is
/// followed by whitespace, a control character or the end of the text.
pub fn dashes_start_comment(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'-') && b.get(i + 1) == Some(&b'-') && b.get(i + 2).is_none_or(|&c| c <= b' ' || c == 0x7f)
}

/// The comment that starts at byte `i` of `b`, if one does.
pub fn comment_at(b: &[u8], i: usize) -> Option<Comment> {
    match *b.get(i)? {
        b'#' => Some(Comment::Skip(line_end(b, i))),
        b'-' if dashes_start_comment(b, i) => Some(Comment::Skip(line_end(b, i))),
        b'/' if b.get(i + 1) == Some(&b'*') => Some(match executed_comment(b, i) {
            Some(content) => Comment::Executable(content),
            None => match find(b, i + 2, b"*/") {
                Some(end) => Comment::Skip(end + 2),
                None => Comment::Unterminated,
            },
        }),
        _ => None,
    }
}

/// Is the text at `i` the `*/` that closes an executable comment? (Readers
/// that enter executable comments skip any `*/` they meet outside strings.)
pub fn is_close(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'*') && b.get(i + 1) == Some(&b'/')
}

/// The offset of the first word: after leading whitespace, opening
/// parentheses and comments (entering executable comments). None when the
/// text ends inside an unterminated comment.
pub fn first_word_start(sql: &str) -> Option<usize> {
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b'(' {
            i += 1;
            continue;
        }
        if is_close(b, i) {
            i += 2;
            continue;
        }
        // Only these start a comment: a word is found without a call
        // (the engine looks for the first word several times a statement).
        if !matches!(c, b'#' | b'-' | b'/') {
            break;
        }
        match comment_at(b, i) {
            Some(Comment::Skip(next) | Comment::Executable(next)) => i = next,
            Some(Comment::Unterminated) => return None,
            None => break,
        }
    }
    Some(i)
}

/// The statement's first word (letters, digits and `_`) as written, skipping
/// what `first_word_start` skips; empty when there is none. No allocation:
/// the engine routes every statement by it.
pub fn first_word(sql: &str) -> &str {
    let Some(start) = first_word_start(sql) else { return "" };
    let len = sql.as_bytes()[start..].iter().take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_').count();
    &sql[start..start + len]
}

/// The statement's first keyword, uppercased (`first_word`).
pub fn first_keyword(sql: &str) -> String {
    first_word(sql).to_ascii_uppercase()
}

/// Where the content of the executable comment at `i` starts, if it is one
/// that runs, by MySQL 8.0's rule: `/*!` followed by exactly five digits is
/// versioned, and runs when that version is at most `VERSION_ID` (a sixth
/// digit is content, as in MySQL 8.0); `/*!` followed by anything else runs,
/// all of it (`/*!1 + 1 */` is `1 + 1`). A later version's comment is a
/// comment, and so is MariaDB's `/*M! ... */`, which MySQL reads as a plain
/// comment: mariadb-dump writes `/*M!999999\- enable the sandbox mode */`
/// and MariaDB-only SETs there. (MariaDB differs: it reads five or six
/// digits, runs `/*M!NNNNNN` up to its own version and skips `/*!50700` to
/// `/*!99999`, MySQL-only syntax; docs/compatibility.md.)
fn executed_comment(b: &[u8], i: usize) -> Option<usize> {
    if !b[i..].starts_with(b"/*!") {
        return None;
    }
    let digits = &b[i + 3..];
    if digits.len() < 5 || !digits[..5].iter().all(u8::is_ascii_digit) {
        return Some(i + 3);
    }
    let version = digits[..5].iter().fold(0u32, |v, d| v * 10 + u32::from(d - b'0'));
    (version <= VERSION_ID).then_some(i + 8)
}

/// The offset of the newline that ends the line comment at `i` (or the end).
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p)
}

/// The offset of `pat` in `b` at or after `from`.
pub(crate) fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    if from > b.len() {
        return None;
    }
    b[from..].windows(pat.len()).position(|w| w == pat).map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_dash_needs_a_blank_or_control_character_or_the_end() {
        assert!(dashes_start_comment(b"-- x", 0));
        assert!(dashes_start_comment(b"--\tx", 0));
        assert!(dashes_start_comment(b"--\x01x", 0));
        assert!(dashes_start_comment(b"--\x0bx", 0));
        assert!(dashes_start_comment(b"--", 0));
        assert!(!dashes_start_comment(b"--x", 0));
        assert!(!dashes_start_comment(b"--1", 0));
        assert_eq!(comment_at(b"1--1", 1), None);
        assert_eq!(comment_at(b"1-- 1\n2", 1), Some(Comment::Skip(5)));
    }

    #[test]
    fn comments() {
        assert_eq!(comment_at(b"# a\nb", 0), Some(Comment::Skip(3)));
        assert_eq!(comment_at(b"/* a */b", 0), Some(Comment::Skip(7)));
        assert_eq!(comment_at(b"/* a", 0), Some(Comment::Unterminated));
        assert_eq!(comment_at(b"/*!40101 SET */", 0), Some(Comment::Executable(8)));
        assert_eq!(comment_at(b"/*!90000 SET */", 0), Some(Comment::Skip(15)));
        assert_eq!(comment_at(b"/*M!100616 SET */", 0), Some(Comment::Skip(17)));
        assert_eq!(comment_at(b"/*M!999999\\- enable the sandbox mode */", 0), Some(Comment::Skip(39)));
        assert_eq!(comment_at(b"/*!80036 SET */", 0), Some(Comment::Executable(8)));
        assert_eq!(comment_at(b"/*!80037 SET */", 0), Some(Comment::Skip(15)));
        // Exactly five digits make a version (MySQL 8.0): fewer are content,
        // and a sixth digit is content too.
        assert_eq!(comment_at(b"/*!1 +1 */", 0), Some(Comment::Executable(3)));
        assert_eq!(comment_at(b"/*!4010 SET */", 0), Some(Comment::Executable(3)));
        assert_eq!(comment_at(b"/*!100100 SET */", 0), Some(Comment::Executable(8)));
        assert_eq!(comment_at(b"/*!999999 SET */", 0), Some(Comment::Skip(16)));
        assert_eq!(comment_at(b"/*!8003", 0), Some(Comment::Executable(3)));
        assert_eq!(comment_at(b"/", 0), None);
    }

    #[test]
    fn first_words() {
        assert_eq!(first_keyword("  /* c */ select 1"), "SELECT");
        assert_eq!(first_keyword("(SELECT 1)"), "SELECT");
        assert_eq!(first_keyword("-- c\nINSERT"), "INSERT");
        assert_eq!(first_keyword("# c\nINSERT"), "INSERT");
        assert_eq!(first_keyword("--c\nINSERT"), "");
        assert_eq!(first_keyword("/*!40101 SET NAMES utf8 */"), "SET");
        assert_eq!(first_keyword("/*!*/ SELECT 1"), "SELECT");
        assert_eq!(first_keyword("/*!90000 DROP */ SELECT 1"), "SELECT");
        assert_eq!(first_keyword("/*M!999999\\- enable the sandbox mode */\n/*!40101 SET NAMES utf8 */"), "SET");
        assert_eq!(first_keyword("/* unterminated SELECT"), "");
        assert_eq!(first_keyword(""), "");
        assert_eq!(first_word("  Select_x$y"), "Select_x");
        assert_eq!(first_word_start("/* c */ SELECT"), Some(8));
        assert_eq!(first_word_start("/* c"), None);
    }
}
