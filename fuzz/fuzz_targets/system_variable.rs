//! Fuzz target: a value for a system variable or a start-up setting, checked
//! against the one settings table (crates/settings): `vars::coerce` (what
//! SET GLOBAL and SET SESSION run on any value a client sends), `Kind::check`
//! (what the command line and TOML file run) and the typed `Config`.
//!
//! Input: a byte choosing the setting, a byte choosing the value's type, the
//! value's bytes. Besides not panicking, checks: a value coerce accepts lies
//! in the row's range or choices and coerces to itself again; SET GLOBAL of it
//! reads back as stored; a text `check` accepts is canonical (checks to itself)
//! and fits the setting's typed field.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_engine::Value;
use turnstile_settings::{Config, Kind, Setting, SETTINGS};
use turnstile_sql::vars::{self, Globals};

fn value_of(kind: u8, bytes: &[u8]) -> Value {
    let text = String::from_utf8_lossy(bytes);
    let mut eight = [0u8; 8];
    let n = bytes.len().min(8);
    eight[..n].copy_from_slice(&bytes[..n]);
    match kind % 5 {
        0 => Value::Int(i64::from_le_bytes(eight)),
        1 => Value::UInt(u64::from_le_bytes(eight)),
        2 => Value::Double(f64::from_le_bytes(eight)),
        3 => Value::Bytes(bytes.to_vec()),
        _ => text.trim().parse::<i64>().map(Value::Int).unwrap_or(Value::Null),
    }
}

fn check_coerce(def: &'static Setting, value: Value, globals: &Globals) {
    let Ok(v) = vars::coerce(def, value) else { return };
    match def.kind {
        Kind::Int { min, max } => {
            let n = match v {
                Value::Int(n) => n as i128,
                Value::UInt(n) => n as i128,
                ref other => panic!("{}: int coerced to {:?}", def.name, other),
            };
            assert!((min..=max).contains(&n), "{}: {} outside {}..={}", def.name, n, min, max);
        }
        Kind::Bool => assert!(matches!(v, Value::Int(0 | 1)), "{}: bool coerced to {:?}", def.name, v),
        Kind::Float { min, max } => {
            let f = v.as_f64().expect("a float");
            assert!(f.is_finite() && (min..=max).contains(&f), "{}: {} outside {}..={}", def.name, f, min, max);
        }
        Kind::Choice(names) => {
            let t = v.to_text().expect("a name");
            assert!(names.iter().any(|n| n.as_bytes() == &t[..]), "{}: {:?} is no choice", def.name, v);
        }
        Kind::Str | Kind::Secret => {}
    }
    // Compared as printed: a NaN a text variable takes is the same NaN.
    let again = vars::coerce(def, v.clone()).map(|w| format!("{:?}", w)).ok();
    assert_eq!(again, Some(format!("{:?}", v)), "{}: coerce is not idempotent", def.name);
    if def.dynamic && def.scope != turnstile_settings::Scope::Session && globals.set(def, v.clone()).is_ok() {
        let back = globals.get(def);
        let same = format!("{:?}", back) == format!("{:?}", v);
        assert!(same, "{}: SET GLOBAL {:?} reads back {:?}", def.name, v, back);
    }
}

fn check_start_up(s: &'static Setting, text: &str) {
    let Ok(c) = s.kind.check(text) else { return };
    assert_eq!(s.kind.check(&c).as_deref(), Ok(c.as_str()), "{}: check is not idempotent", s.name);
    let defaults = |n: &str| turnstile_settings::find(n).map(|r| r.default).filter(|d| !d.is_empty());
    let config = Config::from_texts(|n| if n == s.name { Some(c.as_str()) } else { defaults(n) });
    assert!(config.is_ok(), "{}: {:?} passes the check but does not fit: {:?}", s.name, c, config.err());
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    thread_local!(static GLOBALS: Globals = Globals::new(&[], &[]));
    let row = &SETTINGS[data[0] as usize % SETTINGS.len()];
    let value = value_of(data[1], &data[2..]);
    if row.is_variable() {
        GLOBALS.with(|g| check_coerce(row, value, g));
    }
    if row.startup {
        check_start_up(row, &String::from_utf8_lossy(&data[2..]));
    }
});
