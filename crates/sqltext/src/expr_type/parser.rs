//! The precedence parser of `infer`: an item's tokens into the type of each
//! node (operators by MariaDB's precedence, function calls, CASE, CAST,
//! INTERVAL), bounded by `MAX_DEPTH` levels of nesting.

use super::rules::*;
use super::{decimal, ExprType, Names, MAX_DEPTH};
use crate::lex::{Tok, Token};
use crate::types::Base;

/// An item's type: None when not known.
pub(super) type T = Option<ExprType>;
/// Err: the text is not an expression this parser reads.
pub(super) type R = Result<T, ()>;

pub(super) struct P<'a> {
    toks: &'a [Token],
    pos: usize,
    col: &'a dyn Names,
    depth: u32,
    text: &'a str,
}

/// The type of a whole select item's text (None: not known, or not all of
/// it read).
pub(super) fn item(text: &str, col: &dyn Names) -> T {
    let toks = crate::lex::tokenize(text).ok()?;
    let mut p = P { toks: &toks, pos: 0, col, depth: 0, text };
    // A variable alone is its value's own type (a string one a LONGTEXT),
    // which the callers know.
    if matches!(toks.as_slice(), [Token { tok: Tok::UserVar(_), .. }]) {
        return None;
    }
    let t = p.expr().ok()?;
    if p.pos != toks.len() || is_bit(&t) {
        return None;
    }
    t
}

/// The type of `@v := value`: the value's, a temporal one as a string.
fn assigned(t: ExprType) -> Option<ExprType> {
    match t {
        ExprType::Temporal { .. } | ExprType::DateStr { .. } => Some(ExprType::string(t.chars())),
        ExprType::Null => None,
        t => Some(t),
    }
}

pub(super) fn boolean() -> T {
    Some(ExprType::int(1, false))
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }
    fn kw(&mut self, w: &str) -> bool {
        let hit = self.peek().is_some_and(|t| t.is_kw(w));
        self.pos += usize::from(hit);
        hit
    }
    fn op(&mut self, o: &str) -> bool {
        let hit = self.peek().is_some_and(|t| t.is_op(o));
        self.pos += usize::from(hit);
        hit
    }
    fn expect_op(&mut self, o: &str) -> Result<(), ()> {
        self.op(o).then_some(()).ok_or(())
    }

    /// Skip a balanced `( ... )` starting at the current `(`.
    fn skip_parens(&mut self) -> Result<(), ()> {
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            self.pos += 1;
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
        }
        Err(())
    }

    fn expr(&mut self) -> R {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(());
        }
        let r = self.or_expr();
        self.depth -= 1;
        r
    }

    fn or_expr(&mut self) -> R {
        let mut t = self.not_expr()?;
        while self.kw("OR") || self.op("||") || self.kw("XOR") || self.kw("AND") || self.op("&&") {
            self.not_expr()?;
            t = boolean();
        }
        Ok(t)
    }

    fn not_expr(&mut self) -> R {
        if self.kw("NOT") {
            self.not_expr()?;
            return Ok(boolean());
        }
        self.predicate()
    }

    fn predicate(&mut self) -> R {
        let mut t = self.bit_or()?;
        loop {
            const CMP: [&str; 7] = ["=", "<>", "!=", "<", "<=", ">", ">="];
            if CMP.iter().any(|o| self.op(o)) || self.op("<=>") {
                if self.kw("ANY") || self.kw("SOME") || self.kw("ALL") {
                    self.skip_parens()?;
                } else {
                    self.bit_or()?;
                }
                t = boolean();
                continue;
            }
            if self.kw("IS") {
                self.kw("NOT");
                if !(self.kw("NULL") || self.kw("TRUE") || self.kw("FALSE") || self.kw("UNKNOWN")) {
                    return Err(());
                }
                t = boolean();
                continue;
            }
            let save = self.pos;
            self.kw("NOT");
            if self.kw("IN") {
                self.skip_parens()?;
            } else if self.kw("BETWEEN") {
                self.bit_or()?;
                if !self.kw("AND") {
                    return Err(());
                }
                self.bit_or()?;
            } else if self.kw("LIKE") {
                self.bit_or()?;
                if self.kw("ESCAPE") {
                    self.primary()?;
                }
            } else if self.kw("REGEXP") || self.kw("RLIKE") {
                self.bit_or()?;
            } else if self.pos == save && self.kw("SOUNDS") {
                if !self.kw("LIKE") {
                    return Err(());
                }
                self.bit_or()?;
            } else {
                self.pos = save;
                return Ok(t);
            }
            t = boolean();
        }
    }

    fn bit_or(&mut self) -> R {
        let mut t = self.bit_and()?;
        while self.op("|") {
            self.bit_and()?;
            t = Some(ExprType::int(21, true));
        }
        Ok(t)
    }

    fn bit_and(&mut self) -> R {
        let mut t = self.shift()?;
        while self.op("&") {
            self.shift()?;
            t = Some(ExprType::int(21, true));
        }
        Ok(t)
    }

    fn shift(&mut self) -> R {
        let mut t = self.additive()?;
        while self.op("<<") || self.op(">>") {
            self.additive()?;
            t = Some(ExprType::int(21, true));
        }
        Ok(t)
    }

    fn additive(&mut self) -> R {
        let start = self.pos;
        let mut t = self.multiplicative()?;
        loop {
            let at = self.pos;
            let plus = self.op("+");
            if !plus && !self.op("-") {
                return Ok(t);
            }
            if self.kw("INTERVAL") {
                let unit = self.interval()?;
                t = date_add(t, unit, self.lit_fsp(start, at));
                continue;
            }
            let r = self.multiplicative()?;
            t = additive(t, r);
        }
    }

    /// After INTERVAL: `expr unit`; the unit's name.
    fn interval(&mut self) -> Result<String, ()> {
        self.expr()?;
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Word(w)) => {
                self.pos += 1;
                Ok(w.as_str().to_ascii_uppercase())
            }
            _ => Err(()),
        }
    }

    fn multiplicative(&mut self) -> R {
        let mut t = self.bit_xor()?;
        loop {
            let op = if self.op("*") {
                "*"
            } else if self.op("/") {
                "/"
            } else if self.op("%") || self.kw("MOD") {
                "%"
            } else if self.kw("DIV") {
                "DIV"
            } else {
                return Ok(t);
            };
            let r = self.bit_xor()?;
            t = multiplicative(op, t, r);
        }
    }

    fn bit_xor(&mut self) -> R {
        let mut t = self.unary()?;
        while self.op("^") {
            self.unary()?;
            t = Some(ExprType::int(21, true));
        }
        Ok(t)
    }

    fn unary(&mut self) -> R {
        if self.op("-") {
            let Some(t) = self.unary()? else { return Ok(None) };
            // An ENUM or SET column: its number.
            let t = if matches!(t, ExprType::Str { members: true, .. }) { numeric(t) } else { t };
            return Ok(match t {
                ExprType::Int { len, .. } => Some(ExprType::int_digits(len, false)),
                ExprType::Null => Some(ExprType::Double { null_arith: true }),
                ExprType::Str { .. } | ExprType::Temporal { .. } => Some(ExprType::Double { null_arith: false }),
                d => Some(d),
            });
        }
        if self.op("+") {
            return self.unary();
        }
        if self.op("~") {
            self.unary()?;
            return Ok(Some(ExprType::int(21, true)));
        }
        if self.op("!") {
            self.unary()?;
            return Ok(boolean());
        }
        if self.kw("BINARY") {
            let t = self.unary()?;
            return Ok(t.map(|t| ExprType::Str { chars: t.chars(), fixed: false, binary: true, group: false, members: false }));
        }
        let t = self.primary()?;
        if self.kw("COLLATE") {
            self.pos += 1;
        }
        Ok(t)
    }

    fn primary(&mut self) -> R {
        let Some(tok) = self.peek() else { return Err(()) };
        self.pos += 1;
        match &tok.tok {
            Tok::Number(n) => Ok(number(n)),
            Tok::Str(b) => {
                let binary = crate::lex::is_binary_string(self.text, tok);
                let chars = if binary { b.len() } else { String::from_utf8_lossy(b).chars().count() } as u64;
                // 'a' 'b' is one literal.
                while matches!(self.peek().map(|t| &t.tok), Some(Tok::Str(_))) {
                    self.pos += 1;
                }
                Ok(Some(ExprType::Str { chars, fixed: false, binary, group: false, members: false }))
            }
            Tok::Op("(") => {
                if self.peek().is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH") || t.is_kw("VALUES")) {
                    return self.scalar_subquery();
                }
                let t = self.expr()?;
                if self.op(",") {
                    // A row constructor: only a comparison makes it a value.
                    self.pos -= 1;
                    while self.op(",") {
                        self.expr()?;
                    }
                    self.expect_op(")")?;
                    return Ok(None);
                }
                self.expect_op(")")?;
                Ok(t)
            }
            Tok::Word(w) => self.word(w),
            Tok::Quoted(_) => self.column(tok),
            Tok::UserVar(name) => {
                if self.op(":=") {
                    // An assignment is its value's type (a temporal as a string).
                    return Ok(self.expr()?.and_then(assigned));
                }
                Ok(self.col.user_var(name))
            }
            _ => {
                // `@v`, `@@v`, `?`: unknown, and nothing more to read.
                Ok(None)
            }
        }
    }

    fn word(&mut self, w: &str) -> R {
        let up = w.to_ascii_uppercase();
        if up == "EXISTS" {
            self.skip_parens()?;
            return Ok(boolean());
        }
        if self.peek().is_some_and(|t| t.is_op("(")) {
            return self.call(&up);
        }
        Ok(match up.as_str() {
            "NULL" => Some(ExprType::Null),
            "TRUE" | "FALSE" => Some(ExprType::int(1, false)),
            "CASE" => return self.case(),
            "INTERVAL" => {
                let unit = self.interval()?;
                self.expect_op("+").map_err(|_| ())?;
                let at = self.pos;
                let t = self.multiplicative()?;
                date_add(t, unit, self.lit_fsp(at, self.pos))
            }
            "DATE" | "TIME" | "TIMESTAMP" if matches!(self.peek().map(|t| &t.tok), Some(Tok::Str(_))) => {
                let Some(Tok::Str(b)) = self.peek().map(|t| &t.tok) else { unreachable!("matched above") };
                self.pos += 1;
                let fsp = crate::temporal_cast::fraction_digits(&String::from_utf8_lossy(b));
                let base = match up.as_str() {
                    "DATE" => Base::Date,
                    "TIME" => Base::Time,
                    _ => Base::DateTime,
                };
                Some(ExprType::Temporal { base, fsp })
            }
            // _latin1'a', _binary'a': a string literal.
            _ if up.starts_with('_') && matches!(self.peek().map(|t| &t.tok), Some(Tok::Str(_))) => {
                let Some(Tok::Str(b)) = self.peek().map(|t| &t.tok) else { unreachable!("matched above") };
                self.pos += 1;
                let binary = up == "_BINARY";
                let chars = if binary { b.len() } else { String::from_utf8_lossy(b).chars().count() } as u64;
                Some(ExprType::Str { chars, fixed: false, binary, group: false, members: false })
            }
            "CURRENT_DATE" | "UTC_DATE" => Some(ExprType::Temporal { base: Base::Date, fsp: 0 }),
            "CURRENT_TIME" | "UTC_TIME" => Some(ExprType::Temporal { base: Base::Time, fsp: 0 }),
            "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "UTC_TIMESTAMP" => Some(ExprType::Temporal { base: Base::DateTime, fsp: 0 }),
            _ => {
                self.pos -= 1;
                let tok = &self.toks[self.pos];
                self.pos += 1;
                return self.column(tok);
            }
        })
    }

    /// `(SELECT item FROM ...)` after its `(`: the item's type, its columns
    /// looked up like the outer statement's; of a UNION the common type of
    /// its parts' items. Unknown for more than one item.
    fn scalar_subquery(&mut self) -> R {
        let open = self.pos - 1;
        self.pos = open;
        self.skip_parens()?;
        let inner = &self.toks[open + 1..self.pos - 1];
        if let (Some(first), Some(last)) = (inner.first(), inner.last()) {
            if let Some(t) = self.text.get(first.start..last.end).and_then(|sql| self.col.subquery(sql)) {
                return Ok(t);
            }
        }
        let mut parts = Vec::new();
        let (mut depth, mut from) = (0i32, 0);
        for (k, t) in inner.iter().enumerate() {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
            } else if depth == 0 && (t.is_kw("UNION") || t.is_kw("EXCEPT") || t.is_kw("INTERSECT")) {
                parts.push(&inner[from..k]);
                from = k + 1;
                if inner.get(from).is_some_and(|t| t.is_kw("ALL") || t.is_kw("DISTINCT")) {
                    from += 1;
                }
            }
        }
        parts.push(&inner[from..]);
        let mut types = Vec::with_capacity(parts.len());
        for part in parts {
            types.push(self.first_item(part)?);
        }
        if types.len() == 1 {
            return Ok(types[0]);
        }
        // A UNION's integers of INT size are an INT(11), as a table's column.
        Ok(match hybrid(&types) {
            Some(t @ ExprType::Int { unsigned, col, .. }) if !t.wide() && col.is_none() => Some(ExprType::Int { len: 11, digits: 10, unsigned, col: Some(Base::Int) }),
            t => t,
        })
    }

    /// The type of the one item of `SELECT item ...` (`part`, maybe in
    /// parentheses); Err when it is not one.
    fn first_item(&self, mut part: &[Token]) -> R {
        while part.first().is_some_and(|t| t.is_op("(")) && part.last().is_some_and(|t| t.is_op(")")) {
            part = &part[1..part.len() - 1];
        }
        if !part.first().is_some_and(|t| t.is_kw("SELECT")) {
            return Err(());
        }
        let mut sub = P { toks: part, pos: 1, col: self.col, depth: self.depth, text: self.text };
        sub.kw("DISTINCT");
        sub.kw("ALL");
        let t = sub.expr()?;
        // An alias: `AS a`, or a name that is no clause word.
        let alias = sub.kw("AS") || sub.peek().is_some_and(|t| matches!(t.tok, Tok::Quoted(_)) || t.ident().is_some() && !CLAUSES.iter().any(|c| t.is_kw(c)));
        if alias {
            sub.pos += 1;
        }
        match sub.peek() {
            None => Ok(t),
            Some(next) if CLAUSES.iter().any(|c| next.is_kw(c)) && !next.is_kw("INTO") => Ok(t),
            _ => Err(()),
        }
    }

    /// A column reference `c`, `t.c` or `db.t.c` (first token already read).
    fn column(&mut self, first: &Token) -> R {
        let mut parts = vec![first.ident().ok_or(())?];
        while self.peek().is_some_and(|t| t.is_op(".")) {
            self.pos += 1;
            let t = self.peek().ok_or(())?;
            if t.is_op("*") {
                return Err(());
            }
            parts.push(t.ident().ok_or(())?);
            self.pos += 1;
        }
        let name = parts[parts.len() - 1];
        let qual = (parts.len() > 1).then(|| parts[parts.len() - 2]);
        Ok(self.col.column(qual, name))
    }

    fn case(&mut self) -> R {
        let simple = !self.peek().is_some_and(|t| t.is_kw("WHEN"));
        if simple {
            self.expr()?;
        }
        let mut results = Vec::new();
        while self.kw("WHEN") {
            self.expr()?;
            if !self.kw("THEN") {
                return Err(());
            }
            results.push(self.expr()?);
        }
        if self.kw("ELSE") {
            results.push(self.expr()?);
        } else {
            results.push(Some(ExprType::Null));
        }
        if !self.kw("END") {
            return Err(());
        }
        Ok(hybrid(&results))
    }

    /// `name(`: a function call. Arguments this parser cannot read make the call unknown.
    fn call(&mut self, name: &str) -> R {
        let open = self.pos;
        let r = self.call_body(name);
        let t = match r {
            Ok(t) => t,
            Err(()) => {
                self.pos = open;
                self.skip_parens()?;
                None
            }
        };
        if self.kw("OVER") {
            if self.peek().is_some_and(|t| t.is_op("(")) {
                self.skip_parens()?;
            } else {
                self.pos += 1;
            }
        }
        Ok(t)
    }

    fn call_body(&mut self, name: &str) -> R {
        self.expect_op("(")?;
        match name {
            "CAST" | "CONVERT" => return self.cast(name),
            "EXTRACT" => return self.extract(),
            "COUNT" => {
                if !self.op("*") {
                    self.kw("DISTINCT");
                    self.kw("ALL");
                    self.expr()?;
                    while self.op(",") {
                        self.expr()?;
                    }
                }
                self.expect_op(")")?;
                return Ok(Some(ExprType::int(21, false)));
            }
            // A string user variable's value (dialect.rs `substitute`).
            _ if name.eq_ignore_ascii_case(super::USER_VAR_MARK) => {
                self.expr()?;
                self.expect_op(")")?;
                return Ok(Some(super::user_var(super::VarValue::Str)));
            }
            "GROUP_CONCAT" => {
                self.pos -= 1;
                self.skip_parens()?;
                return Ok(Some(ExprType::Str { chars: 1_048_576, fixed: false, binary: false, group: true, members: false }));
            }
            // MariaDB: a BLOB of 16,777,224 and 16,777,216 bytes.
            "JSON_ARRAYAGG" | "JSON_OBJECTAGG" => {
                self.pos -= 1;
                self.skip_parens()?;
                let chars = if name == "JSON_ARRAYAGG" { 4_194_306 } else { 4_194_304 };
                return Ok(Some(ExprType::Str { chars, fixed: false, binary: false, group: true, members: false }));
            }
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" => {
                let at = self.pos;
                let d = self.expr()?;
                let lit = self.lit_fsp(at, self.pos);
                self.expect_op(",")?;
                let unit = if self.kw("INTERVAL") {
                    self.interval()?
                } else {
                    self.expr()?;
                    "DAY".to_string()
                };
                self.expect_op(")")?;
                return Ok(date_add(d, unit, lit));
            }
            "STR_TO_DATE" => {
                self.expr()?;
                self.expect_op(",")?;
                let at = self.pos;
                self.expr()?;
                let format = match self.toks.get(at..self.pos) {
                    Some([Token { tok: Tok::Str(b), .. }]) => Some(String::from_utf8_lossy(b).into_owned()),
                    Some([Token { tok: Tok::Number(_), .. }]) => Some(String::new()),
                    _ => None,
                };
                self.expect_op(")")?;
                return Ok(format.map(|f| str_to_date(&f)));
            }
            "TRIM" | "SUBSTRING" | "SUBSTR" | "POSITION" | "TIMESTAMPADD" | "TIMESTAMPDIFF" => {
                // Words between the arguments: typed by the first argument alone where it matters.
                return self.special_args(name);
            }
            _ => {}
        }
        let mut args = Vec::new();
        if !self.op(")") {
            self.kw("DISTINCT");
            self.kw("ALL");
            loop {
                args.push(self.expr()?);
                if self.op(")") {
                    break;
                }
                self.expect_op(",")?;
            }
        }
        let open = open_of(self.toks, self.pos);
        let lits: Vec<Option<i64>> = self.literal_args(open, args.len());
        if matches!(name, "TIME" | "TIMESTAMP" | "TIMEDIFF" | "ADDTIME" | "SUBTIME" | "CONVERT_TZ" | "TIME_TO_SEC" | "UNIX_TIMESTAMP") {
            // A string literal argument: a DATETIME (a TIME for TIME, ADDTIME's
            // second) with the literal's fraction digits. ADDTIME of a string
            // stays unknown.
            let adds = matches!(name, "ADDTIME" | "SUBTIME");
            for (k, (from, to)) in self.arg_ranges(open).into_iter().enumerate() {
                if let (Some(fsp), Some(a), false) = (self.lit_fsp(from, to), args.get_mut(k), adds && k == 0) {
                    let base = if name == "TIME" || k > 0 && name != "TIMEDIFF" { Base::Time } else { Base::DateTime };
                    *a = Some(ExprType::Temporal { base, fsp });
                }
            }
        }
        let t = function(name, &args, &lits);
        // MIN(int_col) keeps the column's type, MIN of an integer expression is a BIGINT.
        if let (true, Some(ExprType::Int { len, digits, unsigned, .. })) = (is_min_max(name) && !self.plain_column_arg(open), t) {
            return Ok(Some(ExprType::Int { len, digits, unsigned, col: Some(Base::BigInt) }));
        }
        Ok(t)
    }

    /// The fraction digits of the string literal that tokens `from..to`
    /// are, if they are one (`'2001-01-01 10:00:00.5'`: 1).
    fn lit_fsp(&self, from: usize, to: usize) -> Option<u8> {
        match self.toks.get(from..to) {
            Some([Token { tok: Tok::Str(b), .. }]) => Some(crate::temporal_cast::fraction_digits(&String::from_utf8_lossy(b)).min(6)),
            _ => None,
        }
    }

    /// Is the call that opened at `open` and just closed `f(col)`, `f(t.col)` or `f(DISTINCT col)`?
    fn plain_column_arg(&self, open: usize) -> bool {
        let mut arg = &self.toks[open + 1..self.pos - 1];
        if arg.first().is_some_and(|t| t.is_kw("DISTINCT") || t.is_kw("ALL")) {
            arg = &arg[1..];
        }
        arg.len() % 2 == 1 && arg.iter().enumerate().all(|(k, t)| if k % 2 == 0 { t.ident().is_some() } else { t.is_op(".") })
    }

    /// Integer literals among the last call's arguments (REPEAT's count), by position.
    fn literal_args(&self, open: usize, n: usize) -> Vec<Option<i64>> {
        let mut out = Vec::with_capacity(n);
        for (from, to) in self.arg_ranges(open) {
            out.push(integer_literal(&self.toks[from..to]));
        }
        out
    }

    /// The token ranges of the arguments of the call that opened at `open` and just closed.
    fn arg_ranges(&self, open: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut depth = 0i32;
        let mut start = open + 1;
        for k in open + 1..self.pos {
            let t = &self.toks[k];
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") && depth > 0 {
                depth -= 1;
            } else if depth == 0 && (t.is_op(",") || t.is_op(")")) {
                out.push((start, k));
                start = k + 1;
            }
        }
        out
    }

    fn special_args(&mut self, name: &str) -> R {
        let mut first: T = None;
        let mut k = 0;
        let mut unit = String::new();
        let mut last: T = None;
        let mut count = None;
        loop {
            if name.starts_with("TIMESTAMP") && k == 0 {
                unit = self.peek().and_then(|t| t.ident()).ok_or(())?.to_ascii_uppercase();
                self.pos += 1;
            } else {
                // TRIM(LEADING 'x' FROM s), TRIM(LEADING FROM s)
                if ["BOTH", "LEADING", "TRAILING"].iter().any(|w| self.kw(w)) && self.kw("FROM") {
                    k += 1;
                }
                let at = self.pos;
                let t = self.bit_or()?;
                if k == 2 {
                    count = integer_literal(&self.toks[at..self.pos]);
                }
                if k == 0 {
                    first = t;
                }
                last = t;
            }
            k += 1;
            if self.op(")") {
                break;
            }
            if !(self.op(",") || self.kw("FROM") || self.kw("FOR") || self.kw("IN")) {
                return Err(());
            }
        }
        Ok(match name {
            "POSITION" => Some(ExprType::Int { len: 11, digits: 10, unsigned: false, col: Some(Base::Int) }),
            "TIMESTAMPDIFF" => Some(ExprType::int(21, false)),
            "TIMESTAMPADD" => date_add(last, unit, None),
            // TRIM(x FROM s): the string is the last argument.
            "TRIM" => last.map(|t| ExprType::Str { chars: t.chars(), fixed: false, binary: t.binary(), group: false, members: false }),
            // SUBSTRING(s, pos, n): at most n characters.
            _ => first.map(|t| ExprType::Str { chars: count.map_or(t.chars(), |n| t.chars().min(n.max(0) as u64)), fixed: false, binary: t.binary(), group: false, members: false }),
        })
    }

    fn extract(&mut self) -> R {
        let unit = self.peek().and_then(|t| t.ident()).ok_or(())?.to_ascii_uppercase();
        self.pos += 1;
        if !self.kw("FROM") {
            return Err(());
        }
        let arg = self.expr()?;
        self.expect_op(")")?;
        // MariaDB's lengths: an INT up to 10 characters, a BIGINT past 11;
        // the units counting days are longer for a string or a number,
        // which may hold any number of days, than for a DATE, DATETIME or
        // TIME.
        let temporal = match arg {
            Some(ExprType::Temporal { .. }) => true,
            Some(_) => false,
            None => return Ok(None),
        };
        let len = match unit.as_str() {
            "QUARTER" => 1,
            "MONTH" | "WEEK" => 2,
            "HOUR" | "MINUTE" | "SECOND" => 3,
            "YEAR" => 4,
            "HOUR_MINUTE" | "MINUTE_SECOND" => 5,
            "YEAR_MONTH" => 6,
            "MICROSECOND" | "HOUR_SECOND" => 7,
            "SECOND_MICROSECOND" => 9,
            "MINUTE_MICROSECOND" => 11,
            "HOUR_MICROSECOND" => 13,
            "DAY" if temporal => 3,
            "DAY" => 8,
            "DAY_HOUR" if temporal => 5,
            "DAY_HOUR" => 10,
            "DAY_MINUTE" if temporal => 7,
            "DAY_MINUTE" => 12,
            "DAY_SECOND" if temporal => 9,
            "DAY_SECOND" => 14,
            "DAY_MICROSECOND" if temporal => 15,
            "DAY_MICROSECOND" => 20,
            _ => return Ok(None),
        };
        Ok(Some(ExprType::Int { len, digits: len.saturating_sub(1).max(1), unsigned: false, col: (len == 10).then_some(Base::Int) }))
    }

    /// `CAST(x AS type)`, `CONVERT(x, type)`, `CONVERT(x USING cs)`.
    fn cast(&mut self, name: &str) -> R {
        let arg = self.expr()?;
        if self.kw("USING") {
            // CONVERT(x USING cs): a string of that character set; `binary` a binary string.
            let binary = self.peek().and_then(|t| t.ident()).is_some_and(|c| c.eq_ignore_ascii_case("binary"));
            self.pos += 1;
            self.expect_op(")")?;
            return Ok(arg.map(|t| ExprType::Str { chars: t.chars(), fixed: false, binary, group: false, members: false }));
        }
        if !(name == "CAST" && self.kw("AS") || name == "CONVERT" && self.op(",")) {
            return Err(());
        }
        let ty = self.peek().and_then(|t| t.ident()).ok_or(())?.to_ascii_uppercase();
        self.pos += 1;
        let mut len = None;
        let mut scale = None;
        if self.op("(") {
            len = match self.peek().map(|t| &t.tok) {
                Some(Tok::Number(n)) => n.parse::<u64>().ok(),
                _ => None,
            };
            // DECIMAL(p, s)
            if let (Some(c), Some(Tok::Number(n))) = (self.toks.get(self.pos + 1), self.toks.get(self.pos + 2).map(|t| &t.tok)) {
                if c.is_op(",") {
                    scale = n.parse::<u64>().ok();
                }
            }
            self.pos -= 1;
            self.skip_parens()?;
        }
        // CAST(x AS SIGNED INTEGER), CHAR CHARACTER SET ..., DOUBLE PRECISION
        while self.peek().is_some_and(|t| !t.is_op(")")) {
            self.pos += 1;
        }
        self.expect_op(")")?;
        Ok(match ty.as_str() {
            // CAST(1 AS SIGNED) is INT(2), of an INT column BIGINT(11).
            // CAST(1 AS SIGNED) is INT(2), of an INT column BIGINT(11); of
            // a DECIMAL or a string as long as its text (at most 20): an
            // INT up to 9 characters; of NULL an INT(2).
            "SIGNED" => Some(match arg {
                Some(ExprType::Int { digits, unsigned: false, .. }) => ExprType::int_digits(digits, false),
                Some(ExprType::Null) => ExprType::int_digits(1, false),
                Some(t @ (ExprType::Decimal { .. } | ExprType::Str { .. })) => match t.chars().min(20) as u32 {
                    0 => ExprType::int_digits(1, false),
                    len @ 1..=9 => ExprType::int(len, false),
                    len => ExprType::Int { len, digits: len - 1, unsigned: false, col: Some(Base::BigInt) },
                },
                _ => ExprType::Int { len: 21, digits: 20, unsigned: false, col: Some(Base::BigInt) },
            }),
            "UNSIGNED" => Some(match arg {
                Some(ExprType::Null) => ExprType::int(1, true),
                _ => ExprType::Int { len: 20, digits: 20, unsigned: true, col: Some(Base::BigInt) },
            }),
            // DECIMAL(p, s); DECIMAL alone is DECIMAL(10, 0).
            "DECIMAL" | "DEC" => Some(decimal(len.unwrap_or(10) as u32, scale.unwrap_or(0) as u32)),
            "CHAR" | "NCHAR" => Some(ExprType::string(len.unwrap_or_else(|| arg.map_or(0, |t| t.chars())))),
            "BINARY" => Some(ExprType::Str { chars: len.unwrap_or_else(|| arg.map_or(0, |t| t.chars())), fixed: false, binary: true, group: false, members: false }),
            "DOUBLE" | "REAL" => Some(ExprType::Double { null_arith: false }),
            "FLOAT" => Some(ExprType::Float),
            "DATE" => Some(ExprType::Temporal { base: Base::Date, fsp: 0 }),
            "DATETIME" => Some(ExprType::Temporal { base: Base::DateTime, fsp: len.unwrap_or(0).min(6) as u8 }),
            "TIME" => Some(ExprType::Temporal { base: Base::Time, fsp: len.unwrap_or(0).min(6) as u8 }),
            _ => None,
        })
    }
}

/// The value of an integer constant argument: `5`, `-1`, `CAST(5 AS UNSIGNED)`
/// (MariaDB sizes REPEAT, SPACE, LPAD by a constant count); a number beyond
/// i64 counts as the largest.
pub(super) fn integer_literal(toks: &[Token]) -> Option<i64> {
    let num = |n: &str| if n.bytes().all(|b| b.is_ascii_digit()) { Some(n.parse::<i64>().unwrap_or(i64::MAX)) } else { None };
    match toks {
        [Token { tok: Tok::Number(n), .. }] => num(n),
        [m, Token { tok: Tok::Number(n), .. }] if m.is_op("-") => num(n).map(|v| -v),
        [c, open, Token { tok: Tok::Number(n), .. }, r#as, .., close] if c.is_kw("CAST") && open.is_op("(") && r#as.is_kw("AS") && close.is_op(")") => num(n),
        _ => None,
    }
}

/// Words that end a subquery's select list.
const CLAUSES: [&str; 10] = ["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "FOR", "INTO", "LOCK"];

/// Functions whose value is one of their argument's values.
pub(super) fn is_min_max(name: &str) -> bool {
    matches!(name, "MIN" | "MAX" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" | "LEAD" | "LAG")
}

/// Index of the `(` that opens the call ending just before `end`.
pub(super) fn open_of(toks: &[Token], end: usize) -> usize {
    let mut depth = 0i32;
    for k in (0..end).rev() {
        if toks[k].is_op(")") {
            depth += 1;
        } else if toks[k].is_op("(") {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    0
}
