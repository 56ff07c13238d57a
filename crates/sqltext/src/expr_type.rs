//! The type MariaDB 10.11 gives a select item, worked out from its text and
//! the types of the columns it names: the result metadata clients see
//! (`mysql --column-type-info`), for items whose value alone does not say it.
//!
//! Why: SQLite's value of `tinyint_col + 1` is an integer, of `sum(a)/count(*)`
//! a double, of `SEC_TO_TIME(x)` text and of `1 + NULL` nothing at all, where
//! MariaDB describes INT, DECIMAL(.,4), TIME and DOUBLE (the differential
//! runner, tests/outside/mtr_diff.py, counted 1,875 statements that disagreed
//! on a column's type). Both the SQLite engine (exec/results.rs) and the SQL
//! front (a SELECT without a table) describe items by `infer`, so the two
//! agree.
//!
//! How: a small precedence parser over the item's tokens, typing each node
//! by MariaDB's rules (checked against MariaDB, not from its source):
//! integer arithmetic carries a display length (`tinyint + 1` is INT(4),
//! `int + 1` BIGINT(12); INT while the length is at most 9); `/` and AVG of
//! exact numbers are DECIMAL with 4 more decimals; an operand NULL makes
//! arithmetic DOUBLE; COALESCE, IF, CASE, GREATEST, MIN, LEAD and the like
//! keep their arguments' common type (CHAR stays CHAR, TIME stays TIME);
//! a string longer than 512 characters is a BLOB sized by its bytes.
//! Conservative: an operand it does not know (a function not listed here, a
//! variable, a parameter, a subquery) makes the item unknown (`None`), and
//! the caller keeps its older rules; only comparisons are known whatever
//! their operands are.

use crate::lex::{Tok, Token};
use crate::types::Base;
use turnstile_wire::response::Column;

/// A column the item names, as its table defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColType {
    pub base: Base,
    pub unsigned: bool,
    /// Declared length (characters, digits, fractional seconds).
    pub length: Option<u64>,
    pub scale: Option<u64>,
}

/// An item's type as MariaDB reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprType {
    /// An integer of `digits` digits shown in `len` characters; `col`: the
    /// integer type of a column it passes on unchanged (`IF(a, tinyint_col,
    /// smallint_col)` is SMALLINT), else INT or BIGINT by `len`.
    Int {
        len: u32,
        digits: u32,
        unsigned: bool,
        col: Option<Base>,
    },
    Decimal {
        precision: u32,
        scale: u32,
    },
    /// DOUBLE; `null_arith`: arithmetic with a NULL operand (length 17, no decimals).
    Double {
        null_arith: bool,
    },
    Float,
    /// A string of at most `chars` characters; `fixed`: CHAR; `group`: GROUP_CONCAT (a BLOB).
    Str {
        chars: u64,
        fixed: bool,
        binary: bool,
        group: bool,
    },
    Temporal {
        base: Base,
        fsp: u8,
    },
    /// A hex or bit literal (`0x31`, `b'1'`) of `bytes` bytes: a binary
    /// string as a value, an unsigned integer in arithmetic.
    Hybrid {
        bytes: u32,
    },
    Null,
}

/// Most characters a string function of a non-constant length may return
/// (MariaDB's max_allowed_packet default, 16 MiB).
const HUGE_CHARS: u64 = 16_777_216;
/// Deepest nesting the parser follows before giving up (unknown).
const MAX_DEPTH: u32 = 64;

impl ExprType {
    fn int(len: u32, unsigned: bool) -> ExprType {
        ExprType::Int { len, digits: len - u32::from(!unsigned && len > 1), unsigned, col: None }
    }

    /// An integer computed from `digits` digits: a sign unless unsigned.
    fn int_digits(digits: u32, unsigned: bool) -> ExprType {
        ExprType::Int { len: digits + u32::from(!unsigned), digits, unsigned, col: None }
    }

    fn string(chars: u64) -> ExprType {
        ExprType::Str { chars, fixed: false, binary: false, group: false }
    }

    /// Is this a BIGINT (LONGLONG) rather than an INT (LONG)?
    pub fn wide(&self) -> bool {
        matches!(self, ExprType::Int { len, .. } if *len > 9)
    }

    /// As a DECIMAL operand: precision and scale (integers count their digits).
    fn dec(&self) -> Option<(u32, u32)> {
        match *self {
            ExprType::Int { digits, .. } => Some((digits, 0)),
            ExprType::Decimal { precision, scale } => Some((precision, scale)),
            _ => None,
        }
    }

    /// Characters the value takes as a string (CONCAT's operand).
    fn chars(&self) -> u64 {
        match *self {
            ExprType::Int { len, .. } => u64::from(len),
            ExprType::Decimal { precision, scale } => u64::from(precision + u32::from(scale > 0) + 1),
            ExprType::Double { .. } | ExprType::Float => 12,
            ExprType::Str { chars, .. } => chars,
            ExprType::Temporal { base, fsp } => temporal_len(base, fsp),
            ExprType::Hybrid { bytes } => u64::from(bytes),
            ExprType::Null => 0,
        }
    }

    fn binary(&self) -> bool {
        matches!(self, ExprType::Str { binary: true, .. } | ExprType::Hybrid { .. })
    }
}

/// A DATE/DATETIME/TIME's display length with `fsp` fractional digits.
pub fn temporal_len(base: Base, fsp: u8) -> u64 {
    let frac = if fsp > 0 { u64::from(fsp) + 1 } else { 0 };
    match base {
        Base::Date => 10,
        Base::Time => 10 + frac,
        _ => 19 + frac,
    }
}

fn decimal(precision: u32, scale: u32) -> ExprType {
    let scale = scale.min(38);
    ExprType::Decimal { precision: precision.clamp(scale.max(1), 65), scale }
}

/// The type of select item `text` (None: not known here). `col` finds a
/// column by its qualifier and name.
pub fn infer(text: &str, col: &dyn Fn(Option<&str>, &str) -> Option<ColType>) -> Option<ExprType> {
    let toks = crate::lex::tokenize(text).ok()?;
    let mut p = P { toks: &toks, pos: 0, col, depth: 0, text };
    let t = p.expr().ok()?;
    if p.pos != toks.len() {
        return None;
    }
    t
}

/// An item's type: None when not known.
type T = Option<ExprType>;
/// Err: the text is not an expression this parser reads.
type R = Result<T, ()>;

struct P<'a> {
    toks: &'a [Token],
    pos: usize,
    col: &'a dyn Fn(Option<&str>, &str) -> Option<ColType>,
    depth: u32,
    text: &'a str,
}

fn boolean() -> T {
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
        let mut t = self.multiplicative()?;
        loop {
            let plus = self.op("+");
            if !plus && !self.op("-") {
                return Ok(t);
            }
            if self.kw("INTERVAL") {
                let unit = self.interval()?;
                t = date_add(t, unit);
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
            return Ok(t.map(|t| ExprType::Str { chars: t.chars(), fixed: false, binary: true, group: false }));
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
                Ok(Some(ExprType::Str { chars, fixed: false, binary, group: false }))
            }
            Tok::Op("(") => {
                if self.peek().is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH") || t.is_kw("VALUES")) {
                    self.pos -= 1;
                    self.skip_parens()?;
                    return Ok(None);
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
            _ => {
                // `@v`, `@@v`, `?`: unknown, and nothing more to read.
                Ok(None)
            }
        }
    }

    fn word(&mut self, w: &str) -> R {
        let up = w.to_ascii_uppercase();
        if self.peek().is_some_and(|t| t.is_op("(")) {
            return self.call(&up);
        }
        Ok(match up.as_str() {
            "NULL" => Some(ExprType::Null),
            "TRUE" | "FALSE" => Some(ExprType::int(1, false)),
            "CASE" => return self.case(),
            "EXISTS" => {
                self.skip_parens()?;
                boolean()
            }
            "INTERVAL" => {
                let unit = self.interval()?;
                self.expect_op("+").map_err(|_| ())?;
                let t = self.multiplicative()?;
                date_add(t, unit)
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
                Some(ExprType::Str { chars, fixed: false, binary, group: false })
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
        Ok((self.col)(qual, name).and_then(of_column))
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
            "GROUP_CONCAT" => {
                self.pos -= 1;
                self.skip_parens()?;
                return Ok(Some(ExprType::Str { chars: 1_048_576, fixed: false, binary: false, group: true }));
            }
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" => {
                let d = self.expr()?;
                self.expect_op(",")?;
                let unit = if self.kw("INTERVAL") {
                    self.interval()?
                } else {
                    self.expr()?;
                    "DAY".to_string()
                };
                self.expect_op(")")?;
                return Ok(date_add(d, unit));
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
        let t = function(name, &args, &lits);
        // MIN(int_col) keeps the column's type, MIN of an integer expression is a BIGINT.
        if let (true, Some(ExprType::Int { len, digits, unsigned, .. })) = (is_min_max(name) && !self.plain_column_arg(open), t) {
            return Ok(Some(ExprType::Int { len, digits, unsigned, col: Some(Base::BigInt) }));
        }
        Ok(t)
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
        let mut depth = 0i32;
        let mut start = open + 1;
        for k in open + 1..self.pos {
            let t = &self.toks[k];
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") && depth > 0 {
                depth -= 1;
            } else if depth == 0 && (t.is_op(",") || t.is_op(")")) {
                out.push(integer_literal(&self.toks[start..k]));
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
            "TIMESTAMPADD" => date_add(last, unit),
            // TRIM(x FROM s): the string is the last argument.
            "TRIM" => last.map(|t| ExprType::Str { chars: t.chars(), fixed: false, binary: t.binary(), group: false }),
            // SUBSTRING(s, pos, n): at most n characters.
            _ => first.map(|t| ExprType::Str { chars: count.map_or(t.chars(), |n| t.chars().min(n.max(0) as u64)), fixed: false, binary: t.binary(), group: false }),
        })
    }

    fn extract(&mut self) -> R {
        let unit = self.peek().and_then(|t| t.ident()).ok_or(())?.to_ascii_uppercase();
        self.pos += 1;
        if !self.kw("FROM") {
            return Err(());
        }
        self.expr()?;
        self.expect_op(")")?;
        Ok(match unit.as_str() {
            "YEAR" => Some(ExprType::int(4, false)),
            "QUARTER" => Some(ExprType::int(2, false)),
            "MONTH" | "WEEK" | "DAY" | "HOUR" | "MINUTE" | "SECOND" => Some(ExprType::int(3, false)),
            "MICROSECOND" | "YEAR_MONTH" => Some(ExprType::int(7, false)),
            "DAY_MICROSECOND" => Some(ExprType::int(15, false)),
            _ => None,
        })
    }

    /// `CAST(x AS type)`, `CONVERT(x, type)`, `CONVERT(x USING cs)`.
    fn cast(&mut self, name: &str) -> R {
        let arg = self.expr()?;
        if self.kw("USING") {
            self.pos += 1;
            self.expect_op(")")?;
            return Ok(arg.map(|t| ExprType::string(t.chars())));
        }
        if !(name == "CAST" && self.kw("AS") || name == "CONVERT" && self.op(",")) {
            return Err(());
        }
        let ty = self.peek().and_then(|t| t.ident()).ok_or(())?.to_ascii_uppercase();
        self.pos += 1;
        let mut len = None;
        if self.op("(") {
            len = match self.peek().map(|t| &t.tok) {
                Some(Tok::Number(n)) => n.parse::<u64>().ok(),
                _ => None,
            };
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
            "SIGNED" => Some(match arg {
                Some(ExprType::Int { digits, unsigned: false, .. }) => ExprType::int_digits(digits, false),
                _ => ExprType::Int { len: 21, digits: 20, unsigned: false, col: Some(Base::BigInt) },
            }),
            "UNSIGNED" => Some(ExprType::Int { len: 20, digits: 20, unsigned: true, col: Some(Base::BigInt) }),
            "CHAR" | "NCHAR" => Some(ExprType::string(len.unwrap_or_else(|| arg.map_or(0, |t| t.chars())))),
            "BINARY" => Some(ExprType::Str { chars: len.unwrap_or_else(|| arg.map_or(0, |t| t.chars())), fixed: false, binary: true, group: false }),
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
fn integer_literal(toks: &[Token]) -> Option<i64> {
    let num = |n: &str| if n.bytes().all(|b| b.is_ascii_digit()) { Some(n.parse::<i64>().unwrap_or(i64::MAX)) } else { None };
    match toks {
        [Token { tok: Tok::Number(n), .. }] => num(n),
        [m, Token { tok: Tok::Number(n), .. }] if m.is_op("-") => num(n).map(|v| -v),
        [c, open, Token { tok: Tok::Number(n), .. }, r#as, .., close] if c.is_kw("CAST") && open.is_op("(") && r#as.is_kw("AS") && close.is_op(")") => num(n),
        _ => None,
    }
}

/// Functions whose value is one of their argument's values.
fn is_min_max(name: &str) -> bool {
    matches!(name, "MIN" | "MAX" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" | "LEAD" | "LAG")
}

/// Index of the `(` that opens the call ending just before `end`.
fn open_of(toks: &[Token], end: usize) -> usize {
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

/// A numeric literal's type.
fn number(n: &str) -> T {
    if let Some(bytes) = crate::lex::hybrid_bytes(n) {
        return Some(ExprType::Hybrid { bytes: bytes.len() as u32 });
    }
    if n.contains(['e', 'E']) {
        return Some(ExprType::Double { null_arith: false });
    }
    if n.contains('.') {
        let d = crate::decimal::DecType::of_literal(n);
        return Some(decimal(d.precision, d.scale));
    }
    let digits = n.trim_start_matches('0').len().max(1) as u32;
    (digits <= 18).then_some(ExprType::Int { len: digits, digits, unsigned: false, col: None })
}

/// A column's type as an operand.
fn of_column(c: ColType) -> T {
    let b = c.base;
    Some(match b {
        Base::TinyInt | Base::SmallInt | Base::MediumInt | Base::Int | Base::BigInt => {
            let len = b.display_width(c.unsigned) as u32;
            ExprType::Int { len, digits: len - u32::from(!c.unsigned), unsigned: c.unsigned, col: Some(b) }
        }
        Base::Year => ExprType::Int { len: 4, digits: 4, unsigned: true, col: Some(Base::Year) },
        Base::Decimal => decimal(c.length.unwrap_or(10) as u32, c.scale.unwrap_or(0) as u32),
        Base::Float => ExprType::Float,
        Base::Double => ExprType::Double { null_arith: false },
        Base::Date | Base::DateTime | Base::Timestamp | Base::Time => ExprType::Temporal { base: b, fsp: c.length.unwrap_or(0).min(6) as u8 },
        Base::Char | Base::Binary => ExprType::Str { chars: c.length.unwrap_or(1), fixed: true, binary: b == Base::Binary, group: false },
        Base::VarChar | Base::Enum | Base::Set => ExprType::string(c.length.unwrap_or(1)),
        Base::VarBinary => ExprType::Str { chars: c.length.unwrap_or(1), fixed: false, binary: true, group: false },
        Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::Json => ExprType::string(b.max_len(None).unwrap_or(4_294_967_295) / 4),
        Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob => ExprType::Str { chars: b.max_len(None).unwrap_or(4_294_967_295), fixed: false, binary: true, group: false },
        Base::Bit => return None,
    })
}

/// An operand of arithmetic: strings and temporals count as DOUBLE, NULL stays NULL.
fn numeric(t: ExprType) -> ExprType {
    match t {
        ExprType::Str { .. } | ExprType::Temporal { .. } | ExprType::Float => ExprType::Double { null_arith: false },
        // 0x31, b'1': an unsigned integer of its bytes.
        ExprType::Hybrid { bytes } => match bytes {
            0 | 1 => ExprType::int_digits(3, true),
            2 => ExprType::int_digits(5, true),
            3 => ExprType::int_digits(8, true),
            4 => ExprType::int_digits(10, true),
            _ => ExprType::int_digits(20, true),
        },
        // A column's own integer type is not the result's.
        ExprType::Int { len, digits, unsigned, .. } => ExprType::Int { len, digits, unsigned, col: None },
        t => t,
    }
}

/// `a + b`, `a - b`.
fn additive(a: T, b: T) -> T {
    let (a, b) = (numeric(a?), numeric(b?));
    Some(match (a, b) {
        (ExprType::Null, _) | (_, ExprType::Null) => ExprType::Double { null_arith: true },
        (ExprType::Double { .. }, _) | (_, ExprType::Double { .. }) => ExprType::Double { null_arith: false },
        (ExprType::Int { digits: d1, unsigned: u1, .. }, ExprType::Int { digits: d2, unsigned: u2, .. }) => {
            let unsigned = u1 || u2;
            if d1.max(d2) + 1 > 19 {
                return Some(ExprType::Int { len: 21, digits: 20, unsigned, col: None });
            }
            ExprType::int_digits(d1.max(d2) + 1, unsigned)
        }
        _ => {
            let ((p1, s1), (p2, s2)) = (a.dec()?, b.dec()?);
            let scale = s1.max(s2);
            decimal((p1 - s1).max(p2 - s2) + 1 + scale, scale)
        }
    })
}

/// `a * b`, `a / b`, `a % b`, `a DIV b`.
fn multiplicative(op: &str, a: T, b: T) -> T {
    let (a, b) = (numeric(a?), numeric(b?));
    if matches!(a, ExprType::Null) || matches!(b, ExprType::Null) {
        return Some(if op == "DIV" { ExprType::int(21, false) } else { ExprType::Double { null_arith: true } });
    }
    if matches!(a, ExprType::Double { .. }) || matches!(b, ExprType::Double { .. }) {
        return match op {
            "DIV" => None,
            _ => Some(ExprType::Double { null_arith: false }),
        };
    }
    let ((p1, s1), (p2, s2)) = (a.dec()?, b.dec()?);
    let (u1, u2) = (matches!(a, ExprType::Int { unsigned: true, .. }), matches!(b, ExprType::Int { unsigned: true, .. }));
    let ints = s1 == 0 && s2 == 0 && matches!(a, ExprType::Int { .. }) && matches!(b, ExprType::Int { .. });
    Some(match op {
        "*" if ints => {
            let digits = p1 + p2;
            if digits > 19 {
                ExprType::Int { len: 21, digits: 20, unsigned: u1 || u2, col: None }
            } else {
                ExprType::int_digits(digits, u1 || u2)
            }
        }
        "*" => decimal(p1 + p2, s1 + s2),
        "/" => {
            let scale = s1 + 4;
            decimal(p1 - s1 + s2 + scale, scale)
        }
        "%" if ints => ExprType::int_digits(p1.max(p2), u1),
        // 1 DIV 3 is INT(1), int_col DIV 2 BIGINT(10): the dividend's digits.
        "DIV" => ExprType::Int { len: (p1 - s1).max(1), digits: (p1 - s1).max(1), unsigned: u1, col: None },
        "%" => {
            let scale = s1.max(s2);
            decimal((p1 - s1).max(p2 - s2) + scale, scale)
        }
        _ => return None,
    })
}

/// `d + INTERVAL n unit`, DATE_ADD and the like.
fn date_add(d: T, unit: String) -> T {
    let ExprType::Temporal { base, fsp } = d? else { return None };
    let time_unit = unit.contains("HOUR") || unit.contains("MINUTE") || unit.contains("SECOND");
    let fsp = if unit.contains("MICROSECOND") { 6 } else { fsp };
    Some(match base {
        Base::Date if !time_unit => ExprType::Temporal { base: Base::Date, fsp: 0 },
        Base::Time if !(unit.contains("DAY") || unit.contains("WEEK") || unit.contains("MONTH") || unit.contains("YEAR") || unit.contains("QUARTER")) => ExprType::Temporal { base: Base::Time, fsp },
        Base::Time => return None,
        _ => ExprType::Temporal { base: Base::DateTime, fsp },
    })
}

/// The common type of COALESCE, IF, CASE, GREATEST...'s values.
fn hybrid(args: &[T]) -> T {
    let mut known = Vec::with_capacity(args.len());
    for a in args {
        match (*a)? {
            ExprType::Null => {}
            ExprType::Hybrid { bytes } => known.push(ExprType::Str { chars: u64::from(bytes), fixed: false, binary: true, group: false }),
            t => known.push(t),
        }
    }
    let Some(&first) = known.first() else { return Some(ExprType::Null) };
    if known.iter().all(|t| matches!(t, ExprType::Str { .. })) {
        let chars = known.iter().map(|t| t.chars()).max().unwrap_or(0);
        let fixed = known.iter().all(|t| matches!(t, ExprType::Str { fixed: true, .. }));
        let binary = known.iter().any(|t| t.binary());
        let group = known.iter().any(|t| matches!(t, ExprType::Str { group: true, .. }));
        return Some(ExprType::Str { chars, fixed, binary, group });
    }
    if known.iter().all(|t| matches!(t, ExprType::Temporal { .. })) {
        let fsp = known.iter().map(|t| if let ExprType::Temporal { fsp, .. } = t { *fsp } else { 0 }).max().unwrap_or(0);
        let bases: Vec<Base> = known.iter().map(|t| if let ExprType::Temporal { base, .. } = t { *base } else { Base::Date }).collect();
        let base = if bases.iter().all(|b| *b == bases[0]) {
            bases[0]
        } else if bases.iter().all(|b| *b != Base::Time) {
            Base::DateTime
        } else {
            return None;
        };
        return Some(ExprType::Temporal { base, fsp });
    }
    if known.iter().any(|t| matches!(t, ExprType::Str { .. } | ExprType::Temporal { .. })) {
        if known.iter().any(|t| matches!(t, ExprType::Temporal { .. })) {
            return None;
        }
        let chars = known.iter().map(|t| t.chars()).max().unwrap_or(0);
        return Some(ExprType::Str { chars, fixed: false, binary: known.iter().any(|t| t.binary()), group: false });
    }
    if known.iter().all(|t| matches!(t, ExprType::Float)) {
        return Some(ExprType::Float);
    }
    if known.iter().any(|t| matches!(t, ExprType::Double { .. } | ExprType::Float)) {
        return Some(ExprType::Double { null_arith: false });
    }
    if known.iter().all(|t| matches!(t, ExprType::Int { .. })) {
        let unsigned = matches!(first, ExprType::Int { unsigned: true, .. });
        let same_sign = known.iter().all(|t| matches!(t, ExprType::Int { unsigned: u, .. } if *u == unsigned));
        let digits = known.iter().map(|t| if let ExprType::Int { digits, .. } = t { *digits } else { 0 }).max().unwrap_or(1);
        if !same_sign {
            return Some(decimal(digits, 0));
        }
        let cols: Vec<Option<Base>> = known.iter().map(|t| if let ExprType::Int { col, .. } = t { *col } else { None }).collect();
        let col = if cols.iter().all(Option::is_some) { cols.iter().flatten().copied().max_by_key(|b| int_rank(*b)) } else { None };
        let len = match col {
            Some(b) if b != Base::Year => b.display_width(unsigned) as u32,
            _ => digits + u32::from(!unsigned),
        };
        return Some(ExprType::Int { len, digits, unsigned, col: col.filter(|b| *b != Base::Year) });
    }
    // Integers and decimals: the larger integer part and scale.
    let mut int_part = 0;
    let mut scale = 0;
    for t in &known {
        let (p, s) = t.dec()?;
        int_part = int_part.max(p - s);
        scale = scale.max(s);
    }
    Some(decimal(int_part + scale, scale))
}

fn int_rank(b: Base) -> u8 {
    match b {
        Base::TinyInt => 1,
        Base::SmallInt => 2,
        Base::MediumInt => 3,
        Base::Int => 4,
        _ => 5,
    }
}

/// Functions whose type does not depend on their arguments.
fn fixed_function(name: &str) -> T {
    Some(match name {
        "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "NTILE" | "TIME_TO_SEC" | "UNIX_TIMESTAMP" | "TO_SECONDS" | "BIT_OR" | "BIT_AND" | "BIT_XOR" | "BIT_COUNT" => match name {
            "TIME_TO_SEC" | "UNIX_TIMESTAMP" => ExprType::int(17, false),
            "TO_SECONDS" => ExprType::int(12, false),
            "BIT_OR" | "BIT_AND" | "BIT_XOR" => ExprType::int(21, true),
            "BIT_COUNT" => ExprType::int(2, false),
            _ => ExprType::int(21, false),
        },
        "TO_DAYS" | "PERIOD_ADD" | "PERIOD_DIFF" | "YEARWEEK" | "MICROSECOND" => ExprType::int(6, false),
        "DATEDIFF" => ExprType::int(8, false),
        "RAND" | "SQRT" | "EXP" | "LN" | "LOG" | "LOG2" | "LOG10" | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN" | "ATAN2" | "COT" | "POW" | "POWER" | "DEGREES" | "RADIANS" | "STD" | "STDDEV"
        | "STDDEV_POP" | "STDDEV_SAMP" | "VARIANCE" | "VAR_POP" | "VAR_SAMP" | "PERCENT_RANK" | "CUME_DIST" => ExprType::Double { null_arith: false },
        "CURDATE" | "CURRENT_DATE" | "UTC_DATE" | "FROM_DAYS" | "MAKEDATE" => ExprType::Temporal { base: Base::Date, fsp: 0 },
        "DAYNAME" | "MONTHNAME" => ExprType::string(9),
        "MD5" => ExprType::string(32),
        "SHA1" | "SHA" => ExprType::string(40),
        "SHA2" => ExprType::string(128),
        "UUID" => ExprType::Str { chars: 36, fixed: true, binary: false, group: false },
        "DATABASE" | "SCHEMA" | "USER" | "CURRENT_USER" | "SESSION_USER" | "SYSTEM_USER" | "VERSION" => ExprType::string(64),
        _ => return None,
    })
}

/// A call's type from its arguments' (`lits`: integer literal arguments).
fn function(name: &str, args: &[T], lits: &[Option<i64>]) -> T {
    if let Some(t) = fixed_function(name) {
        return Some(t);
    }
    if let Some((len, unsigned)) = crate::item_type::long_function(name) {
        // INT whatever its length (LENGTH is INT(10)).
        return Some(ExprType::Int { len, digits: len - u32::from(!unsigned && len > 1), unsigned, col: Some(Base::Int) });
    }
    let arg = |k: usize| -> T { args.get(k).copied().flatten() };
    match name {
        "IF" => hybrid(args.get(1..)?),
        "IFNULL" | "NVL" | "COALESCE" | "GREATEST" | "LEAST" => hybrid(args),
        "NULLIF" => arg(0),
        "MIN" | "MAX" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" | "LEAD" | "LAG" | "ANY_VALUE" => match arg(0)? {
            ExprType::Null => Some(ExprType::Null),
            t => Some(t),
        },
        "SUM" => match numeric(arg(0)?) {
            ExprType::Double { .. } | ExprType::Null => Some(ExprType::Double { null_arith: true }),
            t => t.dec().map(|(p, s)| decimal(p + 22, s)),
        },
        "AVG" => match numeric(arg(0)?) {
            ExprType::Double { .. } | ExprType::Null => Some(ExprType::Double { null_arith: true }),
            t => t.dec().map(|(p, s)| decimal(p + 4, s + 4)),
        },
        "ABS" => match numeric(arg(0)?) {
            ExprType::Null => Some(ExprType::Double { null_arith: true }),
            ExprType::Int { len, digits, unsigned, .. } => Some(ExprType::Int { len, digits, unsigned, col: None }),
            t => Some(t),
        },
        "ROUND" | "TRUNCATE" | "FLOOR" | "CEIL" | "CEILING" => match arg(0)? {
            t @ ExprType::Int { .. } => Some(t),
            ExprType::Double { .. } | ExprType::Float if name == "ROUND" || name == "TRUNCATE" => Some(ExprType::Double { null_arith: false }),
            _ => None,
        },
        "MOD" => multiplicative("%", arg(0), arg(1)),
        _ => string_function(name, args, lits).or_else(|| temporal_function(name, args, lits)),
    }
}

/// A string function's type from its arguments'.
fn string_function(name: &str, args: &[T], lits: &[Option<i64>]) -> T {
    let arg = |k: usize| -> T { args.get(k).copied().flatten() };
    let lit = |k: usize| lits.get(k).copied().flatten();
    let str_of = |chars: u64, binary: bool| Some(ExprType::Str { chars, fixed: false, binary, group: false });
    let any_binary = || args.iter().any(|a| a.is_some_and(|t| t.binary()));
    match name {
        "CONCAT" => {
            let mut chars = 0u64;
            for a in args {
                chars += (*a)?.chars();
            }
            str_of(chars, any_binary())
        }
        "CONCAT_WS" => {
            let sep = arg(0)?.chars();
            let mut chars = 0u64;
            for a in args.get(1..)? {
                chars += (*a)?.chars() + sep;
            }
            str_of(chars.saturating_sub(sep), any_binary())
        }
        "UPPER" | "LOWER" | "UCASE" | "LCASE" | "LTRIM" | "RTRIM" | "REVERSE" | "LEFT" | "RIGHT" | "MID" | "SUBSTRING_INDEX" | "REGEXP_SUBSTR" => {
            let t = arg(0)?;
            let chars = match (name, lit(1)) {
                ("LEFT" | "RIGHT", Some(n)) => t.chars().min(n.max(0) as u64),
                _ => t.chars(),
            };
            str_of(chars, t.binary())
        }
        "REPEAT" => {
            let t = arg(0)?;
            str_of(lit(1).map_or(HUGE_CHARS, |n| t.chars().saturating_mul(n.max(0) as u64).min(HUGE_CHARS)), t.binary())
        }
        "SPACE" => str_of(lit(0).map_or(HUGE_CHARS, |n| (n.max(0) as u64).min(HUGE_CHARS)), false),
        "LPAD" | "RPAD" => str_of(lit(1).map_or(HUGE_CHARS, |n| (n.max(0) as u64).min(HUGE_CHARS)), arg(0)?.binary()),
        "REPLACE" => {
            let (s, to) = (arg(0)?, arg(2)?);
            str_of(s.chars().saturating_mul(to.chars().max(1)).min(HUGE_CHARS), s.binary())
        }
        "REGEXP_REPLACE" => str_of(HUGE_CHARS, arg(0)?.binary()),
        "INSERT" => str_of(arg(0)?.chars() + arg(3)?.chars(), arg(0)?.binary()),
        "HEX" => str_of(arg(0)?.chars() * 2, false),
        "QUOTE" => str_of(arg(0)?.chars() * 2 + 2, false),
        _ => None,
    }
}

/// A date and time function's type from its arguments'.
fn temporal_function(name: &str, args: &[T], lits: &[Option<i64>]) -> T {
    let arg = |k: usize| -> T { args.get(k).copied().flatten() };
    let lit = |k: usize| lits.get(k).copied().flatten();
    match name {
        "SEC_TO_TIME" => Some(ExprType::Temporal { base: Base::Time, fsp: frac_of(arg(0)?) }),
        "MAKETIME" => Some(ExprType::Temporal { base: Base::Time, fsp: frac_of(arg(2)?) }),
        "TIMEDIFF" => match (arg(0)?, arg(1)?) {
            (ExprType::Temporal { fsp: a, .. }, ExprType::Temporal { fsp: b, .. }) => Some(ExprType::Temporal { base: Base::Time, fsp: a.max(b) }),
            _ => None,
        },
        "ADDTIME" | "SUBTIME" => match arg(0)? {
            ExprType::Temporal { base: Base::Time, fsp } => Some(ExprType::Temporal { base: Base::Time, fsp }),
            ExprType::Temporal { base: Base::DateTime | Base::Timestamp, fsp } => Some(ExprType::Temporal { base: Base::DateTime, fsp }),
            _ => None,
        },
        "DATE" | "LAST_DAY" => Some(ExprType::Temporal { base: Base::Date, fsp: 0 }),
        "TIME" => match arg(0)? {
            ExprType::Temporal { fsp, .. } => Some(ExprType::Temporal { base: Base::Time, fsp }),
            _ => None,
        },
        "TIMESTAMP" if args.len() == 1 => match arg(0)? {
            ExprType::Temporal { fsp, .. } => Some(ExprType::Temporal { base: Base::DateTime, fsp }),
            _ => None,
        },
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE" | "UTC_TIMESTAMP" => Some(ExprType::Temporal { base: Base::DateTime, fsp: lit(0).unwrap_or(0).clamp(0, 6) as u8 }),
        "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => Some(ExprType::Temporal { base: Base::Time, fsp: lit(0).unwrap_or(0).clamp(0, 6) as u8 }),
        "FROM_UNIXTIME" if args.len() == 1 => match arg(0)? {
            ExprType::Int { .. } => Some(ExprType::Temporal { base: Base::DateTime, fsp: 0 }),
            _ => None,
        },
        "CONVERT_TZ" => match arg(0)? {
            ExprType::Temporal { base: Base::DateTime | Base::Timestamp, fsp } => Some(ExprType::Temporal { base: Base::DateTime, fsp }),
            _ => None,
        },
        _ => None,
    }
}

/// Fractional seconds a TIME made from a number keeps: its decimals.
fn frac_of(t: ExprType) -> u8 {
    match t {
        ExprType::Decimal { scale, .. } => scale.min(6) as u8,
        ExprType::Double { .. } | ExprType::Float | ExprType::Str { .. } => 6,
        _ => 0,
    }
}

/// Bytes from which MariaDB sends a string as a BLOB (REPEAT('a', 16382) is
/// a VARCHAR of 65528 bytes, REPEAT('a', 16383) a BLOB).
const VARCHAR_BYTES: u64 = 65_532;

/// The result column MariaDB describes for an item of type `t` named `name`.
pub fn column(name: &str, t: &ExprType) -> Column {
    use turnstile_wire::consts::{charset, colflag, coltype};
    let num = |ty: u8, len: u32, unsigned: bool| {
        let mut c = Column::computed(name, ty);
        c.charset = charset::BINARY;
        c.flags = colflag::BINARY | colflag::NUM | if unsigned { colflag::UNSIGNED } else { 0 };
        c.length = len;
        c.decimals = 0;
        c
    };
    match *t {
        ExprType::Int { len, unsigned, col, .. } => {
            let ty = match col {
                Some(Base::TinyInt) => coltype::TINY,
                Some(Base::SmallInt) => coltype::SHORT,
                Some(Base::MediumInt) => coltype::INT24,
                Some(Base::Int) => coltype::LONG,
                Some(_) => coltype::LONGLONG,
                None if t.wide() => coltype::LONGLONG,
                None => coltype::LONG,
            };
            num(ty, len, unsigned)
        }
        ExprType::Decimal { precision, scale } => {
            let mut c = num(coltype::NEWDECIMAL, precision + u32::from(scale > 0) + 1, false);
            c.decimals = scale as u8;
            c
        }
        ExprType::Double { null_arith: true } => num(coltype::DOUBLE, 17, false),
        ExprType::Double { null_arith: false } => {
            let mut c = num(coltype::DOUBLE, 23, false);
            c.decimals = 31;
            c
        }
        ExprType::Float => {
            let mut c = num(coltype::FLOAT, 12, false);
            c.decimals = 31;
            c
        }
        ExprType::Str { chars, fixed, binary, group } => {
            let bytes = chars.saturating_mul(if binary { 1 } else { 4 });
            let ty = match bytes {
                _ if group => coltype::BLOB,
                0..VARCHAR_BYTES => {
                    if fixed {
                        coltype::STRING
                    } else {
                        coltype::VAR_STRING
                    }
                }
                VARCHAR_BYTES..=65_535 => coltype::BLOB,
                65_536..=16_777_215 => coltype::MEDIUM_BLOB,
                _ => coltype::LONG_BLOB,
            };
            let mut c = Column::computed(name, ty);
            c.length = bytes.min(u64::from(u32::MAX)) as u32;
            c.charset = if binary { charset::BINARY } else { charset::UTF8MB4_GENERAL_CI };
            c.flags = if binary { colflag::BINARY } else { 0 } | if ty == coltype::VAR_STRING || ty == coltype::STRING { 0 } else { colflag::BLOB };
            c.decimals = if binary { 0 } else { 39 };
            c
        }
        ExprType::Hybrid { bytes } => {
            let mut c = Column::computed(name, coltype::VAR_STRING);
            c.charset = charset::BINARY;
            c.flags = colflag::BINARY;
            c.length = bytes;
            c.decimals = 0;
            c
        }
        ExprType::Temporal { base, fsp } => {
            let ty = match base {
                Base::Date => coltype::DATE,
                Base::Time => coltype::TIME,
                Base::Timestamp => coltype::TIMESTAMP,
                _ => coltype::DATETIME,
            };
            let mut c = num(ty, temporal_len(base, fsp) as u32, false);
            c.flags &= !colflag::NUM;
            c.decimals = if base == Base::Date { 0 } else { fsp };
            c
        }
        ExprType::Null => Column::computed(name, coltype::NULL),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(_q: Option<&str>, name: &str) -> Option<ColType> {
        let (base, unsigned, length, scale) = match name {
            "i" => (Base::Int, false, None, None),
            "ti" => (Base::TinyInt, false, None, None),
            "tu" => (Base::TinyInt, true, None, None),
            "su" => (Base::SmallInt, true, None, None),
            "d" => (Base::Decimal, false, Some(10), Some(2)),
            "c" => (Base::Char, false, Some(10), None),
            "tx" => (Base::Text, false, None, None),
            "tm" => (Base::Time, false, None, None),
            "da" => (Base::Date, false, None, None),
            _ => return None,
        };
        Some(ColType { base, unsigned, length, scale })
    }

    fn ty(s: &str) -> Option<ExprType> {
        infer(s, &cols)
    }

    fn int_len(s: &str) -> Option<(u32, bool)> {
        match ty(s)? {
            ExprType::Int { len, unsigned, .. } => Some((len, unsigned)),
            _ => None,
        }
    }

    #[test]
    fn integer_arithmetic_as_mariadb() {
        assert_eq!(int_len("i+1"), Some((12, false)));
        assert_eq!(int_len("1+1"), Some((3, false)));
        assert_eq!(int_len("1+1+1"), Some((4, false)));
        assert_eq!(int_len("ti*ti"), Some((7, false)));
        assert_eq!(int_len("tu+1"), Some((4, true)));
        assert_eq!(int_len("-ti"), Some((5, false)));
        assert_eq!(int_len("-1+1"), Some((3, false)));
        assert_eq!(int_len("ti % 10"), Some((4, false)));
        assert_eq!(int_len("count(i) > 0"), Some((1, false)));
        assert_eq!(int_len("abs(tu)"), Some((3, true)));
        assert_eq!(int_len("1 | NULL"), Some((21, true)));
    }

    #[test]
    fn others_as_mariadb() {
        assert_eq!(ty("1 + NULL"), Some(ExprType::Double { null_arith: true }));
        assert_eq!(ty("sum(i)/count(*)"), Some(ExprType::Decimal { precision: 36, scale: 4 }));
        assert_eq!(ty("avg(ti)"), Some(ExprType::Decimal { precision: 7, scale: 4 }));
        assert_eq!(ty("d/2"), Some(ExprType::Decimal { precision: 14, scale: 6 }));
        assert_eq!(ty("coalesce(c, c)"), Some(ExprType::Str { chars: 10, fixed: true, binary: false, group: false }));
        assert_eq!(ty("sec_to_time(sum(time_to_sec(tm)))"), Some(ExprType::Temporal { base: Base::Time, fsp: 0 }));
        assert_eq!(ty("da + interval 1 day"), Some(ExprType::Temporal { base: Base::Date, fsp: 0 }));
        assert_eq!(ty("ifnull(tu, su)"), Some(ExprType::Int { len: 5, digits: 5, unsigned: true, col: Some(Base::SmallInt) }));
        assert!(matches!(ty("repeat('a', i)"), Some(ExprType::Str { chars: HUGE_CHARS, .. })));
        assert_eq!(ty("upper(x)"), None);
        assert_eq!(ty("f(i) = 1"), Some(ExprType::int(1, false)));
        assert_eq!(ty("@a + 1"), None);
        assert_eq!(ty("(select 1) + 1"), None);
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(ty(&deep), None);
    }
}
