//! relay-floor — the least a proxy in front of a MySQL server can do: the
//! cost floor for the upstream engine's benchmark (bench/upstream.py).
//!
//! What it does: each client connection gets its own connection to the
//! backend (opened at accept, blocking, before the client is read), and
//! bytes are copied both ways as they come, with no look at the protocol:
//! no login of its own, no multiplexing, no state, no buffering beyond one
//! read. A relayed statement therefore costs exactly what any proxy on this
//! machine pays at least: the client's command read and written on, the
//! answer read and written back, and the epoll wake-ups between.
//!
//! Why it exists: issue #24 sets a target for Turnstile's own CPU per
//! relayed statement (15 µs). Measured beside Turnstile in the same run,
//! this says how much of Turnstile's cost is the kernel's (sockets and
//! scheduling, which no proxy avoids) and how much is Turnstile's.
//!
//! Design: ONE thread, a level-triggered epoll loop over non-blocking
//! sockets. A write that would block keeps the rest in a buffer, stops
//! reading the other side and waits for EPOLLOUT. Either side closing
//! closes both. Written from the socket API; no code copied from elsewhere.
//!
//! Usage: relay-floor --port N --backend HOST:PORT
//! Prints `relay-floor ready: port=N` to stderr once listening.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::io::{AsRawFd, RawFd};

const TOK_LISTENER: u64 = u64::MAX;
/// Bytes read at once (a point select's answer is ~200).
const READ_BYTES: usize = 64 * 1024;
/// Events taken from epoll at once.
const MAX_EVENTS: usize = 256;

/// One side of a pair: its socket and what could not be written to it yet.
struct Side {
    stream: TcpStream,
    pending: Vec<u8>,
}

struct Pair {
    client: Side,
    backend: Side,
}

fn epoll_ctl(ep: RawFd, op: i32, fd: RawFd, events: u32, token: u64) -> io::Result<()> {
    let mut ev = libc::epoll_event { events, u64: token };
    // SAFETY: a valid epoll fd, socket fd and event struct.
    if unsafe { libc::epoll_ctl(ep, op, fd, &mut ev) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Token of a pair's side: the pair id times two, plus 1 for the backend.
fn token(id: u64, backend: bool) -> u64 {
    id * 2 + backend as u64
}

/// Copy what `from` has into `to`. Returns false when the pair must close.
/// A short write leaves the rest in `to.pending`, asks for EPOLLOUT on `to`
/// and stops reading `from` until `to` drains (`drain`).
fn copy(ep: RawFd, from: &mut Side, from_token: u64, to: &mut Side, to_token: u64, buf: &mut [u8]) -> bool {
    debug_assert!(to.pending.is_empty(), "`from` is not read while `to` has bytes pending");
    let n = match from.stream.read(buf) {
        Ok(0) => return false,
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted => return true,
        Err(_) => return false,
    };
    let mut at = 0;
    while at < n {
        match to.stream.write(&buf[at..n]) {
            Ok(0) => return false,
            Ok(w) => at += w,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                to.pending.extend_from_slice(&buf[at..n]);
                let out = (libc::EPOLLIN | libc::EPOLLOUT) as u32;
                return epoll_ctl(ep, libc::EPOLL_CTL_MOD, to.stream.as_raw_fd(), out, to_token).is_ok() && epoll_ctl(ep, libc::EPOLL_CTL_MOD, from.stream.as_raw_fd(), 0, from_token).is_ok();
            }
            Err(_) => return false,
        }
    }
    true
}

/// EPOLLOUT on `side`: write what is pending, then read `peer` again;
/// false when the pair must close.
fn drain(ep: RawFd, side: &mut Side, tok: u64, peer: &Side, peer_tok: u64) -> bool {
    while !side.pending.is_empty() {
        match side.stream.write(&side.pending) {
            Ok(0) => return false,
            Ok(w) => {
                side.pending.drain(..w);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(_) => return false,
        }
    }
    epoll_ctl(ep, libc::EPOLL_CTL_MOD, side.stream.as_raw_fd(), libc::EPOLLIN as u32, tok).is_ok()
        && epoll_ctl(ep, libc::EPOLL_CTL_MOD, peer.stream.as_raw_fd(), libc::EPOLLIN as u32, peer_tok).is_ok()
}

fn accept_all(ep: RawFd, listener: &TcpListener, backend_addr: &str, pairs: &mut HashMap<u64, Pair>, next_id: &mut u64) {
    loop {
        let (client, _) = match listener.accept() {
            Ok(x) => x,
            Err(_) => return,
        };
        let backend = match TcpStream::connect(backend_addr) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("relay-floor: backend {}: {}", backend_addr, e);
                continue;
            }
        };
        let ok = [&client, &backend].iter().all(|s| s.set_nonblocking(true).is_ok() && s.set_nodelay(true).is_ok());
        if !ok {
            continue;
        }
        let id = *next_id;
        *next_id += 1;
        let added = epoll_ctl(ep, libc::EPOLL_CTL_ADD, client.as_raw_fd(), libc::EPOLLIN as u32, token(id, false))
            .and_then(|()| epoll_ctl(ep, libc::EPOLL_CTL_ADD, backend.as_raw_fd(), libc::EPOLLIN as u32, token(id, true)));
        if added.is_ok() {
            pairs.insert(id, Pair { client: Side { stream: client, pending: Vec::new() }, backend: Side { stream: backend, pending: Vec::new() } });
        }
    }
}

fn main() {
    let mut port = 0u16;
    let mut backend_addr = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).expect("--port N"),
            "--backend" => backend_addr = args.next().expect("--backend HOST:PORT"),
            _ => {
                eprintln!("usage: relay-floor --port N --backend HOST:PORT");
                std::process::exit(2);
            }
        }
    }
    assert!(!backend_addr.is_empty(), "--backend HOST:PORT is required");
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind");
    listener.set_nonblocking(true).expect("nonblocking listener");
    // SAFETY: plain epoll_create1.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    assert!(ep >= 0, "epoll_create1");
    epoll_ctl(ep, libc::EPOLL_CTL_ADD, listener.as_raw_fd(), libc::EPOLLIN as u32, TOK_LISTENER).expect("epoll add listener");
    eprintln!("relay-floor ready: port={}", listener.local_addr().expect("local addr").port());
    let mut pairs: HashMap<u64, Pair> = HashMap::new();
    let mut next_id = 0u64;
    let mut buf = vec![0u8; READ_BYTES];
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; MAX_EVENTS];
    loop {
        // SAFETY: `events` has MAX_EVENTS entries.
        let n = unsafe { libc::epoll_wait(ep, events.as_mut_ptr(), MAX_EVENTS as i32, -1) };
        if n < 0 {
            continue; // EINTR
        }
        for ev in &events[..n as usize] {
            let (tok, flags) = (ev.u64, ev.events);
            if tok == TOK_LISTENER {
                accept_all(ep, &listener, &backend_addr, &mut pairs, &mut next_id);
                continue;
            }
            let (id, from_backend) = (tok / 2, tok % 2 == 1);
            let Some(pair) = pairs.get_mut(&id) else { continue };
            let Pair { client, backend } = pair;
            let (from, to) = if from_backend { (backend, client) } else { (client, backend) };
            let peer_tok = token(id, !from_backend);
            let mut alive = true;
            if flags & libc::EPOLLOUT as u32 != 0 {
                alive = drain(ep, from, tok, to, peer_tok);
            }
            let readable = flags & (libc::EPOLLIN | libc::EPOLLHUP | libc::EPOLLERR) as u32 != 0;
            if alive && readable && to.pending.is_empty() {
                alive = copy(ep, from, tok, to, peer_tok, &mut buf);
            }
            if !alive {
                // Dropping the pair closes both sockets (and takes them out of epoll).
                pairs.remove(&id);
            }
        }
    }
}
