//! JSON documents read as MariaDB reads them, and its JSON paths:
//! JSON_EXTRACT, JSON_QUERY, JSON_VALUE, JSON_EXISTS, JSON_CONTAINS_PATH
//! and JSON_VALID (which a JSON column's CHECK calls too).
//!
//! Why not serde_json (functions/ext.rs, mariadb.rs) or SQLite's json
//! functions: MariaDB keeps a document's text (a number as written, `1e5`,
//! `1.50`; a string's escapes; members in their order, duplicates too),
//! writes a value it hands back spaced (`[1, 2]`), and its paths have forms
//! neither knows: `[last]`, `[last-1]`, `[-1]`, `[1 to 3]`, `[*]`, `.*`,
//! `**`. A bad document or path is NULL with MariaDB's warning (4037, 4038,
//! 4040, 4041, 4042), not an error.
//!
//! Limits: a document nests at most 32 levels (MariaDB's limit, Warning
//! 4040) and a path has at most 31 steps (Warning 4043), so the recursive
//! parse and walks here are bounded; `**` visits each node once per step.

use super::bytes::{barg, need, Out};
use super::Counters;
use rusqlite::functions::{Context, FunctionFlags, SubType};
use rusqlite::types::Value as SV;
use rusqlite::Connection;
use std::sync::Arc;
use turnstile_engine::limits::fits;
use turnstile_engine::Level;

/// MariaDB's nesting limit for documents.
const MAX_DEPTH: usize = 32;

/// A parsed value: its kind and the span of its text in the document.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) kind: Kind,
    pub(super) span: (usize, usize),
}

#[derive(Debug)]
pub(super) enum Kind {
    Null,
    True,
    False,
    Number,
    /// A string (its span holds the quotes and escapes as written).
    Str,
    Array(Vec<Node>),
    /// Members in order: (the key as written, without quotes; the value).
    Object(Vec<(String, Node)>),
}

/// Why a document is not JSON: MariaDB's warning code and the position it names.
#[derive(Debug, PartialEq)]
pub(super) struct BadJson {
    pub(super) code: u16,
    pub(super) at: usize,
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_spaces(&mut self) {
        while self.at < self.s.len() && matches!(self.s[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    /// 4037 at the end of the text, else 4038 at the byte after the one at `at`.
    fn bad(&self) -> BadJson {
        if self.at >= self.s.len() {
            BadJson { code: 4037, at: self.at }
        } else {
            BadJson { code: 4038, at: self.at + 1 }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, BadJson> {
        self.skip_spaces();
        let start = self.at;
        let kind = match self.s.get(self.at) {
            None => return Err(self.bad()),
            Some(b'[' | b'{') if depth >= MAX_DEPTH => return Err(BadJson { code: 4040, at: self.at }),
            Some(b'[') => self.array(depth)?,
            Some(b'{') => self.object(depth)?,
            Some(b'"') => {
                self.string()?;
                Kind::Str
            }
            Some(b't') => self.word(b"true", Kind::True)?,
            Some(b'f') => self.word(b"false", Kind::False)?,
            Some(b'n') => self.word(b"null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return Err(self.bad()),
        };
        Ok(Node { kind, span: (start, self.at) })
    }

    fn word(&mut self, w: &[u8], kind: Kind) -> Result<Kind, BadJson> {
        for &c in w {
            if self.s.get(self.at) != Some(&c) {
                return Err(self.bad());
            }
            self.at += 1;
        }
        Ok(kind)
    }

    fn digits(&mut self) -> usize {
        let from = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - from
    }

    /// `-`? (`0` | [1-9][0-9]*) (`.` [0-9]*)? ([eE] [+-]? [0-9]+)? (MariaDB takes `1.`).
    fn number(&mut self) -> Result<Kind, BadJson> {
        if self.s[self.at] == b'-' {
            self.at += 1;
        }
        match self.s.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(BadJson { code: 4038, at: self.at }),
        }
        if self.s.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.digits();
        }
        if matches!(self.s.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.s.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.bad());
            }
        }
        Ok(Kind::Number)
    }

    /// A string at `"`: its content as written (escapes kept).
    fn string(&mut self) -> Result<String, BadJson> {
        self.at += 1;
        let from = self.at;
        loop {
            match self.s.get(self.at) {
                None => return Err(self.bad()),
                Some(b'"') => break,
                Some(b'\\') => self.at += 2,
                Some(_) => self.at += 1,
            }
        }
        // Bytes that are no UTF-8 are kept (a latin1 document's, say).
        let text = String::from_utf8_lossy(&self.s[from..self.at.min(self.s.len())]).into_owned();
        self.at += 1;
        Ok(text)
    }

    fn array(&mut self, depth: usize) -> Result<Kind, BadJson> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_spaces();
        if self.s.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Kind::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_spaces();
            match self.s.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Kind::Array(items));
                }
                _ => return Err(self.bad()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Kind, BadJson> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip_spaces();
        if self.s.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Kind::Object(members));
        }
        loop {
            self.skip_spaces();
            if self.s.get(self.at) != Some(&b'"') {
                return Err(self.bad());
            }
            let key = self.string()?;
            self.skip_spaces();
            if self.s.get(self.at) != Some(&b':') {
                return Err(self.bad());
            }
            self.at += 1;
            members.push((key, self.value(depth + 1)?));
            self.skip_spaces();
            match self.s.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Kind::Object(members));
                }
                _ => return Err(self.bad()),
            }
        }
    }
}

/// Parse a whole document (spaces around it allowed).
pub(super) fn parse(s: &[u8]) -> Result<Node, BadJson> {
    let mut p = Parser { s, at: 0 };
    let v = p.value(0)?;
    p.skip_spaces();
    if p.at < s.len() {
        return Err(p.bad());
    }
    Ok(v)
}

/// A value written as MariaDB writes one it hands back: `[1, 2]`, `{"a": 1}`,
/// scalars as in the document.
pub(super) fn write(doc: &[u8], v: &Node, out: &mut Vec<u8>) {
    match &v.kind {
        Kind::Array(items) => {
            out.push(b'[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                write(doc, item, out);
            }
            out.push(b']');
        }
        Kind::Object(members) => {
            out.push(b'{');
            for (k, (key, item)) in members.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                out.push(b'"');
                out.extend_from_slice(key.as_bytes());
                out.extend_from_slice(b"\": ");
                write(doc, item, out);
            }
            out.push(b'}');
        }
        _ => out.extend_from_slice(&doc[v.span.0..v.span.1]),
    }
}

/// An array position: from the start, or from the end (`last` is 0 back; `-1` is `last`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Pos {
    From(u64),
    Back(u64),
}

impl Pos {
    pub(super) fn resolve(self, len: usize) -> Option<usize> {
        match self {
            Pos::From(n) => usize::try_from(n).ok(),
            Pos::Back(n) => usize::try_from(n).ok().and_then(|n| len.checked_sub(1)?.checked_sub(n)),
        }
    }
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Step {
    Key(String),
    AnyKey,
    Index(Pos),
    AnyIndex,
    Range(Pos, Pos),
    /// `**`: the step after it, at any depth.
    AnyDepth,
}

/// Why a path is not one: MariaDB's warning code (4041 at its end, 4043
/// past 31 steps, else 4042) and the position it names.
#[derive(Debug, PartialEq)]
pub(super) struct BadPath {
    pub(super) code: u16,
    pub(super) at: usize,
}

/// A MariaDB JSON path: `$` then `.key`, `."key"`, `.*`, `[n]`, `[last]`,
/// `[last-n]`, `[-n]`, `[n to m]`, `[*]`, `**`.
pub(super) fn parse_path(p: &[u8]) -> Result<Vec<Step>, BadPath> {
    let mut at = 0;
    while p.get(at).is_some_and(|c| c.is_ascii_whitespace()) {
        at += 1;
    }
    let bad = |at: usize| if at >= p.len() { BadPath { code: 4041, at } } else { BadPath { code: 4042, at: at + 1 } };
    if p.get(at) != Some(&b'$') {
        return Err(bad(at));
    }
    at += 1;
    let mut steps = Vec::new();
    while at < p.len() {
        // MariaDB's limit: a path of 32 steps (`**` and the step after it one) is refused.
        if steps.iter().filter(|s| **s != Step::AnyDepth).count() + 1 >= MAX_DEPTH {
            return Err(BadPath { code: 4043, at: at + 2 });
        }
        match p[at] {
            b'.' => {
                at += 1;
                match p.get(at) {
                    Some(b'*') => {
                        steps.push(Step::AnyKey);
                        at += 1;
                    }
                    Some(b'"') => {
                        let from = at + 1;
                        let mut end = from;
                        while end < p.len() && p[end] != b'"' {
                            end += if p[end] == b'\\' { 2 } else { 1 };
                        }
                        if end >= p.len() {
                            return Err(bad(p.len()));
                        }
                        steps.push(Step::Key(String::from_utf8_lossy(&p[from..end]).into_owned()));
                        at = end + 1;
                    }
                    Some(_) => {
                        let from = at;
                        while at < p.len() && !matches!(p[at], b'.' | b'[' | b' ' | b'\t' | b'\n' | b'\r' | b'*') {
                            at += 1;
                        }
                        if at == from {
                            return Err(bad(at));
                        }
                        steps.push(Step::Key(String::from_utf8_lossy(&p[from..at]).into_owned()));
                    }
                    None => return Err(bad(at)),
                }
            }
            b'[' => {
                let close = p[at..].iter().position(|&c| c == b']').map(|k| k + at).ok_or_else(|| bad(p.len()))?;
                steps.push(bracket(&p[at + 1..close]).ok_or_else(|| bad(at + 1))?);
                at = close + 1;
            }
            b'*' if p.get(at + 1) == Some(&b'*') => {
                if p.get(at + 2).is_none() {
                    return Err(bad(p.len()));
                }
                steps.push(Step::AnyDepth);
                at += 2;
            }
            _ => return Err(bad(at)),
        }
    }
    Ok(steps)
}

/// The inside of `[...]`: `*`, a position, or `a to b`.
fn bracket(b: &[u8]) -> Option<Step> {
    let s = std::str::from_utf8(b).ok()?.trim();
    if s == "*" {
        return Some(Step::AnyIndex);
    }
    let lower = s.to_ascii_lowercase();
    if let Some((a, z)) = lower.split_once(" to ") {
        return Some(Step::Range(position(a.trim())?, position(z.trim())?));
    }
    Some(Step::Index(position(&lower)?))
}

/// `n`, `-n` (n back from the end, `-1` the last), `last`, `last - n`.
fn position(s: &str) -> Option<Pos> {
    let number = |t: &str| -> Option<u64> {
        let t = t.trim();
        (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit())).then(|| t.parse::<u64>().unwrap_or(u64::MAX))
    };
    if let Some(rest) = s.strip_prefix("last") {
        let rest = rest.trim();
        if rest.is_empty() {
            return Some(Pos::Back(0));
        }
        return Some(Pos::Back(number(rest.strip_prefix('-')?)?));
    }
    if let Some(rest) = s.strip_prefix('-') {
        return Some(match number(rest)? {
            0 => Pos::From(0),
            n => Pos::Back(n - 1),
        });
    }
    Some(Pos::From(number(s)?))
}

/// Does the path name several values (`*`, `**`, a range)?
pub(super) fn is_wild(steps: &[Step]) -> bool {
    steps.iter().any(|s| matches!(s, Step::AnyKey | Step::AnyIndex | Step::Range(..) | Step::AnyDepth))
}

/// The values the path names, in document order, each once (`first`: the
/// first only). Step by step over the values found so far, so a path with
/// several `**` costs the document's size for each step, not more.
pub(super) fn select<'a>(v: &'a Node, steps: &[Step], first: bool) -> Vec<&'a Node> {
    let mut found = vec![v];
    let mut k = 0;
    while k < steps.len() && !found.is_empty() {
        let mut next = Vec::new();
        match &steps[k] {
            Step::AnyDepth => {
                let Some(after) = steps.get(k + 1) else { return Vec::new() };
                for f in &found {
                    for_each_container(f, &mut |c| one_step(c, after, &mut next));
                }
                k += 2;
            }
            step => {
                for f in &found {
                    one_step(f, step, &mut next);
                }
                k += 1;
            }
        }
        let mut seen = std::collections::HashSet::with_capacity(next.len());
        next.retain(|n| seen.insert(*n as *const Node));
        found = next;
    }
    if first {
        found.truncate(1);
    }
    found
}

/// The values one step from `v` names.
fn one_step<'a>(v: &'a Node, step: &Step, out: &mut Vec<&'a Node>) {
    match (step, &v.kind) {
        (Step::Key(k), Kind::Object(m)) => out.extend(m.iter().filter(|(key, _)| key == k).map(|(_, n)| n)),
        (Step::AnyKey, Kind::Object(m)) => out.extend(m.iter().map(|(_, n)| n)),
        (Step::Index(p), Kind::Array(a)) => out.extend(p.resolve(a.len()).and_then(|i| a.get(i))),
        (Step::AnyIndex, Kind::Array(a)) => out.extend(a.iter()),
        (Step::Range(p, q), Kind::Array(a)) => {
            if let (Some(from), Some(to)) = (p.resolve(a.len()), q.resolve(a.len())) {
                out.extend(a.iter().skip(from).take((to + 1).saturating_sub(from)));
            }
        }
        // A value that is no array is an array of itself for position 0 (and the last).
        (Step::Index(p), _) if p.resolve(1) == Some(0) => out.push(v),
        (Step::Range(p, q), _) if p.resolve(1) == Some(0) && q.resolve(1).is_some() => out.push(v),
        _ => {}
    }
}

/// `v` and every array and object in it, in document order.
fn for_each_container<'a>(v: &'a Node, f: &mut dyn FnMut(&'a Node)) {
    f(v);
    match &v.kind {
        Kind::Array(a) => a.iter().filter(|n| matches!(n.kind, Kind::Array(_) | Kind::Object(_))).for_each(|n| for_each_container(n, f)),
        Kind::Object(m) => m.iter().filter(|(_, n)| matches!(n.kind, Kind::Array(_) | Kind::Object(_))).for_each(|(_, n)| for_each_container(n, f)),
        _ => {}
    }
}

/// A JSON string's content (between its quotes) unescaped; an escape that
/// is none is the character after the backslash. Without a backslash, its
/// bytes as they are (UTF-8 or not).
pub(super) fn unescape(raw: &[u8]) -> Vec<u8> {
    if !raw.contains(&b'\\') {
        return raw.to_vec();
    }
    let raw = String::from_utf8_lossy(raw);
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let unit = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
                out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out.into_bytes()
}

// ---------------------------------------------------------------- the functions

/// A function's result and its subtype: a document handed back is JSON
/// to SQLite, so a JSON function it is passed to nests it as JSON, not as
/// a string.
type R = rusqlite::Result<(Out, SubType)>;

type FJ = fn(&Context<'_>, &Counters) -> R;

pub(super) fn register(db: &Connection, counters: &Arc<Counters>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_RESULT_SUBTYPE;
    let reg = |name: &str, n: i32, f: FJ| {
        let c = counters.clone();
        db.create_scalar_function(name, n, flags, move |ctx| f(ctx, &c))
    };
    reg("json_extract", -1, extract)?;
    reg("json_query", 2, |ctx, c| found(ctx, c, "json_query", Want::Query))?;
    reg("json_value", 2, |ctx, c| found(ctx, c, "json_value", Want::Value))?;
    reg("json_exists", 2, exists)?;
    reg("json_contains_path", -1, contains_path)?;
    reg("json_valid", 1, valid)
}

/// A document's text, JSON to SQLite.
fn json_out(bytes: Vec<u8>) -> R {
    Ok((Out::Bytes(bytes), Some(super::mariadb::JSON_SUBTYPE)))
}

/// A value that is no document.
fn plain(v: SV) -> R {
    Ok((Out::Val(v), None))
}

/// Argument `i` (0-based) as a document; None for NULL, and for one that is
/// no JSON (NULL with MariaDB's warning, naming argument i + 1 of `func`).
pub(super) fn doc_arg(ctx: &Context<'_>, i: usize, counters: &Counters, func: &str) -> Option<(Vec<u8>, Node)> {
    let text = barg(ctx, i)?.into_owned();
    match parse(&text) {
        Ok(node) => Some((text, node)),
        // MariaDB's JSON_VALUE, JSON_QUERY and JSON_EXISTS read a document
        // only as far as they need and say nothing of what is wrong after.
        Err(_) if matches!(func, "json_value" | "json_query" | "json_exists") => None,
        Err(bad) => {
            counters.raise(Level::Warning, bad.code, bad_json_message(&bad, i, func));
            None
        }
    }
}

/// MariaDB's message for a document that is no JSON (argument `i`, 0-based, of `func`).
pub(super) fn bad_json_message(BadJson { code, at }: &BadJson, i: usize, func: &str) -> String {
    match code {
        4037 => format!("Unexpected end of JSON text in argument {} to function '{}'", i + 1, func),
        4040 => format!("Limit of {} on JSON nested structures depth is reached in argument {} to function '{}' at position {}", MAX_DEPTH, i + 1, func, at),
        _ => format!("Syntax error in JSON text in argument {} to function '{}' at position {}", i + 1, func, at),
    }
}

/// JSON_VALID(doc): 1 for a document MariaDB reads, else 0 with its Note
/// saying why; NULL for NULL.
fn valid(ctx: &Context<'_>, counters: &Counters) -> R {
    let Some(text) = barg(ctx, 0) else { return plain(SV::Null) };
    plain(SV::Integer(match parse(&text) {
        Ok(_) => 1,
        Err(bad) => {
            counters.raise(Level::Note, bad.code, bad_json_message(&bad, 0, "json_valid"));
            0
        }
    }))
}

/// Argument `i` as a path; None for NULL and for one that is no path (with MariaDB's warning).
fn path_arg(ctx: &Context<'_>, i: usize, counters: &Counters, func: &str) -> Option<Vec<Step>> {
    let text = barg(ctx, i)?;
    match parse_path(&text) {
        Ok(steps) => Some(steps),
        Err(_) if func == "json_exists" => None,
        Err(BadPath { code, at }) => {
            let message = match code {
                4041 => format!("Unexpected end of JSON path in argument {} to function '{}'", i + 1, func),
                4043 => format!("Limit of {} on JSON path depth is reached in argument {} to function '{}' at position {}", MAX_DEPTH, i + 1, func, at),
                _ => format!("Syntax error in JSON path in argument {} to function '{}' at position {}", i + 1, func, at),
            };
            counters.raise(Level::Warning, code, message);
            None
        }
    }
}

/// JSON_EXTRACT(doc, path, ...): the value at a path; the values at all
/// of them as an array when there are several paths or one names several
/// values (NULL when none is found).
fn extract(ctx: &Context<'_>, counters: &Counters) -> R {
    need(ctx, 2, "json_extract")?;
    let Some((text, doc)) = doc_arg(ctx, 0, counters, "json_extract") else { return plain(SV::Null) };
    let mut paths = Vec::with_capacity(ctx.len() - 1);
    for i in 1..ctx.len() {
        let Some(p) = path_arg(ctx, i, counters, "json_extract") else { return plain(SV::Null) };
        paths.push(p);
    }
    let several = paths.len() > 1 || is_wild(&paths[0]);
    let found: Vec<&Node> = paths.iter().flat_map(|p| select(&doc, p, !several)).collect();
    let mut out = Vec::new();
    match (several, found.as_slice()) {
        (_, []) => return plain(SV::Null),
        (false, [one, ..]) if matches!(one.kind, Kind::Number) => return number(&text[one.span.0..one.span.1]),
        (false, [one, ..]) => write(&text, one, &mut out),
        (true, all) => {
            out.push(b'[');
            for (k, v) in all.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                write(&text, v, &mut out);
                // Values nested in one another are each written whole: past the limit, NULL.
                if !fits(out.len()) {
                    return plain(SV::Null);
                }
            }
            out.push(b']');
        }
    }
    json_out(out)
}

/// A number found: an SQL integer or double where its text is that
/// number's own (`19`, `1.5`), so it compares as a number as in MariaDB;
/// else its text (`1.50`, `1e5`).
fn number(raw: &[u8]) -> R {
    let text = String::from_utf8_lossy(raw);
    if let Ok(i) = text.parse::<i64>() {
        if i.to_string() == text {
            return plain(SV::Integer(i));
        }
    }
    if let Ok(f) = text.parse::<f64>() {
        if turnstile_wire::value::format_float(f) == text {
            return plain(SV::Real(f));
        }
    }
    plain(SV::Text(text.into_owned()))
}

#[derive(Clone, Copy, PartialEq)]
enum Want {
    /// JSON_QUERY: the first object or array, as written.
    Query,
    /// JSON_VALUE: the first scalar, a string unquoted.
    Value,
}

fn found(ctx: &Context<'_>, counters: &Counters, func: &str, want: Want) -> R {
    let Some((text, doc)) = doc_arg(ctx, 0, counters, func) else { return plain(SV::Null) };
    let Some(path) = path_arg(ctx, 1, counters, func) else { return plain(SV::Null) };
    let hits = select(&doc, &path, false);
    let container = |n: &&Node| matches!(n.kind, Kind::Array(_) | Kind::Object(_));
    let raw = |n: &Node| text[n.span.0..n.span.1].to_vec();
    let value = match want {
        Want::Query => return hits.into_iter().find(container).map_or(plain(SV::Null), |n| json_out(raw(n))),
        Want::Value => match hits.into_iter().find(|n| !container(n)).map(|n| (&n.kind, n)) {
            Some((Kind::Str, n)) => Out::Bytes(unescape(&text[n.span.0 + 1..n.span.1 - 1])),
            Some((Kind::True, _)) => Out::Bytes(b"1".to_vec()),
            Some((Kind::False, _)) => Out::Bytes(b"0".to_vec()),
            Some((Kind::Number, n)) => Out::Bytes(raw(n)),
            _ => Out::Val(SV::Null),
        },
    };
    Ok((value, None))
}

/// JSON_EXISTS(doc, path): 1 when the path names a value.
fn exists(ctx: &Context<'_>, counters: &Counters) -> R {
    let Some((_, doc)) = doc_arg(ctx, 0, counters, "json_exists") else { return plain(SV::Null) };
    let Some(path) = path_arg(ctx, 1, counters, "json_exists") else { return plain(SV::Null) };
    plain(SV::Integer(i64::from(!select(&doc, &path, true).is_empty())))
}

/// JSON_CONTAINS_PATH(doc, 'one' | 'all', path, ...).
fn contains_path(ctx: &Context<'_>, counters: &Counters) -> R {
    need(ctx, 3, "json_contains_path")?;
    let Some((_, doc)) = doc_arg(ctx, 0, counters, "json_contains_path") else { return plain(SV::Null) };
    let Some(mode) = barg(ctx, 1) else { return plain(SV::Null) };
    let all = match mode.to_ascii_lowercase().as_slice() {
        b"all" => true,
        b"one" => false,
        _ => return Err(super::user_err("ts:3150:The oneOrAll argument to json_contains_path may take these values: 'one' or 'all'.".into())),
    };
    let mut hits = Vec::with_capacity(ctx.len() - 2);
    for i in 2..ctx.len() {
        let Some(path) = path_arg(ctx, i, counters, "json_contains_path") else { return plain(SV::Null) };
        hits.push(!select(&doc, &path, true).is_empty());
    }
    let yes = if all { hits.iter().all(|h| *h) } else { hits.iter().any(|h| *h) };
    plain(SV::Integer(i64::from(yes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extract_text(doc: &str, path: &str, first: bool) -> Vec<String> {
        let d = parse(doc.as_bytes()).unwrap();
        let p = parse_path(path.as_bytes()).unwrap();
        select(&d, &p, first)
            .into_iter()
            .map(|n| {
                let mut out = Vec::new();
                write(doc.as_bytes(), n, &mut out);
                String::from_utf8(out).unwrap()
            })
            .collect()
    }

    #[test]
    fn documents_as_mariadb_reads_them() {
        // Codes and positions read from MariaDB 10.11's warnings.
        for (doc, code, at) in [("", 4037, 0), ("{", 4037, 1), ("{}{", 4038, 3), ("{a:true}", 4038, 2), ("[1,]", 4038, 4), ("[1", 4037, 2), ("x", 4038, 1), ("01", 4038, 2), ("\"abc", 4037, 4)] {
            assert_eq!(parse(doc.as_bytes()).map(|_| ()), Err(BadJson { code, at }), "{}", doc);
        }
        let deep = format!("{}1{}", "[".repeat(33), "]".repeat(33));
        assert_eq!(parse(deep.as_bytes()).map(|_| ()).unwrap_err().code, 4040);
        assert!(parse(format!("{}1{}", "[".repeat(32), "]".repeat(32)).as_bytes()).is_ok());
        assert_eq!(extract_text(" {\"a\" :  [1 ,2e5], \"a\": \"x\\u00e9\"} ", "$", true), ["{\"a\": [1, 2e5], \"a\": \"x\\u00e9\"}"]);
        assert_eq!(extract_text("1.", "$", true), ["1."]);
    }

    #[test]
    fn paths_as_mariadb_reads_them() {
        let a = "[1, 2, 3]";
        assert_eq!(extract_text(a, "$[-1]", true), ["3"]);
        assert_eq!(extract_text(a, "$[last]", true), ["3"]);
        assert_eq!(extract_text(a, "$[last-2]", true), ["1"]);
        assert_eq!(extract_text(a, "$[-0]", true), ["1"]);
        assert!(extract_text(a, "$[-4]", true).is_empty());
        assert_eq!(extract_text(a, "$[1 to 2]", false), ["2", "3"]);
        assert!(extract_text(a, "$[2 to 1]", false).is_empty());
        assert_eq!(extract_text("5", "$[0 to 1]", false), ["5"]);
        assert!(extract_text("5", "$[*]", false).is_empty());
        assert_eq!(extract_text("[1]", "$[0][0]", true), ["1"]);
        assert_eq!(extract_text("{\"a\":{\"a\":1}}", "$**.a", false), ["{\"a\": 1}", "1"]);
        assert_eq!(extract_text("[1]", "$**[0][0]", false), ["1"]);
        assert_eq!(extract_text("{\"my-key\": 1, \"b\": 2}", "$.my-key", true), ["1"]);
        assert_eq!(extract_text("{\"a b\": 1, \"b\": 2}", "$.*", false), ["1", "2"]);
        for (p, code) in [("x", 4042), ("$[", 4041), ("$.", 4041), ("$a", 4042), ("$ [1]", 4042), ("$**", 4041), ("$[x]", 4042)] {
            assert_eq!(parse_path(p.as_bytes()).unwrap_err().code, code, "{}", p);
        }
        // 31 steps at most; MariaDB's positions for 32.
        assert!(parse_path(format!("${}", "[0]".repeat(31)).as_bytes()).is_ok());
        assert_eq!(parse_path(format!("${}", "[0]".repeat(32)).as_bytes()), Err(BadPath { code: 4043, at: 96 }));
        assert_eq!(parse_path(format!("${}", ".k".repeat(1000)).as_bytes()), Err(BadPath { code: 4043, at: 65 }));
    }
}
