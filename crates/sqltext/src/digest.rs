//! Statement digests: a statement's text normalized as performance_schema
//! shows it in DIGEST_TEXT, so that statements differing only in their
//! literals count as one (`SELECT c FROM t WHERE id = 5` and `... id = 7`
//! are both `SELECT c FROM t WHERE id = ?`).
//!
//! One pass over the bytes, no tokens kept, no allocation beyond the output
//! buffer the caller reuses: it runs on every statement while
//! `performance_schema` is ON, so it is written for speed, not as a parser.
//! As MariaDB's: literals (numbers, strings, hex and bit values) become `?`,
//! a parenthesised list of them `(...)`, repeated row lists of VALUES
//! `(...) /* , ... */`; comments go (the text of `/*! ... */` stays, as the
//! server runs it); keywords are upper case, other names back-quoted; the
//! tokens are separated by one space. The text is cut at `max_len` bytes
//! and then ends in `...`.

use crate::keywords;

/// What a list of literals collapses to, and what a run of such lists does.
const LIST: &str = "(...)";
const MORE_LISTS: &str = " /* , ... */";

/// Normalize `sql` into `out` (cleared first); at most `max_len` bytes of
/// tokens are kept. Strings end as the lexer's mode on this thread says
/// (NO_BACKSLASH_ESCAPES: `lex::lexing_mode`), so that no literal survives
/// for lack of its end; an unterminated quoted name ends the digest there.
pub fn normalize(sql: &str, max_len: usize, out: &mut String) {
    out.clear();
    let backslash = crate::lex::backslash_escapes();
    let b = sql.as_bytes();
    let mut n = Norm { out, lists: Vec::new(), max_len, full: false };
    let mut i = 0;
    while i < b.len() && !n.full {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => i += 1,
            b'#' => i = line_end(b, i),
            b'-' if b.get(i + 1) == Some(&b'-') && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => i = line_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                if matches!(b.get(i + 2), Some(b'!')) || (b.get(i + 2) == Some(&b'M') && b.get(i + 3) == Some(&b'!')) {
                    // Executable comment: its text is the statement's; the
                    // markers and the version number go.
                    i += if b[i + 2] == b'M' { 4 } else { 3 };
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                } else {
                    i = match sql[i + 2..].find("*/") {
                        Some(end) => i + 2 + end + 2,
                        None => b.len(),
                    };
                }
            }
            b'*' if b.get(i + 1) == Some(&b'/') => i += 2,
            b'\'' | b'"' => {
                i = quoted_end(b, i, backslash);
                n.literal();
            }
            b'`' => {
                let end = quoted_end(b, i, backslash);
                if end == b.len() && (end - i < 2 || b[end - 1] != b'`') {
                    // Unterminated: what follows is not a name (nor kept).
                    break;
                }
                n.token(&sql[i..end]);
                i = end;
            }
            b'0'..=b'9' => {
                i = number_end(b, i);
                n.literal();
            }
            b'.' if b.get(i + 1).is_some_and(|c| c.is_ascii_digit()) && !n.after_name() => {
                i = number_end(b, i);
                n.literal();
            }
            b'?' => {
                i += 1;
                n.literal();
            }
            b'@' => {
                let mut end = i + 1;
                while end < b.len() && (b[end] == b'@' || is_word_byte(b[end]) || b[end] == b'.') {
                    end += 1;
                }
                n.token(&sql[i..end]);
                i = end;
            }
            c if is_word_byte(c) => {
                let mut end = i;
                while end < b.len() && is_word_byte(b[end]) {
                    end += 1;
                }
                let word = &sql[i..end];
                // X'..', B'..', N'..' and _charset'..' are literals.
                let introducer = matches!(word, "x" | "X" | "b" | "B" | "n" | "N") || (word.starts_with('_') && word.len() > 1);
                if introducer && b.get(end) == Some(&b'\'') {
                    i = quoted_end(b, end, backslash);
                    n.literal();
                    continue;
                }
                match keywords::keyword(word) {
                    Some(k) => n.token(k),
                    None => n.name(word),
                }
                i = end;
            }
            _ => {
                let len = operator_len(b, i);
                // `sql` is UTF-8: a byte not matched above may begin a
                // multi-byte character, kept whole.
                let mut end = i + len;
                while end < b.len() && !sql.is_char_boundary(end) {
                    end += 1;
                }
                match &sql[i..end] {
                    ";" => {}
                    "(" => n.open(),
                    ")" => n.close(),
                    t => n.token(t),
                }
                i = end;
            }
        }
    }
}

/// The output being built, and the open parentheses: for each, where it
/// starts in `out` and whether only literals and commas followed it.
struct Norm<'a> {
    out: &'a mut String,
    lists: Vec<(usize, bool)>,
    max_len: usize,
    full: bool,
}

impl Norm<'_> {
    fn token(&mut self, t: &str) {
        if let Some(top) = self.lists.last_mut() {
            top.1 &= t == ",";
        }
        self.push(t);
    }

    /// A name that is no keyword, back-quoted.
    fn name(&mut self, w: &str) {
        if let Some(top) = self.lists.last_mut() {
            top.1 = false;
        }
        if self.room(w.len() + 3) {
            self.space();
            self.out.push('`');
            self.out.push_str(w);
            self.out.push('`');
        }
    }

    fn literal(&mut self) {
        self.push("?");
    }

    fn open(&mut self) {
        if let Some(top) = self.lists.last_mut() {
            top.1 = false;
        }
        let at = self.out.len();
        self.push("(");
        // A limit on nesting, so that a flood of parentheses costs no memory.
        if self.lists.len() < 64 {
            self.lists.push((at, true));
        }
    }

    fn close(&mut self) {
        let Some((at, literals_only)) = self.lists.pop() else {
            self.push(")");
            return;
        };
        if !literals_only || !self.out[at..].contains('?') {
            self.push(")");
            return;
        }
        self.out.truncate(at);
        // Another row of the same VALUES list: `(...) , (...)` is one.
        let before = self.out.trim_end();
        if before.ends_with("(...) /* , ... */ ,") || before.ends_with("(...) ,") {
            let keep = before.len() - 1;
            self.out.truncate(keep);
            let kept = self.out.trim_end().len();
            self.out.truncate(kept);
            if !self.out.ends_with(MORE_LISTS) && self.room(MORE_LISTS.len()) {
                self.out.push_str(MORE_LISTS);
            }
            return;
        }
        self.push(LIST);
    }

    fn after_name(&self) -> bool {
        self.out.ends_with('`')
    }

    fn space(&mut self) {
        if !self.out.is_empty() {
            self.out.push(' ');
        }
    }

    /// Is there room for `len` more bytes? If not, the text ends in `...`.
    fn room(&mut self, len: usize) -> bool {
        if self.full {
            return false;
        }
        // (`<`: a separating space too.)
        if self.out.len() + len < self.max_len {
            return true;
        }
        self.full = true;
        self.out.push_str("...");
        false
    }

    fn push(&mut self, t: &str) {
        if self.room(t.len()) {
            self.space();
            self.out.push_str(t);
        }
    }
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn line_end(b: &[u8], i: usize) -> usize {
    b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p + 1)
}

/// The end of the quoted text starting at `i` (its quote doubled or, with
/// `backslash`, backslash-escaped inside), or the end of input.
fn quoted_end(b: &[u8], i: usize, backslash: bool) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() {
        if backslash && b[j] == b'\\' && q != b'`' {
            j += 2;
            continue;
        }
        if b[j] == q {
            if b.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

/// A number: digits, a fraction, an exponent, or 0x / 0b digits.
fn number_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    if b[j] == b'0' && matches!(b.get(j + 1), Some(b'x' | b'X' | b'b' | b'B')) && b.get(j + 2).is_some_and(|c| c.is_ascii_hexdigit()) {
        j += 2;
        while j < b.len() && b[j].is_ascii_hexdigit() {
            j += 1;
        }
        return j;
    }
    while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
        j += 1;
    }
    if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
        let sign = usize::from(matches!(b.get(j + 1), Some(b'+' | b'-')));
        if b.get(j + 1 + sign).is_some_and(|c| c.is_ascii_digit()) {
            j += 1 + sign;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
        }
    }
    // A name that starts with digits (`1abc`) is a name in MySQL.
    while j < b.len() && is_word_byte(b[j]) {
        j += 1;
    }
    j
}

/// The length of the operator at `i` (the longest MySQL spells).
fn operator_len(b: &[u8], i: usize) -> usize {
    const OPS: [&[u8]; 12] = [b"<=>", b"->>", b"<=", b">=", b"<>", b"!=", b":=", b"||", b"&&", b"<<", b">>", b"->"];
    OPS.iter().find(|op| b[i..].starts_with(op)).map_or(1, |op| op.len())
}

#[cfg(test)]
mod tests {
    use super::normalize;

    fn norm(sql: &str) -> String {
        let mut out = String::new();
        normalize(sql, 1024, &mut out);
        out
    }

    #[test]
    fn literals_become_marks_and_names_are_quoted() {
        assert_eq!(norm("select c from sbtest1 where id=5000"), "SELECT `c` FROM `sbtest1` WHERE ID = ?");
        assert_eq!(norm("SELECT c FROM sbtest1 WHERE id = 7;"), "SELECT `c` FROM `sbtest1` WHERE ID = ?");
        assert_eq!(norm("SELECT 'it''s', \"x\\\"y\", 1.5e-3, 0xFF, X'ab', b'01', _utf8mb4'z', -2"), "SELECT ? , ? , ? , ? , ? , ? , ? , - ?");
        assert_eq!(norm("select `weird name` from t1 where a <=> ? and b->>'$.x'"), "SELECT `weird name` FROM `t1` WHERE `a` <=> ? AND `b` ->> ?");
    }

    #[test]
    fn lists_of_literals_collapse() {
        assert_eq!(norm("select * from t where id in (1,2,3) and c='x'"), "SELECT * FROM `t` WHERE ID IN (...) AND `c` = ?");
        assert_eq!(norm("insert into t(a,b) values (1,'x'),(2,'y'),(3,'z')"), "INSERT INTO `t` ( `a` , `b` ) VALUES (...) /* , ... */");
        assert_eq!(norm("insert into t values (1)"), "INSERT INTO `t` VALUES (...)");
        assert_eq!(norm("select count(*) from t"), "SELECT `count` ( * ) FROM `t`");
        assert_eq!(norm("select f(a, 1) from t"), "SELECT `f` ( `a` , ? ) FROM `t`");
    }

    #[test]
    fn comments_go_and_executable_comments_stay() {
        assert_eq!(norm("/* hint */ select 1 -- tail\n + 2 # more"), "SELECT ? + ?");
        assert_eq!(norm("create table t (a int) /*!40101 engine=InnoDB */"), "CREATE TABLE `t` ( `a` INT ) ENGINE = `InnoDB`");
    }

    #[test]
    fn the_text_is_cut_at_its_limit() {
        let mut out = String::new();
        normalize(&format!("select {}", vec!["a"; 1000].join(",")), 64, &mut out);
        assert!(out.len() <= 64 + 3 && out.ends_with("..."), "{out}");
        // Rows of VALUES collapsing at the limit stay within it (found by the fuzz target).
        for max_len in 16..64 {
            normalize("insert into t values (1,2),(3,4),(5,6),(7,8)", max_len, &mut out);
            assert!(out.len() <= max_len + 3, "{max_len}: {out}");
        }
        // Unbalanced and deeply nested parentheses, odd bytes: no panic.
        normalize(&"(".repeat(10_000), 1024, &mut out);
        normalize(")))'unterminated", 1024, &mut out);
        normalize("select 'é' , ü from t where x = '\u{0}'", 1024, &mut out);
        assert_eq!(out, "SELECT ? , `ü` FROM `t` WHERE `x` = ?");
    }

    #[test]
    fn no_literal_survives_either_lexing_mode_or_an_unterminated_name() {
        // With backslash escapes a backslash is escaped; without, it is itself.
        let sql = r"INSERT INTO t VALUES ('C:\\', 'api-key-123')";
        assert_eq!(norm(sql), "INSERT INTO `t` VALUES (...)");
        let _mode = crate::lex::lexing_mode(true);
        assert_eq!(norm(r"INSERT INTO t VALUES ('C:\', 'api-key-123')"), "INSERT INTO `t` VALUES (...)");
        assert_eq!(norm(r"SELECT 'C:\' , 'secret'"), "SELECT ? , ?");
        assert_eq!(norm("SELECT `x FROM u WHERE pw='hunter2'"), "SELECT");
    }
}
