//! The raw socket floor server: per connection accept, write a greeting-sized
//! packet, read one request, write a reply, close. No protocol, no state, one
//! thread, level-triggered epoll over non-blocking sockets. Driven by the
//! `connect --protocol raw` loop, it is what a connection costs the kernel on
//! this machine, below even crates/floor (which completes a real MySQL login).
//!
//! Bounds: exits by itself after `max_seconds`; at most `max_conns`
//! connections open at once (more are accepted and closed at once).

use std::io;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::connect::{RAW_GREETING, RAW_REPLY};
use crate::net::{self, Epoll, Fd};

const TOK_TCP: u64 = u64::MAX;
const TOK_UNIX: u64 = u64::MAX - 1;

pub struct Config {
    pub bind: Ipv4Addr,
    pub port: u16,
    pub socket: Option<PathBuf>,
    pub max_seconds: u64,
    pub max_conns: usize,
}

fn accept_all(listener: Fd, ep: &Epoll, open: &mut usize, max_conns: usize, greeting: &[u8]) {
    loop {
        let fd = unsafe { libc::accept4(listener, std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) };
        if fd < 0 {
            return; // EAGAIN (drained) or a transient error: wait for the next wake-up
        }
        if *open >= max_conns {
            net::close(fd);
            continue;
        }
        // A fresh socket's send buffer always takes 78 bytes.
        if net::write(fd, greeting).ok() != Some(greeting.len()) || ep.add(fd, libc::EPOLLIN as u32, fd as u64).is_err() {
            net::close(fd);
            continue;
        }
        *open += 1;
    }
}

pub fn serve(cfg: Config, mut ready: impl FnMut(u16)) -> io::Result<()> {
    let tcp = TcpListener::bind(SocketAddrV4::new(cfg.bind, cfg.port))?;
    tcp.set_nonblocking(true)?;
    let port = tcp.local_addr()?.port();
    let ep = Epoll::new()?;
    ep.add(tcp.as_raw_fd(), libc::EPOLLIN as u32, TOK_TCP)?;
    let unix = match &cfg.socket {
        Some(p) => {
            let _ = std::fs::remove_file(p);
            let u = UnixListener::bind(p)?;
            u.set_nonblocking(true)?;
            ep.add(u.as_raw_fd(), libc::EPOLLIN as u32, TOK_UNIX)?;
            Some(u)
        }
        None => None,
    };
    ready(port);
    let greeting = vec![0x4au8; RAW_GREETING];
    let reply = vec![0x07u8; RAW_REPLY];
    let mut buf = vec![0u8; 4096];
    let mut open = 0usize;
    let mut evs = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(cfg.max_seconds);
    while Instant::now() < deadline {
        ep.wait(&mut evs, 256, 200)?;
        for &(_, tok) in &evs {
            match tok {
                TOK_TCP => accept_all(tcp.as_raw_fd(), &ep, &mut open, cfg.max_conns, &greeting),
                TOK_UNIX => {
                    if let Some(u) = &unix {
                        accept_all(u.as_raw_fd(), &ep, &mut open, cfg.max_conns, &greeting)
                    }
                }
                fd => {
                    let fd = fd as Fd;
                    match net::read(fd, &mut buf) {
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                        Ok(n) if n > 0 => {
                            let _ = net::write(fd, &reply);
                        }
                        _ => {}
                    }
                    ep.delete(fd);
                    net::close(fd);
                    open -= 1;
                }
            }
        }
    }
    if let Some(p) = &cfg.socket {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}

#[cfg(test)]
pub fn spawn_for_test() -> (u16, std::thread::JoinHandle<()>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let h = std::thread::spawn(move || {
        let cfg = Config { bind: Ipv4Addr::LOCALHOST, port: 0, socket: None, max_seconds: 30, max_conns: 1000 };
        serve(cfg, |p| tx.send(p).expect("send port")).expect("raw floor serves");
    });
    (rx.recv().expect("port"), h)
}
