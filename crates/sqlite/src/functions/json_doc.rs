//! The JSON functions that take documents apart and build new ones as
//! serde_json values: JSON_LENGTH, JSON_DEPTH, JSON_KEYS, JSON_TYPE,
//! JSON_CONTAINS, JSON_OVERLAPS, JSON_MERGE(_PRESERVE), JSON_MERGE_PATCH,
//! JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_SEARCH and JSON_COMPACT.
//!
//! Why here: they read their document and path arguments as MariaDB 10.11
//! does, through json_path.rs's parsers: a document that is no JSON, or a
//! path that is none, is NULL with MariaDB's warning (4037, 4038, 4040,
//! 4041, 4042, 4043), not an error; a path may use MariaDB's positions
//! (`[last]`, `[last-1]`, `[-1]`), and where the function takes only one
//! value, a wildcard or range is NULL with Warning 4044. JSON_SEARCH's
//! paths may be wild (`$[*]`, `$**.k`, `$[0 to 2]`).
//!
//! Bounds: json_path.rs's parser refuses a document nested past 32 levels
//! and a path past 31 steps, before serde_json (which stops at 128 levels)
//! reads it, so the recursive helpers here never go deeper than that; the
//! path match of JSON_SEARCH is a table of path steps × depth (no
//! backtracking). Results past the packet limit are NULL (`doc_out`).

use super::bytes::{barg, need};
use super::json_path::{bad_json_message, is_wild, parse, parse_path, Kind, Node, Pos, Step};
use super::mariadb::doc_out;
use super::{targ, user_err, Counters};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use serde_json::Value as J;
use std::sync::Arc;
use turnstile_engine::Level;

/// The longest JSON_SEARCH pattern, in bytes: SQLite's limit for LIKE in a
/// query (SQLITE_MAX_LIKE_PATTERN_LENGTH), with the same error (errors.rs).
const LIKE_PATTERN_MAX: usize = 50_000;

type FD = fn(&Context<'_>, &Counters) -> rusqlite::Result<SV>;

pub(super) fn register(db: &Connection, counters: &Arc<Counters>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let reg = |name: &str, n: i32, f: FD| {
        let c = counters.clone();
        db.create_scalar_function(name, n, flags, move |ctx| f(ctx, &c))
    };
    reg("json_length", -1, length)?;
    reg("json_depth", 1, |ctx, c| Ok(doc(ctx, 0, c, "json_depth").map_or(SV::Null, |v| SV::Integer(depth(&v)))))?;
    reg("json_keys", -1, keys)?;
    reg("json_type", 1, json_type)?;
    reg("json_contains", -1, contains_call)?;
    reg("json_overlaps", 2, |ctx, c| {
        if matches!(ctx.get_raw(0), ValueRef::Null) || matches!(ctx.get_raw(1), ValueRef::Null) {
            return Ok(SV::Null);
        }
        // A document that is no JSON overlaps nothing: 0 with the warning
        // (MariaDB's, for the first such argument only).
        let Some(a) = doc(ctx, 0, c, "json_overlaps") else { return Ok(SV::Integer(0)) };
        let Some(b) = doc(ctx, 1, c, "json_overlaps") else { return Ok(SV::Integer(0)) };
        Ok(SV::Integer(overlaps(&a, &b) as i64))
    })?;
    reg("json_merge", -1, |ctx, c| merge(ctx, c, "json_merge"))?;
    reg("json_merge_preserve", -1, |ctx, c| merge(ctx, c, "json_merge_preserve"))?;
    reg("json_merge_patch", -1, merge_patch_call)?;
    reg("json_array_append", -1, |ctx, c| array_edit(ctx, c, false, "json_array_append"))?;
    reg("json_array_insert", -1, |ctx, c| array_edit(ctx, c, true, "json_array_insert"))?;
    reg("json_search", -1, json_search)?;
    reg("ts_json_slice", 3, |ctx, _| Ok(slice(ctx)))?;
    reg("json_compact", 1, |ctx, c| Ok(doc(ctx, 0, c, "json_compact").map_or(SV::Null, |v| SV::Text(v.to_string()))))
}

// ---------------------------------------------------------------- arguments

/// ERR 1582 for a call of `name` with more than `max` arguments (MariaDB's
/// count check, as `need`'s for too few).
fn at_most(ctx: &Context<'_>, max: usize, name: &str) -> rusqlite::Result<()> {
    if ctx.len() > max {
        return Err(user_err(format!("ts:1582:Incorrect parameter count in the call to native function '{}'", name)));
    }
    Ok(())
}

/// Argument `i` (0-based) as a document; None for NULL, and for one that is
/// no JSON (with MariaDB's warning, naming argument i + 1 of `func`).
fn doc(ctx: &Context<'_>, i: usize, counters: &Counters, func: &str) -> Option<J> {
    let text = barg(ctx, i)?;
    if let Err(bad) = parse(&text) {
        counters.raise(Level::Warning, bad.code, bad_json_message(&bad, i, func));
        return None;
    }
    // Read by MariaDB's rules above; a number past a double's range or bytes
    // that are no UTF-8 are beyond serde_json: NULL.
    serde_json::from_slice(&text).ok()
}

/// Argument `i` as a path; None for NULL and for one that is no path (with
/// MariaDB's warning); `wild`: may it name several values?
fn path(ctx: &Context<'_>, i: usize, counters: &Counters, func: &str, wild: bool) -> Option<Vec<Step>> {
    path_of(&barg(ctx, i)?, i, counters, func, wild)
}

/// `path` of the text of argument `i` (0-based).
pub(super) fn path_of(text: &[u8], i: usize, counters: &Counters, func: &str, wild: bool) -> Option<Vec<Step>> {
    match parse_path(text) {
        Ok(steps) if !wild && is_wild(&steps) => {
            counters.raise(Level::Warning, 4044, format!("Wildcards or range in JSON path not allowed in argument {} to function '{}'", i + 1, func));
            None
        }
        Ok(steps) => Some(steps),
        Err(bad) => {
            let message = match bad.code {
                4041 => format!("Unexpected end of JSON path in argument {} to function '{}'", i + 1, func),
                4043 => format!("Limit of 32 on JSON path depth is reached in argument {} to function '{}' at position {}", i + 1, func, bad.at),
                _ => format!("Syntax error in JSON path in argument {} to function '{}' at position {}", i + 1, func, bad.at),
            };
            counters.raise(Level::Warning, bad.code, message);
            None
        }
    }
}

/// Where a position lands in an array of `len` values.
fn resolve(p: &Pos, len: usize) -> Option<usize> {
    p.resolve(len)
}

/// The value a path without wildcards names (a value that is no array is
/// an array of itself for position 0).
fn at<'a>(doc: &'a J, steps: &[Step]) -> Option<&'a J> {
    steps.iter().try_fold(doc, |v, s| match (s, v) {
        (Step::Key(k), J::Object(m)) => m.get(k),
        (Step::Index(p), J::Array(a)) => resolve(p, a.len()).and_then(|n| a.get(n)),
        (Step::Index(p), scalar) if resolve(p, 1) == Some(0) => Some(scalar),
        _ => None,
    })
}

/// `at`, mutable.
fn at_mut<'a>(doc: &'a mut J, steps: &[Step]) -> Option<&'a mut J> {
    steps.iter().try_fold(doc, |v, s| match (s, v) {
        (Step::Key(k), J::Object(m)) => m.get_mut(k),
        (Step::Index(p), J::Array(a)) => {
            let n = resolve(p, a.len())?;
            a.get_mut(n)
        }
        (Step::Index(p), scalar) if resolve(p, 1) == Some(0) => Some(scalar),
        _ => None,
    })
}

/// The document at argument 0, narrowed by the optional path at argument
/// `path_at` (NULL, as MariaDB, when the path names nothing).
fn target(ctx: &Context<'_>, counters: &Counters, path_at: usize, func: &str) -> Option<J> {
    let whole = doc(ctx, 0, counters, func)?;
    if ctx.len() <= path_at {
        return Some(whole);
    }
    let steps = path(ctx, path_at, counters, func, false)?;
    at(&whole, &steps).cloned()
}

// ---------------------------------------------------------------- reading

fn length(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    need(ctx, 1, "json_length")?;
    at_most(ctx, 2, "json_length")?;
    Ok(match target(ctx, counters, 1, "json_length") {
        None => SV::Null,
        Some(J::Array(a)) => SV::Integer(a.len() as i64),
        Some(J::Object(m)) => SV::Integer(m.len() as i64),
        Some(_) => SV::Integer(1),
    })
}

fn depth(v: &J) -> i64 {
    match v {
        J::Array(a) if !a.is_empty() => 1 + a.iter().map(depth).max().unwrap_or(0),
        J::Object(m) if !m.is_empty() => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 1,
    }
}

fn keys(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    need(ctx, 1, "json_keys")?;
    at_most(ctx, 2, "json_keys")?;
    Ok(match target(ctx, counters, 1, "json_keys") {
        Some(J::Object(m)) => doc_out(&J::Array(m.keys().map(|k| J::String(k.clone())).collect())),
        _ => SV::Null,
    })
}

/// MySQL's type names (SQLite's json_type answers in lower case and other words).
fn json_type(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    Ok(doc(ctx, 0, counters, "json_type").map_or(SV::Null, |v| {
        SV::Text(
            match v {
                J::Object(_) => "OBJECT",
                J::Array(_) => "ARRAY",
                J::String(_) => "STRING",
                J::Bool(_) => "BOOLEAN",
                J::Null => "NULL",
                J::Number(n) if n.is_f64() => "DOUBLE",
                J::Number(n) if n.is_u64() && !n.is_i64() => "UNSIGNED INTEGER",
                J::Number(_) => "INTEGER",
            }
            .into(),
        )
    }))
}

/// MySQL's JSON_CONTAINS rule.
fn contains(target: &J, cand: &J) -> bool {
    match (target, cand) {
        (J::Array(t), J::Array(c)) => c.iter().all(|x| t.iter().any(|y| contains(y, x))),
        (J::Array(t), c) => t.iter().any(|y| contains(y, c)),
        (J::Object(t), J::Object(c)) => c.iter().all(|(k, v)| t.get(k).is_some_and(|tv| contains(tv, v))),
        (J::Number(a), J::Number(b)) => a.as_f64() == b.as_f64(),
        (a, b) => a == b,
    }
}

fn contains_call(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    need(ctx, 2, "json_contains")?;
    at_most(ctx, 3, "json_contains")?;
    let Some(whole) = doc(ctx, 0, counters, "json_contains") else { return Ok(SV::Null) };
    let Some(cand) = doc(ctx, 1, counters, "json_contains") else { return Ok(SV::Null) };
    let found = match ctx.len() > 2 {
        true => {
            let Some(steps) = path(ctx, 2, counters, "json_contains", false) else { return Ok(SV::Null) };
            at(&whole, &steps).cloned()
        }
        false => Some(whole),
    };
    Ok(found.map_or(SV::Null, |t| SV::Integer(contains(&t, &cand) as i64)))
}

/// MariaDB's JSON_OVERLAPS: do the two documents share a scalar, an array
/// element, or a key with an equal value?
fn overlaps(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Array(x), J::Array(y)) => x.iter().any(|u| y.iter().any(|v| same(u, v))),
        (J::Array(x), v) | (v, J::Array(x)) => x.iter().any(|u| same(u, v)),
        (J::Object(x), J::Object(y)) => x.iter().any(|(k, u)| y.get(k).is_some_and(|v| same(u, v))),
        (u, v) => same(u, v),
    }
}

/// JSON equality, numbers by value (`1.0` equals `1`).
fn same(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Number(x), J::Number(y)) => x.as_f64() == y.as_f64(),
        (J::Array(x), J::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(u, v)| same(u, v)),
        (J::Object(x), J::Object(y)) => x.len() == y.len() && x.iter().all(|(k, u)| y.get(k).is_some_and(|v| same(u, v))),
        (u, v) => u == v,
    }
}

// ---------------------------------------------------------------- building

/// MariaDB's JSON_MERGE_PRESERVE of two documents.
fn merge_preserve(a: J, b: J) -> J {
    match (a, b) {
        (J::Object(mut x), J::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(old) => merge_preserve(old, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            J::Object(x)
        }
        (J::Array(mut x), J::Array(y)) => {
            x.extend(y);
            J::Array(x)
        }
        (J::Array(mut x), v) => {
            x.push(v);
            J::Array(x)
        }
        (u, J::Array(y)) => {
            let mut x = vec![u];
            x.extend(y);
            J::Array(x)
        }
        (u, v) => J::Array(vec![u, v]),
    }
}

fn merge(ctx: &Context<'_>, counters: &Counters, func: &str) -> rusqlite::Result<SV> {
    need(ctx, 2, func)?;
    let mut acc: Option<J> = None;
    for i in 0..ctx.len() {
        let Some(v) = doc(ctx, i, counters, func) else { return Ok(SV::Null) };
        acc = Some(match acc {
            None => v,
            Some(a) => merge_preserve(a, v),
        });
    }
    Ok(acc.map_or(SV::Null, |v| doc_out(&v)))
}

/// RFC 7396's merge of `patch` into `target`.
fn merge_patch(target: J, patch: J) -> J {
    match patch {
        J::Object(p) => {
            let mut t = match target {
                J::Object(t) => t,
                _ => serde_json::Map::new(),
            };
            for (k, v) in p {
                if v.is_null() {
                    t.remove(&k);
                } else {
                    let old = t.remove(&k).unwrap_or(J::Null);
                    t.insert(k, merge_patch(old, v));
                }
            }
            J::Object(t)
        }
        other => other,
    }
}

fn merge_patch_call(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    need(ctx, 2, "json_merge_patch")?;
    let mut acc: Option<J> = None;
    for i in 0..ctx.len() {
        let Some(v) = doc(ctx, i, counters, "json_merge_patch") else { return Ok(SV::Null) };
        acc = Some(match acc {
            None => v,
            Some(a) => merge_patch(a, v),
        });
    }
    Ok(acc.map_or(SV::Null, |v| doc_out(&v)))
}

/// Argument `i` as a value to put into a document: a string is a JSON
/// string (MySQL's rule for SQL strings), a number a number, NULL null.
fn value_arg(ctx: &Context<'_>, i: usize) -> J {
    match ctx.get_raw(i) {
        ValueRef::Null => J::Null,
        ValueRef::Integer(n) => J::from(n),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(J::Null, J::Number),
        ValueRef::Text(t) | ValueRef::Blob(t) => J::String(String::from_utf8_lossy(t).into_owned()),
    }
}

/// JSON_ARRAY_APPEND (`insert` false) or JSON_ARRAY_INSERT over the
/// (path, value) pairs after the document.
fn array_edit(ctx: &Context<'_>, counters: &Counters, insert: bool, name: &str) -> rusqlite::Result<SV> {
    need(ctx, 3, name)?;
    if ctx.len().is_multiple_of(2) {
        return Err(user_err(format!("ts:1582:Incorrect parameter count in the call to native function '{}'", name)));
    }
    let Some(mut whole) = doc(ctx, 0, counters, name) else { return Ok(SV::Null) };
    for pair in (1..ctx.len()).step_by(2) {
        let Some(mut steps) = path(ctx, pair, counters, name, false) else { return Ok(SV::Null) };
        let value = value_arg(ctx, pair + 1);
        if insert {
            // The path names a position in an array: its last step an index.
            let Some(Step::Index(p)) = steps.pop() else { return Ok(SV::Null) };
            if let Some(J::Array(a)) = at_mut(&mut whole, &steps) {
                // `[-n]` and `[last-k]` count back from the end: `[-1]`
                // (`[last]`) inserts after the last value, as MariaDB.
                let n = match p {
                    Pos::From(n) => usize::try_from(n).unwrap_or(usize::MAX).min(a.len()),
                    Pos::Back(k) => a.len().saturating_sub(usize::try_from(k).unwrap_or(usize::MAX)),
                };
                a.insert(n, value);
            }
            continue;
        }
        // Nothing at the path: NULL (MariaDB).
        let Some(found) = at_mut(&mut whole, &steps) else { return Ok(SV::Null) };
        match found {
            J::Array(a) => a.push(value),
            other => {
                let old = std::mem::take(other);
                *other = J::Array(vec![old, value]);
            }
        }
    }
    Ok(doc_out(&whole))
}

// ---------------------------------------------------------------- JSON_ARRAYAGG ... LIMIT

/// `ts_json_slice(array, offset, count)`: the `count` values of an array
/// JSON_ARRAYAGG built from `offset` on, each as written
/// (`JSON_ARRAYAGG(x LIMIT offset, count)`: rewrite/function_calls.rs).
fn slice(ctx: &Context<'_>) -> SV {
    let Some(text) = barg(ctx, 0) else { return SV::Null };
    let (Ok(offset), Ok(count)) = (ctx.get::<i64>(1), ctx.get::<i64>(2)) else { return SV::Null };
    let Ok(Node { kind: Kind::Array(items), .. }) = parse(&text) else { return SV::Null };
    let mut out = Vec::with_capacity(text.len());
    out.push(b'[');
    let kept = items.iter().skip(usize::try_from(offset).unwrap_or(0)).take(usize::try_from(count).unwrap_or(0));
    for (k, n) in kept.enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&text[n.span.0..n.span.1]);
    }
    out.push(b']');
    SV::Text(String::from_utf8_lossy(&out).into_owned())
}

// ---------------------------------------------------------------- JSON_SEARCH

/// A LIKE pattern with escape character `esc` in the backslash form
/// `turnstile_sqltext::like` reads.
fn backslash_pattern(pat: &str, esc: char) -> String {
    let mut out = String::with_capacity(pat.len());
    let mut chars = pat.chars();
    while let Some(c) = chars.next() {
        if c == esc {
            out.push('\\');
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    out
}

/// A step of the path being searched: a key, or a position in an array of a length.
enum At<'a> {
    Key(&'a str),
    Index(usize, usize),
}

/// Does `step` name the concrete step `at`?
fn step_names(step: &Step, at: &At<'_>) -> bool {
    match (step, at) {
        (Step::Key(k), At::Key(j)) => k == j,
        (Step::AnyKey, At::Key(_)) => true,
        (Step::Index(p), At::Index(n, len)) => resolve(p, *len) == Some(*n),
        (Step::AnyIndex, At::Index(..)) => true,
        (Step::Range(p, q), At::Index(n, len)) => resolve(p, *len).is_some_and(|from| from <= *n) && resolve(q, *len).is_some_and(|to| *n <= to),
        _ => false,
    }
}

/// Does `pattern` name a prefix of the concrete path `at` (a value at or under
/// one it names)? `**` stands for any number of steps. A table of
/// (pattern step, path length) reached: pattern × path² at most, no backtracking.
fn names_prefix(pattern: &[Step], at: &[At<'_>]) -> bool {
    // reach[j]: the pattern so far can end after at[..j].
    let mut reach = vec![false; at.len() + 1];
    reach[0] = true;
    let mut k = 0;
    while k < pattern.len() {
        let mut next = vec![false; at.len() + 1];
        if pattern[k] == Step::AnyDepth {
            // `**` then a step: the step at any depth from here (`****` is `**`).
            let mut next_step = k + 1;
            while pattern.get(next_step) == Some(&Step::AnyDepth) {
                next_step += 1;
            }
            let Some(after) = pattern.get(next_step) else { return false };
            let mut from_any = false;
            for j in 0..at.len() {
                from_any |= reach[j];
                if from_any && step_names(after, &at[j]) {
                    next[j + 1] = true;
                }
            }
            k = next_step + 1;
        } else {
            for j in 0..at.len() {
                if reach[j] && step_names(&pattern[k], &at[j]) {
                    next[j + 1] = true;
                }
            }
            k += 1;
        }
        reach = next;
        if !reach.contains(&true) {
            return false;
        }
    }
    reach.contains(&true)
}

/// The search of `json_search`: in document order, the paths (MariaDB's
/// spelling: `$[0]`, `$.a b`) of the strings and numbers under `v` that
/// match `pat` and lie under one of `starts` (none: anywhere), appended to
/// `found`; `all` false stops at the first.
fn search<'a>(v: &'a J, at: &mut Vec<At<'a>>, pat: &str, starts: &[Vec<Step>], all: bool, found: &mut Vec<String>) {
    if !all && !found.is_empty() {
        return;
    }
    let matched = match v {
        J::String(s) => turnstile_sqltext::like::like(s, pat, true),
        J::Number(n) => turnstile_sqltext::like::like(&n.to_string(), pat, true),
        J::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(At::Index(i, a.len()));
                search(x, at, pat, starts, all, found);
                at.pop();
            }
            false
        }
        J::Object(m) => {
            for (k, x) in m {
                at.push(At::Key(k));
                search(x, at, pat, starts, all, found);
                at.pop();
            }
            false
        }
        _ => false,
    };
    if matched && (starts.is_empty() || starts.iter().any(|s| names_prefix(s, at))) {
        let mut path = String::from("$");
        for s in at.iter() {
            match s {
                At::Key(k) => path.push_str(&format!(".{}", k)),
                At::Index(n, _) => path.push_str(&format!("[{}]", n)),
            }
        }
        found.push(path);
    }
}

/// JSON_SEARCH(doc, 'one'|'all', pattern[, escape[, path ...]]): where the
/// document's strings match the LIKE pattern (case-insensitive, as
/// MariaDB's default collation): one path as a JSON string, several as an
/// array, none NULL. A mode other than one/all is NULL (MariaDB); an
/// escape of more than one character 1210.
fn json_search(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    need(ctx, 3, "json_search")?;
    let Some(whole) = doc(ctx, 0, counters, "json_search") else { return Ok(SV::Null) };
    let (Some(mode), Some(pat)) = (targ(ctx, 1), targ(ctx, 2)) else { return Ok(SV::Null) };
    let all = match mode.to_ascii_lowercase().as_str() {
        "one" => false,
        "all" => true,
        _ => return Ok(SV::Null),
    };
    let esc = match ctx.len() > 3 {
        true => targ(ctx, 3).unwrap_or_default(),
        false => String::new(),
    };
    let mut esc_chars = esc.chars();
    let esc = match (esc_chars.next(), esc_chars.next()) {
        (None, _) => '\\',
        (Some(c), None) => c,
        _ => return Err(user_err("ts:1210:Incorrect arguments to ESCAPE".into())),
    };
    if pat.len() > LIKE_PATTERN_MAX {
        return Err(user_err("ts:1235:This version of MySQL doesn't yet support 'LIKE patterns longer than 50,000 characters'".into()));
    }
    let pat = backslash_pattern(&pat, esc);
    let mut starts = Vec::new();
    for i in 4..ctx.len() {
        let Some(p) = path(ctx, i, counters, "json_search", true) else { return Ok(SV::Null) };
        starts.push(p);
    }
    let mut found = Vec::new();
    search(&whole, &mut Vec::new(), &pat, &starts, all, &mut found);
    Ok(match found.len() {
        0 => SV::Null,
        1 => SV::Text(J::String(found.remove(0)).to_string()),
        _ => doc_out(&J::Array(found.into_iter().map(J::String).collect())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<Step> {
        parse_path(p.as_bytes()).unwrap()
    }

    #[test]
    fn positions_from_the_end() {
        let d: J = serde_json::from_str(r#"{"A": [0, [1, 2, 3], [4, 5, 6]], "B": 7}"#).unwrap();
        assert_eq!(at(&d, &path("$.A[-1][0]")), Some(&J::from(4)));
        assert_eq!(at(&d, &path("$.A[last-1][last]")), Some(&J::from(3)));
        assert_eq!(at(&d, &path("$.B[0]")), Some(&J::from(7)));
        assert_eq!(at(&d, &path("$.B[1]")), None);
        assert_eq!(at(&d, &path("$.A[-9]")), None);
    }

    #[test]
    fn wild_paths_name_prefixes() {
        let at = [At::Index(1, 3), At::Index(0, 1), At::Key("k")];
        assert!(names_prefix(&path("$[*]"), &at));
        assert!(names_prefix(&path("$[*][0].k"), &at));
        assert!(names_prefix(&path("$**.k"), &at));
        assert!(names_prefix(&path("$[0 to 1]"), &at));
        assert!(names_prefix(&path("$[last-1]"), &at));
        assert!(!names_prefix(&path("$[2]"), &at));
        assert!(!names_prefix(&path("$**.j"), &at));
        assert!(!names_prefix(&path("$[*][0].k.x"), &at));
        assert!(names_prefix(&path("$****.k"), &at));
    }

    #[test]
    fn many_any_depth_steps_stay_linear() {
        // 15 `**` steps over a 32-step path: a table, not backtracking.
        let p = path(&format!("${}", "**[0]".repeat(15)));
        let at: Vec<At<'_>> = (0..32).map(|_| At::Index(0, 1)).collect();
        assert!(names_prefix(&p, &at));
    }
}
