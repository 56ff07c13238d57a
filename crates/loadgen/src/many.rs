//! Many connections on one thread: a level-triggered epoll loop over
//! non-blocking sockets, each driving a `proto::Client`. Used by
//!   * `storm`: every client connects at once, logs in, runs one query, quits;
//!     latency = from its connect() call to its query result;
//!   * `idle`:  clients log in and stay idle until released (then, optionally,
//!     every one is pinged to prove it is still alive);
//!   * `slow`:  clients log in, send a query with a big result and never read.
//!
//! Bounds: at most `n` connections, at most `max_in_flight` logins at once, and
//! a deadline after which anything unfinished is counted as "timeout" and
//! closed. Nothing here retries.

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::net::{self, Epoll, Fd, Target};
use crate::proto::{Client, Login, Step};
use crate::stats::{self, Errors};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Log in, run the query (if any), send COM_QUIT and close.
    Storm { query: Option<Vec<u8>> },
    /// Log in and hold the connection.
    Idle,
    /// Log in, send the query, then never read again.
    Slow { query: Vec<u8> },
}

#[derive(Clone)]
pub struct Spec {
    pub target: Target,
    pub sources: Vec<Ipv4Addr>,
    pub login: Login,
    pub n: usize,
    pub max_in_flight: usize,
    pub goal: Goal,
    /// SO_RCVBUF for the client sockets (slow readers use a small one).
    pub rcvbuf: Option<usize>,
    /// Time allowed to open everything.
    pub open_timeout: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Connecting,
    Login,
    Query,
    Holding,
    Pinging,
}

struct Conn {
    fd: Fd,
    client: Client,
    t0: Instant,
    phase: Phase,
    /// bytes of client.out already written
    written: usize,
    want_out: bool,
}

pub struct Outcome {
    pub started: usize,
    /// Clients that reached the goal (storm: served; idle/slow: holding).
    pub reached: usize,
    pub errors: Errors,
    /// Latency to reach the goal, µs.
    pub hist: Histogram<u64>,
    pub first_start: Option<Instant>,
    pub last_done: Option<Instant>,
    /// Held connections lost before release (idle/slow).
    pub dropped: usize,
    /// Answered the ping at release (idle with ping).
    pub alive_at_release: usize,
}

pub struct Driver {
    spec: Spec,
    ep: Epoll,
    conns: Vec<Option<Conn>>,
    free_slots: Vec<usize>,
    in_flight: usize,
    pub out: Outcome,
    buf: Vec<u8>,
}

const EV_IN: u32 = libc::EPOLLIN as u32;
const EV_OUT: u32 = libc::EPOLLOUT as u32;
const EV_RDHUP: u32 = libc::EPOLLRDHUP as u32;
const EV_ERR: u32 = (libc::EPOLLERR | libc::EPOLLHUP) as u32;

impl Driver {
    pub fn new(spec: Spec) -> std::io::Result<Driver> {
        Ok(Driver {
            ep: Epoll::new()?,
            conns: Vec::with_capacity(spec.n),
            free_slots: Vec::new(),
            in_flight: 0,
            out: Outcome { started: 0, reached: 0, errors: Errors::default(), hist: stats::new_hist(), first_start: None, last_done: None, dropped: 0, alive_at_release: 0 },
            buf: vec![0u8; 64 * 1024],
            spec,
        })
    }

    fn interest(c: &Conn) -> u32 {
        match c.phase {
            Phase::Connecting => EV_OUT,
            Phase::Holding if !c.client.is_ready() => EV_RDHUP, // slow: never read
            Phase::Holding => EV_RDHUP | EV_IN,
            _ => EV_IN | if c.want_out { EV_OUT } else { 0 },
        }
    }

    fn start_one(&mut self) {
        let i = self.out.started;
        self.out.started += 1;
        let now = Instant::now();
        self.out.first_start.get_or_insert(now);
        let src = if self.spec.sources.is_empty() { None } else { Some(self.spec.sources[i % self.spec.sources.len()]) };
        let fd = match net::client_socket(&self.spec.target, src, true, self.spec.rcvbuf) {
            Ok(fd) => fd,
            Err(e) => {
                self.out.errors.add(format!("socket: {}", net::errno_kind(&e)));
                return;
            }
        };
        let connected = match net::connect(fd, &self.spec.target) {
            Ok(c) => c,
            Err(e) => {
                self.out.errors.add(format!("connect: {}", net::errno_kind(&e)));
                net::close(fd);
                return;
            }
        };
        let conn = Conn { fd, client: Client::new(self.spec.login.clone()), t0: now, phase: if connected { Phase::Login } else { Phase::Connecting }, written: 0, want_out: false };
        let slot = match self.free_slots.pop() {
            Some(s) => s,
            None => {
                self.conns.push(None);
                self.conns.len() - 1
            }
        };
        if let Err(e) = self.ep.add(fd, Self::interest(&conn), slot as u64) {
            self.out.errors.add(format!("epoll: {}", net::errno_kind(&e)));
            net::close(fd);
            self.free_slots.push(slot);
            return;
        }
        self.conns[slot] = Some(conn);
        self.in_flight += 1;
    }

    fn fail(&mut self, slot: usize, kind: String) {
        if let Some(c) = self.conns[slot].take() {
            self.ep.delete(c.fd);
            net::close(c.fd);
            self.free_slots.push(slot);
            match c.phase {
                Phase::Holding | Phase::Pinging => self.out.dropped += 1,
                _ => {
                    self.in_flight -= 1;
                    self.out.errors.add(kind);
                }
            }
        }
    }

    fn reached(&mut self, slot: usize, close: bool) {
        let now = Instant::now();
        let c = self.conns[slot].as_mut().expect("live slot");
        stats::record(&mut self.out.hist, now.duration_since(c.t0).as_micros() as u64);
        self.out.reached += 1;
        self.out.last_done = Some(now);
        self.in_flight -= 1;
        if close {
            let c = self.conns[slot].take().expect("live slot");
            self.ep.delete(c.fd);
            // COM_QUIT is best effort: one small write into an empty socket buffer.
            let mut q = Client::new(self.spec.login.clone());
            q.quit();
            let _ = net::write(c.fd, &q.out);
            net::close(c.fd);
            self.free_slots.push(slot);
        } else {
            c.phase = Phase::Holding;
        }
    }

    /// Write what the client has queued; keeps EPOLLOUT interest while some is left.
    fn flush(&mut self, slot: usize) -> Result<(), String> {
        let c = self.conns[slot].as_mut().expect("live slot");
        while c.written < c.client.out.len() {
            match net::write(c.fd, &c.client.out[c.written..]) {
                Ok(n) => c.written += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("write: {}", net::errno_kind(&e))),
            }
        }
        if c.written == c.client.out.len() {
            c.client.out.clear();
            c.written = 0;
            c.want_out = false;
        } else {
            c.want_out = true;
        }
        let ev = Self::interest(c);
        let _ = self.ep.modify(c.fd, ev, slot as u64);
        Ok(())
    }

    fn on_event(&mut self, slot: usize, ev: u32) {
        let Some(c) = self.conns[slot].as_mut() else { return };
        if c.phase == Phase::Connecting {
            if let Some(e) = net::take_error(c.fd) {
                self.fail(slot, format!("connect: {}", net::errno_kind(&e)));
                return;
            }
            if ev & (EV_OUT | EV_ERR) == 0 {
                return;
            }
            c.phase = Phase::Login;
            let evs = Self::interest(c);
            let _ = self.ep.modify(c.fd, evs, slot as u64);
            return;
        }
        if c.phase == Phase::Holding && !c.client.is_ready() {
            // a slow reader: we never read; a hang-up means the server dropped us
            if ev & (EV_RDHUP | EV_ERR) != 0 {
                self.fail(slot, "dropped".into());
            }
            return;
        }
        if ev & EV_OUT != 0 {
            if let Err(k) = self.flush(slot) {
                self.fail(slot, k);
                return;
            }
        }
        if ev & (EV_IN | EV_RDHUP | EV_ERR) == 0 {
            return;
        }
        // Read what is there.
        let mut steps = Vec::new();
        loop {
            let c = self.conns[slot].as_mut().expect("live slot");
            match net::read(c.fd, &mut self.buf) {
                Ok(0) => {
                    let phase = c.phase;
                    self.fail(slot, format!("closed by server during {}", phase_name(phase)));
                    return;
                }
                Ok(n) => {
                    steps.extend(c.client.feed(&self.buf[..n]));
                    if n < self.buf.len() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let phase = c.phase;
                    self.fail(slot, format!("{} during {}", net::errno_kind(&e), phase_name(phase)));
                    return;
                }
            }
        }
        for step in steps {
            match step {
                Step::Failed(f) => {
                    self.fail(slot, f.kind());
                    return;
                }
                Step::Authenticated => match self.spec.goal.clone() {
                    Goal::Storm { query: Some(q) } => {
                        let c = self.conns[slot].as_mut().expect("live slot");
                        c.client.query(&q);
                        c.phase = Phase::Query;
                    }
                    Goal::Storm { query: None } => {
                        self.reached(slot, true);
                        return;
                    }
                    Goal::Idle => self.reached(slot, false),
                    Goal::Slow { query } => {
                        let c = self.conns[slot].as_mut().expect("live slot");
                        c.client.query(&query);
                        c.phase = Phase::Query;
                    }
                },
                Step::QueryDone { .. } => {
                    self.reached(slot, true);
                    return;
                }
                Step::Pong => {
                    let c = self.conns[slot].as_mut().expect("live slot");
                    c.phase = Phase::Holding;
                    self.out.alive_at_release += 1;
                }
            }
        }
        if let Err(k) = self.flush(slot) {
            self.fail(slot, k);
            return;
        }
        // A slow reader is "holding" once its whole query has been written.
        let c = self.conns[slot].as_mut().expect("live slot");
        if c.phase == Phase::Query && matches!(self.spec.goal, Goal::Slow { .. }) && !c.want_out {
            self.reached(slot, false);
            let c = self.conns[slot].as_mut().expect("live slot");
            let _ = self.ep.modify(c.fd, EV_RDHUP, slot as u64);
        }
    }

    fn poll_once(&mut self, timeout_ms: i32) {
        let mut ready = Vec::new();
        if self.ep.wait(&mut ready, 1024, timeout_ms).is_err() {
            return;
        }
        for (ev, tok) in ready {
            self.on_event(tok as usize, ev);
        }
    }

    /// Open all `n` connections (bounded by `max_in_flight` and the open timeout).
    pub fn open_all(&mut self) {
        let deadline = Instant::now() + self.spec.open_timeout;
        loop {
            while self.out.started < self.spec.n && self.in_flight < self.spec.max_in_flight {
                self.start_one();
            }
            if self.out.started >= self.spec.n && self.in_flight == 0 {
                break;
            }
            let now = Instant::now();
            if now >= deadline {
                // Everything still logging in is a timeout; nothing more is started.
                for slot in 0..self.conns.len() {
                    let pending = matches!(&self.conns[slot], Some(c) if !matches!(c.phase, Phase::Holding));
                    if pending {
                        let phase = self.conns[slot].as_ref().map(|c| c.phase).unwrap_or(Phase::Login);
                        self.fail(slot, format!("timeout during {}", phase_name(phase)));
                    }
                }
                let never = self.spec.n - self.out.started;
                if never > 0 {
                    *self.out.errors.0.entry("not started (open timeout)".into()).or_insert(0) += never as u64;
                    self.out.started = self.spec.n;
                }
                break;
            }
            let left = deadline.duration_since(now).as_millis().min(100) as i32;
            self.poll_once(left.max(1));
        }
    }

    /// Keep held connections until `until()` says stop or `hold` elapses,
    /// noticing the ones the server drops.
    pub fn hold(&mut self, hold: Duration, mut until: impl FnMut() -> bool) {
        let deadline = Instant::now() + hold;
        while Instant::now() < deadline && !until() {
            self.poll_once(100);
        }
    }

    /// Ping every held connection (idle goal only) and count the answers.
    pub fn ping_all(&mut self, timeout: Duration) {
        for slot in 0..self.conns.len() {
            let ok = matches!(&self.conns[slot], Some(c) if c.phase == Phase::Holding && c.client.is_ready());
            if ok {
                let c = self.conns[slot].as_mut().expect("live slot");
                c.client.ping();
                c.phase = Phase::Pinging;
                if let Err(k) = self.flush(slot) {
                    self.fail(slot, k);
                }
            }
        }
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            let waiting = self.conns.iter().any(|c| matches!(c, Some(c) if c.phase == Phase::Pinging));
            if !waiting {
                break;
            }
            self.poll_once(50);
        }
    }

    pub fn held(&self) -> usize {
        self.conns.iter().filter(|c| matches!(c, Some(c) if matches!(c.phase, Phase::Holding | Phase::Pinging))).count()
    }

    pub fn close_all(&mut self) {
        for slot in 0..self.conns.len() {
            if let Some(c) = self.conns[slot].take() {
                self.ep.delete(c.fd);
                net::close(c.fd);
            }
        }
    }
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Connecting => "connect",
        Phase::Login => "login",
        Phase::Query => "query",
        Phase::Holding => "hold",
        Phase::Pinging => "ping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testserver;

    #[test]
    fn storm_idle_and_slow_against_canned_server() {
        let srv = testserver::spawn(64);
        let login = Login { user: "u".into(), password: "p".into(), database: None, deprecate_eof: false };
        let spec = Spec {
            target: srv.target(),
            sources: vec![Ipv4Addr::new(127, 0, 0, 1), Ipv4Addr::new(127, 0, 0, 2)],
            login,
            n: 20,
            max_in_flight: 20,
            goal: Goal::Storm { query: Some(b"SELECT 1".to_vec()) },
            rcvbuf: None,
            open_timeout: Duration::from_secs(10),
        };
        let mut d = Driver::new(spec.clone()).unwrap();
        d.open_all();
        assert_eq!(d.out.reached, 20, "errors: {:?}", d.out.errors.0);
        assert_eq!(d.out.hist.len(), 20);

        let mut idle = Driver::new(Spec { goal: Goal::Idle, n: 10, max_in_flight: 4, ..spec.clone() }).unwrap();
        idle.open_all();
        assert_eq!(idle.held(), 10);
        idle.hold(Duration::from_millis(50), || false);
        idle.ping_all(Duration::from_secs(5));
        assert_eq!(idle.out.alive_at_release, 10);
        idle.close_all();

        let mut slow = Driver::new(Spec { goal: Goal::Slow { query: b"BIG".to_vec() }, n: 3, ..spec }).unwrap();
        slow.open_all();
        assert_eq!(slow.out.reached, 3, "errors: {:?}", slow.out.errors.0);
        slow.close_all();
    }

    #[test]
    fn refused_connections_are_counted_by_kind() {
        // A port nobody listens on (bind, read the port, drop the listener).
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let spec = Spec {
            target: Target::Tcp(std::net::SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)),
            sources: vec![],
            login: Login { user: "u".into(), password: "p".into(), database: None, deprecate_eof: false },
            n: 5,
            max_in_flight: 5,
            goal: Goal::Storm { query: None },
            rcvbuf: None,
            open_timeout: Duration::from_secs(5),
        };
        let mut d = Driver::new(spec).unwrap();
        d.open_all();
        assert_eq!(d.out.reached, 0);
        assert_eq!(d.out.errors.total(), 5);
        assert!(d.out.errors.0.keys().all(|k| k.contains("ECONNREFUSED")), "{:?}", d.out.errors.0);
    }
}
