//! Clauses and modifiers SQLite has no use for or no syntax for, dropped:
//! SELECT and DML modifiers (SQL_NO_CACHE, LOW_PRIORITY, ...), index hints,
//! STRAIGHT_JOIN, DISTINCT after UNION / INTERSECT / EXCEPT, the word ROW of a row constructor,
//! and the locking clauses FOR UPDATE / FOR SHARE / LOCK IN
//! SHARE MODE (SQLite has one writer per file; FOR UPDATE only marks the
//! statement as a writer, so it takes the writer lock first).

use super::translator::{Translator, WordAt, WordStep};
use turnstile_engine::SqlError;

const SKIP_WORDS: &[&str] =
    &["SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE", "SQL_CACHE", "HIGH_PRIORITY", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "LOW_PRIORITY", "DELAYED", "QUICK", "DISTINCTROW"];

/// A modifier dropped wherever it appears (`upper`: the word in capitals).
pub(super) fn is_dropped_modifier(upper: &str) -> bool {
    SKIP_WORDS.contains(&upper)
}

impl Translator<'_> {
    /// STRAIGHT_JOIN, an index hint, or a locking clause at the word.
    pub(super) fn clause_word(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let (i, to) = (word.at, word.to);
        let toks = self.toks;
        Ok(match word.upper {
            "STRAIGHT_JOIN" => {
                let after_select = i > 0 && toks[i - 1].is_kw("SELECT");
                if !after_select {
                    self.push(&toks[i], "JOIN");
                }
                WordStep::Written
            }
            "USE" | "FORCE" | "IGNORE" if self.word_at(i + 1, "INDEX") || self.word_at(i + 1, "KEY") => WordStep::ResumeAt(self.index_hint_end(i, to)),
            "FOR" if self.word_at(i + 1, "UPDATE") || self.word_at(i + 1, "SHARE") => WordStep::ResumeAt(self.locking_clause_end(i, to)),
            "LOCK" if self.word_at(i + 1, "IN") && self.word_at(i + 2, "SHARE") && self.word_at(i + 3, "MODE") => WordStep::ResumeAt(i + 4),
            // `ROW(1, 'a') IN (SELECT ...)`: the row constructor is SQLite's row value `(1, 'a')`.
            "ROW" if self.op_at(i + 1, "(") && !(i > 0 && toks[i - 1].is_op(".")) => {
                // A whole argument of a call that refuses a row: marked for its `)` (function_calls.rs).
                if let Some(marker) = self.row_argument_marker(i, super::function_calls::ROW_MARK) {
                    self.pending_call(&marker);
                }
                WordStep::ResumeAt(i + 1)
            }
            // `SELECT ALL ALL` / `SELECT DISTINCT DISTINCT`: MariaDB reads a
            // repeated option once; ALL beside DISTINCT is its 1221.
            "ALL" | "DISTINCT" if self.repeated_select_option(i) => {
                if !toks[i - 1].is_kw(word.upper) {
                    return Err(SqlError::new(1221, "HY000", "Incorrect usage of ALL and DISTINCT"));
                }
                WordStep::ResumeAt(i + 1)
            }
            // `UNION DISTINCT` is SQLite's UNION (so for INTERSECT and EXCEPT).
            "DISTINCT" if i > 0 && ["UNION", "INTERSECT", "EXCEPT"].iter().any(|k| toks[i - 1].is_kw(k)) => WordStep::ResumeAt(i + 1),
            _ => WordStep::NotMine,
        })
    }

    /// Whether the ALL or DISTINCT at token `i` follows another of the two
    /// among a SELECT's options (`SELECT ALL ALL`, `SELECT DISTINCT ALL`):
    /// two tokens back, so a long run costs nothing more per token.
    fn repeated_select_option(&self, i: usize) -> bool {
        let toks = self.toks;
        let option = |t: &turnstile_sqltext::lex::Token| t.is_kw("ALL") || t.is_kw("DISTINCT");
        i >= 2 && option(&toks[i - 1]) && (toks[i - 2].is_kw("SELECT") || option(&toks[i - 2]))
    }

    /// The index hint at token `i` (USE/FORCE/IGNORE INDEX|KEY [FOR ...]
    /// (list)): the index after its list, all of it skipped.
    fn index_hint_end(&self, i: usize, to: usize) -> usize {
        let toks = self.toks;
        // index hint: skip words up to and including the (list)
        let mut j = i + 1;
        while j < to && !toks[j].is_op("(") {
            j += 1;
        }
        let mut depth = 0;
        while j < to {
            if toks[j].is_op("(") {
                depth += 1;
            } else if toks[j].is_op(")") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j += 1;
        }
        j + 1
    }

    /// FOR UPDATE / FOR SHARE [OF tables] [NOWAIT | SKIP LOCKED] at token
    /// `i`, dropped (FOR UPDATE marks the statement as a writer): the index
    /// after it.
    fn locking_clause_end(&mut self, i: usize, to: usize) -> usize {
        let toks = self.toks;
        if self.word_at(i + 1, "UPDATE") {
            self.for_update = true;
        }
        let mut j = i + 2;
        if self.word_at(j, "OF") {
            j += 1;
            while j < to && (toks[j].ident().is_some() || toks[j].is_op(",")) {
                j += 1;
            }
        }
        if self.word_at(j, "NOWAIT") {
            j += 1;
        } else if self.word_at(j, "SKIP") && self.word_at(j + 1, "LOCKED") {
            j += 2;
        }
        j
    }
}
