//! Operators: MySQL's spellings SQLite lacks or reads otherwise.
//!
//! `||` → OR, `&&` → AND, `!` → NOT, `<=>` → IS, `/` → real division (MySQL's
//! 5/2 is 2.5), `DIV`, `MOD`, `RLIKE`, `->`/`->>`, `SOUNDS LIKE` (→
//! `soundex(a) = soundex(b)`), and LIKE's default backslash escape. MySQL's bitwise XOR and NOT have unsigned 64-bit results
//! SQLite cannot give, and XOR, `:=` in a query: refused. Parentheses are
//! tracked here too (the function each one belongs to, for the translations
//! that depend on it).

use super::literals::str_literal;
use super::translator::{Translator, WordAt, WordStep};
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{self, Tok, Token};
use turnstile_sqltext::parens;

/// End (exclusive) of the operand of a multiplicative operator starting at
/// token `i` (before `to`): unary signs, then a literal, a variable, a
/// parameter, a (qualified) name, a function call, a parenthesized
/// expression or a CASE ... END, then a COLLATE. `i` when it is none of
/// these (nothing is wrapped then).
pub(super) fn operand_end(toks: &[Token], i: usize, to: usize) -> usize {
    let mut j = i;
    while j < to && (toks[j].is_op("-") || toks[j].is_op("+") || toks[j].is_op("!") || toks[j].is_op("~") || toks[j].is_kw("BINARY")) {
        j += 1;
    }
    let close = |open: usize| -> Option<usize> {
        let mut depth = 0usize;
        for (k, t) in toks.iter().enumerate().take(to).skip(open) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
        }
        None
    };
    let Some(t) = toks.get(j).filter(|_| j < to) else { return i };
    let end = match &t.tok {
        Tok::Op("(") => close(j),
        Tok::Word(w) if w.eq_ignore_ascii_case("CASE") => {
            let mut depth = 0usize;
            toks.iter().enumerate().take(to).skip(j).find_map(|(k, t)| {
                if t.is_kw("CASE") {
                    depth += 1;
                } else if t.is_kw("END") {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k + 1);
                    }
                }
                None
            })
        }
        Tok::Word(w) if w.eq_ignore_ascii_case("INTERVAL") || w.eq_ignore_ascii_case("NOT") => None,
        // A call, with the OVER clause of a window function (`OVER (...)` or `OVER w`).
        Tok::Word(_) | Tok::Quoted(_) if toks.get(j + 1).is_some_and(|n| n.is_op("(")) && j + 1 < to => close(j + 1).map(|e| match toks.get(e) {
            Some(o) if e + 1 < to && o.is_kw("OVER") && toks[e + 1].is_op("(") => close(e + 1).unwrap_or(e),
            Some(o) if e + 1 < to && o.is_kw("OVER") && toks[e + 1].ident().is_some() => e + 2,
            _ => e,
        }),
        Tok::Word(_) | Tok::Quoted(_) => {
            let mut k = j + 1;
            while k + 1 < to && toks[k].is_op(".") && (toks[k + 1].ident().is_some() || toks[k + 1].is_op("*")) {
                k += 2;
            }
            Some(k)
        }
        Tok::Number(_) | Tok::Str(_) | Tok::Param | Tok::SysVar(..) | Tok::UserVar(_) => Some(j + 1),
        Tok::Op(_) => None,
    };
    match end {
        Some(e) if toks.get(e).is_some_and(|c| c.is_kw("COLLATE")) && e + 1 < to => e + 2,
        Some(e) => e,
        None => i,
    }
}

/// The first token of the primary that ends right before token `end` (not
/// before `from`): a literal, a possibly qualified name, or a parenthesized
/// expression with the function it calls. None when there is none.
fn primary_start(toks: &[Token], from: usize, end: usize) -> Option<usize> {
    let mut k = end.checked_sub(1).filter(|&k| k >= from)?;
    if toks[k].is_op(")") {
        let mut depth = 0usize;
        loop {
            if toks[k].is_op(")") {
                depth += 1;
            } else if toks[k].is_op("(") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            if k == from {
                return None;
            }
            k -= 1;
        }
        if k > from && toks[k - 1].ident().is_some() {
            k -= 1;
        }
        return Some(k);
    }
    if matches!(toks[k].tok, Tok::Op(_)) {
        return None;
    }
    while k >= from + 2 && toks[k - 1].is_op(".") && toks[k - 2].ident().is_some() {
        k -= 2;
    }
    Some(k)
}

impl Translator<'_> {
    /// An operator spelled as a word: DIV, MOD, XOR, RLIKE, LIKE.
    pub(super) fn operator_word(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let toks = self.toks;
        let t = &toks[word.at];
        match word.upper {
            "DIV" => {
                self.push(t, "/");
                return Ok(WordStep::ResumeAt(self.divisor(word.at + 1, word.to)?));
            }
            "MOD" if !word.call => {
                self.push(t, "%");
                return Ok(WordStep::ResumeAt(self.divisor(word.at + 1, word.to)?));
            }
            // MOD(a, b), and the exact quotient the DECIMAL pass wrote (`ts_ddiv(a, b)`).
            "MOD" | "TS_DDIV" | "TS_DMOD" | "TS_DDIVI" | "TS_FMOD" if self.div_zero > 0 => return self.call_with_divisor(word),
            "XOR" => return Err(Self::unsupported("XOR")),
            "RLIKE" => self.push(t, "REGEXP"),
            "LIKE" => return self.like(word.at),
            "SOUNDS" if self.word_at(word.at + 1, "LIKE") => return self.sounds_like(word),
            "IN" if self.literal_in_list(word.at) => {
                // `'a' IN ('A', ...)`: by the connection's collation, as `=`.
                self.raw(" COLLATE ts_ci");
                self.push(t, "IN");
            }
            _ => return Ok(WordStep::NotMine),
        }
        Ok(WordStep::Written)
    }

    /// `a SOUNDS LIKE b` with SOUNDS at the word, a already written:
    /// `soundex(a) = soundex(b)`, as MariaDB defines it. a is the primary
    /// before SOUNDS (a literal, a possibly qualified name, a function call
    /// or a parenthesized expression), b the operand after LIKE.
    fn sounds_like(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let (from, i, to) = (word.from, word.at, word.to);
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[i].start..]);
        let k = primary_start(toks, from, i).ok_or_else(syntax)?;
        let right_end = operand_end(toks, i + 2, to);
        let start = self.out_at[k];
        if start == usize::MAX || start > self.out.len() || right_end == i + 2 {
            return Err(syntax());
        }
        let start = start + self.out[start..].len() - self.out[start..].trim_start().len();
        self.out.insert_str(start, "soundex(");
        for p in self.out_at.iter_mut().filter(|p| **p != usize::MAX && **p >= start) {
            *p += "soundex(".len();
        }
        self.raw(") = soundex(");
        self.emit(i + 2, right_end)?;
        self.raw(")");
        self.last_end = Some(toks[right_end - 1].end);
        Ok(WordStep::ResumeAt(right_end))
    }

    /// LIKE at token `i`. MySQL's LIKE escapes with backslash by default:
    /// a pattern with a backslash and no ESCAPE gets SQLite's `ESCAPE '\'`.
    /// `ESCAPE ''` is backslash too (MariaDB; under NO_BACKSLASH_ESCAPES it
    /// is 1210, as an escape string of more than one character always is).
    fn like(&mut self, i: usize) -> Result<WordStep, SqlError> {
        let toks = self.toks;
        if let Some(escape) = toks.iter().skip(i + 1).take(4).position(|t| t.is_kw("ESCAPE")).map(|k| i + 1 + k) {
            if let Some(Tok::Str(e)) = toks.get(escape + 1).map(|n| &n.tok) {
                let chars = String::from_utf8_lossy(e).chars().count();
                if chars > 1 || (chars == 0 && !lex::backslash_escapes()) {
                    return Err(SqlError::new(1210, "HY000", "Incorrect arguments to ESCAPE"));
                }
                if chars == 0 && escape == i + 2 {
                    self.push(&toks[i], "LIKE");
                    self.emit(i + 1, i + 2)?;
                    self.raw(" ESCAPE '\\'");
                    self.last_end = Some(toks[escape + 1].end);
                    return Ok(WordStep::ResumeAt(escape + 2));
                }
            }
        }
        self.push(&toks[i], "LIKE");
        // MySQL's LIKE escapes with backslash by default.
        if let Some(Tok::Str(s)) = toks.get(i + 1).map(|n| &n.tok) {
            if s.contains(&b'\\') && !self.word_at(i + 2, "ESCAPE") {
                let lit = str_literal(s);
                self.push(&toks[i + 1], &lit);
                self.raw(" ESCAPE '\\'");
                self.last_end = Some(toks[i + 1].end);
                return Ok(WordStep::ResumeAt(i + 2));
            }
        }
        Ok(WordStep::Written)
    }

    /// The divisor of `/`, DIV, `%` or MOD starting at token `i`: when a
    /// division by zero raises something (`div_zero`), written as
    /// `ts_nz(divisor, mode)` (functions/fit.rs: 1365, a warning or the
    /// statement's error, and NULL), unless it is a number other than 0.
    /// Returns the index of the next token to translate (`i` when nothing
    /// was written: the loop translates the divisor as usual).
    fn divisor(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        if self.div_zero == 0 {
            return Ok(i);
        }
        let end = operand_end(self.toks, i, to);
        let nonzero_literal = end == i + 1 && matches!(&self.toks[i].tok, Tok::Number(n) if lex::hybrid_bytes(n).is_none() && n.parse::<f64>().is_ok_and(|f| f != 0.0));
        if end == i || nonzero_literal {
            return Ok(i);
        }
        let toks = self.toks;
        self.gap(&toks[i]);
        self.raw("ts_nz(");
        self.emit(i, end)?;
        self.raw(&format!(", {})", self.div_zero));
        self.last_end = Some(toks[end - 1].end);
        Ok(end)
    }

    /// MOD(a, b) or ts_ddiv(a, b) with its divisor through `divisor`.
    fn call_with_divisor(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let toks = self.toks;
        let open = word.at + 1;
        // The name alone (`ts_ddiv = 0`, a column): not a call.
        if !self.op_at(open, "(") {
            return Ok(WordStep::NotMine);
        }
        let Some((close, inner)) = self.paren_span(open, word.to) else { return Ok(WordStep::NotMine) };
        let Some(comma) = inner.into_iter().find(|&j| toks[j].is_op(",")) else { return Ok(WordStep::NotMine) };
        let name = &self.sql[toks[word.at].start..toks[word.at].end];
        self.push(&toks[word.at], name);
        self.push(&toks[open], "(");
        self.emit(open + 1, comma)?;
        self.push(&toks[comma], ",");
        let next = self.divisor(comma + 1, close)?;
        self.emit(next, close)?;
        self.push(&toks[close], ")");
        Ok(WordStep::ResumeAt(close + 1))
    }

    /// The operator at token `i` written as the word `w`, with spaces where
    /// the operator touched its operands (`a<=>b` is `a IS b`, not `aISb`).
    fn push_word(&mut self, i: usize, w: &str) {
        let toks = self.toks;
        let t = &toks[i];
        let before = i > 0 && toks[i - 1].end == t.start;
        let after = toks.get(i + 1).is_some_and(|n| n.start == t.end);
        let text = format!("{}{}{}", if before { " " } else { "" }, w, if after { " " } else { "" });
        self.push(t, &text);
    }

    /// The operator `op` at token `i`; returns the index of the next token.
    /// `from`: the start of the range being copied.
    pub(super) fn emit_operator(&mut self, from: usize, i: usize, to: usize, op: &'static str) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = &toks[i];
        match op {
            "=" | "<>" | "!=" | "<" | ">" | "<=" | ">=" if self.quantifier_at(i + 1) => return self.quantified(from, i, to, op),
            "||" => self.push_word(i, "OR"),
            "&&" => self.push_word(i, "AND"),
            "!" => self.push_word(i, "NOT"),
            "<=>" => self.push_word(i, "IS"),
            ":=" => return Err(Self::unsupported("':=' assignment in a query")),
            // MySQL's bitwise results are unsigned 64-bit; SQLite has no ^ and a signed ~.
            "^" => return Err(Self::unsupported("the ^ (bitwise XOR) operator")),
            "~" => return Err(Self::unsupported("the ~ (bitwise NOT) operator")),
            "/" => {
                self.push(t, "* 1.0 /");
                return self.divisor(i + 1, to);
            }
            "%" => {
                self.push(t, "%");
                return self.divisor(i + 1, to);
            }
            "-" if toks.get(i + 1).is_some_and(|n| (n.is_op(">") || n.is_op(">>")) && n.start == t.end) => {
                let arrow = if toks[i + 1].is_op(">>") { "->>" } else { "->" };
                self.push(t, arrow);
                self.last_end = Some(toks[i + 1].end);
                return Ok(i + 2);
            }
            "(" => {
                if let Some(next) = self.scalar_subquery(i, to)? {
                    return Ok(next);
                }
                self.push(t, "(");
                let mut function = self.take_pending();
                // `(a, b)` as a whole argument of a call that refuses a row (function_calls.rs).
                if function.is_empty() {
                    if let Some(marker) = self.row_argument_marker(i, super::function_calls::TUPLE_MARK) {
                        function = marker;
                    }
                }
                self.parens.push(function);
            }
            ")" => {
                let closes = self.parens.pop();
                if let Some(err) = closes.as_deref().and_then(|f| self.refused_row_argument(i, f)) {
                    return Err(err);
                }
                let wrapped = closes.is_some_and(|f| super::function_calls::JSON_SPACED.contains(&f.as_str()));
                self.push(t, if wrapped { "))" } else { ")" });
            }
            "=" | "<>" | "!=" | "<" | ">" | "<=" | ">=" if self.literal_compares_by_connection_collation(i) => {
                self.push(t, op);
                self.emit(i + 1, i + 2)?;
                self.raw(" COLLATE ts_ci");
                return Ok(i + 2);
            }
            // A parenthesised group with a comma is a row.
            "," if self.parens.last().is_some_and(|f| f.starts_with(super::function_calls::TUPLE_MARK)) => {
                if let Some(f) = self.parens.last_mut() {
                    *f = f.replacen(super::function_calls::TUPLE_MARK, super::function_calls::ROW_MARK, 1);
                }
                self.push(t, op);
            }
            "," if self.parens.last().is_some_and(|f| f == "CONVERT") => {
                self.push(t, " AS");
                return self.cast_type(i + 1, to);
            }
            _ => self.push(t, op),
        }
        Ok(i + 1)
    }

    /// `x IN (list)` at token `in_at` where x is a string literal or a
    /// parameter and the list is not a subquery: compared by the
    /// connection's collation (see `literal_compares_by_connection_collation`).
    fn literal_in_list(&self, in_at: usize) -> bool {
        let toks = self.toks;
        let left = in_at.checked_sub(1).map(|l| &toks[l]);
        let literal = left.is_some_and(|l| matches!(l.tok, Tok::Str(_) | Tok::Param));
        let list = toks.get(in_at + 1).is_some_and(|n| n.is_op("(")) && !toks.get(in_at + 2).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH") || n.is_op("("));
        // A member with its own collation decides (MySQL's coercibility).
        let collated = || parens::closing(toks, in_at + 1).is_none_or(|close| toks[in_at + 2..close].iter().any(|t| t.is_kw("COLLATE")));
        literal && list && !collated()
    }

    /// The simple CASE whose base is the string literal at token `at`
    /// (`CASE 'str' WHEN 'STR' ...`) compares by the connection's collation,
    /// unless an operand up to its END names its own.
    pub(super) fn literal_case_base(&self, at: usize, next: usize) -> bool {
        let toks = self.toks;
        if !(at > 0 && toks[at - 1].is_kw("CASE") && toks.get(next).is_some_and(|n| n.is_kw("WHEN"))) {
            return false;
        }
        let mut depth = 1usize;
        for t in &toks[next..] {
            if t.is_kw("CASE") {
                depth += 1;
            } else if t.is_kw("END") {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            } else if t.is_kw("COLLATE") || t.is_kw("BINARY") {
                return false;
            }
        }
        false
    }

    /// The comparison at token `op`: is its right operand a string literal
    /// or a parameter, and its left operand no column (a function's result,
    /// a literal, a parameter)? Then MySQL compares by the connection's
    /// collation (utf8mb4_general_ci: `LOWER(n) = 'BOB'` and `'a' = 'A'`
    /// are true) where SQLite would compare bytes, so the literal gets
    /// `COLLATE ts_ci`. A column on either side keeps its own collation, as
    /// MySQL's coercibility rules give it precedence over a literal.
    fn literal_compares_by_connection_collation(&self, op: usize) -> bool {
        let toks = self.toks;
        let (Some(left), Some(right)) = (op.checked_sub(1).map(|l| &toks[l]), toks.get(op + 1)) else { return false };
        let right_text = matches!(right.tok, Tok::Str(_) | Tok::Param);
        let ends_operand = toks.get(op + 2).is_none_or(|n| !(n.is_op(".") || n.is_op("(") || n.is_kw("COLLATE")));
        let left_no_column = left.is_op(")") || matches!(left.tok, Tok::Str(_) | Tok::Param);
        // A left operand written with its own collation (BINARY x, x COLLATE c) keeps it.
        let left_collated = self.out.trim_end().rsplit(' ').nth(1).is_some_and(|w| w.eq_ignore_ascii_case("COLLATE"));
        right_text && ends_operand && left_no_column && !left_collated
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::rewrite_select;

    #[test]
    fn a_divisor_function_name_without_its_call_is_no_call() {
        // Found by the rewrite fuzz target: `TS_DDIV=0` reached the call's
        // reader, which asserts it starts at `(`.
        let sql = "UPDATE t SET x = x * DATE t SET x = x * 1.U:PD a, f = x / 7 WHERE id TS_DDIV=0.U:Pf , Da = w / 7 WHER& id = 1";
        let def = "CREATE TABLE t (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT, x DECIMAL(10,2), f DOUBLE)";
        let resolver = super::super::test_support::TestResolver(vec![std::sync::Arc::new(super::super::test_support::table_def(def))]);
        let _ = super::super::rewrite(sql, super::super::Kind::Update, &resolver);
        let _ = super::super::rewrite("SELECT a FROM t WHERE MOD = 1 AND ts_ddiv", super::super::Kind::Select, &super::super::test_support::resolver());
    }

    #[test]
    fn sounds_like_compares_soundex() {
        assert_eq!(rewrite_select("SELECT 'mood' sounds like 'mud' FROM t"), "SELECT soundex('mood') = soundex('mud') AS \"'mood' sounds like 'mud'\" FROM t");
        assert_eq!(rewrite_select("SELECT a FROM t WHERE t.b SOUNDS LIKE lower(c) AND d"), "SELECT a FROM t WHERE soundex(t.b) = soundex(lower(c)) AND d");
        assert_eq!(rewrite_select("SELECT a FROM t WHERE concat(b, 'x') SOUNDS LIKE -1"), "SELECT a FROM t WHERE soundex(concat(b, 'x')) = soundex(-1)");
        for bad in ["SELECT a SOUNDS LIKE", "SELECT (a SOUNDS LIKE) FROM t"] {
            assert!(super::super::rewrite(bad, super::super::Kind::Select, &super::super::test_support::resolver()).is_err(), "{}", bad);
        }
    }
}
