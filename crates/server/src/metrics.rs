//! Prometheus metrics over HTTP: `GET /metrics` on `admin_address`:`metrics_port`
//! (off when the port is 0), in the text exposition format that the
//! prometheus-client crate encodes (OpenMetrics 1.0, which Prometheus reads).
//!
//! Nothing is counted here: a scrape reads the server's striped counters and
//! histograms (stats.rs), the pool's and the registry's gauges, TLS's and the
//! upstream engine's counters, and adds up their stripes. So what the hot
//! path pays is what SHOW STATUS already cost, plus two histogram buckets
//! (connect and statement latency) when the endpoint is on.
//!
//! The endpoint is one thread serving one request at a time, with limits on
//! everything a client sends: 8 KiB of request head, 5 s in all to send it, 32
//! connections waiting (the backlog). Anything but `GET /metrics` is 404 or
//! 405; a client that sends nothing is dropped after the timeout.

use crate::server::Server;
use crate::stats::{Histogram, Listener, Striped};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Weak};
use std::time::Duration;

const MAX_REQUEST_BYTES: usize = 8 * 1024;
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
const BACKLOG: i32 = 32;
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Bind the endpoint and serve it on a thread of its own; the address bound.
pub fn start(server: &Arc<Server>) -> Result<SocketAddr, String> {
    let addr = format!("{}:{}", server.config.admin_address, server.config.metrics_port);
    let listener = bind(&addr).map_err(|e| format!("metrics endpoint {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    let weak = Arc::downgrade(server);
    std::thread::Builder::new().name("ts-metrics".into()).spawn(move || serve(listener, weak)).map_err(|e| format!("metrics endpoint thread: {e}"))?;
    Ok(bound)
}

fn bind(addr: &str) -> std::io::Result<TcpListener> {
    let addr: SocketAddr = std::net::ToSocketAddrs::to_socket_addrs(addr)?.next().ok_or_else(|| std::io::Error::other("no address"))?;
    let socket = socket2::Socket::new(socket2::Domain::for_address(addr), socket2::Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    Ok(socket.into())
}

fn serve(listener: TcpListener, server: Weak<Server>) {
    for conn in listener.incoming() {
        let Some(server) = server.upgrade() else { return };
        if let Ok(conn) = conn {
            // A failed or slow client is its own problem: the next one is served.
            let _ = answer(conn, &server);
        }
    }
}

/// Read one request head, answer it, close.
fn answer(mut conn: TcpStream, server: &Arc<Server>) -> std::io::Result<()> {
    // One deadline for the whole request head: a client sending a byte at
    // a time does not hold the endpoint longer than that.
    let deadline = std::time::Instant::now() + REQUEST_TIMEOUT;
    conn.set_write_timeout(Some(REQUEST_TIMEOUT))?;
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        conn.set_read_timeout(Some(left))?;
        let n = conn.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        if head.len() > MAX_REQUEST_BYTES {
            return respond(&mut conn, "431 Request Header Fields Too Large", "text/plain", b"request head too large\n");
        }
    }
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let mut parts = std::str::from_utf8(line).unwrap_or("").split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    match (method, path) {
        ("GET" | "HEAD", "/metrics") => {
            let body = render(server);
            let body = if method == "HEAD" { "" } else { body.as_str() };
            respond(&mut conn, "200 OK", CONTENT_TYPE, body.as_bytes())
        }
        (_, "/metrics") => respond(&mut conn, "405 Method Not Allowed", "text/plain", b"GET /metrics\n"),
        _ => respond(&mut conn, "404 Not Found", "text/plain", b"GET /metrics\n"),
    }
}

fn respond(conn: &mut TcpStream, status: &str, content_type: &str, body: &[u8]) -> std::io::Result<()> {
    let head = format!("HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    conn.write_all(head.as_bytes())?;
    conn.write_all(body)?;
    conn.flush()
}

/// The whole exposition, as a scrape gets it.
pub fn render(server: &Arc<Server>) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(ServerMetrics(Arc::downgrade(server))));
    let mut out = String::with_capacity(16 * 1024);
    if prometheus_client::encoding::text::encode(&mut out, &registry).is_err() {
        out.clear();
    }
    out
}

/// Reads the server's figures at each scrape.
#[derive(Debug)]
struct ServerMetrics(Weak<Server>);

impl Collector for ServerMetrics {
    fn encode(&self, mut e: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(s) = self.0.upgrade() else { return Ok(()) };
        connections(&s, &mut e)?;
        statements(&s, &mut e)?;
        scheduler(&s, &mut e)?;
        tls(&s, &mut e)?;
        upstream(&s, &mut e)?;
        Ok(())
    }
}

fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, unit: Option<&Unit>, v: i64) -> Result<(), std::fmt::Error> {
    let c = ConstCounter::new(v.max(0) as u64);
    c.encode(e.encode_descriptor(name, help, unit, c.metric_type())?)
}

fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, unit: Option<&Unit>, v: i64) -> Result<(), std::fmt::Error> {
    let g = ConstGauge::new(v);
    g.encode(e.encode_descriptor(name, help, unit, g.metric_type())?)
}

/// A counter with one label, one series per (label value, count).
fn labelled_counter(e: &mut DescriptorEncoder, name: &str, help: &str, label: &str, series: &[(String, i64)]) -> Result<(), std::fmt::Error> {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (value, n) in series {
        let labels = [(label, value.as_str())];
        ConstCounter::new((*n).max(0) as u64).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}

fn histogram(e: &mut DescriptorEncoder, name: &str, help: &str, h: &Histogram) -> Result<(), std::fmt::Error> {
    let (sum, count, buckets) = h.snapshot();
    let mut m = e.encode_descriptor(name, help, Some(&Unit::Seconds), MetricType::Histogram)?;
    m.encode_histogram::<prometheus_client::encoding::NoLabelSet>(sum, count, &buckets, None)
}

fn by_listener(counters: &[Striped; 3]) -> Vec<(String, i64)> {
    Listener::ALL.iter().map(|l| (l.name().to_string(), counters[*l as usize].get())).collect()
}

fn connections(s: &Server, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let st = &s.stats;
    labelled_counter(e, "turnstile_connections_accepted", "Connections accepted, by listener.", "listener", &by_listener(&st.accepted))?;
    labelled_counter(e, "turnstile_connections_refused", "Connections refused with 1040 (max_connections), by listener.", "listener", &by_listener(&st.refused))?;
    let aborted = [("login".to_string(), st.aborted_connects.get()), ("session".to_string(), st.aborted_clients.get())];
    labelled_counter(e, "turnstile_connections_aborted", "Connections broken off: before the login ended (Aborted_connects) or after (Aborted_clients).", "stage", &aborted)?;
    counter(e, "turnstile_handshakes_evicted", "Logins in progress closed for a newer one past max_handshakes.", None, st.handshakes_evicted.get())?;
    counter(e, "turnstile_access_denied", "Logins refused for a wrong password or an unknown account.", None, s.guard.denied.get())?;
    let connected = s.registry.connected.load(std::sync::atomic::Ordering::Relaxed) + s.registry.admin_connected.load(std::sync::atomic::Ordering::Relaxed);
    gauge(e, "turnstile_connections", "Client connections open (Threads_connected).", None, connected as i64)?;
    gauge(e, "turnstile_handshakes_in_progress", "Connections greeted and not yet logged in.", None, (s.registry.pending(false) + s.registry.pending(true)) as i64)?;
    gauge(e, "turnstile_max_used_connections", "The most client connections open at once since start.", None, st.max_used_connections.load(std::sync::atomic::Ordering::Relaxed) as i64)?;
    histogram(e, "turnstile_connect_duration", "From accept to the login's OK.", &st.connect_seconds)?;
    counter(e, "turnstile_network_received", "Bytes read from clients.", Some(&Unit::Bytes), st.bytes_received.get())?;
    counter(e, "turnstile_network_sent", "Bytes written to clients.", Some(&Unit::Bytes), st.bytes_sent.get())?;
    gauge(e, "turnstile_uptime", "Seconds since start.", Some(&Unit::Seconds), s.uptime() as i64)
}

fn statements(s: &Server, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let st = &s.stats;
    let mut m = e.encode_descriptor("turnstile_statements", "Statements ended, by command (query: COM_QUERY, execute: COM_STMT_EXECUTE) and outcome.", None, MetricType::Counter)?;
    for (c, command) in ["query", "execute"].iter().enumerate() {
        for (o, outcome) in ["ok", "error"].iter().enumerate() {
            let labels = [("command", *command), ("outcome", *outcome)];
            ConstCounter::new(st.statements[c][o].get().max(0) as u64).encode(m.encode_family(&labels)?)?;
        }
    }
    let errors: Vec<(String, i64)> = st.errors.snapshot().into_iter().map(|(code, n)| (code.to_string(), n as i64)).collect();
    labelled_counter(e, "turnstile_statement_errors", "Statements that failed, by MySQL error code.", "code", &errors)?;
    counter(e, "turnstile_slow_queries", "Statements longer than long_query_time (Slow_queries).", None, st.slow_queries.get())?;
    histogram(e, "turnstile_statement_duration", "From a statement's start to its last packet.", &st.statement_seconds)?;
    gauge(e, "turnstile_threads_running", "Sessions running a command.", None, st.threads_running.get())?;
    gauge(e, "turnstile_prepared_statements", "Prepared statements held, all sessions together.", None, turnstile_sql::prepared_slots::held() as i64)
}

fn scheduler(s: &Server, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    use std::sync::atomic::Ordering::Relaxed;
    let p = &s.pool;
    counter(e, "turnstile_threads_created", "Threads started to serve connections.", None, s.stats.threads_created.get())?;
    gauge(e, "turnstile_threads_cached", "Idle threads in the thread cache (thread-per-connection).", None, s.threads_cached.load(Relaxed))?;
    gauge(e, "turnstile_pool_threads", "Pool-of-threads workers.", None, p.threads.load(Relaxed))?;
    gauge(e, "turnstile_pool_idle_threads", "Pool-of-threads workers waiting for work.", None, p.idle_threads.load(Relaxed))?;
    gauge(e, "turnstile_pool_queue_length", "Connections with work queued for a pool worker.", None, p.queue_length.load(Relaxed))?;
    gauge(e, "turnstile_pool_groups", "Pool-of-threads thread groups.", None, p.groups.load(Relaxed))?;
    counter(e, "turnstile_pool_stalls", "Times a thread group was found stalled and given another worker.", None, p.stalls.load(Relaxed))?;
    counter(e, "turnstile_pool_throttles", "Times a new worker was held back by thread creation throttling.", None, p.throttles.load(Relaxed))
}

/// TLS's counters, from its SHOW STATUS rows (none when ssl is OFF).
fn tls(s: &Server, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let Some(tls) = &s.tls else { return Ok(()) };
    let rows = tls.status();
    let get = |name: &str| rows.iter().find(|(n, _)| *n == name).and_then(|(_, v)| v.as_i64()).unwrap_or(0);
    counter(e, "turnstile_tls_handshakes_started", "TLS handshakes begun (Ssl_accepts).", None, get("Ssl_accepts"))?;
    counter(e, "turnstile_tls_handshakes", "TLS handshakes completed (Ssl_finished_accepts).", None, get("Ssl_finished_accepts"))?;
    counter(e, "turnstile_tls_handshake_failures", "TLS handshakes that failed.", None, get("Ssl_handshake_failures"))?;
    counter(e, "turnstile_tls_resumptions", "TLS sessions resumed from a ticket or the cache.", None, get("Ssl_session_cache_hits"))
}

/// The upstream engine's pool, from its SHOW STATUS rows (`Upstream_*`):
/// gauges for what is open now, counters for the rest.
fn upstream(s: &Server, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let Some(up) = &s.upstream else { return Ok(()) };
    const GAUGES: [&str; 4] = ["Upstream_connections_open", "Upstream_connections_idle", "Upstream_connections_in_use", "Upstream_server_down"];
    for (name, value) in up.status() {
        let v = match value.as_str() {
            "ON" => 1,
            "OFF" => 0,
            v => match v.parse::<i64>() {
                Ok(n) => n,
                Err(_) => continue,
            },
        };
        // (`_total` is the encoder's to add.)
        let metric = format!("turnstile_{}", name.to_ascii_lowercase().replace("pins_total_", "pins_"));
        if GAUGES.contains(&name.as_str()) || name.starts_with("Upstream_pinned_") {
            gauge(e, &metric, &format!("The upstream engine's {name}."), None, v)?;
        } else {
            counter(e, &metric, &format!("The upstream engine's {name}."), None, v)?;
        }
    }
    Ok(())
}
