//! The connect loop: `concurrency` threads, each repeating
//!   connect -> (MySQL: greeting, login, one query, COM_QUIT | raw: read the
//!   greeting-sized packet, write a request, read the reply) -> close
//! with blocking sockets until the duration or the operation budget is spent.
//! It is sysbench's connect-per-query workload without sysbench's Lua and
//! libmariadb costs, and the only client that can also drive the raw floor.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::net::{self, Target};
use crate::proto::{Client, Login, Step};
use crate::stats::{self, Errors};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Mysql,
    Raw,
}

/// Sizes of the raw floor exchange (a MySQL greeting, a login-sized request, an OK-sized reply).
pub const RAW_GREETING: usize = 78;
pub const RAW_REQUEST: usize = 64;
pub const RAW_REPLY: usize = 11;

#[derive(Clone)]
pub struct Spec {
    pub target: Target,
    pub sources: Vec<Ipv4Addr>,
    pub login: Login,
    pub protocol: Protocol,
    pub query: Vec<u8>,
    pub concurrency: usize,
    pub duration: Duration,
    pub max_ops: u64,
    pub io_timeout_s: f64,
}

pub struct Outcome {
    pub ops: u64,
    pub errors: Errors,
    pub hist: Histogram<u64>,
    pub elapsed: Duration,
}

fn one_mysql(spec: &Spec, fd: net::Fd, buf: &mut [u8]) -> Result<(), String> {
    let mut c = Client::new(spec.login.clone());
    let mut sent_query = false;
    loop {
        if !c.out.is_empty() {
            net::write_all(fd, &c.out).map_err(|e| format!("write: {}", net::errno_kind(&e)))?;
            c.out.clear();
        }
        let n = net::read(fd, buf).map_err(|e| format!("read: {}", net::errno_kind(&e)))?;
        if n == 0 {
            return Err(if sent_query { "closed by server during query" } else { "closed by server during login" }.into());
        }
        for step in c.feed(&buf[..n]) {
            match step {
                Step::Failed(f) => return Err(f.kind()),
                Step::Authenticated => {
                    c.query(&spec.query);
                    sent_query = true;
                }
                Step::QueryDone { .. } => {
                    c.quit();
                    let _ = net::write(fd, &c.out);
                    return Ok(());
                }
                Step::Pong => {}
            }
        }
    }
}

fn read_exactly(fd: net::Fd, buf: &mut [u8], want: usize) -> Result<(), String> {
    let mut got = 0;
    while got < want {
        let n = net::read(fd, &mut buf[got..want]).map_err(|e| format!("read: {}", net::errno_kind(&e)))?;
        if n == 0 {
            return Err("closed early".into());
        }
        got += n;
    }
    Ok(())
}

fn one_raw(fd: net::Fd, buf: &mut [u8]) -> Result<(), String> {
    read_exactly(fd, buf, RAW_GREETING)?;
    let req = [0x5au8; RAW_REQUEST];
    net::write_all(fd, &req).map_err(|e| format!("write: {}", net::errno_kind(&e)))?;
    read_exactly(fd, buf, RAW_REPLY)
}

fn worker(spec: Arc<Spec>, idx: usize, budget: Arc<AtomicU64>, deadline: Instant) -> (u64, Errors, Histogram<u64>) {
    let mut hist = stats::new_hist();
    let mut errors = Errors::default();
    let mut ops = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    let mut k = idx;
    while Instant::now() < deadline {
        // take one operation from the shared budget
        if budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1)).is_err() {
            break;
        }
        let src = if spec.sources.is_empty() { None } else { Some(spec.sources[k % spec.sources.len()]) };
        k += spec.concurrency;
        let t0 = Instant::now();
        let r = (|| {
            let fd = net::client_socket(&spec.target, src, false, None).map_err(|e| format!("socket: {}", net::errno_kind(&e)))?;
            let _g = net::FdGuard(fd);
            net::set_timeouts(fd, spec.io_timeout_s).map_err(|e| format!("setsockopt: {}", net::errno_kind(&e)))?;
            net::connect(fd, &spec.target).map_err(|e| format!("connect: {}", net::errno_kind(&e)))?;
            match spec.protocol {
                Protocol::Mysql => one_mysql(&spec, fd, &mut buf),
                Protocol::Raw => one_raw(fd, &mut buf),
            }
        })();
        match r {
            Ok(()) => {
                ops += 1;
                stats::record(&mut hist, t0.elapsed().as_micros() as u64);
            }
            Err(kind) => {
                errors.add(kind);
                // do not spin on a persistent failure
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
    (ops, errors, hist)
}

pub fn run(spec: Spec) -> Outcome {
    let spec = Arc::new(spec);
    let budget = Arc::new(AtomicU64::new(spec.max_ops));
    let t0 = Instant::now();
    let deadline = t0 + spec.duration;
    let handles: Vec<_> = (0..spec.concurrency)
        .map(|i| {
            let (s, b) = (spec.clone(), budget.clone());
            std::thread::Builder::new().stack_size(256 * 1024).spawn(move || worker(s, i, b, deadline)).expect("spawn worker thread")
        })
        .collect();
    let mut out = Outcome { ops: 0, errors: Errors::default(), hist: stats::new_hist(), elapsed: Duration::ZERO };
    for h in handles {
        if let Ok((ops, e, hist)) = h.join() {
            out.ops += ops;
            out.errors.merge(&e);
            let _ = out.hist.add(&hist);
        }
    }
    out.elapsed = t0.elapsed();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{floor, testserver};

    #[test]
    fn mysql_loop_against_canned_server() {
        let srv = testserver::spawn(1000);
        let out = run(Spec {
            target: srv.target(),
            sources: vec![],
            login: Login { user: "u".into(), password: "p".into(), database: None, deprecate_eof: false },
            protocol: Protocol::Mysql,
            query: b"SELECT 1".to_vec(),
            concurrency: 4,
            duration: Duration::from_secs(10),
            max_ops: 40,
            io_timeout_s: 5.0,
        });
        assert_eq!(out.ops, 40, "{:?}", out.errors.0);
        assert_eq!(out.hist.len(), 40);
    }

    #[test]
    fn raw_loop_against_raw_floor() {
        let (port, _h) = floor::spawn_for_test();
        let out = run(Spec {
            target: Target::Tcp(std::net::SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)),
            sources: vec![Ipv4Addr::new(127, 0, 0, 3)],
            login: Login { user: String::new(), password: String::new(), database: None, deprecate_eof: false },
            protocol: Protocol::Raw,
            query: Vec::new(),
            concurrency: 3,
            duration: Duration::from_secs(10),
            max_ops: 300,
            io_timeout_s: 5.0,
        });
        assert_eq!(out.ops, 300, "{:?}", out.errors.0);
    }
}
