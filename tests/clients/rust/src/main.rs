//! The mysql_async client of the compatibility suite (contract: ../../README.md).
//!
//! Values go in as parameters of prepared statements (`exec*`: COM_STMT_PREPARE
//! and COM_STMT_EXECUTE, binary protocol) and are read back twice: through the
//! text protocol (`query*`, every value arrives as bytes and is converted by
//! `FromValue`) and through the binary protocol (`exec*`, typed `Value`s).

use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use chrono::{NaiveDate, NaiveDateTime};
use mysql_async::prelude::*;
use mysql_async::{
    ChangeUserOpts, Conn, Error, Opts, OptsBuilder, Params, Pool, PoolConstraints, PoolOpts, Row, SslOpts, TxOpts, Value,
};
use rust_decimal::Decimal;
use serde_json::json;

/// How a check ends when it does not pass.
enum Outcome {
    Fail(String),
    NotApplicable(String),
}

impl From<Error> for Outcome {
    fn from(e: Error) -> Self {
        Outcome::Fail(format!("mysql_async error: {e}"))
    }
}

type Check = Result<String, Outcome>;

macro_rules! expect {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(Outcome::Fail(format!($($fmt)+)));
        }
    };
}

struct Env {
    host: String,
    port: u16,
    socket: String,
    db: String,
    native: (String, String),
    sha2: (String, String),
}

impl Env {
    fn from_env() -> Env {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        Env {
            host: var("TS_HOST"),
            port: var("TS_PORT").parse().unwrap_or(3306),
            socket: var("TS_SOCKET"),
            db: var("TS_DB"),
            native: (var("TS_NATIVE_USER"), var("TS_NATIVE_PASSWORD")),
            sha2: (var("TS_SHA2_USER"), var("TS_SHA2_PASSWORD")),
        }
    }

    /// TCP options for `user` (prefer_socket off: mysql_async would otherwise
    /// switch a loopback TCP connection to the server's @@socket).
    fn opts(&self, user: &(String, String)) -> OptsBuilder {
        OptsBuilder::default()
            .ip_or_hostname(self.host.clone())
            .tcp_port(self.port)
            .user(Some(user.0.clone()))
            .pass(Some(user.1.clone()))
            .db_name(Some(self.db.clone()))
            .prefer_socket(false)
    }

    async fn conn(&self) -> Result<Conn, Error> {
        Conn::new(self.opts(&self.native)).await
    }
}

fn emit(v: serde_json::Value) {
    println!("{v}");
}

async fn run_check<F: Future<Output = Check>>(key: &str, f: F) {
    let (status, detail) = match tokio::time::timeout(Duration::from_secs(30), f).await {
        Ok(Ok(d)) => ("pass", d),
        Ok(Err(Outcome::Fail(d))) => ("fail", d),
        Ok(Err(Outcome::NotApplicable(d))) => ("n/a", d),
        Err(_) => ("fail", "timed out after 30 s".to_string()),
    };
    if status == "fail" {
        eprintln!("{key}: {detail}");
    }
    emit(json!({"feature": key, "status": status, "detail": detail}));
}

/// Column `i` of `row` as `T` (a failed conversion is a check failure).
fn col<T: FromValue>(row: &Row, i: usize, what: &str) -> Result<T, Outcome> {
    match row.get_opt::<T, usize>(i) {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(Outcome::Fail(format!("{what}: cannot convert {:?} to {}", e.0, std::any::type_name::<T>()))),
        None => Err(Outcome::Fail(format!("{what}: no column {i}"))),
    }
}

fn raw(row: &Row, i: usize) -> Value {
    row.as_ref(i).cloned().unwrap_or(Value::NULL)
}

async fn scalar<T: FromValue + Send + 'static>(conn: &mut Conn, sql: &str) -> Result<T, Outcome> {
    let row: Option<Row> = conn.query_first(sql).await?;
    let row = row.ok_or_else(|| Outcome::Fail(format!("{sql}: no row")))?;
    col(&row, 0, sql)
}

/// The rows of `SELECT {cols} FROM {table} ORDER BY id`, text and binary protocol.
async fn both_protocols(conn: &mut Conn, cols: &str, table: &str) -> Result<(Vec<Row>, Vec<Row>), Outcome> {
    let sql = format!("SELECT {cols} FROM {table} ORDER BY id");
    let text: Vec<Row> = conn.query(sql.as_str()).await?;
    let bin: Vec<Row> = conn.exec(sql.as_str(), ()).await?;
    Ok((text, bin))
}

fn params(v: Vec<Value>) -> Params {
    Params::Positional(v)
}

// ---------------------------------------------------------------- checks

async fn check_connect(env: &Env, user: &(String, String)) -> Check {
    let mut conn = Conn::new(env.opts(user)).await?;
    let one: i64 = scalar(&mut conn, "SELECT 1").await?;
    expect!(one == 1, "SELECT 1 returned {one}");
    let who: String = scalar(&mut conn, "SELECT CURRENT_USER()").await?;
    expect!(who.split('@').next() == Some(user.0.as_str()), "CURRENT_USER() is {who}");
    let v = conn.server_version();
    conn.disconnect().await?;
    Ok(format!("SELECT 1 as {who}; server version {}.{}.{}", v.0, v.1, v.2))
}

/// TLS with rustls, the server's certificate verified against the CA in
/// `ca` only (no built-in roots), chain and host name (the IP 127.0.0.1).
fn tls_opts(env: &Env, ca: &str) -> OptsBuilder {
    let ssl = SslOpts::default().with_root_certs(vec![std::path::PathBuf::from(ca).into()]).with_disable_built_in_roots(true);
    env.opts(&env.sha2).ssl_opts(Some(ssl))
}

async fn check_connect_tls(env: &Env) -> Check {
    let mut conn = Conn::new(tls_opts(env, &std::env::var("TS_CA").unwrap_or_default())).await?;
    let row: Option<(String, String)> = conn.query_first("SHOW SESSION STATUS LIKE 'Ssl_cipher'").await?;
    let cipher = row.map(|r| r.1).unwrap_or_default();
    expect!(!cipher.is_empty(), "Ssl_cipher is empty: the connection is not TLS");
    conn.disconnect().await?;
    let refused = match Conn::new(tls_opts(env, &std::env::var("TS_OTHER_CA").unwrap_or_default())).await {
        Ok(c) => {
            let _ = c.disconnect().await;
            None
        }
        Err(e) => Some(e.to_string().chars().take(80).collect::<String>()),
    };
    let Some(refused) = refused else {
        return Err(Outcome::Fail("a CA that signed nothing of the server's was accepted".into()));
    };
    Ok(format!("SslOpts::with_root_certs (rustls, built-in roots off), {cipher}; with another CA: {refused}"))
}

const INT_COLS: &str = "ti, tu, si, su, mi, mu, i, iu, bi, bu";

async fn check_types_integer(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop(
        "CREATE TABLE t_int (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED, \
         mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED)",
    )
    .await?;
    let ins = format!("INSERT INTO t_int (id, {INT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    let mins = vec![1i32.into(), i8::MIN.into(), 0u8.into(), i16::MIN.into(), 0u16.into(), (-8388608i32).into(), 0u32.into(),
        i32::MIN.into(), 0u32.into(), i64::MIN.into(), 0u64.into()];
    // Row 2: every maximum except BIGINT UNSIGNED, which row 3 tries alone.
    let maxes = vec![2i32.into(), i8::MAX.into(), u8::MAX.into(), i16::MAX.into(), u16::MAX.into(), 8388607i32.into(),
        16777215u32.into(), i32::MAX.into(), u32::MAX.into(), i64::MAX.into(), (i64::MAX as u64).into()];
    c.exec_drop(ins.as_str(), params(mins)).await?;
    c.exec_drop(ins.as_str(), params(maxes)).await?;
    let (text, bin) = both_protocols(&mut c, INT_COLS, "t_int").await?;
    for (proto, rows) in [("text", &text), ("binary", &bin)] {
        expect!(rows.len() == 2, "{proto}: {} rows", rows.len());
        let (lo, hi) = (&rows[0], &rows[1]);
        let w = |s: &str| format!("{proto} {s}");
        expect!(col::<i8>(lo, 0, &w("ti"))? == i8::MIN && col::<i8>(hi, 0, &w("ti"))? == i8::MAX, "{proto} TINYINT");
        expect!(col::<u8>(lo, 1, &w("tu"))? == 0 && col::<u8>(hi, 1, &w("tu"))? == u8::MAX, "{proto} TINYINT UNSIGNED");
        expect!(col::<i16>(lo, 2, &w("si"))? == i16::MIN && col::<i16>(hi, 2, &w("si"))? == i16::MAX, "{proto} SMALLINT");
        expect!(col::<u16>(lo, 3, &w("su"))? == 0 && col::<u16>(hi, 3, &w("su"))? == u16::MAX, "{proto} SMALLINT UNSIGNED");
        expect!(col::<i32>(lo, 4, &w("mi"))? == -8388608 && col::<i32>(hi, 4, &w("mi"))? == 8388607, "{proto} MEDIUMINT");
        expect!(col::<u32>(lo, 5, &w("mu"))? == 0 && col::<u32>(hi, 5, &w("mu"))? == 16777215, "{proto} MEDIUMINT UNSIGNED");
        expect!(col::<i32>(lo, 6, &w("i"))? == i32::MIN && col::<i32>(hi, 6, &w("i"))? == i32::MAX, "{proto} INT");
        expect!(col::<u32>(lo, 7, &w("iu"))? == 0 && col::<u32>(hi, 7, &w("iu"))? == u32::MAX, "{proto} INT UNSIGNED");
        expect!(col::<i64>(lo, 8, &w("bi"))? == i64::MIN && col::<i64>(hi, 8, &w("bi"))? == i64::MAX, "{proto} BIGINT");
        expect!(col::<u64>(lo, 9, &w("bu"))? == 0 && col::<u64>(hi, 9, &w("bu"))? == i64::MAX as u64, "{proto} BIGINT UNSIGNED");
    }
    // The binary protocol carries integers (mysql_common makes an unsigned
    // value Value::Int when it fits in i64, Value::UInt above).
    expect!(raw(&bin[0], 8) == Value::Int(i64::MIN), "binary BIGINT min is {:?}", raw(&bin[0], 8));
    expect!(raw(&bin[1], 9) == Value::Int(i64::MAX), "binary BIGINT UNSIGNED 2^63-1 is {:?}", raw(&bin[1], 9));
    if let Err(e) = c.exec_drop("INSERT INTO t_int (id, bu) VALUES (?, ?)", (3, u64::MAX)).await {
        return Err(Outcome::Fail(format!("BIGINT UNSIGNED max {} not stored: {e} (every other limit round-trips)", u64::MAX)));
    }
    let row: Option<Row> = c.exec_first("SELECT bu FROM t_int WHERE id = ?", (3,)).await?;
    let got = raw(row.as_ref().ok_or(Outcome::Fail("row 3 missing".into()))?, 0);
    expect!(got == Value::UInt(u64::MAX), "BIGINT UNSIGNED max came back as {got:?}");
    let text: u64 = scalar(&mut c, "SELECT bu FROM t_int WHERE id = 3").await?;
    expect!(text == u64::MAX, "BIGINT UNSIGNED max (text) came back as {text}");
    c.disconnect().await?;
    Ok("i8..i64/u8..u64 limits through exec params, read via text and binary protocol; BIGINT UNSIGNED max as Value::UInt".into())
}

async fn check_types_decimal(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_dec (id INT PRIMARY KEY, d1 DECIMAL(10,2), d2 DECIMAL(18,0), d3 DECIMAL(15,5), d4 DECIMAL(5,5))")
        .await?;
    let rows = [
        ["12345678.90", "999999999999999999", "1234567890.12345", "0.99999"],
        ["-0.01", "-999999999999999999", "-0.00001", "-0.12345"],
        ["0.00", "0", "0.00000", "0.00000"],
    ];
    for (i, r) in rows.iter().enumerate() {
        let mut p: Vec<Value> = vec![(i as i32 + 1).into()];
        p.extend(r.iter().map(|s| Value::from(Decimal::from_str(s).unwrap())));
        c.exec_drop("INSERT INTO t_dec VALUES (?, ?, ?, ?, ?)", params(p)).await?;
    }
    let (text, bin) = both_protocols(&mut c, "d1, d2, d3, d4", "t_dec").await?;
    for (proto, got) in [("text", &text), ("binary", &bin)] {
        for (i, r) in rows.iter().enumerate() {
            for (j, want) in r.iter().enumerate() {
                let d: Decimal = col(&got[i], j, proto)?;
                // Decimal keeps the scale it was parsed with: "0.00" has scale 2.
                expect!(d.to_string() == *want, "{proto} row {} d{}: got {d}, want {want}", i + 1, j + 1);
            }
        }
    }
    let sum: Decimal = scalar(&mut c, "SELECT SUM(d1) FROM t_dec").await?;
    expect!(sum.to_string() == "12345678.89", "SUM(d1) = {sum}");
    c.disconnect().await?;
    Ok("rust_decimal::Decimal params; DECIMAL(10,2), (18,0), (15,5), (5,5) back with their scale, text and binary; SUM".into())
}

async fn check_types_float(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_flt (id INT PRIMARY KEY, f FLOAT, d DOUBLE)").await?;
    let rows: [(f32, f64); 4] = [(1.5, 0.1), (-0.25, -1.7976931348623157e308), (16777216.0, 2.2250738585072014e-308), (0.0, std::f64::consts::PI)];
    for (i, (f, d)) in rows.iter().enumerate() {
        c.exec_drop("INSERT INTO t_flt VALUES (?, ?, ?)", (i as i32 + 1, *f, *d)).await?;
    }
    let (text, bin) = both_protocols(&mut c, "f, d", "t_flt").await?;
    for (proto, got) in [("text", &text), ("binary", &bin)] {
        for (i, (f, d)) in rows.iter().enumerate() {
            let gf: f32 = col(&got[i], 0, proto)?;
            let gd: f64 = col(&got[i], 1, proto)?;
            expect!(gf == *f && gd == *d, "{proto} row {}: got ({gf}, {gd}), want ({f}, {d})", i + 1);
        }
    }
    expect!(raw(&bin[0], 0) == Value::Float(1.5), "binary FLOAT is {:?}", raw(&bin[0], 0));
    expect!(raw(&bin[0], 1) == Value::Double(0.1), "binary DOUBLE is {:?}", raw(&bin[0], 1));
    c.disconnect().await?;
    Ok("f32/f64 params; FLOAT as Value::Float, DOUBLE as Value::Double (incl. +-1.797e308, 2.2e-308)".into())
}

async fn check_types_string(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_str (id INT PRIMARY KEY, v VARCHAR(200), t TEXT)").await?;
    let long = "Grüße 😀 ".repeat(3000);
    let strings = ["héllo wörld 😀 日本語 ñ".to_string(), "quote ' double \" backslash \\ nl \n tab \t".into(), String::new(), long];
    for (i, s) in strings.iter().enumerate() {
        let v = if s.chars().count() <= 200 { Value::from(s.as_str()) } else { Value::NULL };
        c.exec_drop("INSERT INTO t_str VALUES (?, ?, ?)", params(vec![(i as i32 + 1).into(), v, s.as_str().into()])).await?;
    }
    // Text protocol with the value inlined as a literal too.
    c.query_drop("INSERT INTO t_str VALUES (10, 'lit 😀 ü', 'x')").await?;
    let (text, bin) = both_protocols(&mut c, "v, t", "t_str").await?;
    for (proto, got) in [("text", &text), ("binary", &bin)] {
        for (i, s) in strings.iter().enumerate() {
            let t: String = col(&got[i], 1, proto)?;
            expect!(t == *s, "{proto} TEXT row {}: got {} chars, want {}", i + 1, t.chars().count(), s.chars().count());
            if s.chars().count() <= 200 {
                let v: String = col(&got[i], 0, proto)?;
                expect!(v == *s, "{proto} VARCHAR row {}: got {v:?}, want {s:?}", i + 1);
            }
        }
        let lit: String = col(&got[4], 0, proto)?;
        expect!(lit == "lit 😀 ü", "{proto} literal: {lit:?}");
    }
    let lens: Vec<(i64, i64)> = c.query("SELECT CHAR_LENGTH(t), LENGTH(t) FROM t_str WHERE id = 1").await?;
    expect!(lens == vec![(strings[0].chars().count() as i64, strings[0].len() as i64)], "CHAR_LENGTH/LENGTH {lens:?}");
    c.disconnect().await?;
    Ok("String params and literals with 4-byte UTF-8, quotes, backslashes; VARCHAR/TEXT (30 KB) text and binary".into())
}

async fn check_types_blob(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_blob (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300), lb LONGBLOB)").await?;
    let all: Vec<u8> = (0..=255u8).collect();
    let long: Vec<u8> = all.iter().cycle().take(256 * 400).copied().collect();
    let blobs = [all.clone(), all.iter().rev().copied().collect(), Vec::new(), b"\0\0'\"\\\xff".to_vec()];
    for (i, b) in blobs.iter().enumerate() {
        c.exec_drop("INSERT INTO t_blob VALUES (?, ?, ?, ?)", (i as i32 + 1, b.clone(), b.clone(), long.clone())).await?;
    }
    let (text, bin) = both_protocols(&mut c, "b, vb, lb", "t_blob").await?;
    for (proto, got) in [("text", &text), ("binary", &bin)] {
        for (i, b) in blobs.iter().enumerate() {
            for j in 0..2 {
                let g: Vec<u8> = col(&got[i], j, proto)?;
                expect!(g == *b, "{proto} row {} col {}: {} bytes, want {}", i + 1, j + 1, g.len(), b.len());
            }
            let g: Vec<u8> = col(&got[i], 2, proto)?;
            expect!(g == long, "{proto} LONGBLOB row {}: {} bytes", i + 1, g.len());
        }
    }
    c.disconnect().await?;
    Ok("Vec<u8> params with all 256 byte values; BLOB, VARBINARY, LONGBLOB (100 KiB) back as bytes, text and binary".into())
}

fn ndt(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, us: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(y, mo, d).unwrap().and_hms_micro_opt(h, mi, s, us).unwrap()
}

async fn check_types_temporal(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop(
        "CREATE TABLE t_tmp (id INT PRIMARY KEY, d DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME, tm6 TIME(6))",
    )
    .await?;
    // TIME as the driver's Value::Time (negative, days, hours, minutes, seconds, micros):
    // chrono's NaiveTime cannot hold 838:59:59 or negative values.
    let rows = [
        (NaiveDate::from_ymd_opt(2024, 2, 29).unwrap(), ndt(2024, 2, 29, 13, 45, 59, 0), ndt(1999, 12, 31, 23, 59, 59, 123456),
         ndt(2038, 1, 19, 3, 14, 7, 0), Value::Time(false, 34, 22, 59, 59, 0), Value::Time(false, 0, 13, 45, 59, 500000), "838:59:59"),
        (NaiveDate::from_ymd_opt(1000, 1, 1).unwrap(), ndt(1000, 1, 1, 0, 0, 0, 0), ndt(9999, 12, 31, 23, 59, 59, 999999),
         ndt(1970, 1, 1, 0, 0, 1, 0), Value::Time(true, 0, 12, 30, 0, 0), Value::Time(true, 0, 0, 0, 0, 1), "-12:30:00"),
        (NaiveDate::from_ymd_opt(9999, 12, 31).unwrap(), ndt(1970, 1, 1, 0, 0, 0, 0), ndt(2000, 1, 1, 0, 0, 0, 1),
         ndt(2000, 6, 15, 12, 0, 0, 0), Value::Time(false, 0, 0, 0, 0, 0), Value::Time(false, 1, 0, 0, 1, 0), "00:00:00"),
    ];
    for (i, r) in rows.iter().enumerate() {
        let p = vec![(i as i32 + 1).into(), r.0.into(), r.1.into(), r.2.into(), r.3.into(), r.4.clone(), r.5.clone()];
        c.exec_drop("INSERT INTO t_tmp VALUES (?, ?, ?, ?, ?, ?, ?)", params(p)).await?;
    }
    let (text, bin) = both_protocols(&mut c, "d, dt, dt6, ts, tm, tm6", "t_tmp").await?;
    for (proto, got) in [("text", &text), ("binary", &bin)] {
        for (i, r) in rows.iter().enumerate() {
            let w = format!("{proto} row {}", i + 1);
            let d: NaiveDate = col(&got[i], 0, &w)?;
            let dt: NaiveDateTime = col(&got[i], 1, &w)?;
            let dt6: NaiveDateTime = col(&got[i], 2, &w)?;
            let ts: NaiveDateTime = col(&got[i], 3, &w)?;
            expect!((d, dt, dt6, ts) == (r.0, r.1, r.2, r.3), "{w}: got {:?}, want {:?}", (d, dt, dt6, ts), (r.0, r.1, r.2, r.3));
        }
    }
    for (i, r) in rows.iter().enumerate() {
        // Binary protocol: TIME is Value::Time exactly.
        expect!(raw(&bin[i], 4) == r.4 && raw(&bin[i], 5) == r.5, "binary TIME row {}: got {:?} {:?}, want {:?} {:?}",
            i + 1, raw(&bin[i], 4), raw(&bin[i], 5), r.4, r.5);
        // Text protocol: TIME is its text.
        let t: String = col(&text[i], 4, "text TIME")?;
        expect!(t == r.6, "text TIME row {}: {t}, want {}", i + 1, r.6);
    }
    let dur: Duration = col(&text[0], 5, "TIME(6) as Duration")?;
    expect!(dur == Duration::from_micros((13 * 3600 + 45 * 60 + 59) * 1_000_000 + 500_000), "TIME(6) as Duration: {dur:?}");
    expect!(matches!(raw(&bin[0], 1), Value::Date(2024, 2, 29, 13, 45, 59, 0)), "binary DATETIME {:?}", raw(&bin[0], 1));
    c.disconnect().await?;
    Ok("chrono NaiveDate/NaiveDateTime and Value::Time params; DATE, DATETIME(6), TIMESTAMP, TIME(6) incl. 838:59:59 and negative; text and binary".into())
}

async fn check_types_null(env: &Env) -> Check {
    let mut c = env.conn().await?;
    let cols = [
        ("c_int", "INT"), ("c_bu", "BIGINT UNSIGNED"), ("c_dec", "DECIMAL(10,2)"), ("c_flt", "FLOAT"), ("c_dbl", "DOUBLE"),
        ("c_vc", "VARCHAR(20)"), ("c_txt", "TEXT"), ("c_blob", "BLOB"), ("c_vb", "VARBINARY(20)"), ("c_date", "DATE"),
        ("c_dt", "DATETIME"), ("c_ts", "TIMESTAMP NULL"), ("c_time", "TIME"), ("c_enum", "ENUM('a','b')"), ("c_json", "JSON"),
    ];
    let defs: Vec<String> = cols.iter().map(|(n, t)| format!("{n} {t}")).collect();
    c.query_drop(format!("CREATE TABLE t_null (id INT PRIMARY KEY, {})", defs.join(", "))).await?;
    let marks = vec!["?"; cols.len() + 1].join(", ");
    let mut p = vec![Value::from(1)];
    p.extend(std::iter::repeat(Value::NULL).take(cols.len()));
    c.exec_drop(format!("INSERT INTO t_null VALUES ({marks})"), params(p)).await?;
    let values: Vec<Value> = vec![2.into(), 7.into(), (i64::MAX as u64).into(), "1.25".into(), 1.5f32.into(), 2.5f64.into(), "v".into(),
        "t".into(), vec![0u8, 1].into(), vec![1u8].into(), NaiveDate::from_ymd_opt(2024, 1, 2).unwrap().into(),
        ndt(2024, 1, 2, 3, 4, 5, 0).into(), ndt(2024, 1, 2, 3, 4, 5, 0).into(), Value::Time(false, 0, 1, 0, 0, 0), "a".into(),
        r#"{"k": 1}"#.into()];
    c.exec_drop(format!("INSERT INTO t_null VALUES ({marks})"), params(values)).await?;
    let names: Vec<&str> = cols.iter().map(|(n, _)| *n).collect();
    let (text, bin) = both_protocols(&mut c, &names.join(", "), "t_null").await?;
    for (proto, got) in [("text", &text), ("binary", &bin)] {
        for j in 0..cols.len() {
            expect!(raw(&got[0], j) == Value::NULL, "{proto} {}: NULL came back as {:?}", cols[j].0, raw(&got[0], j));
            expect!(raw(&got[1], j) != Value::NULL, "{proto} {}: value came back as NULL", cols[j].0);
        }
        let o: Option<i64> = col(&got[0], 0, proto)?;
        let s: Option<String> = col(&got[0], 5, proto)?;
        let d: Option<NaiveDateTime> = col(&got[0], 10, proto)?;
        expect!(o.is_none() && s.is_none() && d.is_none(), "{proto}: Option<T> of NULL is Some");
    }
    c.disconnect().await?;
    Ok(format!("Value::NULL params; NULL in {} column types is Value::NULL / Option::None, text and binary", cols.len()))
}

async fn check_prepared(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_prep (id INT PRIMARY KEY, name VARCHAR(50), score DOUBLE, born DATE)").await?;
    let ins = c.prep("INSERT INTO t_prep VALUES (?, ?, ?, ?)").await?;
    expect!(ins.num_params() == 4, "INSERT has {} params", ins.num_params());
    let people = [(1, "Ann 😀", 1.5, NaiveDate::from_ymd_opt(1990, 1, 2).unwrap()), (2, "Bob", -2.25, NaiveDate::from_ymd_opt(2000, 2, 29).unwrap()),
        (3, "Cé", 1e300, NaiveDate::from_ymd_opt(1000, 1, 1).unwrap())];
    for p in &people {
        c.exec_drop(&ins, p.clone()).await?;
        expect!(c.affected_rows() == 1, "affected rows {}", c.affected_rows());
    }
    c.exec_batch(&ins, (4..=10).map(|i| (i, format!("batch {i}"), i as f64, NaiveDate::from_ymd_opt(2020, 1, i as u32).unwrap())))
        .await?;
    let sel = c.prep("SELECT name, score, born FROM t_prep WHERE id = ?").await?;
    for p in &people {
        let row: Option<(String, f64, NaiveDate)> = c.exec_first(&sel, (p.0,)).await?;
        expect!(row == Some((p.1.to_string(), p.2, p.3)), "id {}: {row:?}", p.0);
    }
    let again = c.prep("SELECT name, score, born FROM t_prep WHERE id = ?").await?;
    expect!(again.id() == sel.id(), "statement cache: id {} then {}", sel.id(), again.id());
    let n: Vec<i64> = c.exec("SELECT COUNT(*) FROM t_prep WHERE score > ? AND name LIKE ?", (1.0, "batch%")).await?;
    expect!(n == vec![7], "COUNT with two params: {n:?}");
    let none: Option<(String,)> = c.exec_first(&sel, (999,)).await?;
    expect!(none.is_none(), "id 999 found");
    c.close(sel).await?;
    c.disconnect().await?;
    Ok("prep() + exec_first with 3 parameter sets on one statement (id reused from the statement cache), exec_batch of 7, close".into())
}

async fn count(c: &mut Conn, table: &str) -> Result<i64, Outcome> {
    scalar(c, &format!("SELECT COUNT(*) FROM {table}")).await
}

async fn check_tx_rollback(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_tx_rb (id INT PRIMARY KEY, v VARCHAR(10))").await?;
    let mut tx = c.start_transaction(TxOpts::default()).await?;
    tx.exec_drop("INSERT INTO t_tx_rb VALUES (?, ?), (?, ?)", (1, "a", 2, "b")).await?;
    let inside: Option<i64> = tx.query_first("SELECT COUNT(*) FROM t_tx_rb").await?;
    expect!(inside == Some(2), "inside the transaction: {inside:?}");
    tx.rollback().await?;
    expect!(count(&mut c, "t_tx_rb").await? == 0, "rows still there after rollback");
    let mut other = env.conn().await?;
    expect!(count(&mut other, "t_tx_rb").await? == 0, "other connection sees rolled-back rows");
    other.disconnect().await?;
    c.disconnect().await?;
    Ok("start_transaction, 2 rows visible inside, gone after Transaction::rollback".into())
}

async fn check_tx_commit(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_tx_c (id INT PRIMARY KEY, v VARCHAR(10))").await?;
    let mut other = Conn::new(env.opts(&env.sha2)).await?;
    let mut tx = c.start_transaction(TxOpts::default()).await?;
    tx.exec_drop("INSERT INTO t_tx_c VALUES (?, ?), (?, ?), (?, ?)", (1, "a", 2, "b", 3, "c")).await?;
    expect!(count(&mut other, "t_tx_c").await? == 0, "other connection sees uncommitted rows");
    tx.commit().await?;
    expect!(count(&mut other, "t_tx_c").await? == 3, "other connection does not see committed rows");
    other.disconnect().await?;
    c.disconnect().await?;
    Ok("uncommitted rows invisible to another connection, visible after Transaction::commit".into())
}

async fn check_duplicate_key(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50), UNIQUE KEY uk_email (email))").await?;
    c.exec_drop("INSERT INTO t_dup VALUES (?, ?)", (1, "a@example.com")).await?;
    let mut msgs = Vec::new();
    for (id, email, text) in [(1, "b@example.com", false), (2, "a@example.com", false), (3, "a@example.com", true)] {
        let r = if text {
            c.query_drop(format!("INSERT INTO t_dup VALUES ({id}, '{email}')")).await
        } else {
            c.exec_drop("INSERT INTO t_dup VALUES (?, ?)", (id, email)).await
        };
        match r {
            Err(Error::Server(e)) => {
                expect!(e.code == 1062 && e.state == "23000", "server error {} {}: {}", e.code, e.state, e.message);
                msgs.push(e.message);
            }
            Err(e) => return Err(Outcome::Fail(format!("not a server error: {e}"))),
            Ok(()) => return Err(Outcome::Fail(format!("duplicate ({id}, {email}) accepted"))),
        }
    }
    expect!(count(&mut c, "t_dup").await? == 1, "table changed by the failed inserts");
    c.disconnect().await?;
    Ok(format!("Error::Server code 1062 state 23000 for PRIMARY and UNIQUE (exec and query): {}", msgs[1]))
}

async fn check_last_insert_id(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_ai (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))").await?;
    c.exec_drop("INSERT INTO t_ai (v) VALUES (?)", ("a",)).await?;
    expect!(c.last_insert_id() == Some(1), "after exec insert: {:?}", c.last_insert_id());
    c.query_drop("INSERT INTO t_ai (v) VALUES ('b'), ('c'), ('d')").await?;
    expect!(c.last_insert_id() == Some(2), "after 3-row insert: {:?}, want 2 (the first id)", c.last_insert_id());
    let lid: u64 = scalar(&mut c, "SELECT LAST_INSERT_ID()").await?;
    expect!(lid == 2, "LAST_INSERT_ID() {lid}");
    let r = c.query_iter("INSERT INTO t_ai (v) VALUES ('e')").await?;
    let via_result = r.last_insert_id();
    r.drop_result().await?;
    expect!(via_result == Some(5), "QueryResult::last_insert_id {via_result:?}");
    c.exec_drop("INSERT INTO t_ai (id, v) VALUES (?, ?)", (100, "f")).await?;
    expect!(c.last_insert_id() == Some(100), "explicit id: {:?}", c.last_insert_id());
    c.disconnect().await?;
    Ok("Conn::last_insert_id 1 (exec), 2 for a 3-row insert (= LAST_INSERT_ID()), QueryResult 5, explicit 100".into())
}

async fn check_affected_rows(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_aff (id INT PRIMARY KEY, v INT)").await?;
    c.query_drop("INSERT INTO t_aff VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0)").await?;
    expect!(c.affected_rows() == 6, "INSERT affected {}", c.affected_rows());
    c.exec_drop("UPDATE t_aff SET v = v + 1 WHERE id <= ?", (3,)).await?;
    expect!(c.affected_rows() == 3, "exec UPDATE affected {}", c.affected_rows());
    c.query_drop("UPDATE t_aff SET v = 5 WHERE id = 4").await?;
    expect!(c.affected_rows() == 1, "query UPDATE affected {}", c.affected_rows());
    c.query_drop("UPDATE t_aff SET v = 9 WHERE id > 100").await?;
    expect!(c.affected_rows() == 0, "UPDATE of none affected {}", c.affected_rows());
    c.exec_drop("DELETE FROM t_aff WHERE id > ?", (4,)).await?;
    expect!(c.affected_rows() == 2, "exec DELETE affected {}", c.affected_rows());
    c.query_drop("DELETE FROM t_aff WHERE id = 1").await?;
    expect!(c.affected_rows() == 1, "query DELETE affected {}", c.affected_rows());
    c.disconnect().await?;
    Ok("Conn::affected_rows: INSERT 6, UPDATE 3 (exec) and 1 (query), none 0, DELETE 2 (exec) and 1 (query)".into())
}

async fn check_multi_results(env: &Env) -> Check {
    let mut c = env.conn().await?;
    c.query_drop("CREATE TABLE t_multi (id INT PRIMARY KEY, v VARCHAR(10))").await?;
    let mut r = c
        .query_iter("SELECT 1 AS a, 'x' AS b; INSERT INTO t_multi VALUES (1, 'p'), (2, 'q'); SELECT id, v FROM t_multi ORDER BY id; SELECT COUNT(*) FROM t_multi")
        .await?;
    let mut sets: Vec<(usize, Vec<Vec<String>>, u64)> = Vec::new();
    while !r.is_empty() {
        let ncols = r.columns_ref().len();
        let affected = r.affected_rows();
        let rows: Vec<Row> = r.collect().await?;
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|row| (0..row.len()).map(|i| col::<String>(row, i, "multi")).collect::<Result<Vec<_>, _>>())
            .collect::<Result<_, _>>()?;
        sets.push((ncols, rows, if ncols == 0 { affected } else { 0 }));
        expect!(sets.len() <= 10, "runaway result sets");
    }
    drop(r);
    let s = |v: &[&[&str]]| v.iter().map(|r| r.iter().map(|x| x.to_string()).collect()).collect::<Vec<Vec<String>>>();
    let want = vec![(2, s(&[&["1", "x"]]), 0), (0, vec![], 2), (2, s(&[&["1", "p"], &["2", "q"]]), 0), (1, s(&[&["2"]]), 0)];
    expect!(sets == want, "result sets {sets:?}, want {want:?}");
    let seven: i64 = scalar(&mut c, "SELECT 7").await?;
    expect!(seven == 7, "connection unusable afterwards");
    c.disconnect().await?;
    Ok("query_iter over 4 statements: 3 result sets and an OK with 2 affected rows".into())
}

async fn check_pool_reuse(env: &Env) -> Check {
    let pool_opts = PoolOpts::default().with_constraints(PoolConstraints::new(1, 1).unwrap());
    expect!(pool_opts.reset_connection(), "PoolOpts::reset_connection() is not on by default");
    let pool = Pool::new(Opts::from(env.opts(&env.native).pool_opts(pool_opts)));
    let result = async {
        let mut c = pool.get_conn().await?;
        let id1 = c.id();
        let cid: u64 = scalar(&mut c, "SELECT CONNECTION_ID()").await?;
        expect!(cid == id1 as u64, "CONNECTION_ID() {cid} != Conn::id {id1}");
        c.query_drop("SET @pool_v = 42, SESSION sql_mode = 'ANSI_QUOTES'").await?;
        c.query_drop("CREATE TEMPORARY TABLE t_pool_tmp (id INT)").await?;
        let stmt = c.prep("SELECT ? + 1").await?;
        let before_stmt = stmt.id();
        drop(c); // back to the pool: COM_RESET_CONNECTION
        let mut c = pool.get_conn().await?;
        let cid2: u64 = scalar(&mut c, "SELECT CONNECTION_ID()").await?;
        expect!(cid2 == cid, "connection id {cid2}, want {cid}: not reused");
        let v: Option<i64> = scalar(&mut c, "SELECT @pool_v").await?;
        expect!(v.is_none(), "user variable survived: {v:?}");
        let mode: String = scalar(&mut c, "SELECT @@SESSION.sql_mode").await?;
        expect!(!mode.contains("ANSI_QUOTES"), "sql_mode survived: {mode}");
        match c.query_drop("SELECT * FROM t_pool_tmp").await {
            Err(Error::Server(e)) if e.code == 1146 => {}
            other => return Err(Outcome::Fail(format!("temporary table after reset: {other:?}"))),
        }
        // The reset dropped the server's statements; the driver cleared its cache and prepares anew.
        let two: Option<i64> = c.exec_first("SELECT ? + 1", (1,)).await?;
        expect!(two == Some(2), "statement after reset: {two:?}");
        let m = pool.metrics();
        let resets = m.resetting_connection.load(std::sync::atomic::Ordering::Relaxed);
        let created = m.connection_count.load(std::sync::atomic::Ordering::Relaxed);
        expect!(resets >= 1, "pool metrics: {resets} resets");
        drop(c);
        Ok(format!("Pool(1..1): same connection (id {cid}) reused; COM_RESET_CONNECTION on return ({resets} reset, {created} connection) cleared user variable, sql_mode, temporary table and statement {before_stmt}"))
    }
    .await;
    pool.disconnect().await?;
    result
}

async fn check_unix_socket(env: &Env) -> Check {
    if env.socket.is_empty() {
        return Err(Outcome::NotApplicable("no TS_SOCKET".into()));
    }
    let opts = OptsBuilder::default()
        .socket(Some(env.socket.clone()))
        .user(Some(env.sha2.0.clone()))
        .pass(Some(env.sha2.1.clone()))
        .db_name(Some(env.db.clone()));
    let mut c = Conn::new(opts).await?;
    let one: i64 = scalar(&mut c, "SELECT 1").await?;
    expect!(one == 1, "SELECT 1 gave {one}");
    c.disconnect().await?;
    Ok(format!("SELECT 1 as {} over {}", env.sha2.0, env.socket))
}

async fn check_change_user(env: &Env) -> Check {
    let mut c = env.conn().await?;
    let cid: u64 = scalar(&mut c, "SELECT CONNECTION_ID()").await?;
    c.query_drop("SET @cu = 1").await?;
    c.change_user(ChangeUserOpts::default().with_user(Some(env.sha2.0.clone())).with_pass(Some(env.sha2.1.clone()))).await?;
    let who: String = scalar(&mut c, "SELECT CURRENT_USER()").await?;
    expect!(who.split('@').next() == Some(env.sha2.0.as_str()), "CURRENT_USER() after change_user: {who}");
    let cid2: u64 = scalar(&mut c, "SELECT CONNECTION_ID()").await?;
    expect!(cid2 == cid, "connection id changed");
    let v: Option<i64> = scalar(&mut c, "SELECT @cu").await?;
    expect!(v.is_none(), "user variable survived COM_CHANGE_USER");
    let db: Option<String> = scalar(&mut c, "SELECT DATABASE()").await?;
    expect!(db.as_deref() == Some(env.db.as_str()), "database after change_user: {db:?}");
    c.disconnect().await?;
    Ok(format!("Conn::change_user from {} to {} (caching_sha2_password) on connection {cid}", env.native.0, env.sha2.0))
}

async fn run(env: Env) {
    let e = &env;
    run_check("connect_native", check_connect(e, &e.native)).await;
    run_check("connect_sha2", check_connect(e, &e.sha2)).await;
    run_check("connect_tls", check_connect_tls(e)).await;
    run_check("types_integer", check_types_integer(e)).await;
    run_check("types_decimal", check_types_decimal(e)).await;
    run_check("types_float", check_types_float(e)).await;
    run_check("types_string", check_types_string(e)).await;
    run_check("types_blob", check_types_blob(e)).await;
    run_check("types_temporal", check_types_temporal(e)).await;
    run_check("types_null", check_types_null(e)).await;
    run_check("prepared", check_prepared(e)).await;
    run_check("tx_rollback", check_tx_rollback(e)).await;
    run_check("tx_commit", check_tx_commit(e)).await;
    run_check("duplicate_key", check_duplicate_key(e)).await;
    run_check("last_insert_id", check_last_insert_id(e)).await;
    run_check("affected_rows", check_affected_rows(e)).await;
    run_check("multi_results", check_multi_results(e)).await;
    run_check("pool_reuse", check_pool_reuse(e)).await;
    run_check("x_unix_socket", check_unix_socket(e)).await;
    run_check("x_change_user", check_change_user(e)).await;
}

fn main() {
    emit(json!({"client": "mysql_async", "version": format!("{} (mysql_common {}, rustc {})",
        env!("MYSQL_ASYNC_VERSION"), env!("MYSQL_COMMON_VERSION"), env!("RUSTC_VERSION"))}));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    rt.block_on(run(Env::from_env()));
}
