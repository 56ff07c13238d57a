//! The `turnstile` binary: command line, configuration file, logging, signals.
//! `turnstile backup ...` is a client subcommand instead (backup.rs).
//!
//! Settings come from defaults, then the TOML file given with `--config`, then
//! the command line (last one wins); turnstile-settings reads and checks them
//! against its one table.

use turnstile_server::config::command_line::ReadError;

mod backup;

/// mimalloc instead of glibc malloc: a connect + query + disconnect makes about
/// two dozen short-lived allocations on one worker thread, and mimalloc's
/// per-thread free lists make each of them cheaper (see docs/architecture.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("backup") {
        std::process::exit(backup::main(std::env::args().skip(2).collect()));
    }
    let cfg = match turnstile_server::config::command_line::read(std::env::args()) {
        Ok(cfg) => cfg,
        Err(ReadError::CommandLine(e)) => e.exit(),
        Err(ReadError::File(e)) => {
            eprintln!("turnstile: {}", e);
            std::process::exit(2);
        }
    };
    let mut filter = tracing_subscriber::EnvFilter::try_new(&cfg.log_level).unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    if !cfg.log_level.contains("rustls") {
        // rustls warns about what a client sent (libmariadb and mysqlnd send
        // an IP address as SNI): a line per connection, which a client
        // controls. Its errors still show; `log_level` naming rustls overrides.
        filter = filter.add_directive("rustls=error".parse().expect("a valid directive"));
    }
    {
        use std::io::IsTerminal;
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(std::io::stderr().is_terminal()).with_target(false).init();
    }
    // A caught panic logs one line per place a minute, never a backtrace.
    turnstile_server::panics::install();

    let running = match turnstile_server::start(cfg) {
        Ok(r) => r,
        Err(e) => {
            tracing::error!("{}", e);
            eprintln!("turnstile: {}", e);
            std::process::exit(1);
        }
    };
    let trigger = running.shutdown_trigger();
    let server = running.server.clone();
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("turnstile: cannot install signal handlers: {}", e);
            std::process::exit(1);
        }
    };
    std::thread::Builder::new()
        .name("ts-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if sig == SIGHUP {
                    // logrotate: the query logs' files are opened again at their next entry.
                    tracing::info!("SIGHUP: reopening the query logs");
                    server.logs.reopen();
                    continue;
                }
                tracing::info!(signal = sig, "signal received; shutting down gracefully");
                trigger.trigger();
                break;
            }
        })
        .expect("signal thread");
    // Ignore SIGPIPE: a client that vanished must not kill the server.
    // SAFETY: setting a signal disposition at start-up, before other threads use it.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };

    let max_conn_by_fds = running.max_connections_by_fds;
    tracing::info!(
        engine = %running.server.engine.name(),
        fd_limit = running.fd_limit,
        "open-file limit allows about {} connections",
        max_conn_by_fds
    );
    eprintln!("turnstile ready: port={} admin_port={} socket={}", running.port, running.admin_port, running.socket.as_deref().unwrap_or(""));
    running.run();
    std::process::exit(0);
}
