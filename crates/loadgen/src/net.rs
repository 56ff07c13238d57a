//! Thin socket and epoll helpers over libc: client sockets bound to a chosen
//! 127.0.0.x source address (IP_BIND_ADDRESS_NO_PORT, so the port is picked at
//! connect time and each source address has its own ephemeral-port space),
//! non-blocking connects, and an epoll wrapper. Only what the load generator
//! needs; every call returns io::Result and never panics on a bad fd.

use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

pub type Fd = libc::c_int;

#[derive(Debug, Clone)]
pub enum Target {
    Tcp(SocketAddrV4),
    Unix(PathBuf),
}

impl Target {
    /// Refuses anything but loopback (127.0.0.0/8) unless `allow_any` is set
    /// (bench/run sets it only for its own network namespace's veth address).
    pub fn check_loopback(&self, allow_any: bool) -> Result<(), String> {
        match self {
            Target::Tcp(a) if !a.ip().is_loopback() && !allow_any => Err(format!(
                "refusing to target {a}: the load generator targets loopback only \
                 (--allow-non-loopback is for the benchmark's own network namespace)"
            )),
            _ => Ok(()),
        }
    }
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn sockaddr_in(a: &SocketAddrV4) -> libc::sockaddr_in {
    let mut sa: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    sa.sin_family = libc::AF_INET as libc::sa_family_t;
    sa.sin_port = a.port().to_be();
    sa.sin_addr = libc::in_addr { s_addr: u32::from_ne_bytes(a.ip().octets()) };
    sa
}

fn sockaddr_un(path: &std::path::Path) -> io::Result<(libc::sockaddr_un, libc::socklen_t)> {
    let mut sa: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    sa.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = path.as_os_str().as_bytes();
    if bytes.len() >= sa.sun_path.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "socket path too long"));
    }
    for (i, b) in bytes.iter().enumerate() {
        sa.sun_path[i] = *b as libc::c_char;
    }
    let len = (std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1) as libc::socklen_t;
    Ok((sa, len))
}

pub fn set_int_opt(fd: Fd, level: libc::c_int, name: libc::c_int, v: libc::c_int) -> io::Result<()> {
    cvt(unsafe { libc::setsockopt(fd, level, name, &v as *const libc::c_int as *const libc::c_void, std::mem::size_of::<libc::c_int>() as libc::socklen_t) }).map(|_| ())
}

pub fn set_timeouts(fd: Fd, secs: f64) -> io::Result<()> {
    let tv = libc::timeval { tv_sec: secs as libc::time_t, tv_usec: ((secs.fract()) * 1e6) as libc::suseconds_t };
    for opt in [libc::SO_RCVTIMEO, libc::SO_SNDTIMEO] {
        cvt(unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, opt, &tv as *const libc::timeval as *const libc::c_void, std::mem::size_of::<libc::timeval>() as libc::socklen_t) })?;
    }
    Ok(())
}

/// A new client socket for `target`, bound to `source` (TCP only) if given.
pub fn client_socket(target: &Target, source: Option<Ipv4Addr>, nonblocking: bool, rcvbuf: Option<usize>) -> io::Result<Fd> {
    let domain = match target {
        Target::Tcp(_) => libc::AF_INET,
        Target::Unix(_) => libc::AF_UNIX,
    };
    let mut ty = libc::SOCK_STREAM | libc::SOCK_CLOEXEC;
    if nonblocking {
        ty |= libc::SOCK_NONBLOCK;
    }
    let fd = cvt(unsafe { libc::socket(domain, ty, 0) })?;
    let guard = FdGuard(fd);
    if let Some(n) = rcvbuf {
        set_int_opt(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, n as libc::c_int)?;
    }
    if let Target::Tcp(_) = target {
        set_int_opt(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)?;
        if let Some(src) = source {
            // Defer the port choice to connect(): otherwise bind() reserves a port
            // for every destination and one source address runs out early.
            set_int_opt(fd, libc::IPPROTO_IP, libc::IP_BIND_ADDRESS_NO_PORT, 1)?;
            let sa = sockaddr_in(&SocketAddrV4::new(src, 0));
            cvt(unsafe { libc::bind(fd, &sa as *const libc::sockaddr_in as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t) })?;
        }
    }
    std::mem::forget(guard);
    Ok(fd)
}

/// Start (non-blocking) or complete (blocking) a connect. Ok(true): connected;
/// Ok(false): in progress (wait for writability, then `take_error`).
pub fn connect(fd: Fd, target: &Target) -> io::Result<bool> {
    let r = match target {
        Target::Tcp(a) => {
            let sa = sockaddr_in(a);
            unsafe { libc::connect(fd, &sa as *const libc::sockaddr_in as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t) }
        }
        Target::Unix(p) => {
            let (sa, len) = sockaddr_un(p)?;
            unsafe { libc::connect(fd, &sa as *const libc::sockaddr_un as *const libc::sockaddr, len) }
        }
    };
    if r == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINPROGRESS) | Some(libc::EAGAIN) => Ok(false),
        _ => Err(e),
    }
}

/// The pending error of a socket (SO_ERROR), if any.
pub fn take_error(fd: Fd) -> Option<io::Error> {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    let r = unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, libc::SO_ERROR, &mut v as *mut libc::c_int as *mut libc::c_void, &mut len) };
    if r < 0 {
        return Some(io::Error::last_os_error());
    }
    if v == 0 {
        None
    } else {
        Some(io::Error::from_raw_os_error(v))
    }
}

pub fn read(fd: Fd, buf: &mut [u8]) -> io::Result<usize> {
    let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

pub fn write(fd: Fd, buf: &[u8]) -> io::Result<usize> {
    let n = unsafe { libc::send(fd, buf.as_ptr() as *const libc::c_void, buf.len(), libc::MSG_NOSIGNAL) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Blocking write of all of `buf` (the socket's SO_SNDTIMEO bounds it).
pub fn write_all(fd: Fd, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match write(fd, buf) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "write returned 0")),
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

pub fn close(fd: Fd) {
    unsafe {
        libc::close(fd);
    }
}

/// Closes the fd on drop unless forgotten.
pub struct FdGuard(pub Fd);

impl Drop for FdGuard {
    fn drop(&mut self) {
        close(self.0);
    }
}

/// A short, stable label for an I/O error (errno name), used as an error kind.
pub fn errno_kind(e: &io::Error) -> String {
    let name = match e.raw_os_error() {
        Some(libc::ECONNREFUSED) => "ECONNREFUSED",
        Some(libc::ECONNRESET) => "ECONNRESET",
        Some(libc::ETIMEDOUT) => "ETIMEDOUT",
        Some(libc::EADDRNOTAVAIL) => "EADDRNOTAVAIL",
        Some(libc::EADDRINUSE) => "EADDRINUSE",
        Some(libc::EAGAIN) => "EAGAIN (timeout)",
        Some(libc::EPIPE) => "EPIPE",
        Some(libc::EMFILE) => "EMFILE",
        Some(libc::ENFILE) => "ENFILE",
        Some(libc::ENOBUFS) => "ENOBUFS",
        Some(libc::EHOSTUNREACH) => "EHOSTUNREACH",
        Some(libc::ENETUNREACH) => "ENETUNREACH",
        Some(libc::ENOENT) => "ENOENT",
        Some(n) => return format!("errno {n}"),
        None => return format!("{:?}", e.kind()),
    };
    name.to_string()
}

/// Raise the soft open-file limit to the hard limit; returns the new soft limit.
pub fn raise_nofile() -> u64 {
    unsafe {
        let mut rl: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) == 0 {
            rl.rlim_cur = rl.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &rl);
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl);
            return rl.rlim_cur as u64;
        }
    }
    0
}

pub struct Epoll {
    fd: Fd,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        Ok(Epoll { fd: cvt(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })? })
    }

    fn ctl(&self, op: libc::c_int, fd: Fd, events: u32, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: token };
        cvt(unsafe { libc::epoll_ctl(self.fd, op, fd, &mut ev) }).map(|_| ())
    }

    pub fn add(&self, fd: Fd, events: u32, token: u64) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, events, token)
    }

    pub fn modify(&self, fd: Fd, events: u32, token: u64) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd, events, token)
    }

    pub fn delete(&self, fd: Fd) {
        let _ = self.ctl(libc::EPOLL_CTL_DEL, fd, 0, 0);
    }

    /// Wait up to `timeout_ms`; returns the ready (events, token) pairs in `out`.
    pub fn wait(&self, out: &mut Vec<(u32, u64)>, max: usize, timeout_ms: i32) -> io::Result<()> {
        let mut evs: Vec<libc::epoll_event> = vec![libc::epoll_event { events: 0, u64: 0 }; max];
        let n = unsafe { libc::epoll_wait(self.fd, evs.as_mut_ptr(), max as libc::c_int, timeout_ms) };
        out.clear();
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(());
            }
            return Err(e);
        }
        for ev in &evs[..n as usize] {
            out.push((ev.events, ev.u64));
        }
        Ok(())
    }
}

impl Drop for Epoll {
    fn drop(&mut self) {
        close(self.fd);
    }
}

/// Parse "127.0.0.1-127.0.0.8" or "127.0.0.1,127.0.0.2" into source addresses.
pub fn parse_sources(s: &str) -> Result<Vec<Ipv4Addr>, String> {
    let mut out = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        if let Some((a, b)) = part.split_once('-') {
            let a: Ipv4Addr = a.parse().map_err(|_| format!("bad address {a}"))?;
            let b: Ipv4Addr = b.parse().map_err(|_| format!("bad address {b}"))?;
            let (x, y) = (u32::from(a), u32::from(b));
            if y < x || y - x > 1024 {
                return Err(format!("bad range {part}"));
            }
            out.extend((x..=y).map(Ipv4Addr::from));
        } else {
            out.push(part.parse().map_err(|_| format!("bad address {part}"))?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse() {
        let v = parse_sources("127.0.0.1-127.0.0.3,127.0.0.9").unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v[2], Ipv4Addr::new(127, 0, 0, 3));
        assert!(parse_sources("127.0.0.9-127.0.0.1").is_err());
        assert!(parse_sources("x").is_err());
    }

    #[test]
    fn loopback_only() {
        let t = Target::Tcp("127.0.0.1:3306".parse().unwrap());
        assert!(t.check_loopback(false).is_ok());
        let t = Target::Tcp("198.18.0.1:3306".parse().unwrap());
        assert!(t.check_loopback(false).is_err());
        assert!(t.check_loopback(true).is_ok());
    }

    #[test]
    fn connect_to_local_listener_from_second_source() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let target = Target::Tcp(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
        let fd = client_socket(&target, Some(Ipv4Addr::new(127, 0, 0, 2)), false, None).unwrap();
        assert!(connect(fd, &target).unwrap());
        let (_s, peer) = l.accept().unwrap();
        assert_eq!(peer.ip().to_string(), "127.0.0.2");
        close(fd);
    }
}
