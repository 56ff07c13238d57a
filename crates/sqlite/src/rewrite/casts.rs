//! Types and collations: CAST and CONVERT targets as SQLite's type names,
//! `CAST(x AS BINARY(n))` as `ts_bin_n` (MySQL pads or cuts to n bytes),
//! `CAST(x AS TIME(n))` (and DATE, DATETIME) as `ts_cast_temporal`,
//! CONVERT(x USING cs), the BINARY operator and `CAST(x AS BINARY)` as
//! `COLLATE BINARY` (byte comparison), and COLLATE names as SQLite's
//! collations (BINARY, RTRIM for `_bin`, else the case-insensitive `ts_ci`).

use super::translator::{Translator, WordAt, WordStep};
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::Tok;

impl Translator<'_> {
    /// CAST, CONVERT, BINARY, COLLATE at the word, or USING/AS inside a
    /// CAST or CONVERT.
    // Inlined: on the recursion path of `emit` (see `Translator::emit`).
    #[inline(always)]
    pub(super) fn cast_word(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let (i, to, call) = (word.at, word.to, word.call);
        let toks = self.toks;
        let t = &toks[i];
        Ok(match word.upper {
            "CAST" | "CONVERT" if call && self.binary_n_cast(i, to).is_some() => WordStep::ResumeAt(self.emit_binary_n_cast(i, to)?),
            "CAST" | "CONVERT" if call && self.temporal_cast(i, to).is_some() => WordStep::ResumeAt(self.emit_temporal_cast(i, to)?),
            "CAST" | "CONVERT" if call && self.plain_binary_cast(i, to).is_some() => WordStep::ResumeAt(self.emit_plain_binary_cast(i, to)?),
            "CONVERT" if call => {
                self.push(t, "CAST");
                WordStep::Written
            }
            // BINARY x / BINARY(x): x compared byte by byte.
            "BINARY" if self.parens.last().is_none_or(|f| f != "CAST#AS") => WordStep::ResumeAt(self.emit_binary_operator(i, to)?),
            "COLLATE" => WordStep::ResumeAt(self.collate(i)?),
            "USING" if self.parens.last().is_some_and(|f| f == "CONVERT") => {
                // CONVERT(x USING cs) → CAST(x AS TEXT)
                self.push(t, "AS TEXT");
                WordStep::ResumeAt(i + 2)
            }
            "AS" if self.parens.last().is_some_and(|f| f == "CAST" || f == "CONVERT") => {
                self.push(t, "AS");
                WordStep::ResumeAt(self.cast_type(i + 1, to)?)
            }
            _ => WordStep::NotMine,
        })
    }

    /// `COLLATE name` at token `i` → SQLite's collation of that kind.
    /// Returns the index after the name.
    fn collate(&mut self, i: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = &toks[i];
        let name = toks.get(i + 1).and_then(|n| match &n.tok {
            Tok::Word(w) | Tok::Quoted(w) => Some(w.to_string()),
            Tok::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
            _ => None,
        });
        let name = name.ok_or_else(|| SqlError::syntax(&self.sql[t.start..]))?.to_ascii_lowercase();
        // ts_dec: the DECIMAL order rewrite/decimal.rs gives exact DECIMAL expressions.
        let coll = if name == "ts_dec" {
            "ts_dec"
        } else if name == "binary" {
            "BINARY"
        } else if name.ends_with("_bin") {
            "RTRIM"
        } else {
            "ts_ci"
        };
        self.push(t, &format!("COLLATE {}", coll));
        self.last_end = Some(toks[i + 1].end);
        Ok(i + 2)
    }

    /// `CAST(x AS BINARY(n))` / `CONVERT(x, BINARY(n))` at token `i`: the
    /// index of the AS or comma, n, and the index of the closing parenthesis.
    fn binary_n_cast(&self, i: usize, to: usize) -> Option<(usize, u64, usize)> {
        let toks = self.toks;
        let (close, inner) = self.paren_span(i + 1, to)?;
        let sep = inner.into_iter().find(|&j| toks[j].is_kw("AS") || toks[j].is_op(","))?;
        let n = match toks.get(sep + 3).map(|t| &t.tok) {
            Some(Tok::Number(n)) => n.parse::<u64>().ok()?,
            _ => return None,
        };
        let shape = self.word_at(sep + 1, "BINARY") && self.op_at(sep + 2, "(") && self.op_at(sep + 4, ")") && sep + 5 == close;
        shape.then_some((sep, n, close))
    }

    /// `CAST(x AS BINARY(n))` → `ts_bin_n(x, n)`: exactly n bytes, padded with
    /// 0x00 or cut, as MySQL's cast. Returns the index after the cast.
    fn emit_binary_n_cast(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let (sep, n, close) = self.binary_n_cast(i, to).ok_or_else(|| SqlError::syntax(&self.sql[toks[i].start..]))?;
        self.push(&toks[i], "ts_bin_n(");
        self.last_end = None;
        self.emit(i + 2, sep)?;
        self.raw(&format!(", {})", n));
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// `CAST(x AS DATE|DATETIME|TIME[(n)])` / `CONVERT(x, ...)` at token `i`:
    /// the index of the AS or comma, the target, its digits, and the index of
    /// the closing parenthesis.
    fn temporal_cast(&self, i: usize, to: usize) -> Option<(usize, &'static str, u64, usize)> {
        let toks = self.toks;
        let (close, inner) = self.paren_span(i + 1, to)?;
        let sep = inner.into_iter().rev().find(|&j| toks[j].is_kw("AS") || toks[j].is_op(","))?;
        let kind = ["DATE", "DATETIME", "TIME"].into_iter().find(|k| self.word_at(sep + 1, k))?;
        let fsp = match toks.get(sep + 3).map(|t| &t.tok) {
            Some(Tok::Number(n)) if self.op_at(sep + 2, "(") && self.op_at(sep + 4, ")") && sep + 5 == close => n.parse::<u64>().ok().filter(|n| *n <= 6)?,
            _ if sep + 2 == close => 0,
            _ => return None,
        };
        let kind = match kind {
            "DATE" => "date",
            "DATETIME" => "datetime",
            _ => "time",
        };
        Some((sep, kind, fsp, close))
    }

    /// `CAST(x AS TIME(n))` → `ts_cast_temporal(x, 'time', n)`: MySQL's
    /// conversion (the time of day of a datetime, a number as HHMMSS...), not
    /// the text. Returns the index after the cast.
    fn emit_temporal_cast(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let (sep, kind, fsp, close) = self.temporal_cast(i, to).ok_or_else(|| SqlError::syntax(&self.sql[toks[i].start..]))?;
        self.push(&toks[i], "ts_cast_temporal(");
        self.last_end = None;
        self.emit(i + 2, sep)?;
        self.raw(&format!(", '{}', {})", kind, fsp));
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// `BINARY x` at token `i` → `(x) COLLATE BINARY`: a binary string
    /// compares byte by byte (case, accents and trailing spaces count), and
    /// an explicit collation wins over the other operand's column collation
    /// (`name = BINARY 'x'` too). x is a parenthesized expression, a function
    /// call, a (qualified) name or one token. Returns the index after x.
    fn emit_binary_operator(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let end = self.binary_operand_end(i + 1, to).ok_or_else(|| SqlError::syntax(&self.sql[toks[i].start..]))?;
        self.push(&toks[i], "(");
        self.last_end = None;
        self.emit(i + 1, end)?;
        self.raw(") COLLATE BINARY");
        self.last_end = Some(toks[end - 1].end);
        Ok(end)
    }

    /// End (exclusive) of the operand of BINARY starting at token `j`.
    fn binary_operand_end(&self, j: usize, to: usize) -> Option<usize> {
        let toks = self.toks;
        if j >= to || j >= toks.len() {
            return None;
        }
        if self.op_at(j, "(") {
            return self.paren_span(j, to).map(|(close, _)| close + 1);
        }
        let name = |k: usize| k < to && matches!(toks.get(k).map(|t| &t.tok), Some(Tok::Word(_) | Tok::Quoted(_)));
        if !name(j) {
            return Some(j + 1);
        }
        let mut k = j + 1;
        while self.op_at(k, ".") && name(k + 1) {
            k += 2;
        }
        if self.op_at(k, "(") {
            return self.paren_span(k, to).map(|(close, _)| close + 1);
        }
        Some(k)
    }

    /// `CAST(x AS BINARY)` / `CONVERT(x, BINARY)` at token `i`: the index of
    /// the AS or comma and of the closing parenthesis.
    fn plain_binary_cast(&self, i: usize, to: usize) -> Option<(usize, usize)> {
        let toks = self.toks;
        let (close, inner) = self.paren_span(i + 1, to)?;
        let sep = inner.into_iter().rev().find(|&j| toks[j].is_kw("AS") || toks[j].is_op(","))?;
        (self.word_at(sep + 1, "BINARY") && sep + 2 == close).then_some((sep, close))
    }

    /// `CAST(x AS BINARY)` → `(CAST(x AS TEXT) COLLATE BINARY)`: its bytes,
    /// compared byte by byte. Returns the index after the cast.
    fn emit_plain_binary_cast(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let (sep, close) = self.plain_binary_cast(i, to).ok_or_else(|| SqlError::syntax(&self.sql[toks[i].start..]))?;
        self.push(&toks[i], "(CAST(");
        self.last_end = None;
        self.emit(i + 2, sep)?;
        self.raw(" AS TEXT) COLLATE BINARY)");
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// Translate a CAST/CONVERT target type starting at token `i`; returns the
    /// index after it.
    pub(super) fn cast_type(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = toks.get(i).filter(|_| i < to).ok_or_else(|| SqlError::syntax(""))?;
        let name = t.ident().unwrap_or("").to_ascii_uppercase();
        let mut j = i + 1;
        let target = match name.as_str() {
            "SIGNED" | "UNSIGNED" => {
                if self.word_at(j, "INTEGER") || self.word_at(j, "INT") {
                    j += 1;
                }
                "INTEGER"
            }
            "INTEGER" | "INT" => "INTEGER",
            "CHAR" | "NCHAR" | "VARCHAR" | "BINARY" | "TEXT" | "DATE" | "DATETIME" | "TIME" | "JSON" | "YEAR" => "TEXT",
            "DECIMAL" | "NUMERIC" => "NUMERIC",
            "DOUBLE" | "FLOAT" | "REAL" => "REAL",
            _ => return Err(SqlError::syntax(&self.sql[t.start..])),
        };
        if self.op_at(j, "(") {
            while j < to && !toks[j].is_op(")") {
                j += 1;
            }
            j += 1;
        }
        while self.word_at(j, "CHARACTER") || self.word_at(j, "CHARSET") || self.word_at(j, "ARRAY") {
            if self.word_at(j, "CHARACTER") {
                j += 1;
            }
            j += 2;
        }
        self.raw(&format!(" {}", target));
        if let Some(p) = self.parens.last_mut() {
            if p == "CONVERT" {
                *p = "CAST#AS".into();
            }
        }
        if j > 0 {
            self.last_end = Some(toks[(j - 1).min(toks.len() - 1)].end);
        }
        Ok(j)
    }
}
