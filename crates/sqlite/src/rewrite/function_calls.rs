//! Function calls SQLite spells differently, lacks, or takes in another
//! form: renamed (IF → iif, LENGTH → octet_length, GREATEST → max, ...),
//! the clock functions (callable without parentheses in MySQL), and the
//! calls with MySQL's own syntax inside the parentheses: GROUP_CONCAT ...
//! SEPARATOR, TIMESTAMPDIFF/TIMESTAMPADD/EXTRACT units, SUBSTRING ... FROM
//! ... FOR, TRIM ... FROM, POSITION ... IN. The functions SQLite lacks are
//! registered under the names written here (sqlite/functions.rs).

use super::translator::{Translator, WordAt, WordStep};
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::Tok;

/// SQLite's JSON functions whose result MariaDB writes spaced: written
/// `ts_json_fmt(json_x(...))`, the `)` closing the call closing both.
/// (JSON_EXTRACT is the engine's own: functions/json_path.rs.)
pub(super) const JSON_SPACED: [&str; 6] = ["JSON_OBJECT", "JSON_ARRAY", "JSON_SET", "JSON_INSERT", "JSON_REPLACE", "JSON_REMOVE"];

/// The marks a row argument's parentheses carry on `Translator::parens`
/// (`ROW#<operation>`; `TUP#<operation>` for a `(` not yet seen to hold a
/// comma), for the check at its `)`.
pub(super) const ROW_MARK: &str = "ROW#";
pub(super) const TUPLE_MARK: &str = "TUP#";

/// The calls whose arguments MariaDB's type check refuses a row with ERR
/// 4079 (the others, SQLite's "row value misused", answer 1241), and the
/// operation the message names (checked on MariaDB 10.11).
fn row_refusing_operation(call: &str) -> Option<&'static str> {
    Some(match call {
        "FROM_DAYS" => "from_days",
        "MAKEDATE" => "makedate",
        "LAST_DAY" => "last_day",
        "SEC_TO_TIME" => "sec_to_time",
        "TIMEDIFF" => "timediff",
        "MAKETIME" => "maketime",
        "FROM_UNIXTIME" => "from_unixtime",
        "CONVERT_TZ" => "convert_tz",
        "DATE_FORMAT" => "date_format",
        "TIME_FORMAT" => "time_format",
        "YEAR" => "year",
        "DAY" | "DAYOFMONTH" => "dayofmonth",
        "HOUR" => "hour",
        "MINUTE" => "minute",
        "SECOND" => "second",
        "MICROSECOND" => "microsecond",
        "QUARTER" => "quarter",
        "WEEK" | "WEEKOFYEAR" => "week",
        "YEARWEEK" => "yearweek",
        "DAYOFYEAR" => "dayofyear",
        "TO_DAYS" => "to_days",
        "TO_SECONDS" => "to_seconds",
        "PERIOD_ADD" => "period_add",
        "PERIOD_DIFF" => "period_diff",
        "LENGTH" | "OCTET_LENGTH" | "LENGTHB" => "octet_length",
        _ => return None,
    })
}

impl Translator<'_> {
    /// The mark (`mark` + operation) for the row or parenthesised group
    /// opening at token `i` when it starts an argument of a call that
    /// refuses a row (its `)` then checks that it is the whole argument).
    pub(super) fn row_argument_marker(&self, i: usize, mark: &str) -> Option<String> {
        let toks = self.toks;
        let starts_argument = i > 0 && (toks[i - 1].is_op("(") || toks[i - 1].is_op(","));
        if !starts_argument {
            return None;
        }
        let call = self.parens.last()?;
        // FROM_UNIXTIME's format is DATE_FORMAT's.
        let op = if call == "FROM_UNIXTIME" && toks[i - 1].is_op(",") { "date_format" } else { row_refusing_operation(call)? };
        Some(format!("{}{}", mark, op))
    }

    /// ERR 4079 when the parentheses closed at token `close`, marked `f`,
    /// were a row and the whole argument (a `,` or `)` follows).
    pub(super) fn refused_row_argument(&self, close: usize, f: &str) -> Option<SqlError> {
        let op = f.strip_prefix(ROW_MARK)?;
        let ends_argument = self.toks.get(close + 1).is_some_and(|n| n.is_op(",") || n.is_op(")"));
        ends_argument.then(|| SqlError::new(4079, "HY000", format!("Illegal parameter data type row for operation '{}'", op)))
    }

    /// A function call (or a clock function without parentheses) at the
    /// word, or FROM/FOR inside SUBSTRING.
    // Inlined: on the recursion path of `emit` (see `Translator::emit`).
    #[inline(always)]
    pub(super) fn function_word(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let (from, i, to, call, upper) = (word.from, word.at, word.to, word.call, word.upper);
        let toks = self.toks;
        let t = &toks[i];
        match upper {
            "IF" if call => self.push(t, "iif"),
            "GROUP_CONCAT" if call => return Ok(WordStep::ResumeAt(self.group_concat(i, to)?)),
            "COUNT" if call && self.word_at(i + 2, "DISTINCT") => {
                if let Some(next) = self.count_distinct_rows(i, to)? {
                    return Ok(WordStep::ResumeAt(next));
                }
                return Ok(WordStep::NotMine);
            }
            "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "NOW" | "SYSDATE" => self.clock_function(i, "now", call),
            "CURRENT_DATE" | "CURDATE" => self.clock_function(i, "curdate", call),
            "CURRENT_TIME" | "CURTIME" => self.clock_function(i, "curtime", call),
            "UTC_TIMESTAMP" | "UTC_DATE" | "UTC_TIME" => self.clock_function(i, &upper.to_ascii_lowercase(), call),
            "LEFT" | "RIGHT" if call => self.push(t, if upper == "LEFT" { "ts_left" } else { "ts_right" }),
            "LENGTH" | "OCTET_LENGTH" | "LENGTHB" if call => self.push(t, "octet_length"),
            "CHAR_LENGTH" | "CHARACTER_LENGTH" if call => self.push(t, "length"),
            "LCASE" if call => self.push(t, "lower"),
            "UCASE" if call => self.push(t, "upper"),
            "MID" if call => self.push(t, "substr"),
            // SQLite's one-argument max()/min() are aggregates: MariaDB's 1582.
            "GREATEST" | "LEAST" if call && self.single_argument(i) => {
                return Err(SqlError::new(1582, "42000", format!("Incorrect parameter count in the call to native function '{}'", upper.to_ascii_lowercase())));
            }
            "COALESCE" if call && self.single_argument(i) => self.push(t, "ts_coalesce1"),
            "GREATEST" if call => self.push(t, "max"),
            "LEAST" if call => self.push(t, "min"),
            "ISNULL" if call => self.push(t, "ts_isnull"),
            "RAND" if call => self.push(t, "ts_rand"),
            "DATABASE" | "SCHEMA" if call => self.push(t, "ts_database"),
            // The session's own values (functions/identity.rs): the front
            // writes them into a statement's text, not into a view's body.
            "CONNECTION_ID" if call => self.push(t, "ts_connection_id"),
            "USER" | "SESSION_USER" | "SYSTEM_USER" if call => self.push(t, "ts_user"),
            "CURRENT_USER" if i == 0 || !toks[i - 1].is_op(".") => self.clock_function(i, "ts_current_user", call),
            "MATCH" if call => return Err(Self::unsupported("MATCH ... AGAINST (full-text search)")),
            "TIMESTAMPDIFF" | "TIMESTAMPADD" | "EXTRACT" if call => return Ok(WordStep::ResumeAt(self.unit_first_call(i, upper)?)),
            "FROM" | "FOR" if self.parens.last().is_some_and(|f| f == "SUBSTRING" || f == "SUBSTR") => self.push(t, ","),
            "TRIM" if call && (toks.get(i + 2).is_some_and(|n| n.is_kw("BOTH") || n.is_kw("LEADING") || n.is_kw("TRAILING")) || self.top_level_word(i + 1, to, "FROM").is_some()) => {
                return Ok(WordStep::ResumeAt(self.trim_from(i, to)?));
            }
            "POSITION" if call => return Ok(WordStep::ResumeAt(self.position(i, to)?)),
            "INSERT" if call && i > from => self.push(t, "ts_insert"),
            "FORMAT" if call => {
                // A number literal FORMAT reads as written (functions/format.rs
                // formats its digits; as a double 12345678901234567890.123 would lose some).
                let Some((text, comma)) = self.exact_first_literal(i) else { return Ok(WordStep::NotMine) };
                self.push(t, &format!("format('{}', ", text));
                self.parens.push(String::new());
                self.last_end = None;
                return Ok(WordStep::ResumeAt(comma + 1));
            }
            "JSON_SET" | "JSON_INSERT" | "JSON_REPLACE" | "JSON_REMOVE" if call => return Ok(WordStep::ResumeAt(self.json_edit(i, to, upper)?)),
            // SQLite's own JSON functions, their result spaced as MariaDB's (functions/mariadb.rs).
            u if call && JSON_SPACED.contains(&u) => self.push(t, &format!("ts_json_fmt({}", u.to_ascii_lowercase())),
            // MIN/MAX(DISTINCT x): the same without DISTINCT, which SQLite's window functions refuse.
            "MIN" | "MAX" if call && toks.get(i + 2).is_some_and(|d| d.is_kw("DISTINCT")) => {
                self.push(t, &upper.to_ascii_lowercase());
                self.push(&toks[i + 1], "(");
                self.parens.push(upper.to_string());
                self.last_end = Some(toks[i + 2].end);
                return Ok(WordStep::ResumeAt(i + 3));
            }
            "JSON_ARRAYAGG" if call && self.top_level_word(i + 1, to, "LIMIT").is_some() => return Ok(WordStep::ResumeAt(self.arrayagg_limit(i, to)?)),
            "JSON_ARRAYAGG" if call => self.push(t, "json_group_array"),
            "JSON_OBJECTAGG" if call => self.push(t, "json_group_object"),
            _ => return Ok(WordStep::NotMine),
        }
        Ok(WordStep::Written)
    }

    /// JSON_SET, JSON_INSERT, JSON_REPLACE or JSON_REMOVE at token `i`:
    /// SQLite's own, spaced (`ts_json_fmt`), each path argument read as
    /// MariaDB reads a path (`ts_json_path`, functions/json_edit_path.rs:
    /// `[last-1]`, `[-2]`; a wildcard, a range or a bad path makes the call
    /// NULL with MariaDB's warning).
    fn json_edit(&mut self, i: usize, to: usize, name: &str) -> Result<usize, SqlError> {
        let toks = self.toks;
        let (close, inner) = self.paren_span(i + 1, to).ok_or_else(|| SqlError::syntax(&self.sql[toks[i].start..]))?;
        let mut starts = vec![i + 2];
        starts.extend(inner.iter().filter(|&&j| toks[j].is_op(",")).map(|&j| j + 1));
        let lower = name.to_ascii_lowercase();
        self.push(&toks[i], &format!("ts_json_edit_fmt({}(", lower));
        for (k, &a) in starts.iter().enumerate() {
            let b = starts.get(k + 1).map_or(close, |&n| n - 1);
            if k > 0 {
                self.raw(", ");
            }
            // Paths: every argument after the document of JSON_REMOVE, every other one of the rest.
            let is_path = k > 0 && (name == "JSON_REMOVE" || k % 2 == 1);
            if is_path {
                self.raw("ts_json_path(");
            }
            if a < b {
                self.emit(a, b)?;
            }
            if is_path {
                self.raw(&format!(", '{}', {})", lower, k + 1));
            }
        }
        self.raw("))");
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// `JSON_ARRAYAGG(x [ORDER BY ...] LIMIT [offset,] n)` (or `LIMIT n
    /// OFFSET offset`) at token `i`: the array of all values, sliced
    /// (`ts_json_slice`, functions/json_doc.rs) to the ones LIMIT keeps.
    fn arrayagg_limit(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = |at: usize| SqlError::syntax(&self.sql[toks[at.min(toks.len() - 1)].start..]);
        let (close, _) = self.paren_span(i + 1, to).ok_or_else(|| syntax(i))?;
        let limit = self.top_level_word(i + 1, to, "LIMIT").ok_or_else(|| syntax(i))?;
        let number = |k: usize| -> Result<u64, SqlError> {
            match toks.get(k).map(|t| &t.tok) {
                Some(Tok::Number(n)) if k < close => n.parse::<u64>().map_err(|_| syntax(k)),
                _ => Err(syntax(k)),
            }
        };
        let first = number(limit + 1)?;
        let (offset, count) = if limit + 2 == close {
            (0, first)
        } else if toks[limit + 2].is_op(",") && limit + 4 == close {
            (first, number(limit + 3)?)
        } else if toks[limit + 2].is_kw("OFFSET") && limit + 4 == close {
            (number(limit + 3)?, first)
        } else {
            return Err(syntax(limit + 2));
        };
        if limit <= i + 2 {
            return Err(syntax(limit));
        }
        self.push(&toks[i], "ts_json_slice(json_group_array(");
        self.emit(i + 2, limit)?;
        self.raw(&format!("), {}, {})", offset, count));
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// The first argument of the call at token `i` when it is a plain number
    /// literal (a sign, digits, a point: no exponent, no 0x) followed by a
    /// comma: its text, and the index of the comma.
    fn exact_first_literal(&self, i: usize) -> Option<(String, usize)> {
        let toks = self.toks;
        let mut k = i + 2;
        let mut text = String::new();
        if let Some(sign) = toks.get(k).filter(|t| t.is_op("-") || t.is_op("+")) {
            text.push_str(if sign.is_op("-") { "-" } else { "" });
            k += 1;
        }
        let turnstile_sqltext::lex::Tok::Number(n) = &toks.get(k)?.tok else { return None };
        if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit() || c == b'.') || n.bytes().filter(|&c| c == b'.').count() > 1 {
            return None;
        }
        text.push_str(n);
        toks.get(k + 1).filter(|t| t.is_op(",")).map(|_| (text, k + 1))
    }

    /// Does the call whose name is token `i` have at most one argument (no
    /// comma at its top level)?
    fn single_argument(&self, i: usize) -> bool {
        let mut depth = 0usize;
        for t in &self.toks[i + 1..] {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return true;
                }
            } else if depth == 1 && t.is_op(",") {
                return false;
            }
        }
        true
    }

    /// A clock function at token `i` as SQLite's `name`, with the `()` MySQL
    /// lets one leave out.
    fn clock_function(&mut self, i: usize, name: &str, call: bool) {
        let toks = self.toks;
        self.push(&toks[i], name);
        if !call {
            self.raw("()");
        }
    }

    /// TIMESTAMPDIFF(unit, a, b), TIMESTAMPADD(unit, n, d) and EXTRACT(unit
    /// FROM d) at token `i` (`upper`: the name in capitals): the first
    /// argument is a unit word, written as a string. Returns the index after
    /// the separator; the rest of the call is translated as usual.
    fn unit_first_call(&mut self, i: usize, upper: &str) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = &toks[i];
        // first argument is a unit word → string
        let unit = toks.get(i + 2).and_then(|u| u.ident()).ok_or_else(|| SqlError::syntax(&self.sql[t.start..]))?.to_ascii_uppercase();
        let fname = match upper {
            "EXTRACT" => "ts_extract",
            "TIMESTAMPDIFF" => "timestampdiff",
            _ => "timestampadd",
        };
        self.push(t, &format!("{}('{}', ", fname, unit));
        let sep = if upper == "EXTRACT" { "FROM" } else { "," };
        let ok = if sep == "FROM" { self.word_at(i + 3, "FROM") } else { self.op_at(i + 3, ",") };
        if !ok {
            return Err(SqlError::syntax(&self.sql[t.start..]));
        }
        self.parens.push(String::new());
        self.last_end = None;
        Ok(i + 4)
    }

    /// POSITION(sub IN s) at token `i` → locate(sub, s). Returns the index
    /// after the closing parenthesis.
    // Inlined: on the recursion path of `emit` (see `Translator::emit`).
    #[inline(always)]
    fn position(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = &toks[i];
        // POSITION(sub IN s) → locate(sub, s)
        let syntax = || SqlError::syntax(&self.sql[t.start..]);
        let (close, inner) = self.paren_span(i + 1, to).ok_or_else(syntax)?;
        let in_kw = inner.into_iter().find(|&j| toks[j].is_kw("IN")).ok_or_else(syntax)?;
        self.push(t, "locate(");
        self.emit(i + 2, in_kw)?;
        self.raw(", ");
        self.emit(in_kw + 1, close)?;
        self.raw(")");
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// GROUP_CONCAT([DISTINCT] e1[, e2...] [ORDER BY ...] [SEPARATOR s]) at
    /// token `i` → SQLite's group_concat(e, s ORDER BY ...): the separator
    /// goes before ORDER BY, several expressions are concatenated (a row
    /// with a NULL among them is skipped, as in MySQL), and DISTINCT with a
    /// separator uses ts_group_concat_distinct (SQLite's DISTINCT aggregates
    /// take one argument). Returns the index after the closing parenthesis.
    fn group_concat(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[i].start..]);
        let (close, inner) = self.paren_span(i + 1, to).ok_or_else(syntax)?;
        let order = inner.iter().copied().find(|&j| toks[j].is_kw("ORDER") && self.word_at(j + 1, "BY"));
        let sep = inner.iter().copied().rfind(|&j| toks[j].is_kw("SEPARATOR"));
        let distinct = self.word_at(i + 2, "DISTINCT");
        let args_from = if distinct { i + 3 } else { i + 2 };
        let args_to = order.or(sep).unwrap_or(close);
        let several = inner.iter().any(|&j| toks[j].is_op(",") && j < args_to);
        if args_from >= args_to || sep.is_some_and(|s| s + 1 >= close || order.is_some_and(|o| o > s)) {
            return Err(syntax());
        }
        let name = if distinct && sep.is_some() { "ts_group_concat_distinct" } else { "group_concat" };
        self.push(&toks[i], name);
        self.raw("(");
        if distinct && sep.is_none() {
            self.raw("DISTINCT ");
        }
        if !several {
            self.emit(args_from, args_to)?;
        } else {
            self.raw("concat(");
            self.emit(args_from, args_to)?;
            self.raw(")");
        }
        if let Some(s) = sep {
            self.raw(", ");
            self.emit(s + 1, close)?;
        }
        if let Some(o) = order {
            self.raw(" ");
            self.emit(o, sep.unwrap_or(close))?;
        }
        self.raw(")");
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// COUNT(DISTINCT e1, e2, ...) at token `i` → count(DISTINCT
    /// ts_dkey(e1, e2, ...)) (functions/distinct_key.rs): SQLite's count
    /// takes one argument. None for one expression (SQLite's own). Returns
    /// the index after `)`.
    fn count_distinct_rows(&mut self, i: usize, to: usize) -> Result<Option<usize>, SqlError> {
        let toks = self.toks;
        let Some((close, inner)) = self.paren_span(i + 1, to) else { return Ok(None) };
        if i + 3 >= close {
            // COUNT(DISTINCT): MariaDB's 1064 at the `)`.
            return Err(SqlError::syntax(&self.sql[toks[close].start..]));
        }
        if !inner.iter().any(|&j| toks[j].is_op(",")) {
            return Ok(None);
        }
        self.push(&toks[i], "count");
        self.raw("(DISTINCT ts_dkey(");
        self.emit(i + 3, close)?;
        self.raw("))");
        self.last_end = Some(toks[close].end);
        Ok(Some(close + 1))
    }

    /// TRIM([BOTH|LEADING|TRAILING] [remstr] FROM s) at token `i` →
    /// ts_trim(s, remstr, mode) (functions/ext.rs). Returns the index after `)`.
    fn trim_from(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[i].start..]);
        let (close, inner) = self.paren_span(i + 1, to).ok_or_else(syntax)?;
        let mode = ["BOTH", "LEADING", "TRAILING"].into_iter().find(|m| self.word_at(i + 2, m));
        let rem_from = if mode.is_some() { i + 3 } else { i + 2 };
        let from_kw = inner.into_iter().find(|&j| toks[j].is_kw("FROM"));
        let (rem, subject) = match from_kw {
            Some(f) if f > rem_from => (Some((rem_from, f)), (f + 1, close)),
            Some(f) => (None, (f + 1, close)),
            // TRIM(LEADING s): trim spaces
            None => (None, (rem_from, close)),
        };
        if subject.0 >= subject.1 {
            return Err(syntax());
        }
        self.push(&toks[i], "ts_trim(");
        self.emit(subject.0, subject.1)?;
        self.raw(", ");
        match rem {
            Some((a, b)) => self.emit(a, b)?,
            None => self.raw("' '"),
        }
        self.raw(&format!(", '{}')", mode.unwrap_or("BOTH")));
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    fn rw(sql: &str) -> Result<String, (u16, String)> {
        rewrite(sql, Kind::Select, &resolver()).map(|r| r.sql).map_err(|e| (e.code, e.message.clone()))
    }

    #[test]
    fn a_row_argument_of_a_date_function_is_4079() {
        let refused = |sql: &str, op: &str| {
            let (code, msg) = rw(sql).unwrap_err();
            assert_eq!(code, 4079, "{sql}");
            assert!(msg.ends_with(&format!("operation '{}'", op)), "{sql}: {msg}");
        };
        refused("SELECT FROM_DAYS(ROW(1,1))", "from_days");
        refused("SELECT MAKEDATE(1, ROW(1,1))", "makedate");
        refused("SELECT MAKETIME(1, (1,1), 1)", "maketime");
        refused("SELECT DAY(ROW(1, 1))", "dayofmonth");
        refused("SELECT FROM_UNIXTIME(1, ROW(1,1))", "date_format");
        refused("SELECT MONTH(MAKEDATE(ROW(1,1),1))", "makedate");
        // A row inside a comparison, a plain group, other functions: not this error.
        assert!(rw("SELECT MAKEDATE(ROW(1,1) = ROW(1,1), 1)").is_ok());
        assert!(rw("SELECT MAKEDATE((1), 1), FROM_DAYS((1 + 2) * 3)").is_ok());
        assert!(rw("SELECT CONCAT(ROW(1,1))").is_ok());
    }
}
