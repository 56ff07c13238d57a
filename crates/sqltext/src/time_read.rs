//! A date function's argument read as MariaDB 10.11 reads it: a text or a
//! number as a DATE, DATETIME or TIME, with the condition MariaDB raises
//! when the value was cut (`Truncated incorrect date value: '...'`, 1292)
//! or is none (`Incorrect datetime value: '...'`, 1292, the result NULL).
//!
//! Why here: `YEAR('98-02-03')`, `QUARTER(980303)`, `SECOND(230322)` and
//! `DAYOFYEAR('0000-00-00')` each read their argument by rules no simple
//! `Y-M-D h:m:s` parser has (two-digit years, digits without delimiters, any
//! punctuation between parts, trailing garbage cut with a warning, a zero
//! date refused only by the functions that need a real day). The rules are
//! pure text and number handling, checked against MariaDB 10.11, and shared
//! by every date function of the SQLite engine (functions/dates.rs).
//!
//! The readers:
//! - `read_datetime`: the argument of YEAR, TO_DAYS, DATE_FORMAT and the
//!   like: `[YY]YY-MM-DD[ hh:mm:ss[.f]]` with any punctuation, digits
//!   `YYMMDD[hhmmss]` / `YYYYMMDD[hhmmss]`, a number the same way; the
//!   `DateRule` says whether a zero date or a zero month/day is refused.
//! - `read_time`: the argument of HOUR, TIME_TO_SEC and the like: a
//!   datetime text gives its time, otherwise `[-][D ]h:m:s[.f]`, `m:s`, or
//!   the number at the start as `HHMMSS`; clipped to ±838:59:59.999999.

use crate::civil::days_in_month;

/// What a value was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Date,
    DateTime,
    Time,
}

/// A date, datetime or time; a TIME keeps its whole hours in `hour`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tm {
    pub neg: bool,
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micro: u32,
    pub kind: Kind,
}

impl Tm {
    fn zero(kind: Kind) -> Tm {
        Tm { neg: false, year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, micro: 0, kind }
    }

    /// Whether every part is zero (`0000-00-00 00:00:00`).
    pub fn is_zero(&self) -> bool {
        self.year == 0 && self.month == 0 && self.day == 0 && self.hour == 0 && self.minute == 0 && self.second == 0 && self.micro == 0
    }
}

/// Which dates a function refuses (MariaDB's NO_ZERO_DATE / NO_ZERO_IN_DATE
/// fuzzy-date flags): DAYOFYEAR needs a real day, YEAR takes `0000-00-00`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DateRule {
    pub no_zero_date: bool,
    pub no_zero_in_date: bool,
    /// A day past its month's end is taken (`2005-09-31`): comparisons.
    pub invalid_dates: bool,
}

impl DateRule {
    /// Any date, `0000-00-00` and `2024-00-05` too.
    pub const ANY: DateRule = DateRule { no_zero_date: false, no_zero_in_date: false, invalid_dates: false };
    /// Only a date that names a day.
    pub const REAL: DateRule = DateRule { no_zero_date: true, no_zero_in_date: true, invalid_dates: false };
    /// What a comparison takes: any date, `2005-09-31` too.
    pub const COMPARED: DateRule = DateRule { no_zero_date: false, no_zero_in_date: false, invalid_dates: true };
}

/// The value given to a reader.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    Int(i64),
    Real(f64),
    Text(&'a str),
}

/// A reader's answer: the value (None: NULL) and the 1292 message to raise.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub tm: Option<Tm>,
    pub warning: Option<String>,
}

/// Largest TIME in hours and the most whole seconds one can hold in its hours field.
const TIME_MAX_HOUR: u64 = 838;
const DAYS_HOURS_MAX: u64 = 42_949_672_955_959; // u32::MAX:59:59

#[derive(Debug, Clone, Copy, Default)]
struct Status {
    truncated: bool,
    out_of_range: bool,
}

/// The value as shown in a warning: text as given, numbers as MariaDB prints them.
pub fn shown(v: Input<'_>) -> String {
    match v {
        Input::Int(i) => i.to_string(),
        Input::Real(f) => turnstile_wire::value::format_float(f),
        Input::Text(s) => shown_text(s),
    }
}

/// A text as a warning shows it: past 128 characters, its first 125 and
/// `...`, as MariaDB cuts it (a message stays small whatever the value).
pub fn shown_text(s: &str) -> String {
    if s.chars().nth(128).is_none() {
        return s.to_string();
    }
    let mut o: String = s.chars().take(125).collect();
    o.push_str("...");
    o
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Date => "date",
        Kind::DateTime => "datetime",
        Kind::Time => "time",
    }
}

fn answer(v: Input<'_>, r: Result<(Tm, Status), Status>, err_kind: Kind) -> Read {
    match r {
        Ok((tm, st)) => Read { tm: Some(tm), warning: (st.truncated || st.out_of_range).then(|| format!("Truncated incorrect {} value: '{}'", kind_name(tm.kind), shown(v))) },
        Err(_) => Read { tm: None, warning: Some(format!("Incorrect {} value: '{}'", kind_name(err_kind), shown(v))) },
    }
}

/// A DATE/DATETIME argument (YEAR, TO_DAYS, DATE_FORMAT, ...).
pub fn read_datetime(v: Input<'_>, rule: DateRule) -> Read {
    let r = match v {
        Input::Int(i) if i < 0 => Err(Status::default()),
        Input::Int(i) => number_to_datetime(i as u64, 0, false, rule),
        Input::Real(f) if (0.0..1e15).contains(&f) => {
            let micro = micros_of(f - f.trunc());
            number_to_datetime(f.trunc() as u64, micro, f.fract() != 0.0, rule)
        }
        Input::Real(_) => Err(Status::default()),
        Input::Text(s) => str_to_datetime(s.as_bytes(), rule),
    };
    answer(v, r, Kind::DateTime)
}

/// A TIME argument (HOUR, TIME_TO_SEC, ADDTIME, ...): a datetime gives its
/// time of day (its kind stays DateTime, so a caller can tell). A text
/// `YYYY-MM-DD` is a DATE (midnight), as a DATE column's value is: MariaDB
/// reads such a *string* as the number 2024, but the engine cannot tell a
/// string from the column's value, and columns are what queries read.
pub fn read_time(v: Input<'_>) -> Read {
    read_time_as(v, TimeText::Time)
}

/// How a text is told from a date when a time is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeText {
    /// `h:m:s`, days and digits are a time; a date needs 12 characters, a
    /// `T` or a space after punctuation (HOUR, TIME_TO_SEC).
    Time,
    /// Also `Y-M-D` (punctuation other than ':') is a date: EXTRACT of a
    /// time unit.
    Delimited,
    /// Also digits alone are a date (`'11111'`): EXTRACT of a DAY unit.
    DelimitedOrDigits,
}

/// `read_time` with EXTRACT's rules for telling a date from a time.
pub fn read_time_as(v: Input<'_>, how: TimeText) -> Read {
    let r = match v {
        Input::Int(i) => number_to_time(i < 0, i.unsigned_abs(), 0),
        Input::Real(f) if f.is_finite() => {
            let a = f.abs();
            if a >= 1e19 {
                Ok((max_time(f < 0.0), Status { out_of_range: true, ..Status::default() }))
            } else {
                number_to_time(f < 0.0, a.trunc() as u64, micros_of(a - a.trunc()))
            }
        }
        Input::Real(_) => Err(Status::default()),
        Input::Text(s) if is_canonical_date(s.as_bytes()) => str_to_datetime(s.as_bytes(), DateRule::ANY),
        Input::Text(s) => str_to_time(s.as_bytes(), how != TimeText::Time, how == TimeText::DelimitedOrDigits),
    };
    // A value clipped to 838:59:59.999999 keeps the digits it was given
    // (an integer or a text without a fraction: 838:59:59).
    let r = r.map(|(mut tm, st)| {
        if st.out_of_range {
            let digits = match v {
                Input::Int(_) => 0,
                Input::Real(_) => 6,
                Input::Text(s) => crate::temporal_cast::fraction_digits(s) as u32,
            };
            tm.micro = max_micros(digits);
        }
        (tm, st)
    });
    answer(v, r, Kind::Time)
}

/// `YYYY-MM-DD` exactly: a DATE column's value.
fn is_canonical_date(s: &[u8]) -> bool {
    s.len() == 10 && s.iter().enumerate().all(|(i, b)| if i == 4 || i == 7 { *b == b'-' } else { b.is_ascii_digit() })
}

/// The microseconds of a fraction `f` (0 <= f < 1), cut as MariaDB cuts
/// them (15.5566778899 → 556677), not lost to binary rounding (2.3 → 300000).
pub fn micros_of(f: f64) -> u32 {
    let x = f * 1e6;
    let r = x.round();
    (if (x - r).abs() < 1e-4 { r } else { x.trunc() }).clamp(0.0, 999_999.0) as u32
}

/// The most microseconds a value of `digits` fractional digits shows.
pub fn max_micros(digits: u32) -> u32 {
    999_999 - 999_999 % 10u32.pow(6 - digits.min(6))
}

fn max_time(neg: bool) -> Tm {
    Tm { neg, hour: TIME_MAX_HOUR as u32, minute: 59, second: 59, micro: 999_999, ..Tm::zero(Kind::Time) }
}

// ---- numbers

fn number_to_datetime(nr: u64, micro: u32, has_fraction: bool, rule: DateRule) -> Result<(Tm, Status), Status> {
    let err = Status::default();
    if nr == 0 && micro == 0 {
        if rule.no_zero_date {
            return Err(err);
        }
        return Ok((Tm::zero(Kind::DateTime), Status::default()));
    }
    let n = match nr {
        1..=100 => return Err(err),
        0..=691_231 => nr + 20_000_000,
        691_232..=700_100 => return Err(err),
        700_101..=991_231 => nr + 19_000_000,
        991_232..=10_000_100 => return Err(err),
        10_000_101..=99_991_231 => nr,
        99_991_232..=100_999_999 => return Err(err),
        101_000_000..=691_231_235_959 => nr + 20_000_000_000_000,
        691_231_235_960..=700_100_999_999 => return Err(err),
        700_101_000_000..=991_231_235_959 => nr + 19_000_000_000_000,
        991_231_235_960..=10_000_100_999_999 => return Err(err),
        10_000_101_000_000..=99_991_231_235_959 => nr,
        _ => return Err(err),
    };
    let kind = if n <= 99_991_231 { Kind::Date } else { Kind::DateTime };
    let (date, clock) = if kind == Kind::Date { (n, 0) } else { (n / 1_000_000, n % 1_000_000) };
    let p = |x: u64| x as u32;
    let tm = Tm {
        year: p(date / 10_000),
        month: p(date / 100 % 100),
        day: p(date % 100),
        hour: p(clock / 10_000),
        minute: p(clock / 100 % 100),
        second: p(clock % 100),
        micro: if kind == Kind::Date { 0 } else { micro },
        ..Tm::zero(kind)
    };
    if tm.month > 12 || tm.day > 31 || tm.hour > 23 || tm.minute > 59 || tm.second > 59 || !check_date(&tm, rule) {
        return Err(err);
    }
    Ok((tm, Status { truncated: kind == Kind::Date && has_fraction, ..Status::default() }))
}

fn number_to_time(neg: bool, nr: u64, micro: u32) -> Result<(Tm, Status), Status> {
    if nr > 9_999_999 && !neg {
        if let Ok((tm, st)) = number_to_datetime(nr, micro, micro != 0, DateRule::ANY) {
            return Ok((Tm { kind: Kind::DateTime, ..tm }, st));
        }
    }
    if nr > 8_385_959 {
        return Ok((max_time(neg), Status { out_of_range: true, ..Status::default() }));
    }
    let (minute, second) = ((nr / 100 % 100) as u32, (nr % 100) as u32);
    if minute > 59 || second > 59 {
        return Err(Status::default());
    }
    let tm = Tm { neg: neg && (nr != 0 || micro != 0), hour: (nr / 10_000) as u32, minute, second, micro, ..Tm::zero(Kind::Time) };
    Ok((tm, Status::default()))
}

// ---- texts

fn is_punct(b: u8) -> bool {
    b.is_ascii_punctuation()
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Leading spaces, a sign, spaces again; trailing garbage cut (`truncated`).
/// Err when what is left does not start with a digit.
fn find_body(s: &[u8]) -> Result<(bool, &[u8], bool), Status> {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let neg = s.get(i) == Some(&b'-');
    if neg || s.get(i) == Some(&b'+') {
        i += 1;
    }
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut end = s.len();
    let mut garbage = false;
    while end > i {
        let c = s[end - 1];
        if c.is_ascii_digit() || is_punct(c) {
            break;
        }
        if c == b'T' && end - i >= 2 && s[end - 2].is_ascii_digit() {
            break;
        }
        if !is_space(c) {
            garbage = true;
        }
        end -= 1;
    }
    let body = &s[i..end];
    if body.first().is_none_or(|b| !b.is_ascii_digit()) {
        return Err(Status { truncated: true, ..Status::default() });
    }
    Ok((neg, body, garbage))
}

/// A cursor over a body's bytes.
struct Cur<'a> {
    s: &'a [u8],
    at: usize,
    fields: u32,
}

impl Cur<'_> {
    fn more(&self) -> bool {
        self.at < self.s.len()
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }
    fn skip_digits(&mut self) -> usize {
        let from = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - from
    }
    /// Up to `max` digits into `v`; Err at a non-digit, Ok (nothing read) at the end.
    fn number(&mut self, v: &mut u64, max: usize) -> Result<(), ()> {
        if !self.more() {
            return Ok(());
        }
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return Err(());
        }
        let mut n: u64 = 0;
        let mut k = 0;
        while k < max && self.peek().is_some_and(|b| b.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add(u64::from(self.s[self.at] - b'0'));
            self.at += 1;
            k += 1;
        }
        *v = n;
        self.fields += 1;
        Ok(())
    }
    fn punct(&mut self) -> Result<(), ()> {
        match self.peek() {
            None => Ok(()),
            Some(b) if is_punct(b) => {
                self.at += 1;
                Ok(())
            }
            Some(_) => Err(()),
        }
    }
    /// Fraction digits after a '.', up to 6 kept (more: cut without a warning).
    fn micro(&mut self, st: &mut Status) -> u32 {
        let mut v = 0;
        let from = self.at;
        let fields = self.fields;
        if self.number(&mut v, 6).is_err() {
            st.truncated = true;
        }
        self.fields = fields;
        let digits = self.at - from;
        self.skip_digits();
        (v * 10u64.pow(6 - digits as u32)) as u32
    }
}

/// One step of reading a delimited date: a part or a separator.
type Step<'a> = dyn Fn(&mut Cur<'_>, &mut [u64; 6]) -> Result<(), ()> + 'a;

/// What `datetime_body` made of a text.
struct Body {
    tm: Option<Tm>,
    /// Read as a date with no time (three fields).
    fields: u32,
    end: usize,
    st: Status,
}

/// `YYYY-MM-DD hh:mm:ss.f` with any punctuation, or digits alone. `punct_sep`:
/// a punctuation mark may stand between the date and the time.
fn datetime_body(s: &[u8], rule: DateRule, punct_sep: bool) -> Body {
    let mut c = Cur { s, at: 0, fields: 0 };
    let mut st = Status::default();
    let mut v = [0u64; 6];
    let mut digits = c.skip_digits();
    if c.peek() == Some(b'T') {
        c.at += 1;
        digits += c.skip_digits();
    }
    if c.peek() == Some(b'.') && digits >= 12 {
        c.at += 1;
        c.skip_digits();
    }
    let internal = !c.more();
    c.at = 0;
    let year_len;
    let mut bad = false;
    if internal {
        year_len = if digits == 4 || digits == 8 || digits >= 14 { 4 } else { 2 };
        let widths = [year_len, 2, 2, 2, 2, 2];
        for (k, w) in widths.iter().enumerate() {
            if k == 3 && c.peek() == Some(b'T') {
                c.at += 1;
            }
            if c.number(&mut v[k], *w).is_err() {
                bad = true;
                break;
            }
        }
    } else {
        let from = c.at;
        let _ = c.number(&mut v[0], usize::MAX);
        year_len = c.at - from;
        let steps: [&Step<'_>; 10] = [
            &|c, _| c.punct(),
            &|c, v| c.number(&mut v[1], usize::MAX),
            &|c, _| c.punct(),
            &|c, v| c.number(&mut v[2], usize::MAX),
            &|c, _| date_time_separator(c, punct_sep),
            &|c, v| c.number(&mut v[3], usize::MAX),
            &|c, _| c.punct(),
            &|c, v| c.number(&mut v[4], usize::MAX),
            &|c, _| c.punct(),
            &|c, v| c.number(&mut v[5], usize::MAX),
        ];
        for step in steps {
            if step(&mut c, &mut v).is_err() {
                bad = true;
                break;
            }
        }
    }
    st.truncated |= bad;
    let mut end = c.at;
    if c.fields < 3 {
        st.truncated = true;
        return Body { tm: None, fields: c.fields, end, st };
    }
    let mut micro = 0;
    if !bad && c.peek() == Some(b'.') {
        c.at += 1;
        micro = c.micro(&mut st);
        end = c.at;
    }
    let big = |x: u64| x.min(u64::from(u32::MAX)) as u32;
    let mut tm = Tm { neg: false, year: big(v[0]), month: big(v[1]), day: big(v[2]), hour: big(v[3]), minute: big(v[4]), second: big(v[5]), micro, kind: Kind::DateTime };
    let not_zero = !tm.is_zero();
    if year_len == 2 && not_zero {
        tm.year += if tm.year < 70 { 2000 } else { 1900 };
    }
    if tm.year > 9999 || tm.month > 12 || tm.day > 31 || tm.hour > 23 || tm.minute > 59 || tm.second > 59 {
        st.truncated = true;
        return Body { tm: None, fields: c.fields, end, st };
    }
    if !check_date(&tm, rule) {
        return Body { tm: None, fields: c.fields, end, st };
    }
    tm.kind = if c.fields <= 3 { Kind::Date } else { Kind::DateTime };
    if end != s.len() {
        st = Status { truncated: true, ..Status::default() };
    }
    Body { tm: Some(tm), fields: c.fields, end, st }
}

fn date_time_separator(c: &mut Cur<'_>, punct_sep: bool) -> Result<(), ()> {
    match c.peek() {
        None => Ok(()),
        Some(b'T') => {
            c.at += 1;
            Ok(())
        }
        Some(b) if is_punct(b) => {
            if !punct_sep {
                c.fields = 0;
                return Err(());
            }
            c.at += 1;
            Ok(())
        }
        Some(b) if is_space(b) => {
            while c.peek().is_some_and(is_space) {
                c.at += 1;
            }
            Ok(())
        }
        Some(_) => Err(()),
    }
}

/// Whether the date is one `rule` takes (a day past its month's end never is).
fn check_date(tm: &Tm, rule: DateRule) -> bool {
    if tm.is_zero() {
        return !rule.no_zero_date;
    }
    if rule.no_zero_in_date && (tm.month == 0 || tm.day == 0) {
        return false;
    }
    rule.invalid_dates || tm.month == 0 || i64::from(tm.day) <= days_in_month(i64::from(tm.year), i64::from(tm.month))
}

fn str_to_datetime(s: &[u8], rule: DateRule) -> Result<(Tm, Status), Status> {
    let (neg, body, garbage) = find_body(s)?;
    let b = datetime_body(body, rule, true);
    let mut st = b.st;
    st.truncated |= garbage;
    match b.tm {
        Some(_) if neg => Err(st),
        Some(tm) => Ok((tm, st)),
        None => Err(st),
    }
}

/// Counts of the marks in a text, for telling a date from a time.
fn marks(s: &[u8]) -> (usize, usize) {
    (s.iter().filter(|&&b| b == b'T').count(), s.iter().filter(|&&b| b == b':').count())
}

/// Whether a text (after the sign) may be a full date or datetime rather
/// than a time (`delimited`: `Y-M-D` may be; `digits`: digits alone may be).
fn datetime_candidate(s: &[u8], delimited: bool, digits: bool) -> bool {
    if s.len() >= 12 {
        return true;
    }
    if s.len() < 5 + usize::from(!delimited) && !digits {
        return false;
    }
    let mut punct = 0;
    for &b in s {
        if b == b'T' {
            return true;
        }
        if b == b' ' {
            return punct > 0;
        }
        if is_punct(b) {
            if delimited && b != b':' {
                return true;
            }
            punct += 1;
        }
    }
    digits && punct == 0
}

fn str_to_time(s: &[u8], delimited: bool, digits: bool) -> Result<(Tm, Status), Status> {
    let (neg, body, garbage) = find_body(s)?;
    if datetime_candidate(body, delimited, digits) {
        let b = datetime_body(body, DateRule::ANY, false);
        let seen = &body[..b.end];
        let (t, colons) = marks(seen);
        let date_like = t > 0 || colons == 0;
        match b.tm {
            Some(tm) if tm.kind == Kind::DateTime || date_like => {
                if neg {
                    return Err(b.st);
                }
                let mut st = b.st;
                st.truncated |= garbage;
                return Ok((tm, st));
            }
            Some(_) => {}
            None if b.fields >= 3 && (b.fields > 3 || date_like) => return Err(b.st),
            None if b.fields < 3 && digits && b.end >= body.len() && t == 0 && colons == 0 && !seen.iter().any(|c| is_punct(*c)) => return Err(b.st),
            None => {}
        }
    }
    let (tm, mut st) = dd_hhmmss(neg, body)?;
    st.truncated |= garbage;
    Ok((tm, st))
}

/// `[D ]h:m:s.f`, `h:m`, or digits as `HHMMSS`, clipped to 838:59:59.999999.
fn dd_hhmmss(neg: bool, s: &[u8]) -> Result<(Tm, Status), Status> {
    let oor = Status { out_of_range: true, ..Status::default() };
    let mut c = Cur { s, at: 0, fields: 0 };
    let mut st = Status::default();
    let mut value: u64 = 0;
    while let Some(b) = c.peek().filter(u8::is_ascii_digit) {
        value = value * 10 + u64::from(b - b'0');
        if value >= DAYS_HOURS_MAX {
            return Err(oor);
        }
        c.at += 1;
    }
    let end_of_days = c.at;
    while c.peek().is_some_and(is_space) {
        c.at += 1;
    }
    let left = s.len() - c.at;
    let digit_at = |k: usize| s.get(k).is_some_and(u8::is_ascii_digit);
    let mut date = [0u64; 5];
    if left > 1 && c.at != end_of_days && digit_at(c.at) {
        date[0] = value;
        read_clock(&mut c, &mut date, 1);
    } else if left > 1 && s[c.at] == b':' && digit_at(c.at + 1) {
        if value >= u64::from(u32::MAX) {
            return Err(oor);
        }
        date[1] = value;
        c.at += 1;
        read_clock(&mut c, &mut date, 2);
    } else {
        date[1] = value / 10_000;
        date[2] = value / 100 % 100;
        date[3] = value % 100;
    }
    if c.peek() == Some(b'.') {
        c.at += 1;
        date[4] = u64::from(c.micro(&mut st));
    }
    let rest = &s[c.at..];
    if rest.len() > 1 && matches!(rest[0], b'e' | b'E') && (rest[1].is_ascii_digit() || (matches!(rest[1], b'-' | b'+') && rest.get(2).is_some_and(u8::is_ascii_digit))) {
        return Err(Status { truncated: true, ..Status::default() });
    }
    let hours = date[0].saturating_mul(24).saturating_add(date[1]);
    if hours > u64::from(u32::MAX) || date[2] > 59 || date[3] > 59 {
        return Err(if date[2] > 59 || date[3] > 59 { Status { truncated: true, ..Status::default() } } else { oor });
    }
    let mut tm = Tm { neg, hour: hours as u32, minute: date[2] as u32, second: date[3] as u32, micro: date[4] as u32, ..Tm::zero(Kind::Time) };
    if hours > TIME_MAX_HOUR {
        tm = max_time(neg);
        st.out_of_range = true;
    }
    if c.at != s.len() {
        st.truncated = true;
    }
    Ok((tm, st))
}

/// Hours, minutes and seconds from `state` on (1: hours, 2: minutes), each
/// after a ':'; what is missing is zero.
fn read_clock(c: &mut Cur<'_>, date: &mut [u64; 5], mut state: usize) {
    loop {
        let mut v: u64 = 0;
        while let Some(b) = c.peek().filter(u8::is_ascii_digit) {
            v = v.saturating_mul(10).saturating_add(u64::from(b - b'0'));
            c.at += 1;
        }
        date[state] = v;
        state += 1;
        let s = c.s;
        if state == 4 || s.len() - c.at < 2 || s[c.at] != b':' || !s[c.at + 1].is_ascii_digit() {
            break;
        }
        c.at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str, rule: DateRule) -> (Option<String>, Option<String>) {
        let r = read_datetime(Input::Text(s), rule);
        (r.tm.map(|t| format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{}", t.year, t.month, t.day, t.hour, t.minute, t.second, t.micro)), r.warning)
    }

    fn tm(v: Input<'_>) -> (Option<String>, Option<String>) {
        let r = read_time(v);
        (r.tm.map(|t| format!("{}{}:{:02}:{:02}.{}", if t.neg { "-" } else { "" }, t.hour, t.minute, t.second, t.micro)), r.warning)
    }

    #[test]
    fn datetimes_as_mariadb_reads_them() {
        let any = DateRule::ANY;
        assert_eq!(dt("98-02-03", any).0.as_deref(), Some("1998-02-03 00:00:00.0"));
        assert_eq!(dt("960101", any).0.as_deref(), Some("1996-01-01 00:00:00.0"));
        assert_eq!(dt("10:11:12", any).0.as_deref(), Some("2010-11-12 00:00:00.0"));
        assert_eq!(dt("98.12.31", any).0.as_deref(), Some("1998-12-31 00:00:00.0"));
        assert_eq!(dt("98/12/31 10", any).0.as_deref(), Some("1998-12-31 10:00:00.0"));
        assert_eq!(dt("2001-1-1T1:01:01", any).0.as_deref(), Some("2001-01-01 01:01:01.0"));
        assert_eq!(dt("20030102T131415", any).0.as_deref(), Some("2003-01-02 13:14:15.0"));
        assert_eq!(dt("1997-03-03 garbage", any), (Some("1997-03-03 00:00:00.0".into()), Some("Truncated incorrect date value: '1997-03-03 garbage'".into())));
        assert_eq!(dt("garbage", any), (None, Some("Incorrect datetime value: 'garbage'".into())));
        assert_eq!(dt("", any).0, None);
        assert_eq!(dt("2024-02-30", any).0, None);
        assert_eq!(dt("1998-12-31 25:00:00", any).0, None);
        assert_eq!(dt("2024-00-05", any).0.as_deref(), Some("2024-00-05 00:00:00.0"));
        assert_eq!(dt("2024-00-05", DateRule::REAL).0, None);
        assert_eq!(dt("0000-00-00", any).0.as_deref(), Some("0000-00-00 00:00:00.0"));
        assert_eq!(dt("0000-00-00", DateRule::REAL), (None, Some("Incorrect datetime value: '0000-00-00'".into())));
        assert_eq!(dt("2001-01-01 00:00:00.1234567", any).0.as_deref(), Some("2001-01-01 00:00:00.123456"));
        assert_eq!(dt("-2001-01-01", any).0, None);
        assert_eq!(dt("2005-09-31", DateRule::COMPARED).0.as_deref(), Some("2005-09-31 00:00:00.0"));
    }

    #[test]
    fn numbers_as_dates() {
        let n = |i: i64| read_datetime(Input::Int(i), DateRule::ANY);
        assert_eq!(n(101).tm.map(|t| (t.year, t.month, t.day)), Some((2000, 1, 1)));
        assert_eq!(n(991231).tm.map(|t| t.year), Some(1999));
        assert_eq!(n(1).tm, None);
        assert_eq!(n(99).warning.as_deref(), Some("Incorrect datetime value: '99'"));
        assert_eq!(n(19970303230322).tm.map(|t| (t.year, t.hour, t.second, t.kind)), Some((1997, 23, 22, Kind::DateTime)));
        assert_eq!(n(0).tm.map(|t| t.is_zero()), Some(true));
        assert_eq!(read_datetime(Input::Int(0), DateRule::REAL).tm, None);
        let r = read_datetime(Input::Real(20240102.5), DateRule::ANY);
        assert_eq!((r.tm.map(|t| t.day), r.warning.as_deref()), (Some(2), Some("Truncated incorrect date value: '20240102.5'")));
        assert_eq!(read_datetime(Input::Real(12.5), DateRule::ANY).tm, None);
    }

    #[test]
    fn times_as_mariadb_reads_them() {
        let t = |s: &str| tm(Input::Text(s));
        assert_eq!(t("10:11:12").0.as_deref(), Some("10:11:12.0"));
        assert_eq!(t("10:11").0.as_deref(), Some("10:11:00.0"));
        assert_eq!(t("1 02:00:00").0.as_deref(), Some("26:00:00.0"));
        assert_eq!(t("1997-03-03 23:03:22").0.as_deref(), Some("23:03:22.0"));
        assert_eq!(t("230322").0.as_deref(), Some("23:03:22.0"));
        assert_eq!(t("2024-01-02"), (Some("0:00:00.0".into()), None));
        assert_eq!(t("2024-1-02"), (Some("0:20:24.0".into()), Some("Truncated incorrect time value: '2024-1-02'".into())));
        let x = |s: &str, how| read_time_as(Input::Text(s), how).tm.map(|t| (t.day, t.hour, t.minute, t.second));
        assert_eq!(x("1999-01-02", TimeText::Delimited), Some((2, 0, 0, 0)));
        assert_eq!(x("02 10:11:12", TimeText::DelimitedOrDigits), Some((0, 58, 11, 12)));
        assert_eq!(x("11111", TimeText::DelimitedOrDigits), Some((1, 0, 0, 0)));
        assert_eq!(x("1111", TimeText::Delimited), Some((0, 0, 11, 11)));
        assert_eq!(t("900:00:00"), (Some("838:59:59.0".into()), Some("Truncated incorrect time value: '900:00:00'".into())));
        assert_eq!(t("900:00:00.5").0.as_deref(), Some("838:59:59.900000"));
        assert_eq!(tm(Input::Real(15.5566778899)).0.as_deref(), Some("0:00:15.556677"));
        assert_eq!((micros_of(0.3), micros_of(2.3 - 2.0), max_micros(1), max_micros(0)), (300000, 300000, 900000, 0));
        assert_eq!(t("10:61:00"), (None, Some("Incorrect time value: '10:61:00'".into())));
        assert_eq!(t("garbage").0, None);
        let long = "9".repeat(200_000);
        assert_eq!(t(&long).1.map(|w| w.len()), Some("Incorrect time value: ''".len() + 128));
        assert_eq!(t("-25:00:00").0.as_deref(), Some("-25:00:00.0"));
        assert_eq!(t("12:30:45 garbage").1.as_deref(), Some("Truncated incorrect time value: '12:30:45 garbage'"));
        assert_eq!(t("- 1 01:00:00").0.as_deref(), Some("-25:00:00.0"));
        assert_eq!(t("1 2"), (Some("0:00:01.0".into()), Some("Truncated incorrect time value: '1 2'".into())));
        assert_eq!(t("1 22").0.as_deref(), Some("46:00:00.0"));
        assert_eq!(t("0001:01:01x").0.as_deref(), Some("1:01:01.0"));
        assert_eq!(tm(Input::Int(230322)).0.as_deref(), Some("23:03:22.0"));
        assert_eq!(tm(Input::Int(-12)).0.as_deref(), Some("-0:00:12.0"));
        assert_eq!(tm(Input::Int(20240102)).0.as_deref(), Some("0:00:00.0"));
        assert_eq!(tm(Input::Int(9000000)).0.as_deref(), Some("838:59:59.0"));
        assert_eq!(tm(Input::Real(12.5)).0.as_deref(), Some("0:00:12.500000"));
        assert_eq!(tm(Input::Real(1e300)).0.as_deref(), Some("838:59:59.999999"));
        assert_eq!(tm(Input::Text("99999999999999999999:00:00")).0, None);
    }
}
