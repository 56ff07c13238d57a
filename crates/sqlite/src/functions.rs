//! MySQL functions and collations registered on every SQLite connection.
//!
//! SQLite lacks many of MySQL's functions or spells them differently (the
//! rewriter maps names); the rest are implemented here in Rust. Also here:
//! the helper functions the generated SQL relies on — `ts_ai` (0/NULL into an
//! AUTO_INCREMENT column means "next value"), `ts_upd` (counts upsert
//! updates for MySQL's affected-rows rule), `ts_chg` (counts the rows an
//! UPDATE matched and tells whether a row's new values change it),
//! `ts_temporal_ok` and `ts_set_ok`
//! (strict-mode checks with MySQL's messages) — and the `ts_ci` collation:
//! utf8mb4_general_ci's case-insensitive, trailing-space-insensitive order
//! (its comparison is turnstile-sqltext's `collate::ci_compare`, whose
//! per-character rule Turnstile's LIKE shares). The date functions' calendar
//! arithmetic and date-text parsing are turnstile-sqltext's too (`civil`,
//! `temporal`), as is UNHEX; the result size limit is turnstile-engine's
//! (`limits`).
//! Exact DECIMAL (the `ts_dec` collation and store function, the arithmetic,
//! rounding, CAST and SUM/AVG the rewriter writes for DECIMAL expressions) is
//! decimal.rs; BIGINT UNSIGNED above 2^63-1 (stored as text, compared and
//! computed exactly) is unsigned.rs.
//! String functions that hand back their arguments' bytes live in bytes.rs
//! (MySQL strings need not be UTF-8; none may be changed or panic). No
//! function panics on any input: a variadic one checks its argument count
//! (`need`), and a unit test calls every one with hostile arguments.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::{ffi, Connection, Error};
use std::cmp::Ordering;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering as AO};
use std::sync::Arc;

mod bit;
mod bit_aggregates;
mod bytes;
mod charset;
mod dates;
mod decimal;
mod distinct_key;
mod enum_set;
mod ext;
mod fit;
mod format;
mod identity;
mod json_doc;
mod json_edit_path;
mod json_path;
mod json_pretty;
mod mariadb;
mod temporal;
mod time_math;
mod unsigned;
pub(crate) use identity::enter as enter_session;
mod user_vars;
pub(crate) use user_vars::{user_var_type, with_user_vars};
mod warned;

pub use bytes::substring_index;
use bytes::{need, Out};
pub(crate) use charset::shown as shown_bytes;
pub use fit::{FitColumn, ROW_UNIT};
use turnstile_engine::limits::fits;
use turnstile_engine::{Level, Warning};
use turnstile_sqltext::civil::{civil_from_days, days_from_civil, days_in_month};
use turnstile_sqltext::collate::ci_compare;
use turnstile_sqltext::temporal::{parse_date, parse_time};

/// Per-connection counters the helper functions update during a statement.
#[derive(Debug, Default)]
pub struct Counters {
    /// Rows whose AUTO_INCREMENT value was generated (ts_ai saw 0/NULL).
    pub ai_generated: AtomicU64,
    /// An AUTO_INCREMENT column that is not the rowid (`ts_ai_key`): the
    /// next value the statement hands out (0: none yet), and the first one
    /// it handed out (0: none), for LAST_INSERT_ID.
    pub ai_next: AtomicI64,
    pub ai_first: AtomicI64,
    /// Rows an upsert updated (ts_upd).
    pub upserted: AtomicU64,
    /// Rows an UPDATE matched, or duplicates an upsert met (ts_chg), or
    /// rows an INSERT IGNORE skipped (fit.rs: ts_dup, ts_fk).
    pub matched: AtomicU64,
    /// LAST_INSERT_ID() as the engine knows it.
    pub last_insert_id: AtomicU64,
    /// Rows a REPLACE deleted to make room (ts_deleted, from the connection's
    /// TEMP trigger on the target table).
    pub deleted: AtomicU64,
    /// cte_max_recursion_depth of the running statement (ts_cte_depth; set
    /// before a statement with a limited recursive CTE runs: cte.rs).
    pub cte_limit: AtomicU64,
    /// Notes and warnings raised by the statement's functions (`ts_dec`:
    /// 1265 for a value rounded to its column; fit.rs: what a lenient write
    /// changed, a division by zero, a duplicate IGNORE skipped), taken by
    /// the statement when it ends.
    pub notes: std::sync::Mutex<Notes>,
    /// Whether `notes` may hold anything (so a statement that stored no
    /// DECIMAL takes no lock: every point select ends with `take_notes`).
    pub noted: std::sync::atomic::AtomicBool,
}

/// Notes and warnings a statement's functions raise, and the rows they count.
#[derive(Debug)]
pub struct Notes {
    /// At most `turnstile_engine::warnings::MAX_KEPT` kept.
    pub raised: Vec<Warning>,
    /// All raised, kept or not (the statement's warning count).
    pub total: u64,
    /// Values stored per column so far (MySQL's "at row N" where the
    /// statement does not number its rows: UPDATE, INSERT ... SELECT), by
    /// `ts_dec` and by `ts_fit` (fit.rs).
    pub rows: std::collections::HashMap<String, u64>,
    pub fit_rows: Vec<u64>,
    /// The columns the running lenient statement writes (`ts_fit`'s table, fit.rs).
    pub fits: Arc<[FitColumn]>,
}

impl Default for Notes {
    fn default() -> Notes {
        Notes { raised: Vec::new(), total: 0, rows: Default::default(), fit_rows: Vec::new(), fits: Arc::new([]) }
    }
}

impl Notes {
    /// Raise a condition: counted, and kept while fewer than MAX_KEPT are.
    pub fn raise(&mut self, level: Level, code: u16, message: String) {
        self.total += 1;
        if self.raised.len() < turnstile_engine::warnings::MAX_KEPT {
            self.raised.push(Warning { level, code, message });
        }
    }
}

impl Counters {
    /// Raise a condition into the running statement's (`Notes::raise`).
    pub fn raise(&self, level: Level, code: u16, message: String) {
        self.noted.store(true, AO::Relaxed);
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).raise(level, code, message);
    }

    /// Install the running statement's `ts_fit` table (rewrite/store.rs).
    pub fn install_fits(&self, fits: Arc<[FitColumn]>) {
        let mut n = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        n.fits = fits;
        n.fit_rows.clear();
    }

    /// The conditions raised since the last call (those kept, and how many
    /// were raised), emptied for the next statement.
    pub fn take_notes(&self) -> (Vec<Warning>, u64) {
        if !self.noted.load(AO::Relaxed) {
            return (Vec::new(), 0);
        }
        self.noted.store(false, AO::Relaxed);
        let mut n = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        n.rows.clear();
        n.fit_rows.clear();
        (std::mem::take(&mut n.raised), std::mem::take(&mut n.total))
    }
}

/// Whether storing `new` into a column of SQLite affinity `aff` ('I', 'R',
/// 'T'; anything else: none) would leave the stored value `old` exactly as it
/// is: same storage class and same bytes, after the affinity's conversion.
/// When unsure it answers false, which only costs a needless write (the row
/// then counts as changed); a wrong true would lose an update.
pub fn stored_same(aff: u8, old: ValueRef<'_>, new: ValueRef<'_>) -> bool {
    match (old, new) {
        (ValueRef::Null, ValueRef::Null) => true,
        (ValueRef::Integer(a), ValueRef::Integer(b)) => a == b && aff != b'R',
        (ValueRef::Real(a), ValueRef::Real(b)) => a.to_bits() == b.to_bits(),
        (ValueRef::Text(a), ValueRef::Text(b)) => a == b,
        (ValueRef::Blob(a), ValueRef::Blob(b)) => a == b,
        // INTEGER affinity stores a whole REAL as an integer, and integer text as its value.
        (ValueRef::Integer(a), ValueRef::Real(b)) if aff == b'I' => b.fract() == 0.0 && b.abs() < 9.0e18 && b as i64 == a,
        (ValueRef::Integer(a), ValueRef::Text(b)) if aff == b'I' => std::str::from_utf8(b).ok().and_then(|t| t.parse::<i64>().ok()) == Some(a),
        // REAL affinity stores an integer as a REAL.
        (ValueRef::Real(a), ValueRef::Integer(b)) if aff == b'R' => a.to_bits() == (b as f64).to_bits(),
        // TEXT affinity stores an integer as its decimal text.
        (ValueRef::Text(a), ValueRef::Integer(b)) if aff == b'T' => a == b.to_string().as_bytes(),
        _ => false,
    }
}

/// MariaDB's random generator's largest value (my_rnd).
const RAND_MAX: u64 = 0x3FFF_FFFF;

/// The generator's seeds for RAND(n) (Item_func_rand::seed_random: n as
/// 32 bits, each seed cut to 32 bits).
fn rand_seeds(n: i64) -> (u64, u64) {
    let n = u64::from(n as u32);
    (u64::from(n.wrapping_mul(0x10001).wrapping_add(55_555_555) as u32) % RAND_MAX, u64::from(n.wrapping_mul(0x1000_0001) as u32) % RAND_MAX)
}

/// The generator's next number in [0, 1) (my_rnd).
fn rand_next(seeds: &mut (u64, u64)) -> f64 {
    seeds.0 = (seeds.0 * 3 + seeds.1) % RAND_MAX;
    seeds.1 = (seeds.0 + seeds.1 + 33) % RAND_MAX;
    seeds.0 as f64 / RAND_MAX as f64
}

/// A DOUBLE result: past DOUBLE's range, or no number at all (`POW(-8,
/// 0.5)`), MariaDB's ERR 1690 naming the call (`what`).
fn double_in_range(r: f64, what: impl FnOnce() -> String) -> rusqlite::Result<SV> {
    if !r.is_finite() {
        return Err(user_err(format!("ts:1690:DOUBLE value is out of range in '{}'", what())));
    }
    Ok(SV::Real(r))
}

/// An error raised by one of our functions; `ts:<code>:` at its start carries
/// the MySQL code (errors.rs). A NUL would make rusqlite drop the message
/// (SQLite's is a C string), so it is written `\x00`.
fn user_err(msg: String) -> Error {
    Error::UserFunctionError(msg.replace('\0', "\\x00").into())
}

/// The `ts_ci` collation's callback: `ci_compare`.
unsafe extern "C" fn ci_cmp(_: *mut c_void, l1: c_int, p1: *const c_void, l2: c_int, p2: *const c_void) -> c_int {
    // SAFETY: SQLite passes two valid buffers with their lengths.
    let a = if l1 > 0 { std::slice::from_raw_parts(p1 as *const u8, l1 as usize) } else { &[] };
    let b = if l2 > 0 { std::slice::from_raw_parts(p2 as *const u8, l2 as usize) } else { &[] };
    match ci_compare(a, b) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn text<'a>(v: &'a ValueRef<'a>) -> Option<std::borrow::Cow<'a, str>> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string().into()),
        ValueRef::Real(f) => Some(turnstile_wire::value::format_float(*f).into()),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t)),
    }
}

fn targ(ctx: &Context<'_>, i: usize) -> Option<String> {
    text(&ctx.get_raw(i)).map(|c| c.into_owned())
}

fn num(v: &ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(*i as f64),
        ValueRef::Real(f) => Some(*f),
        ValueRef::Text(t) | ValueRef::Blob(t) => turnstile_wire::value::parse_number_prefix(t),
    }
}

fn int(v: &ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(*i),
        other => num(other).map(|f| f.round() as i64),
    }
}

/// A date and time of day, as the date functions compute with it.
#[derive(Debug, Clone, Copy)]
struct Dt {
    y: i64,
    mo: i64,
    d: i64,
    h: i64,
    mi: i64,
    s: i64,
    us: i64,
}

impl Dt {
    fn parse(s: &str) -> Option<Dt> {
        let s = s.trim();
        let (date, time) = match s.split_once([' ', 'T']) {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let (y, mo, d) = if date.contains('-') {
            let (y, m, d) = parse_date(date)?;
            (y as i64, m as i64, d as i64)
        } else if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) {
            (date[..4].parse().ok()?, date[4..6].parse().ok()?, date[6..].parse().ok()?)
        } else {
            return None;
        };
        let (h, mi, sec, us) = match time {
            Some(t) => {
                let (neg, h, m, s, us) = parse_time(t)?;
                if neg {
                    return None;
                }
                (h as i64, m as i64, s as i64, us as i64)
            }
            None => (0, 0, 0, 0),
        };
        Some(Dt { y, mo, d, h, mi, s: sec, us })
    }
    fn from_epoch_micros(t: i64) -> Dt {
        let days = t.div_euclid(86_400_000_000);
        let rem = t.rem_euclid(86_400_000_000);
        let (y, mo, d) = civil_from_days(days);
        Dt { y, mo, d, h: rem / 3_600_000_000, mi: rem / 60_000_000 % 60, s: rem / 1_000_000 % 60, us: rem % 1_000_000 }
    }
    fn epoch_micros(&self) -> i64 {
        (days_from_civil(self.y, self.mo, self.d) * 86_400 + self.h * 3600 + self.mi * 60 + self.s) * 1_000_000 + self.us
    }
    fn fmt_datetime(&self, fsp: usize) -> String {
        let mut s = format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", self.y, self.mo, self.d, self.h, self.mi, self.s);
        if fsp > 0 {
            let f = format!("{:06}", self.us);
            s.push('.');
            s.push_str(&f[..fsp.min(6)]);
        }
        s
    }
    fn fmt_date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.y, self.mo, self.d)
    }
    fn weekday(&self) -> i64 {
        // 0 = Monday
        (days_from_civil(self.y, self.mo, self.d) + 3).rem_euclid(7)
    }
}

/// The wall clock as the statement sees it (the session's SET timestamp, or the system clock).
pub fn now_micros() -> i64 {
    turnstile_engine::clock::now_micros()
}

/// The statement's clock in the session's time zone (NOW(), CURDATE()).
pub fn local_now_micros() -> i64 {
    turnstile_engine::clock::local_now_micros()
}

/// The session's time zone offset from UTC in microseconds.
pub fn zone_offset_micros() -> i64 {
    turnstile_engine::clock::zone_offset_micros()
}

fn dt_arg(ctx: &Context<'_>, i: usize) -> Option<Dt> {
    let v = ctx.get_raw(i);
    match v {
        ValueRef::Integer(n) => {
            // 20240102 or 20240102030405
            let s = n.to_string();
            if s.len() == 14 {
                Dt::parse(&format!("{}-{}-{} {}:{}:{}", &s[..4], &s[4..6], &s[6..8], &s[8..10], &s[10..12], &s[12..]))
            } else {
                Dt::parse(&s)
            }
        }
        _ => Dt::parse(&text(&v)?),
    }
}

const MONTHS: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

fn date_format(dt: &Dt, fmt: &str) -> String {
    let mut o = String::new();
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            o.push(c);
            continue;
        }
        let Some(f) = it.next() else { break };
        let h12 = if dt.h % 12 == 0 { 12 } else { dt.h % 12 };
        match f {
            'Y' => o.push_str(&format!("{:04}", dt.y)),
            'y' => o.push_str(&format!("{:02}", dt.y % 100)),
            'm' => o.push_str(&format!("{:02}", dt.mo)),
            'c' => o.push_str(&dt.mo.to_string()),
            'd' => o.push_str(&format!("{:02}", dt.d)),
            'e' => o.push_str(&dt.d.to_string()),
            'H' => o.push_str(&format!("{:02}", dt.h)),
            'k' => o.push_str(&dt.h.to_string()),
            'h' | 'I' => o.push_str(&format!("{:02}", h12)),
            'l' => o.push_str(&h12.to_string()),
            'i' => o.push_str(&format!("{:02}", dt.mi)),
            's' | 'S' => o.push_str(&format!("{:02}", dt.s)),
            'f' => o.push_str(&format!("{:06}", dt.us)),
            'p' => o.push_str(if dt.h < 12 { "AM" } else { "PM" }),
            'T' => o.push_str(&format!("{:02}:{:02}:{:02}", dt.h, dt.mi, dt.s)),
            'r' => o.push_str(&format!("{:02}:{:02}:{:02} {}", h12, dt.mi, dt.s, if dt.h < 12 { "AM" } else { "PM" })),
            'M' => o.push_str(MONTHS[(dt.mo as usize).clamp(1, 12) - 1]),
            'b' => o.push_str(&MONTHS[(dt.mo as usize).clamp(1, 12) - 1][..3]),
            'W' => o.push_str(DAYS[dt.weekday() as usize]),
            'a' => o.push_str(&DAYS[dt.weekday() as usize][..3]),
            'w' => o.push_str(&((dt.weekday() + 1) % 7).to_string()),
            'j' => o.push_str(&format!("{:03}", days_from_civil(dt.y, dt.mo, dt.d) - days_from_civil(dt.y, 1, 1) + 1)),
            'D' => {
                let suf = match (dt.d % 10, dt.d % 100) {
                    (_, 11..=13) => "th",
                    (1, _) => "st",
                    (2, _) => "nd",
                    (3, _) => "rd",
                    _ => "th",
                };
                o.push_str(&format!("{}{}", dt.d, suf));
            }
            '%' => o.push('%'),
            other => o.push(other),
        }
    }
    o
}

pub use temporal::temporal_ok;

type F = fn(&Context<'_>) -> rusqlite::Result<SV>;

fn reg(db: &Connection, name: &str, n: c_int, det: bool, f: F) -> rusqlite::Result<()> {
    let mut flags = FunctionFlags::SQLITE_UTF8;
    if det {
        flags |= FunctionFlags::SQLITE_DETERMINISTIC;
    }
    db.create_scalar_function(name, n, flags, f)
}

fn sv_text(s: String) -> SV {
    SV::Text(s)
}

/// Register everything on a new connection.
pub fn register(db: &Connection, counters: Arc<Counters>, home: Option<String>) -> rusqlite::Result<()> {
    // SAFETY: registering a plain C comparison function without user data.
    unsafe {
        let rc = ffi::sqlite3_create_collation_v2(db.handle(), c"ts_ci".as_ptr(), ffi::SQLITE_UTF8, std::ptr::null_mut(), Some(ci_cmp), None);
        if rc != ffi::SQLITE_OK {
            return Err(Error::SqliteFailure(ffi::Error::new(rc), Some("cannot register collation ts_ci".into())));
        }
    }
    let dec_counters = counters.clone();
    let date_counters = counters.clone();
    fit::register(db, counters.clone())?;
    // ts_ai(v): NULL or 0 takes the next AUTO_INCREMENT value; ts_ai_null(v):
    // only NULL does (NO_AUTO_VALUE_ON_ZERO).
    for (name, zero_generates) in [("ts_ai", true), ("ts_ai_null", false)] {
        let c1 = counters.clone();
        db.create_scalar_function(name, 1, FunctionFlags::SQLITE_UTF8, move |ctx| {
            let generate = match ctx.get_raw(0) {
                ValueRef::Null => true,
                ValueRef::Integer(0) => zero_generates,
                ValueRef::Real(f) => zero_generates && f == 0.0,
                ValueRef::Text(t) => zero_generates && t == b"0",
                _ => false,
            };
            if generate {
                c1.ai_generated.fetch_add(1, AO::Relaxed);
                Ok(Out::Val(SV::Null))
            } else {
                // As it came: a string that is no number fails the column's type check (1366).
                Ok(Out::Arg(0))
            }
        })?;
    }
    // ts_ai_key(v, max): the same for an AUTO_INCREMENT column that is not
    // the rowid (a key's first column, a composite PRIMARY KEY's), where
    // SQLite generates nothing: one past the larger of the column's largest
    // value when the statement began (`max`, a subquery SQLite reads once)
    // and the values the statement stored so far; an explicit value moves
    // the next one past it.
    for (name, zero_generates) in [("ts_ai_key", true), ("ts_ai_key_null", false)] {
        let c = counters.clone();
        db.create_scalar_function(name, 2, FunctionFlags::SQLITE_UTF8, move |ctx| {
            let explicit = match ctx.get_raw(0) {
                ValueRef::Null => None,
                ValueRef::Integer(0) if zero_generates => None,
                ValueRef::Real(f) if zero_generates && f == 0.0 => None,
                ValueRef::Text(t) if zero_generates && t == b"0" => None,
                ValueRef::Integer(n) => Some(n),
                _ => return Ok(Out::Arg(0)),
            };
            if let Some(n) = explicit {
                c.ai_next.fetch_max(n.saturating_add(1), AO::Relaxed);
                return Ok(Out::Arg(0));
            }
            let largest = match ctx.get_raw(1) {
                ValueRef::Integer(n) => n,
                ValueRef::Real(f) => f as i64,
                _ => 0,
            };
            let next = c.ai_next.load(AO::Relaxed).max(largest.saturating_add(1)).max(1);
            c.ai_next.store(next.saturating_add(1), AO::Relaxed);
            let _ = c.ai_first.compare_exchange(0, next, AO::Relaxed, AO::Relaxed);
            c.ai_generated.fetch_add(1, AO::Relaxed);
            Ok(Out::Val(SV::Integer(next)))
        })?;
    }
    let c6 = counters.clone();
    db.create_scalar_function("ts_deleted", 0, FunctionFlags::SQLITE_UTF8, move |_| {
        c6.deleted.fetch_add(1, AO::Relaxed);
        Ok(SV::Null)
    })?;
    let c7 = counters.clone();
    db.create_scalar_function("ts_cte_depth", 1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        // The depth of a recursive CTE's new row (cte.rs): past the limit, MySQL's 3636.
        let depth = ctx.get::<i64>(0).unwrap_or(0).max(0) as u64;
        let limit = c7.cte_limit.load(AO::Relaxed);
        if depth >= limit {
            return Err(user_err(format!("ts:3636:Recursive query aborted after {} iterations. Try increasing @@cte_max_recursion_depth to a larger value.", limit.saturating_add(1))));
        }
        Ok(SV::Integer(depth as i64))
    })?;
    // COALESCE(x): MariaDB takes one argument, SQLite's built-in two or
    // more (rewrite/function_calls.rs). Not an overload of `coalesce`: a
    // generated column's expression is resolved when a connection without
    // these functions (lib.rs's anchor) reads the schema, and a built-in's
    // wrong argument count fails there, where an unknown name does not.
    db.create_scalar_function("ts_coalesce1", 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, |_| Ok(Out::Arg(0)))?;
    let c2 = counters.clone();
    db.create_scalar_function("ts_upd", 1, FunctionFlags::SQLITE_UTF8, move |_| {
        c2.upserted.fetch_add(1, AO::Relaxed);
        Ok(Out::Arg(0))
    })?;
    let c5 = counters.clone();
    db.create_scalar_function("ts_chg", -1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        c5.matched.fetch_add(1, AO::Relaxed);
        let affs = match ctx.len() {
            0 => &[],
            _ => match ctx.get_raw(0) {
                ValueRef::Text(t) => t,
                _ => &[],
            },
        };
        if affs.is_empty() || ctx.len() < 1 + 2 * affs.len() {
            return Ok(SV::Integer(1));
        }
        for (k, &aff) in affs.iter().enumerate() {
            if !stored_same(aff, ctx.get_raw(1 + 2 * k), ctx.get_raw(2 + 2 * k)) {
                return Ok(SV::Integer(1));
            }
        }
        Ok(SV::Integer(0))
    })?;
    let c3 = counters.clone();
    db.create_scalar_function("last_insert_id", 0, FunctionFlags::SQLITE_UTF8, move |_| Ok(SV::Integer(c3.last_insert_id.load(AO::Relaxed) as i64)))?;
    let c4 = counters;
    db.create_scalar_function("last_insert_id", 1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let v = int(&ctx.get_raw(0)).unwrap_or(0);
        c4.last_insert_id.store(v as u64, AO::Relaxed);
        Ok(SV::Integer(v))
    })?;
    let home2 = home.clone();
    db.create_scalar_function("ts_database", 0, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |_| {
        Ok(match &home2 {
            Some(h) => SV::Text(h.clone()),
            None => SV::Null,
        })
    })?;
    reg(db, "version", 0, true, |_| Ok(sv_text(crate::SERVER_VERSION.into())))?;
    // A float literal parsed exactly (rewrite.rs: needs_exact_float).
    reg(db, "ts_f64", 1, true, |ctx| Ok(targ(ctx, 0).and_then(|t| t.parse::<f64>().ok()).map_or(SV::Null, SV::Real)))?;
    // Values written to a date/time column pass through ts_tnorm(value, kind)
    // (rewrite.rs): forms MySQL accepts are stored in the canonical form.
    bytes::reg_bytes(db, "ts_tnorm", 2, temporal::temporal_norm)?;
    // A strict write under NO_ZERO_IN_DATE / NO_ZERO_DATE (rewrite/store.rs):
    // ts_tnorm(value, kind, refuse, column).
    bytes::reg_bytes(db, "ts_tnorm", 4, |ctx| {
        let out = temporal::temporal_norm(ctx)?;
        let refuse = int(&ctx.get_raw(2)).unwrap_or(0);
        let shown = |v: ValueRef<'_>| match v {
            ValueRef::Text(t) | ValueRef::Blob(t) => Some(bytes::shown(t)),
            ValueRef::Integer(i) => Some(i.to_string()),
            ValueRef::Real(f) => Some(turnstile_wire::value::format_float(f)),
            ValueRef::Null => None,
        };
        let kind = targ(ctx, 1).unwrap_or_default();
        let is_time = kind.starts_with("time") && !kind.starts_with("timestamp");
        // What the column stores (a TIME: the text it was given, whose date counts).
        let stored = match &out {
            Out::Val(SV::Text(t)) if !is_time => Some(t.clone()),
            _ => shown(ctx.get_raw(0)),
        };
        if let Some(v) = stored.filter(|v| temporal::zero_refused(v, &kind, refuse)) {
            let col = targ(ctx, 3).unwrap_or_default();
            let what = if kind.starts_with("date") && !kind.starts_with("datetime") {
                "date"
            } else if is_time {
                "time"
            } else {
                "datetime"
            };
            let given = shown(ctx.get_raw(0)).unwrap_or(v);
            return Err(user_err(format!("ts:1292:Incorrect {} value: '{}' for column '{}' at row 1", what, given, col)));
        }
        Ok(out)
    })?;
    reg(db, "ts_temporal_ok", 3, true, |ctx| {
        let v = ctx.get_raw(0);
        let Some(s) = text(&v) else { return Ok(SV::Integer(1)) };
        let s = match v {
            ValueRef::Text(t) | ValueRef::Blob(t) => bytes::shown(t).into(),
            _ => s,
        };
        let kind = targ(ctx, 1).unwrap_or_default();
        if temporal_ok(&s, &kind) {
            return Ok(SV::Integer(1));
        }
        let col = bytes::barg(ctx, 2).map(|c| bytes::shown(&c)).unwrap_or_default();
        let what = match kind.as_str() {
            "date" => "date",
            "time" => "time",
            _ => "datetime",
        };
        Err(user_err(format!("ts:1292:Incorrect {} value: '{}' for column '{}' at row 1", what, s, col)))
    })?;
    reg(db, "ts_enum", -1, true, |ctx| {
        // ts_enum(value, column, row, member...): a strict write's ENUM value (store.rs).
        need(ctx, 3, "ts_enum")?;
        let members: Vec<Vec<u8>> = (3..ctx.len()).map(|i| targ(ctx, i).unwrap_or_default().into_bytes()).collect();
        match fit::enum_member(&members, ctx.get_raw(0)) {
            fit::EnumValue::Null => Ok(SV::Null),
            fit::EnumValue::Member(k) => Ok(SV::Text(String::from_utf8_lossy(&members[k]).into_owned())),
            fit::EnumValue::NotMember => {
                let col = targ(ctx, 1).unwrap_or_default();
                let row = int(&ctx.get_raw(2)).unwrap_or(1);
                Err(user_err(format!("ts:1265:Data truncated for column '{}' at row {}", col, row)))
            }
        }
    })?;
    reg(db, "ts_set_ok", -1, true, |ctx| {
        need(ctx, 1, "ts_set_ok")?;
        let v = ctx.get_raw(0);
        let Some(s) = text(&v) else { return Ok(SV::Integer(1)) };
        if s.is_empty() {
            return Ok(SV::Integer(1));
        }
        let members: Vec<String> = (1..ctx.len()).filter_map(|i| targ(ctx, i).map(|t| t.to_lowercase())).collect();
        Ok(SV::Integer(s.split(',').all(|p| members.contains(&p.to_lowercase())) as i64))
    })?;
    // ---- strings (the ones that return their arguments' bytes: bytes.rs)
    bytes::register(db)?;
    decimal::register(db, dec_counters.clone())?;
    warned::register(db, &dec_counters)?;
    json_path::register(db, &dec_counters)?;
    json_doc::register(db, &dec_counters)?;
    json_edit_path::register(db, &dec_counters)?;
    format::register(db, &dec_counters)?;
    json_pretty::register(db, &dec_counters)?;
    unsigned::register(db, dec_counters)?;
    reg(db, "locate", -1, true, |ctx| {
        need(ctx, 2, "locate")?;
        let (Some(sub), Some(s)) = (targ(ctx, 0), targ(ctx, 1)) else { return Ok(SV::Null) };
        // MariaDB: a start before 1 or past the string's bytes finds nothing.
        let start = if ctx.len() > 2 { int(&ctx.get_raw(2)).unwrap_or(0) } else { 1 };
        if start < 1 || start as u64 > s.len() as u64 + u64::from(ctx.len() < 3) {
            return Ok(SV::Integer(0));
        }
        let start = start as usize;
        let (sl, subl) = (s.to_lowercase(), sub.to_lowercase());
        let chars: Vec<(usize, char)> = sl.char_indices().collect();
        if start > chars.len() + 1 || (ctx.len() > 2 && chars.get(start - 1).map_or(sl.len(), |c| c.0) + subl.len() > sl.len()) {
            return Ok(SV::Integer(0));
        }
        let from = chars.get(start - 1).map_or(sl.len(), |c| c.0);
        Ok(SV::Integer(match sl[from..].find(&subl) {
            Some(b) => (sl[..from + b].chars().count() + 1) as i64,
            None => 0,
        }))
    })?;
    reg(db, "field", -1, true, |ctx| {
        need(ctx, 2, "field")?;
        let Some(first) = targ(ctx, 0) else { return Ok(SV::Integer(0)) };
        for i in 1..ctx.len() {
            if let Some(t) = targ(ctx, i) {
                if ci_compare(t.as_bytes(), first.as_bytes()) == Ordering::Equal {
                    return Ok(SV::Integer(i as i64));
                }
            }
        }
        Ok(SV::Integer(0))
    })?;
    reg(db, "find_in_set", 2, true, |ctx| {
        let (Some(s), Some(list)) = (targ(ctx, 0), targ(ctx, 1)) else { return Ok(SV::Null) };
        Ok(SV::Integer(list.split(',').position(|p| ci_compare(p.as_bytes(), s.as_bytes()) == Ordering::Equal).map_or(0, |p| p as i64 + 1)))
    })?;
    reg(db, "uuid", 0, false, |_| {
        use std::hash::{BuildHasher, Hasher};
        let mut h1 = std::collections::hash_map::RandomState::new().build_hasher();
        h1.write_i64(turnstile_engine::clock::system_now_micros());
        let a = h1.finish();
        let mut h2 = std::collections::hash_map::RandomState::new().build_hasher();
        h2.write_u64(a);
        let b = h2.finish();
        Ok(SV::Text(format!("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xfff, (b >> 48) & 0x3fff | 0x8000, b & 0xffff_ffff_ffff)))
    })?;
    reg(db, "ts_isnull", 1, true, |ctx| Ok(SV::Integer(matches!(ctx.get_raw(0), ValueRef::Null) as i64)))?;
    // ---- numbers
    reg(db, "round", -1, true, |ctx| {
        need(ctx, 1, "round")?;
        let d = if ctx.len() > 1 { int(&ctx.get_raw(1)).unwrap_or(0) } else { 0 };
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => SV::Null,
            ValueRef::Integer(i) if d >= 0 => SV::Integer(i),
            ValueRef::Integer(i) => {
                let p = 10i64.saturating_pow(d.unsigned_abs().min(u32::MAX as u64) as u32);
                let q = (i as f64 / p as f64).round();
                // Past BIGINT's range the result is a number, not a wrapped integer.
                (q as i64).checked_mul(p).map_or(SV::Real(q * p as f64), SV::Integer)
            }
            v => {
                let f = num(&v).unwrap_or(0.0);
                let p = 10f64.powi(d as i32);
                let r = (f * p).round() / p;
                if d <= 0 {
                    SV::Integer(r as i64)
                } else {
                    SV::Real(r)
                }
            }
        })
    })?;
    reg(db, "truncate", 2, true, |ctx| {
        let d = int(&ctx.get_raw(1)).unwrap_or(0);
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => SV::Null,
            ValueRef::Integer(i) if d >= 0 => SV::Integer(i),
            v => {
                let p = 10f64.powi(d as i32);
                let r = (num(&v).unwrap_or(0.0) * p).trunc() / p;
                if d <= 0 {
                    SV::Integer(r as i64)
                } else {
                    SV::Real(r)
                }
            }
        })
    })?;
    for (name, f) in [("floor", f64::floor as fn(f64) -> f64), ("ceil", f64::ceil), ("ceiling", f64::ceil)] {
        let f2 = f;
        db.create_scalar_function(name, 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
            Ok(match ctx.get_raw(0) {
                ValueRef::Null => SV::Null,
                ValueRef::Integer(i) => SV::Integer(i),
                v => SV::Integer(f2(num(&v).unwrap_or(0.0)) as i64),
            })
        })?;
    }
    for (name, f) in [("sqrt", f64::sqrt as fn(f64) -> f64), ("sin", f64::sin), ("cos", f64::cos), ("tan", f64::tan), ("radians", f64::to_radians)] {
        let f2 = f;
        db.create_scalar_function(name, 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
            Ok(match num(&ctx.get_raw(0)) {
                None => SV::Null,
                Some(x) => {
                    let r = f2(x);
                    if r.is_finite() {
                        SV::Real(r)
                    } else {
                        SV::Null
                    }
                }
            })
        })?;
    }
    // LN, LOG, LOG2, LOG10: functions/warned.rs (Warning 1365 for no logarithm).
    // EXP, DEGREES, COT: a result past DOUBLE's range is MariaDB's ERR 1690.
    for (name, f) in [("exp", f64::exp as fn(f64) -> f64), ("degrees", f64::to_degrees), ("cot", |x: f64| 1.0 / x.tan())] {
        db.create_scalar_function(name, 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
            let Some(x) = num(&ctx.get_raw(0)) else { return Ok(SV::Null) };
            double_in_range(f(x), || format!("{}({})", name, turnstile_wire::value::format_float(x)))
        })?;
    }
    for name in ["pow", "power"] {
        db.create_scalar_function(name, 2, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
            let (Some(a), Some(b)) = (num(&ctx.get_raw(0)), num(&ctx.get_raw(1))) else { return Ok(SV::Null) };
            double_in_range(a.powf(b), || format!("{}({},{})", name, turnstile_wire::value::format_float(a), turnstile_wire::value::format_float(b)))
        })?;
    }
    reg(db, "pi", 0, true, |_| Ok(SV::Real(std::f64::consts::PI)))?;
    reg(db, "sign", 1, true, |ctx| {
        Ok(num(&ctx.get_raw(0)).map_or(SV::Null, |x| {
            SV::Integer(if x > 0.0 {
                1
            } else if x < 0.0 {
                -1
            } else {
                0
            })
        }))
    })?;
    reg(db, "mod", 2, true, |ctx| {
        Ok(match (ctx.get_raw(0), ctx.get_raw(1)) {
            // wrapping: i64::MIN % -1 is 0 (MySQL), where `%` panics
            (ValueRef::Integer(a), ValueRef::Integer(b)) => {
                if b == 0 {
                    SV::Null
                } else {
                    SV::Integer(a.wrapping_rem(b))
                }
            }
            (a, b) => match (num(&a), num(&b)) {
                (Some(x), Some(y)) if y != 0.0 => SV::Real(x % y),
                _ => SV::Null,
            },
        })
    })?;
    // RAND(n): MariaDB's generator seeded from n, so a seed gives MariaDB's
    // numbers. Its state rides on SQLite's auxiliary data for the argument,
    // which SQLite keeps from row to row while n is a constant (the
    // sequence goes on) and drops when n changes (each row's own seed).
    reg(db, "ts_rand", 1, false, |ctx| {
        type Seeds = std::sync::Mutex<(u64, u64)>;
        let state = match ctx.get_aux::<Seeds>(0)? {
            Some(s) => s,
            None => ctx.set_aux(0, std::sync::Mutex::new(rand_seeds(int(&ctx.get_raw(0)).unwrap_or(0))))?,
        };
        let mut seeds = state.lock().unwrap_or_else(|e| e.into_inner());
        Ok(SV::Real(rand_next(&mut seeds)))
    })?;
    reg(db, "ts_rand", 0, false, |_| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_i64(turnstile_engine::clock::system_now_micros());
        Ok(SV::Real((h.finish() >> 11) as f64 / (1u64 << 53) as f64))
    })?;
    // ---- dates
    reg(db, "now", -1, false, |ctx| {
        let fsp = if !ctx.is_empty() { int(&ctx.get_raw(0)).unwrap_or(0).clamp(0, 6) as usize } else { 0 };
        Ok(SV::Text(Dt::from_epoch_micros(local_now_micros()).fmt_datetime(fsp)))
    })?;
    reg(db, "ts_now", 1, false, |ctx| {
        let fsp = int(&ctx.get_raw(0)).unwrap_or(0).clamp(0, 6) as usize;
        Ok(SV::Text(Dt::from_epoch_micros(local_now_micros()).fmt_datetime(fsp)))
    })?;
    reg(db, "utc_timestamp", -1, false, |_| Ok(SV::Text(Dt::from_epoch_micros(now_micros()).fmt_datetime(0))))?;
    reg(db, "curdate", 0, false, |_| Ok(SV::Text(Dt::from_epoch_micros(local_now_micros()).fmt_date())))?;
    reg(db, "utc_date", 0, false, |_| Ok(SV::Text(Dt::from_epoch_micros(now_micros()).fmt_date())))?;
    reg(db, "curtime", -1, false, |_| {
        let d = Dt::from_epoch_micros(local_now_micros());
        Ok(SV::Text(format!("{:02}:{:02}:{:02}", d.h, d.mi, d.s)))
    })?;
    reg(db, "utc_time", -1, false, |_| {
        let d = Dt::from_epoch_micros(now_micros());
        Ok(SV::Text(format!("{:02}:{:02}:{:02}", d.h, d.mi, d.s)))
    })?;
    reg(db, "unix_timestamp", -1, false, |ctx| {
        if ctx.is_empty() {
            return Ok(SV::Integer(now_micros() / 1_000_000));
        }
        Ok(match dt_arg(ctx, 0) {
            // A day that is none (a zero month or day) or outside TIMESTAMP's
            // range (1970-01-01 00:00:00 .. 2038-01-19 03:14:07.999999 UTC): NULL.
            // The datetime is in the session's time zone.
            Some(dt) if dt.mo == 0 || dt.d == 0 || !(0..2_147_483_648_000_000).contains(&(dt.epoch_micros() - zone_offset_micros())) => SV::Null,
            Some(dt) => {
                let us = dt.epoch_micros() - zone_offset_micros();
                if us % 1_000_000 != 0 {
                    SV::Real(us as f64 / 1e6)
                } else {
                    SV::Integer(us / 1_000_000)
                }
            }
            None => SV::Null,
        })
    })?;
    reg(db, "from_unixtime", -1, true, |ctx| {
        need(ctx, 1, "from_unixtime")?;
        let Some(t) = num(&ctx.get_raw(0)) else { return Ok(SV::Null) };
        // TIMESTAMP's range: before the epoch or past 2038-01-19 03:14:07 UTC is NULL.
        if !(0.0..2_147_483_648.0).contains(&t) {
            return Ok(SV::Null);
        }
        // In the session's time zone.
        let dt = Dt::from_epoch_micros((t * 1e6) as i64 + zone_offset_micros());
        if ctx.len() > 1 {
            let f = targ(ctx, 1).unwrap_or_default();
            return Ok(SV::Text(date_format(&dt, &f)));
        }
        Ok(SV::Text(dt.fmt_datetime(if t.fract() != 0.0 { 6 } else { 0 })))
    })?;
    ext::register(db)?;
    distinct_key::register(db)?;
    mariadb::register(db)?;
    temporal::register(db)?;
    bit::register(db)?;
    bit_aggregates::register(db)?;
    charset::register(db)?;
    user_vars::register(db)?;
    identity::register(db)?;
    dates::register(db, &date_counters)?;
    enum_set::register(db)?;
    time_math::register(db, &date_counters)?;
    reg(db, "regexp", 2, true, |ctx| {
        let pat = targ(ctx, 0);
        let (Some(pat), Some(s)) = (pat, targ(ctx, 1)) else { return Ok(SV::Null) };
        let re = ctx.get_or_create_aux(0, |_| {
            regex::RegexBuilder::new(&pat).case_insensitive(true).size_limit(1 << 20).build().map_err(|e| user_err(format!("ts:3685:Illegal argument to a regular expression: {}", e)))
        })?;
        Ok(SV::Integer(re.is_match(&s) as i64))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_in_sqlite() {
        let db = Connection::open_in_memory().unwrap();
        register(&db, Arc::new(Counters::default()), Some("d".into())).unwrap();
        let q = |sql: &str| -> String { db.query_row(sql, [], |r| r.get::<_, SV>(0)).map(|v| format!("{:?}", v)).unwrap() };
        assert_eq!(q("SELECT concat('a', NULL)"), "Null");
        assert_eq!(q("SELECT concat('a', 1, 'b')"), "Text(\"a1b\")");
        assert_eq!(q("SELECT date_format('2024-03-05 07:08:09', '%Y/%m/%d %H:%i:%s %W')"), "Text(\"2024/03/05 07:08:09 Tuesday\")");
        assert_eq!(q("SELECT unix_timestamp('1970-01-02 00:00:00')"), "Integer(86400)");
        assert_eq!(q("SELECT date_add('2024-01-31', 1, 'MONTH')"), "Text(\"2024-02-29\")");
        assert_eq!(q("SELECT round(2.5)"), "Integer(3)");
        assert_eq!(q("SELECT 'abc' = 'ABC ' COLLATE ts_ci"), "Integer(1)");
        assert_eq!(q("SELECT timestampdiff('DAY', '2024-01-01', '2024-03-01')"), "Integer(60)");
        assert_eq!(q("SELECT hex(255)"), "Text(\"FF\")");
        assert!(temporal_ok("2024-02-29", "date") && !temporal_ok("2023-02-29", "date") && temporal_ok("2024-01-01 10:00:00", "datetime"));
        // A zero month or day: a DATE's and a DATETIME's value, no TIMESTAMP's.
        assert!(temporal_ok("1000-00-00", "date") && temporal_ok("0000-00-01", "date") && temporal_ok("0001-00-00 00:00:00", "datetime"));
        assert!(!temporal_ok("2012-00-00 00:00:00", "timestamp") && temporal_ok("0000-00-00 00:00:00", "timestamp"));
    }

    /// Every function registered here, called with hostile arguments (bytes
    /// that are not UTF-8, a cut UTF-8 sequence, extreme numbers, odd dates
    /// and paths) at every position, answers a value or an error: never a
    /// panic (which rusqlite reports as "unwinding panic").
    #[test]
    fn no_function_panics_on_hostile_arguments() {
        let plain = Connection::open_in_memory().unwrap();
        let names = |db: &Connection| -> Vec<(String, i64)> {
            let mut st = db.prepare("SELECT name, narg FROM pragma_function_list").unwrap();
            let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).unwrap();
            rows.map(Result::unwrap).collect()
        };
        let builtin = names(&plain);
        let db = Connection::open_in_memory().unwrap();
        register(&db, Arc::new(Counters::default()), Some("d".into())).unwrap();
        let ours: Vec<(String, i64)> = names(&db).into_iter().filter(|f| !builtin.contains(f)).collect();
        assert!(ours.len() > 150, "{} functions", ours.len());
        const HOSTILE: &[&str] = &[
            "NULL",
            "0",
            "-1",
            "1",
            "-9223372036854775808",
            "9223372036854775807",
            "1e308",
            "-1e308",
            "0.5",
            "''",
            "'a'",
            "CAST(X'FF' AS TEXT)",
            "CAST(X'C3' AS TEXT)",
            "CAST(X'61FFC3A9FE00' AS TEXT)",
            "X'FF'",
            "X''",
            "'\u{e9}\u{e9}\u{e9}'",
            "'%M%b%W%a%j%D%f%p'",
            "'$.a'",
            "'$[99999999999999999999]'",
            "'[1,'",
            "'{\"a\":1}'",
            "'9999999999-99-99 99:99:99.9999999'",
            "'0000-00-00 00:00:00'",
            "'-838:59:59.999999'",
            "'2024-02-29 23:59:59.999999'",
            "'255.255.255.255'",
            "'::'",
            "'+14:00'",
            "'('",
            "'-'",
            "'1e999'",
            "'36'",
            "'-36'",
            "'65536'",
        ];
        const BASE: &[&str] = &["'a'", "1", "'2024-01-31 10:11:12'"];
        let mut calls = 0;
        let mut panicked: Vec<String> = Vec::new();
        for (name, narg) in &ours {
            let arities: Vec<usize> = if *narg < 0 { (0..=4).collect() } else { vec![*narg as usize] };
            for k in arities {
                let mut arg_lists: Vec<Vec<&str>> = Vec::new();
                for h in HOSTILE {
                    arg_lists.push(vec![h; k]);
                    for p in 0..k {
                        for b in BASE {
                            arg_lists.push((0..k).map(|q| if q == p { *h } else { *b }).collect());
                        }
                    }
                }
                for args in arg_lists {
                    let sql = format!("SELECT {}({})", name, args.join(", "));
                    calls += 1;
                    let r: rusqlite::Result<()> = db.query_row(&sql, [], |_| Ok(()));
                    if matches!(&r, Err(e) if e.to_string().contains("panic")) && !panicked.iter().any(|p| p.starts_with(&format!("SELECT {}(", name))) {
                        panicked.push(sql);
                    }
                }
            }
        }
        assert!(panicked.is_empty(), "panics in:\n{}", panicked.join("\n"));
        assert!(calls > 10_000, "{} calls", calls);
    }

    #[test]
    fn stored_same_follows_column_affinity() {
        use ValueRef::*;
        // identical values and NULL
        assert!(stored_same(b'T', Text(b"abc"), Text(b"abc")) && stored_same(b'I', Null, Null));
        assert!(!stored_same(b'T', Text(b"abc"), Text(b"ABC")) && !stored_same(b'T', Text(b"a"), Text(b"a ")));
        assert!(!stored_same(b'T', Null, Text(b"")) && !stored_same(b'I', Integer(0), Null));
        // what the column's affinity stores
        assert!(stored_same(b'I', Integer(5), Text(b"5")) && stored_same(b'I', Integer(5), Real(5.0)));
        assert!(!stored_same(b'I', Integer(5), Text(b"5.5")) && !stored_same(b'I', Integer(5), Real(5.5)));
        assert!(stored_same(b'R', Real(2.0), Integer(2)) && !stored_same(b'R', Real(2.5), Integer(2)));
        assert!(stored_same(b'T', Text(b"-12"), Integer(-12)) && !stored_same(b'T', Text(b"012"), Integer(12)));
        // unsure: a write (counted as a change), never a lost update
        assert!(!stored_same(b'T', Text(b"1.5"), Real(1.5)) && !stored_same(b'?', Integer(1), Text(b"1")));
        assert!(!stored_same(b'R', Real(0.0), Real(-0.0)) && !stored_same(b'T', Text(b"ab"), Blob(b"ab")));
    }
}
