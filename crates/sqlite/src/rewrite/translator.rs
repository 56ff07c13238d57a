//! The translator's state and output, and the token loop every translation
//! goes through.
//!
//! `Translator::emit` copies a range of tokens to SQLite text, keeping the
//! original spacing (`gap`), and hands each token to the translation for its
//! kind: a word to each word translation in turn (`emit_word`), then to
//! names.rs when none takes it; literals to literals.rs; operators to
//! operators.rs. Statement forms (select.rs, insert.rs, update_delete.rs)
//! call `emit` on the ranges they copy and `raw` for the text they generate.

use super::clauses::is_dropped_modifier;
use super::literals::needs_exact_float;
use super::Resolver;
use turnstile_engine::{SqlError, SqlMode};
use turnstile_sqltext::lex::{self, Tok, Token};

/// Translates one MySQL statement (or expression) into `out`.
pub(super) struct Translator<'a> {
    pub(super) sql: &'a str,
    pub(super) toks: &'a [Token],
    pub(super) resolver: &'a dyn Resolver,
    pub(super) out: String,
    pub(super) dbs: Vec<String>,
    pub(super) info_schema: bool,
    pub(super) for_update: bool,
    pub(super) tables: Vec<(Option<String>, String)>,
    /// Function names of the open parentheses (empty string: not a call).
    pub(super) parens: Vec<String>,
    /// Inside ON DUPLICATE KEY UPDATE: VALUES(c) → excluded.c
    pub(super) odku: bool,
    pub(super) last_end: Option<usize>,
    pub(super) parens_pending: Option<String>,
    /// Inside a FROM list (a comma introduces another table).
    pub(super) in_from: bool,
    pub(super) ctes: Vec<String>,
    /// When set, `?` at token i is written `?N` with N = `param_ord[i]` + 1
    /// (the statement repeats some expressions, which must reuse the
    /// client's parameter, not add one).
    pub(super) param_ord: Option<Vec<usize>>,
    /// Output offset at which token i began (usize::MAX: not emitted), for
    /// `x + INTERVAL n unit`, which wraps x after it was written.
    pub(super) out_at: Vec<usize>,
    /// (unit token, first token of the wrapped operand) of the last
    /// `x ± INTERVAL` rewritten, so a chain wraps the whole left side.
    pub(super) last_interval: Option<(usize, usize)>,
    /// The table values are stored into, as MySQL names it in messages
    /// (`` `db`.`t` ``): set by INSERT and UPDATE for `emit_store`.
    pub(super) store_table: String,
    /// The VALUES row being written (1-based; 0: not a VALUES row), for the
    /// row MySQL's notes name.
    pub(super) store_row: usize,
    /// INSERT into a table whose AUTO_INCREMENT column is not the rowid:
    /// the subquery reading that column's largest value (`ts_ai_key`).
    pub(super) ai_largest: Option<String>,
    /// The session's sql_mode (`Resolver::sql_mode`).
    pub(super) sql_mode: SqlMode,
    /// A lenient write (not strict, or IGNORE): values go through `ts_fit`
    /// (store.rs), which `fit` holds the arguments of for the value being written.
    pub(super) lenient: bool,
    pub(super) fit: Option<String>,
    /// The value being written goes to an integer (or YEAR) column.
    pub(super) fit_integer: bool,
    /// An INSERT's rows are followed by ON CONFLICT (an upsert).
    pub(super) upsert_follows: bool,
    /// INSERT IGNORE's test of each row's parents (insert.rs: `parent_tests`).
    pub(super) row_filter: Option<String>,
    /// The columns `ts_fit` calls name (functions/fit.rs: `FitColumn`).
    pub(super) fits: Vec<crate::functions::FitColumn>,
    /// Write `ts_fit_q` (quiet) rather than `ts_fit` (an UPDATE's SET: its
    /// change test raises the warnings).
    pub(super) fit_quiet: bool,
    /// NULL into a NOT NULL column is its zero with Warning 1048 (lenient
    /// writes but a single-row INSERT without IGNORE, MariaDB's rule).
    pub(super) nulls_to_default: bool,
    /// What a division by zero does (operators.rs): 0 nothing, 1 a
    /// warning, 2 the statement's error.
    pub(super) div_zero: u8,
    /// A multi-table UPDATE or DELETE's writes (multi_table.rs).
    pub(super) multi: Option<std::sync::Arc<super::MultiInfo>>,
    /// A multi-table UPDATE's target whose SET values are being written:
    /// its name in the join and its columns, so that IGNORE and a DEFAULT
    /// that reads other columns name its own (update_delete.rs).
    pub(super) set_target: Option<(String, Vec<String>)>,
    /// A VALUES row's column references (MariaDB reads `VALUES ('x', a)`'s
    /// `a` as the value the row gave it before, else its default): each
    /// column's name and the SQL text of that value (insert.rs).
    pub(super) row_refs: Vec<(String, String)>,
}

/// A word `emit` is translating: token `at` of the range [from, to) it copies.
pub(super) struct WordAt<'w> {
    pub(super) from: usize,
    pub(super) at: usize,
    pub(super) to: usize,
    /// The word in capitals.
    pub(super) upper: &'w str,
    /// A `(` follows: a function call.
    pub(super) call: bool,
}

/// What a word translation did with the word.
pub(super) enum WordStep {
    /// Not a word it translates (nothing written).
    NotMine,
    /// The word is written (or dropped); the token loop goes on with the
    /// next token, remembering a called function's name for its `(`.
    Written,
    /// Tokens up to this index (exclusive) are translated.
    ResumeAt(usize),
}

impl<'a> Translator<'a> {
    pub(super) fn new(sql: &'a str, toks: &'a [Token], resolver: &'a dyn Resolver) -> Translator<'a> {
        Translator {
            sql,
            toks,
            resolver,
            out: String::with_capacity(sql.len() + 16),
            dbs: Vec::new(),
            info_schema: false,
            for_update: false,
            tables: Vec::new(),
            parens: Vec::new(),
            odku: false,
            last_end: None,
            parens_pending: None,
            in_from: false,
            ctes: Vec::new(),
            param_ord: None,
            out_at: vec![usize::MAX; toks.len()],
            last_interval: None,
            store_table: String::new(),
            store_row: 0,
            ai_largest: None,
            sql_mode: resolver.sql_mode(),
            lenient: false,
            fit: None,
            fit_integer: false,
            upsert_follows: false,
            row_filter: None,
            fits: Vec::new(),
            fit_quiet: false,
            nulls_to_default: false,
            div_zero: resolver.sql_mode().error_for_division_by_zero() as u8,
            multi: None,
            set_target: None,
            row_refs: Vec::new(),
        }
    }

    /// An INSERT or UPDATE (`ignore`: with IGNORE) decides how its values
    /// are written: strict, or lenient (`ts_fit`); and whether a division
    /// by zero in it is an error (ERROR_FOR_DIVISION_BY_ZERO in a strict
    /// write) or a warning.
    pub(super) fn set_write_mode(&mut self, ignore: bool) {
        let strict = self.sql_mode.strict() && !ignore;
        self.lenient = !strict;
        if self.div_zero > 0 && strict {
            self.div_zero = 2;
        }
    }

    /// Separator before a token: the original whitespace when it was plain
    /// whitespace, else one space.
    pub(super) fn gap(&mut self, t: &Token) {
        match self.last_end {
            Some(e) if e <= t.start => {
                let g = &self.sql[e..t.start];
                if g.bytes().all(|b| b.is_ascii_whitespace()) {
                    self.out.push_str(g);
                } else {
                    self.out.push(' ');
                }
            }
            Some(_) => self.out.push(' '),
            None => {
                if !self.out.is_empty() && !self.out.ends_with(' ') && !self.out.ends_with('(') {
                    self.out.push(' ');
                }
            }
        }
        self.last_end = Some(t.end);
    }

    pub(super) fn push(&mut self, t: &Token, text: &str) {
        self.gap(t);
        // MySQL reads `--1` as two minuses (its comments need `-- `); SQLite
        // would read a comment.
        if self.out.ends_with('-') && text.starts_with('-') {
            self.out.push(' ');
        }
        self.out.push_str(text);
    }

    /// Raw text from the generator (not a source token).
    pub(super) fn raw(&mut self, s: &str) {
        self.out.push_str(s);
        self.last_end = None;
    }

    pub(super) fn word_at(&self, i: usize, kw: &str) -> bool {
        self.toks.get(i).is_some_and(|t| t.is_kw(kw))
    }
    pub(super) fn op_at(&self, i: usize, op: &str) -> bool {
        self.toks.get(i).is_some_and(|t| t.is_op(op))
    }

    pub(super) fn unsupported(what: &str) -> SqlError {
        SqlError::unsupported(what)
    }

    /// Copy tokens [from, to) translating as described in the module header.
    /// Every recursion of the rewriter passes through here: the thread's
    /// stack is checked first (ERR 1436 on a deep nesting).
    ///
    /// The word translations a nested call recurses through (`emit_word`,
    /// function_word, cast_word, interval_word and the calls they translate
    /// in place) are
    /// `#[inline(always)]`: one frame per nesting level, as when they were
    /// all one function, so a thread's stack holds as deep a nesting.
    pub(super) fn emit(&mut self, from: usize, to: usize) -> Result<(), SqlError> {
        turnstile_engine::stack::check()?;
        let toks = self.toks;
        let mut i = from;
        while i < to {
            let t = &toks[i];
            self.out_at[i] = self.out.len();
            i = match &t.tok {
                Tok::Word(w) | Tok::Quoted(w) => self.emit_word(from, i, to, w)?,
                Tok::Str(s) => {
                    let next = self.emit_string(i, to, s);
                    // `CASE 'str' WHEN 'STR'`: by the connection's collation, as `=`.
                    if self.literal_case_base(i, next) {
                        self.raw(" COLLATE ts_ci");
                    }
                    next
                }
                Tok::Number(n) if needs_exact_float(n) => {
                    self.push(t, &format!("ts_f64('{}')", n));
                    i + 1
                }
                Tok::Number(n) => {
                    match lex::hybrid_bytes(n) {
                        Some(b) => {
                            let text = self.hybrid_literal(i, &b);
                            self.push(t, &text);
                        }
                        None => self.push(t, n),
                    }
                    i + 1
                }
                Tok::Param => {
                    let marker = match self.param_ord.as_ref().map(|o| o[i] + 1) {
                        Some(n) => format!("?{}", n),
                        None => "?".to_string(),
                    };
                    // A LIMIT or OFFSET value bound as a decimal, double or
                    // string: MariaDB takes its integer value, rounded
                    // (SQLite refuses a LIMIT that is not an integer).
                    let in_limit = i > 0 && (self.word_at(i - 1, "LIMIT") || self.word_at(i - 1, "OFFSET") || (i > 2 && self.op_at(i - 1, ",") && self.word_at(i - 3, "LIMIT")));
                    if in_limit {
                        self.push(t, &format!("CAST(ROUND({}) AS INTEGER)", marker));
                    } else {
                        self.push(t, &marker);
                    }
                    i + 1
                }
                Tok::SysVar(..) | Tok::UserVar(_) => {
                    return Err(Self::unsupported("variables in this statement"));
                }
                Tok::Op(op) => self.emit_operator(from, i, to, op)?,
            };
        }
        Ok(())
    }

    /// The word `w` at token `i` (bare or quoted): a `db.` qualifier, a
    /// quoted name, a word one of the word translations takes, or a plain
    /// name. Returns the index of the next token to translate.
    // Inlined: on the recursion path of `emit` (see `Translator::emit`).
    #[inline(always)]
    fn emit_word(&mut self, from: usize, i: usize, to: usize, w: &str) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = &toks[i];
        if let Some(next) = self.schema_qualifier(from, i, to, w) {
            return Ok(next);
        }
        // A name with `$` (`$b`, MariaDB's) is quoted: SQLite reads `$b` as a parameter.
        if matches!(t.tok, Tok::Quoted(_)) || w.contains('$') {
            self.quoted_name(i, w);
            return Ok(i + 1);
        }
        let upper = w.to_ascii_uppercase();
        let call = self.op_at(i + 1, "(");
        if is_dropped_modifier(&upper) {
            return Ok(i + 1);
        }
        let word = WordAt { from, at: i, to, upper: &upper, call };
        // The word translations, tried in this order (FOR, the one word two
        // of them take, in different contexts, is the clauses' first).
        let mut step = self.operator_word(&word)?;
        if let WordStep::NotMine = step {
            step = self.clause_word(&word)?;
        }
        if let WordStep::NotMine = step {
            step = self.interval_word(&word)?;
        }
        if let WordStep::NotMine = step {
            step = self.cast_word(&word)?;
        }
        if let WordStep::NotMine = step {
            step = self.upsert_word(&word)?;
        }
        if let WordStep::NotMine = step {
            step = self.default_word(&word)?;
        }
        if let WordStep::NotMine = step {
            step = self.function_word(&word)?;
        }
        match step {
            WordStep::NotMine => self.plain_name(i, w),
            WordStep::Written => {}
            WordStep::ResumeAt(next) => return Ok(next),
        }
        if call {
            // remember the function of the next '('
            self.pending_call(&upper);
        }
        Ok(i + 1)
    }

    pub(super) fn pending_call(&mut self, name: &str) {
        self.parens_pending = Some(name.to_string());
    }
    pub(super) fn take_pending(&mut self) -> String {
        self.parens_pending.take().unwrap_or_default()
    }

    /// The `)` closing the `(` at token `open`, and the indices of the tokens
    /// directly inside (not in nested parentheses).
    pub(super) fn paren_span(&self, open: usize, to: usize) -> Option<(usize, Vec<usize>)> {
        debug_assert!(self.op_at(open, "("), "paren_span starts at a `(`");
        if !self.op_at(open, "(") {
            return None;
        }
        let mut depth = 0usize;
        let mut inner = Vec::new();
        for (j, t) in self.toks.iter().enumerate().take(to).skip(open) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
                if depth == 0 {
                    return Some((j, inner));
                }
            } else if depth == 1 {
                inner.push(j);
            }
        }
        None
    }

    /// Index of keyword `kw` directly inside the parentheses opened at `open`.
    pub(super) fn top_level_word(&self, open: usize, to: usize, kw: &str) -> Option<usize> {
        self.paren_span(open, to)?.1.into_iter().find(|&j| self.toks[j].is_kw(kw))
    }
}
