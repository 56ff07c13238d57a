//! JSON_DETAILED (and its alias JSON_PRETTY) and JSON_LOOSE: a document
//! rewritten in MariaDB 10.11's layouts, its scalars as written (`1.50`
//! stays `1.50`); JSON_NORMALIZE, its canonical form (no spaces, members
//! sorted by key, every number as `d.dddEn` from its written digits:
//! `1` is `1.0E0`), and JSON_EQUALS, whether two documents' canonical
//! forms are the same.
//!
//! JSON_LOOSE is one line with `, ` and `: ` (json_path.rs's `write`).
//! JSON_DETAILED puts each member and element on its own line, indented by
//! the optional second argument's number of spaces (4): an array of one
//! scalar stays on one line (`[1]`), an empty array is `[]`, an empty
//! object `{` and `}` on two lines, and an object member whose value is an
//! array or object has that value on the next line. A document that is no
//! JSON is NULL with MariaDB's warning (json_path.rs reads it).
//!
//! Why its own module: SQLite's json_pretty lays documents out otherwise;
//! registering these replaces it. Bounds: json_path.rs's parser stops at 32
//! levels, so the recursive writer here goes no deeper; the result is built
//! only while it fits the packet limit.

use super::bytes::{barg, Out};
use super::json_path::{doc_arg, write, Kind, Node};
use super::mariadb::JSON_SUBTYPE;
use super::{int, Counters};
use rusqlite::functions::{Context, FunctionFlags, SubType};
use rusqlite::types::Value as SV;
use rusqlite::Connection;
use std::sync::Arc;
use turnstile_engine::limits::fits;

/// JSON_DETAILED's indent without a second argument.
const DEFAULT_INDENT: usize = 4;
/// The widest indent step taken (MariaDB caps its tab size too).
const MAX_INDENT: usize = 32;

type R = rusqlite::Result<(Out, SubType)>;

pub(super) fn register(db: &Connection, counters: &Arc<Counters>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_RESULT_SUBTYPE;
    for name in ["json_detailed", "json_pretty"] {
        for n in [1, 2] {
            let c = counters.clone();
            db.create_scalar_function(name, n, flags, move |ctx| detailed(ctx, &c))?;
        }
    }
    let c = counters.clone();
    db.create_scalar_function("json_loose", 1, flags, move |ctx| loose(ctx, &c))?;
    let c = counters.clone();
    db.create_scalar_function("json_normalize", 1, flags, move |ctx| {
        let Some((text, doc)) = doc_arg(ctx, 0, &c, "json_normalize") else { return Ok((Out::Val(SV::Null), None)) };
        let mut o = Vec::with_capacity(text.len() + 8);
        normalize(&text, &doc, &mut o);
        out(o)
    })?;
    let c = counters.clone();
    db.create_scalar_function("json_equals", 2, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
        let mut forms = Vec::with_capacity(2);
        for i in 0..2 {
            let Some((text, doc)) = doc_arg(ctx, i, &c, "json_equals") else { return Ok(SV::Null) };
            let mut o = Vec::with_capacity(text.len() + 8);
            normalize(&text, &doc, &mut o);
            forms.push(o);
        }
        Ok(SV::Integer(i64::from(forms[0] == forms[1])))
    })
}

/// `v`'s canonical form (JSON_NORMALIZE) appended to `o`.
fn normalize(doc: &[u8], v: &Node, o: &mut Vec<u8>) {
    match &v.kind {
        Kind::Array(items) => {
            o.push(b'[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    o.push(b',');
                }
                normalize(doc, item, o);
            }
            o.push(b']');
        }
        Kind::Object(members) => {
            let mut sorted: Vec<&(String, Node)> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            o.push(b'{');
            for (k, (key, item)) in sorted.into_iter().enumerate() {
                if k > 0 {
                    o.push(b',');
                }
                o.push(b'"');
                o.extend_from_slice(key.as_bytes());
                o.extend_from_slice(b"\":");
                normalize(doc, item, o);
            }
            o.push(b'}');
        }
        Kind::Number => o.extend_from_slice(canonical_number(&doc[v.span.0..v.span.1]).as_bytes()),
        _ => o.extend_from_slice(&doc[v.span.0..v.span.1]),
    }
}

/// A JSON number's text as `d.dddEn` from its digits (no rounding: every
/// significant digit kept); zero is `0.0E0`.
fn canonical_number(raw: &[u8]) -> String {
    let s = String::from_utf8_lossy(raw);
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, &*s),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(k) => (&body[..k], body[k + 1..].parse::<i64>().unwrap_or(0)),
        None => (body, 0),
    };
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = whole.chars().chain(frac.chars()).collect();
    let lead = all.bytes().take_while(|&c| c == b'0').count();
    let digits = all[lead..].trim_end_matches('0');
    if digits.is_empty() {
        return "0.0E0".into();
    }
    // The first significant digit's power of ten.
    let power = exp.saturating_add(whole.len() as i64 - 1 - lead as i64);
    let rest = if digits.len() > 1 { &digits[1..] } else { "0" };
    format!("{}{}.{}E{}", if negative { "-" } else { "" }, &digits[..1], rest, power)
}

fn out(bytes: Vec<u8>) -> R {
    if !fits(bytes.len()) {
        return Ok((Out::Val(SV::Null), None));
    }
    Ok((Out::Bytes(bytes), Some(JSON_SUBTYPE)))
}

fn loose(ctx: &Context<'_>, counters: &Counters) -> R {
    let Some((text, doc)) = doc_arg(ctx, 0, counters, "json_loose") else { return Ok((Out::Val(SV::Null), None)) };
    let mut o = Vec::with_capacity(text.len() + text.len() / 4);
    write(&text, &doc, &mut o);
    out(o)
}

fn detailed(ctx: &Context<'_>, counters: &Counters) -> R {
    let indent = match ctx.len() > 1 {
        true => match barg(ctx, 1) {
            None => return Ok((Out::Val(SV::Null), None)),
            Some(_) => int(&ctx.get_raw(1)).unwrap_or(0).clamp(0, MAX_INDENT as i64) as usize,
        },
        false => DEFAULT_INDENT,
    };
    let Some((text, doc)) = doc_arg(ctx, 0, counters, "json_detailed") else { return Ok((Out::Val(SV::Null), None)) };
    let mut o = Vec::with_capacity(text.len() * 2);
    let mut w = Detailed { doc: &text, step: indent, out: &mut o };
    w.value(&doc, 0);
    out(o)
}

/// The JSON_DETAILED writer: `doc` the document's text, `step` the indent.
struct Detailed<'a> {
    doc: &'a [u8],
    step: usize,
    out: &'a mut Vec<u8>,
}

impl Detailed<'_> {
    fn newline(&mut self, level: usize) {
        self.out.push(b'\n');
        self.out.resize(self.out.len() + level * self.step, b' ');
    }

    fn scalar(node: &Node) -> bool {
        !matches!(node.kind, Kind::Array(_) | Kind::Object(_))
    }

    /// `v` at nesting `level` (the current line already indented).
    fn value(&mut self, v: &Node, level: usize) {
        match &v.kind {
            Kind::Array(items) if items.is_empty() => self.out.extend_from_slice(b"[]"),
            Kind::Array(items) if items.len() == 1 && Self::scalar(&items[0]) => {
                self.out.push(b'[');
                self.value(&items[0], level + 1);
                self.out.push(b']');
            }
            Kind::Array(items) => {
                self.out.push(b'[');
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        self.out.push(b',');
                    }
                    self.newline(level + 1);
                    self.value(item, level + 1);
                }
                self.newline(level);
                self.out.push(b']');
            }
            Kind::Object(members) => {
                self.out.push(b'{');
                for (k, (key, item)) in members.iter().enumerate() {
                    if k > 0 {
                        self.out.push(b',');
                    }
                    self.newline(level + 1);
                    self.out.push(b'"');
                    self.out.extend_from_slice(key.as_bytes());
                    self.out.extend_from_slice(b"\": ");
                    if !Self::scalar(item) {
                        self.newline(level + 1);
                    }
                    self.value(item, level + 1);
                }
                self.newline(level);
                self.out.push(b'}');
            }
            _ => self.out.extend_from_slice(&self.doc[v.span.0..v.span.1]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::json_path::parse;
    use super::*;

    fn detailed(doc: &str, step: usize) -> String {
        let node = parse(doc.as_bytes()).unwrap();
        let mut o = Vec::new();
        Detailed { doc: doc.as_bytes(), step, out: &mut o }.value(&node, 0);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn as_mariadb_lays_out() {
        assert_eq!(detailed("[[123],456]", 4), "[\n    [123],\n    456\n]");
        assert_eq!(detailed(r#"{"a":1,"b":[1,2],"e":{},"d":[]}"#, 4), "{\n    \"a\": 1,\n    \"b\": \n    [\n        1,\n        2\n    ],\n    \"e\": \n    {\n    },\n    \"d\": \n    []\n}");
        assert_eq!(detailed("[1,[2]]", 0), "[\n1,\n[2]\n]");
        assert_eq!(detailed(" 1.50 ", 4), "1.50");
        assert_eq!(detailed("{}", 4), "{\n}");
    }

    #[test]
    fn canonical_forms() {
        let norm = |d: &str| {
            let node = parse(d.as_bytes()).unwrap();
            let mut o = Vec::new();
            normalize(d.as_bytes(), &node, &mut o);
            String::from_utf8(o).unwrap()
        };
        assert_eq!(
            norm(r#"{"b":1,"a":[2.5, -0.0, 1e300, "x\u0041", true, null, {}], "c":{"z":1,"y":2}}"#),
            r#"{"a":[2.5E0,0.0E0,1.0E300,"x\u0041",true,null,{}],"b":1.0E0,"c":{"y":2.0E0,"z":1.0E0}}"#
        );
        assert_eq!(norm(" \t-1"), "-1.0E0");
        assert_eq!(norm("1.5e-7"), "1.5E-7");
        assert_eq!(norm("12345678901234567890"), "1.234567890123456789E19");
        assert_eq!(norm("0.00120"), "1.2E-3");
        assert_eq!(canonical_number(b"1e-9223372036854775808"), "1.0E-9223372036854775808");
        assert_eq!(canonical_number(b"1e99999999999999999999"), "1.0E0");
    }

    #[test]
    fn deep_and_wide_documents() {
        // Past 32 levels the parser refuses the document; at 32 the writer's depth is bounded.
        assert!(parse(format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).as_bytes()).is_err());
        let deep = format!("{}1{}", "[1,".repeat(31), "]".repeat(31));
        assert!(detailed(&deep, 32).len() > 31 * 32);
        let wide = format!("[{}1]", "1,".repeat(100_000));
        assert_eq!(detailed(&wide, 4).lines().count(), 100_003);
    }
}
