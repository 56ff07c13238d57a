//! The `turnstile` binary: command line, configuration file, logging, signals.
//!
//! Settings come from defaults, then the TOML file given with `--config`, then
//! the command line (last one wins). Flags accept MySQL's spelling with
//! underscores (`--max_connections`) as well as dashes.

use clap::Parser;
use std::path::PathBuf;
use turnstile_server::Config;

/// mimalloc instead of glibc malloc: a connect + query + disconnect makes about
/// two dozen short-lived allocations on one worker thread, and mimalloc's
/// per-thread free lists make each of them cheaper (see docs/architecture.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "turnstile", version, about = "A MySQL-compatible server built around a fast connection layer", args_override_self = true)]
struct Cli {
    /// TOML file with settings (same names as the flags, with underscores).
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    settings: Config,
}

/// `--max_connections=5` → `--max-connections=5`.
fn normalize(arg: String) -> String {
    if let Some(rest) = arg.strip_prefix("--") {
        let (name, value) = match rest.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (rest, None),
        };
        let name = name.replace('_', "-");
        return match value {
            Some(v) => format!("--{}={}", name, v),
            None => format!("--{}", name),
        };
    }
    arg
}

/// Turn a TOML table into flags placed before the real command line.
fn config_file_args(path: &PathBuf) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {}", path.display(), e))?;
    // Validate names and types against the settings struct first.
    let _: Config = toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e))?;
    let mut args = Vec::new();
    for (k, v) in table {
        let value = match v {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => return Err(format!("{}: unsupported value for {}: {}", path.display(), k, other)),
        };
        let flag = format!("--{}", k.replace('_', "-"));
        if value == "true" && k == "allow_empty_root_password" {
            args.push(flag);
        } else if value != "false" || k != "allow_empty_root_password" {
            args.push(format!("{}={}", flag, value));
        }
    }
    Ok(args)
}

fn main() {
    let raw: Vec<String> = std::env::args().map(normalize).collect();
    let first = Cli::parse_from(&raw);
    let argv = match &first.config {
        Some(path) => match config_file_args(path) {
            Ok(file_args) => {
                let mut v = vec![raw[0].clone()];
                v.extend(file_args);
                v.extend(raw[1..].iter().cloned());
                v
            }
            Err(e) => {
                eprintln!("turnstile: {}", e);
                std::process::exit(2);
            }
        },
        None => raw,
    };
    let cli = Cli::parse_from(&argv);
    let cfg = cli.settings;
    let filter = tracing_subscriber::EnvFilter::try_new(&cfg.log_level).unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
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
    let mut signals = match signal_hook::iterator::Signals::new([signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("turnstile: cannot install signal handlers: {}", e);
            std::process::exit(1);
        }
    };
    std::thread::Builder::new()
        .name("ts-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                tracing::info!(signal = sig, "signal received; shutting down gracefully");
                trigger.trigger();
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
