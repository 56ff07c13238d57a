//! turnstile-loadgen — the benchmark suite's load generator (bench/run drives it).
//!
//! Modes (every one prints one JSON object per line on stdout):
//!
//!   connect       `--concurrency` threads loop connect -> login -> query -> quit
//!                 (or, with `--protocol raw`, the raw floor exchange) for
//!                 `--duration` seconds or `--max-ops` operations.
//!   storm         `--clients` connections started at once (spread over
//!                 `--threads` epoll loops); each logs in, runs `--query`, quits.
//!                 Reports the time until all were served, p50/p99/p99.9
//!                 latency and errors by kind.
//!   idle          opens `--clients` authenticated connections (at most
//!                 `--in-flight` logins at once), prints {"event":"ready",...},
//!                 holds them until stdin closes (or a line "release") or
//!                 `--hold` seconds pass, optionally pings every one (`--ping`),
//!                 closes them and prints {"event":"done",...}.
//!   slow          like idle, but each connection sends `--query` (a big result)
//!                 and never reads it; small SO_RCVBUF (`--rcvbuf`).
//!   floor-server  the raw socket floor: accept, greeting-sized write, read,
//!                 reply, close; exits by itself after `--max-seconds`.
//!
//! Targets: `--host` (default 127.0.0.1) and `--port`, or `--socket PATH`.
//! Only loopback addresses are accepted unless `--allow-non-loopback` is given
//! (bench/run uses it for its own network namespace). Source addresses:
//! `--sources 127.0.0.1-127.0.0.8` spreads connections round-robin.
//! Every loop is bounded in count and time.

mod connect;
mod floor;
mod many;
mod net;
mod proto;
mod stats;
mod testserver;

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::json;

use net::Target;
use proto::Login;

const MAX_CLIENTS: usize = 100_000;
const MAX_SECONDS: f64 = 7200.0;

struct Args {
    mode: String,
    opts: HashMap<String, String>,
    flags: Vec<String>,
}

const FLAGS: &[&str] = &["ping", "no-query", "allow-non-loopback", "deprecate-eof"];

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mode = argv.first().cloned().ok_or("missing mode (connect, storm, idle, slow, floor-server)")?;
    let mut opts = HashMap::new();
    let mut flags = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        let Some(name) = a.strip_prefix("--") else { return Err(format!("unexpected argument {a}")) };
        if let Some((k, v)) = name.split_once('=') {
            opts.insert(k.to_string(), v.to_string());
        } else if FLAGS.contains(&name) {
            flags.push(name.to_string());
        } else {
            let v = argv.get(i + 1).ok_or(format!("--{name} needs a value"))?;
            opts.insert(name.to_string(), v.clone());
            i += 1;
        }
        i += 1;
    }
    Ok(Args { mode, opts, flags })
}

impl Args {
    fn s(&self, k: &str, d: &str) -> String {
        self.opts.get(k).cloned().unwrap_or_else(|| d.to_string())
    }
    fn n<T: std::str::FromStr>(&self, k: &str, d: T) -> Result<T, String> {
        match self.opts.get(k) {
            Some(v) => v.parse().map_err(|_| format!("--{k}: bad number {v}")),
            None => Ok(d),
        }
    }
    fn flag(&self, k: &str) -> bool {
        self.flags.iter().any(|f| f == k)
    }
    fn secs(&self, k: &str, d: f64) -> Result<Duration, String> {
        let v: f64 = self.n(k, d)?;
        if !(0.0..=MAX_SECONDS).contains(&v) {
            return Err(format!("--{k} must be between 0 and {MAX_SECONDS} s"));
        }
        Ok(Duration::from_secs_f64(v))
    }
    fn target(&self) -> Result<Target, String> {
        let t = if let Some(p) = self.opts.get("socket") {
            Target::Unix(PathBuf::from(p))
        } else {
            let host: Ipv4Addr = self.s("host", "127.0.0.1").parse().map_err(|_| "--host must be an IPv4 address")?;
            let port: u16 = self.n("port", 3306)?;
            Target::Tcp(SocketAddrV4::new(host, port))
        };
        t.check_loopback(self.flag("allow-non-loopback"))?;
        Ok(t)
    }
    fn sources(&self) -> Result<Vec<Ipv4Addr>, String> {
        let v = net::parse_sources(&self.s("sources", ""))?;
        if !self.flag("allow-non-loopback") && v.iter().any(|a| !a.is_loopback()) {
            return Err("--sources must be 127.x addresses".into());
        }
        Ok(v)
    }
    fn login(&self) -> Login {
        let db = self.s("database", "");
        Login { user: self.s("user", "root"), password: self.s("password", ""), database: if db.is_empty() { None } else { Some(db) }, deprecate_eof: self.flag("deprecate-eof") }
    }
    fn clients(&self, d: usize) -> Result<usize, String> {
        let n: usize = self.n("clients", d)?;
        if n == 0 || n > MAX_CLIENTS {
            return Err(format!("--clients must be 1..{MAX_CLIENTS}"));
        }
        Ok(n)
    }
}

fn emit(v: serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

fn check_fds(needed: usize) -> Result<u64, String> {
    let limit = net::raise_nofile();
    if (needed as u64) + 32 > limit {
        return Err(format!(
            "{needed} connections need more file descriptors than this process may open ({limit}); \
             run several processes (bench/run does)"
        ));
    }
    Ok(limit)
}

fn mode_connect(a: &Args) -> Result<(), String> {
    let protocol = match a.s("protocol", "mysql").as_str() {
        "mysql" => connect::Protocol::Mysql,
        "raw" => connect::Protocol::Raw,
        p => return Err(format!("--protocol must be mysql or raw, not {p}")),
    };
    let concurrency: usize = a.n("concurrency", 100)?;
    if concurrency == 0 || concurrency > 4096 {
        return Err("--concurrency must be 1..4096".into());
    }
    check_fds(concurrency)?;
    let spec = connect::Spec {
        target: a.target()?,
        sources: a.sources()?,
        login: a.login(),
        protocol,
        query: a.s("query", "SELECT 1").into_bytes(),
        concurrency,
        duration: a.secs("duration", 10.0)?,
        max_ops: a.n("max-ops", 50_000_000u64)?,
        io_timeout_s: a.n("io-timeout", 10.0)?,
    };
    let out = connect::run(spec);
    let secs = out.elapsed.as_secs_f64();
    emit(json!({
        "mode": "connect",
        "protocol": a.s("protocol", "mysql"),
        "concurrency": concurrency,
        "ops": out.ops,
        "elapsed_s": secs,
        "ops_per_s": if secs > 0.0 { out.ops as f64 / secs } else { 0.0 },
        "errors": out.errors.to_json(),
        "error_count": out.errors.total(),
        "latency": stats::hist_json(&out.hist),
    }));
    Ok(())
}

fn mode_storm(a: &Args) -> Result<(), String> {
    let n = a.clients(10_000)?;
    let threads: usize = a.n("threads", 2)?;
    if threads == 0 || threads > 64 {
        return Err("--threads must be 1..64".into());
    }
    check_fds(n)?;
    let query = if a.flag("no-query") { None } else { Some(a.s("query", "SELECT 1").into_bytes()) };
    let base = many::Spec {
        target: a.target()?,
        sources: a.sources()?,
        login: a.login(),
        n: 0,
        max_in_flight: usize::MAX,
        goal: many::Goal::Storm { query },
        rcvbuf: None,
        open_timeout: a.secs("timeout", 60.0)?,
    };
    // Build every driver first, then release them together: "at once".
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let mut spec = base.clone();
            spec.n = n / threads + usize::from(t < n % threads);
            let mut rot = spec.sources.clone();
            if !rot.is_empty() {
                let k = t % rot.len();
                rot.rotate_left(k);
            }
            spec.sources = rot;
            let b = barrier.clone();
            std::thread::spawn(move || {
                let mut d = many::Driver::new(spec).map_err(|e| e.to_string())?;
                b.wait();
                d.open_all();
                Ok::<_, String>(d.out)
            })
        })
        .collect();
    let mut reached = 0;
    let mut errors = stats::Errors::default();
    let mut hist = stats::new_hist();
    let mut first: Option<Instant> = None;
    let mut last: Option<Instant> = None;
    for h in handles {
        let o = h.join().map_err(|_| "storm thread panicked")??;
        reached += o.reached;
        errors.merge(&o.errors);
        let _ = hist.add(&o.hist);
        first = match (first, o.first_start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (x, y) => x.or(y),
        };
        last = match (last, o.last_done) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (x, y) => x.or(y),
        };
    }
    let total = match (first, last) {
        (Some(f), Some(l)) => l.duration_since(f).as_secs_f64(),
        _ => 0.0,
    };
    emit(json!({
        "mode": "storm",
        "clients": n,
        "threads": threads,
        "served": reached,
        "all_served": reached == n,
        "time_to_serve_all_s": total,
        "errors": errors.to_json(),
        "error_count": errors.total(),
        "latency": stats::hist_json(&hist),
    }));
    Ok(())
}

/// A thread that sets the flag when stdin closes or says "release".
fn release_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            match line {
                Ok(l) if l.trim() == "release" => break,
                Ok(_) => continue,
                Err(_) => break,
            }
        }
        f.store(true, Ordering::SeqCst);
    });
    flag
}

fn mode_hold(a: &Args, slow: bool) -> Result<(), String> {
    let n = a.clients(1000)?;
    let limit = check_fds(n)?;
    let goal = if slow { many::Goal::Slow { query: a.s("query", "SELECT REPEAT('x', 4000000)").into_bytes() } } else { many::Goal::Idle };
    let spec = many::Spec {
        target: a.target()?,
        sources: a.sources()?,
        login: a.login(),
        n,
        max_in_flight: a.n("in-flight", 256usize)?.max(1),
        goal,
        rcvbuf: if slow { Some(a.n("rcvbuf", 65536usize)?) } else { None },
        open_timeout: a.secs("open-timeout", 120.0)?,
    };
    let hold = a.secs("hold", 600.0)?;
    let release = release_flag();
    let mut d = many::Driver::new(spec).map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    d.open_all();
    let open_s = t0.elapsed().as_secs_f64();
    emit(json!({
        "event": "ready",
        "mode": if slow { "slow" } else { "idle" },
        "clients": n,
        "held": d.held(),
        "open_s": open_s,
        "fd_limit": limit,
        "errors": d.out.errors.to_json(),
        "error_count": d.out.errors.total(),
        "login_latency": stats::hist_json(&d.out.hist),
    }));
    d.hold(hold, || release.load(Ordering::SeqCst));
    let held_at_release = d.held();
    if a.flag("ping") && !slow {
        d.ping_all(Duration::from_secs(30));
    }
    d.close_all();
    emit(json!({
        "event": "done",
        "held_at_release": held_at_release,
        "dropped": d.out.dropped,
        "alive_at_release": if a.flag("ping") && !slow { json!(d.out.alive_at_release) } else { json!(null) },
        "errors": d.out.errors.to_json(),
    }));
    Ok(())
}

fn mode_floor(a: &Args) -> Result<(), String> {
    let bind: Ipv4Addr = a.s("bind", "127.0.0.1").parse().map_err(|_| "--bind must be an IPv4 address")?;
    if !bind.is_loopback() && !a.flag("allow-non-loopback") {
        return Err("--bind must be a loopback address".into());
    }
    let limit = net::raise_nofile() as usize;
    let cfg = floor::Config {
        bind,
        port: a.n("port", 0)?,
        socket: a.opts.get("socket").map(PathBuf::from),
        max_seconds: a.n("max-seconds", 3600u64)?.min(MAX_SECONDS as u64),
        max_conns: limit.saturating_sub(16).max(1),
    };
    let sock = cfg.socket.clone();
    floor::serve(cfg, |port| {
        eprintln!("rawfloor ready: port={port} socket={}", sock.as_ref().map(|p| p.display().to_string()).unwrap_or_default());
    })
    .map_err(|e| format!("floor-server: {e}"))
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() || argv[0] == "-h" || argv[0] == "--help" {
        eprintln!("usage: turnstile-loadgen connect|storm|idle|slow|floor-server [--option value ...]; see the top of src/main.rs");
        std::process::exit(if argv.is_empty() { 2 } else { 0 });
    }
    let r = parse_args(&argv).and_then(|a| match a.mode.as_str() {
        "connect" => mode_connect(&a),
        "storm" => mode_storm(&a),
        "idle" => mode_hold(&a, false),
        "slow" => mode_hold(&a, true),
        "floor-server" => mode_floor(&a),
        m => Err(format!("unknown mode {m}")),
    });
    if let Err(e) = r {
        eprintln!("turnstile-loadgen: {e}");
        std::process::exit(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn args_parse_and_validate() {
        let a = parse_args(&v("storm --clients 10 --port=3307 --ping --sources 127.0.0.1-127.0.0.4")).unwrap();
        assert_eq!(a.mode, "storm");
        assert_eq!(a.clients(1).unwrap(), 10);
        assert!(a.flag("ping"));
        assert_eq!(a.sources().unwrap().len(), 4);
        match a.target().unwrap() {
            Target::Tcp(t) => assert_eq!(t.port(), 3307),
            _ => panic!(),
        }
        let a = parse_args(&v("storm --clients 0")).unwrap();
        assert!(a.clients(1).is_err());
        let a = parse_args(&v("storm --host 10.0.0.1")).unwrap();
        assert!(a.target().is_err(), "non-loopback targets are refused");
        let a = parse_args(&v("connect --duration 99999")).unwrap();
        assert!(a.secs("duration", 1.0).is_err());
        assert!(parse_args(&v("connect --port")).is_err());
    }
}
