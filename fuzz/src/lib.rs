//! Shared parts of the fuzz targets: the small-stack runner and the stub
//! environments (an expression `Env`, a schema `Resolver`).
//!
//! In the server these routines run on threads whose whole stack is
//! `thread_stack` (256 KiB by default, pool workers and per-connection threads
//! alike). libFuzzer calls a target on the main thread, whose stack is 8 MiB, so
//! a recursion that overflows the server's stack would pass unnoticed there.
//! `on_server_stack` hands each input to one long-lived thread spawned with the
//! server's default stack size and waits for it: a stack overflow aborts the
//! process as it would the server, and libFuzzer records the input. One thread
//! fed through a channel, not a thread per input, keeps throughput up.
//! `TURNSTILE_FUZZ_STACK` (bytes) overrides the size, e.g. to check a fix with a
//! smaller margin; 0 runs inputs on libFuzzer's own thread (8 MiB stack), to
//! measure what the hand-over costs or to debug.
//!
//! A libFuzzer binary's `main` is libFuzzer's, so Rust's runtime never installs
//! its stack-overflow handler, and libFuzzer's SIGSEGV handler has no signal
//! stack: an overflow would kill the process without a word or a saved input.
//! The worker therefore gets an alternate signal stack and a SIGSEGV handler
//! (`overflow`) that names the overflow and hands over to libFuzzer's handler,
//! which saves the input as a crash.
//!
//! Hangs are measured in the worker's CPU time, not in wall time: on a machine
//! shared with builds, a fuzzer at nice 19 can wait tens of seconds for a core,
//! and libFuzzer's wall-clock `-timeout` then blames an innocent input. An
//! input that keeps the worker busy for `TURNSTILE_FUZZ_CPU_S` seconds (default
//! 5) aborts the process with a message; libFuzzer saves it as a crash.

use std::os::unix::thread::JoinHandleExt;
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use turnstile_engine::{SqlError, Value};
use turnstile_sql::expr::Env;
use turnstile_sqlite::ddl::{self, Ddl};
use turnstile_sqlite::rewrite::Resolver;
use turnstile_sqlite::schema::TableDef;

/// The server's default `thread_stack` (crates/server/src/config.rs).
pub const SERVER_STACK_BYTES: usize = 256 * 1024;
/// CPU seconds one input may take before it counts as a hang.
const DEFAULT_CPU_LIMIT_S: f64 = 5.0;
/// How often the waiting thread looks at the worker's CPU time.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);

type Job = (fn(&[u8]), Vec<u8>);

struct Runner {
    jobs: SyncSender<Job>,
    done: Receiver<()>,
    /// The worker thread's CPU-time clock.
    cpu_clock: libc::clockid_t,
}

fn cpu_limit_s() -> f64 {
    static LIMIT: OnceLock<f64> = OnceLock::new();
    *LIMIT.get_or_init(|| std::env::var("TURNSTILE_FUZZ_CPU_S").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_CPU_LIMIT_S))
}

fn cpu_seconds(clock: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime on the worker's CPU clock");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn stack_bytes() -> usize {
    static STACK: OnceLock<usize> = OnceLock::new();
    *STACK.get_or_init(|| std::env::var("TURNSTILE_FUZZ_STACK").ok().and_then(|s| s.parse().ok()).unwrap_or(SERVER_STACK_BYTES))
}

fn runner() -> &'static Mutex<Runner> {
    static RUNNER: OnceLock<Mutex<Runner>> = OnceLock::new();
    RUNNER.get_or_init(|| {
        let stack = stack_bytes();
        let (jobs, job_rx) = sync_channel::<Job>(0);
        let (done_tx, done) = sync_channel::<()>(0);
        let worker = std::thread::Builder::new()
            .name("fuzz-server-stack".into())
            .stack_size(stack)
            .spawn(move || {
                overflow::install_on_this_thread();
                // A panic here runs libfuzzer-sys's panic hook, which aborts the
                // process: libFuzzer reports it as a crash and saves the input.
                for (f, data) in job_rx {
                    f(&data);
                    if done_tx.send(()).is_err() {
                        return;
                    }
                }
            })
            .expect("spawn the fuzz worker thread");
        let mut cpu_clock: libc::clockid_t = 0;
        // SAFETY: the thread is alive (it never returns while `jobs` exists).
        let rc = unsafe { libc::pthread_getcpuclockid(worker.as_pthread_t(), &mut cpu_clock) };
        assert_eq!(rc, 0, "pthread_getcpuclockid");
        Mutex::new(Runner { jobs, done, cpu_clock })
    })
}

/// Run `f(data)` on the thread with the server's stack size and wait for it.
pub fn on_server_stack(data: &[u8], f: fn(&[u8])) {
    if stack_bytes() == 0 {
        return f(data);
    }
    let r = runner().lock().unwrap_or_else(|e| e.into_inner());
    r.jobs.send((f, data.to_vec())).expect("fuzz worker thread is gone");
    let start_s = cpu_seconds(r.cpu_clock);
    loop {
        match r.done.recv_timeout(WATCH_INTERVAL) {
            Ok(()) => return,
            Err(RecvTimeoutError::Timeout) => {
                let used_s = cpu_seconds(r.cpu_clock) - start_s;
                if used_s > cpu_limit_s() {
                    eprintln!("\n==turnstile-fuzz== hang: this input has used {used_s:.1} s of CPU (TURNSTILE_FUZZ_CPU_S)");
                    std::process::abort();
                }
            }
            Err(RecvTimeoutError::Disconnected) => panic!("fuzz worker thread is gone"),
        }
    }
}

/// SQL text as the server sees it: COM_STMT_PREPARE decodes lossily, so every
/// input is a text (COM_QUERY refuses invalid UTF-8 before lexing).
pub fn sql_text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// An `Env` like a session's, with fixed answers: two known system variables,
/// every user variable 5, DATABASE()/USER()/CONNECTION_ID() as session
/// functions, and KILL QUERY arriving after a while (so BENCHMARK(n, ...)
/// stops as it does on the server when someone kills it).
pub struct StubEnv {
    /// Bare words are values (SET x = ON) rather than columns (SELECT x).
    pub words_are_values: bool,
    interrupt_checks: std::cell::Cell<u32>,
}

/// `Env::interrupted` calls (BENCHMARK checks once per 4096 rounds) before the
/// stub reports a KILL QUERY.
const INTERRUPT_AFTER_CHECKS: u32 = 64;

impl StubEnv {
    pub fn new(words_are_values: bool) -> StubEnv {
        StubEnv { words_are_values, interrupt_checks: std::cell::Cell::new(0) }
    }
}

impl Env for StubEnv {
    fn sys_var(&self, _scope: Option<&str>, name: &str) -> Result<Value, SqlError> {
        match name {
            "version_comment" => Ok(Value::str("turnstile")),
            "sql_mode" => Ok(Value::str("STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION")),
            "max_allowed_packet" => Ok(Value::Int(64 << 20)),
            "autocommit" => Ok(Value::Int(1)),
            _ => Err(SqlError::new(1193, "HY000", format!("Unknown system variable '{}'", name))),
        }
    }
    fn user_var(&self, _name: &str) -> Value {
        Value::Int(5)
    }
    fn session_function(&mut self, name: &str, _args: &[Value]) -> Option<Result<Value, SqlError>> {
        match name {
            "DATABASE" | "SCHEMA" => Some(Ok(Value::str("fz"))),
            "USER" | "CURRENT_USER" | "SESSION_USER" | "SYSTEM_USER" => Some(Ok(Value::str("root@localhost"))),
            "CONNECTION_ID" => Some(Ok(Value::UInt(7))),
            "VERSION" => Some(Ok(Value::str(turnstile_sql::SERVER_VERSION))),
            _ => None,
        }
    }
    fn word(&self, word: &str) -> Result<Value, SqlError> {
        if self.words_are_values {
            Ok(Value::str(word))
        } else {
            Err(SqlError::unknown_column(word, "field list"))
        }
    }
    fn param(&self, i: usize) -> Value {
        match i % 3 {
            0 => Value::Int(i as i64),
            1 => Value::str("p"),
            _ => Value::Null,
        }
    }
    fn interruption(&self) -> Option<SqlError> {
        let n = self.interrupt_checks.get() + 1;
        self.interrupt_checks.set(n);
        (n > INTERRUPT_AFTER_CHECKS).then(SqlError::query_interrupted)
    }
}

/// A schema of two databases (`fz`, current, and `other`), the sysbench table
/// `sbtest1`, a table `t` of assorted types with a unique key, and a temporary
/// table `tmp1`.
pub struct StubSchema {
    tables: Vec<Arc<TableDef>>,
}

const SCHEMA_DDL: [&str; 3] = [
    "CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', \
     pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k))",
    "CREATE TABLE t (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(20) UNIQUE, d DATETIME(3), \
     x DECIMAL(10,2), e ENUM('x','y'), j JSON, bl BLOB, f DOUBLE, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, \
     u BIGINT UNSIGNED)",
    "CREATE TEMPORARY TABLE tmp1 (id INT PRIMARY KEY, v TEXT)",
];

impl StubSchema {
    pub fn new() -> StubSchema {
        let tables = SCHEMA_DDL
            .iter()
            .map(|sql| match ddl::parse(sql) {
                Ok(Some(Ddl::CreateTable { def, .. })) => Arc::new(*def),
                other => panic!("stub schema DDL did not parse: {sql}: {other:?}"),
            })
            .collect();
        StubSchema { tables }
    }
}

impl Default for StubSchema {
    fn default() -> Self {
        StubSchema::new()
    }
}

impl Resolver for StubSchema {
    fn home(&self) -> Option<&str> {
        Some("fz")
    }
    fn is_database(&self, name: &str) -> bool {
        matches!(name, "fz" | "other")
    }
    fn table(&self, db: Option<&str>, name: &str) -> Option<Arc<TableDef>> {
        if !matches!(db, None | Some("fz") | Some("other")) {
            return None;
        }
        self.tables.iter().find(|t| t.name == name).cloned()
    }
    fn is_temp(&self, name: &str) -> bool {
        name == "tmp1"
    }
}

/// Reporting a stack overflow on the worker thread (see the module comment).
mod overflow {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;

    /// Alternate signal stack: room for libFuzzer's crash handler (it writes
    /// the input to a file and prints).
    const ALT_STACK_BYTES: usize = 256 * 1024;
    /// A fault this close below or above the stack's low end is an overflow:
    /// stack probes touch the guard page itself.
    const GUARD_SLACK_BYTES: usize = 64 * 1024;

    static STACK_LOW: AtomicUsize = AtomicUsize::new(0);
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    pub fn install_on_this_thread() {
        // SAFETY: plain libc calls on memory this function owns; the alternate
        // stack is leaked on purpose (the thread lives as long as the process).
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            assert_eq!(libc::pthread_getattr_np(libc::pthread_self(), &mut attr), 0);
            let (mut addr, mut size) = (std::ptr::null_mut(), 0usize);
            assert_eq!(libc::pthread_attr_getstack(&attr, &mut addr, &mut size), 0);
            libc::pthread_attr_destroy(&mut attr);
            STACK_LOW.store(addr as usize, Ordering::Relaxed);

            let alt = Box::leak(vec![0u8; ALT_STACK_BYTES].into_boxed_slice());
            let ss = libc::stack_t { ss_sp: alt.as_mut_ptr().cast(), ss_flags: 0, ss_size: alt.len() };
            assert_eq!(libc::sigaltstack(&ss, std::ptr::null_mut()), 0);

            let mut old: libc::sigaction = std::mem::zeroed();
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_segv as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            assert_eq!(libc::sigaction(libc::SIGSEGV, &new, &mut old), 0);
            let _ = PREVIOUS.set(old);
        }
    }

    extern "C" fn on_segv(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: async-signal-safe calls only (write, sigaction, a call of the
        // handler that was installed before ours).
        unsafe {
            let low = STACK_LOW.load(Ordering::Relaxed);
            let addr = (*info).si_addr() as usize;
            if low != 0 && addr.abs_diff(low) <= GUARD_SLACK_BYTES {
                let msg = b"\n==turnstile-fuzz== stack overflow: this input needs more than the server's thread_stack (TURNSTILE_FUZZ_STACK)\n";
                libc::write(2, msg.as_ptr().cast(), msg.len());
            }
            match PREVIOUS.get() {
                Some(prev) if prev.sa_flags & libc::SA_SIGINFO != 0 && prev.sa_sigaction > 1 => {
                    let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(prev.sa_sigaction);
                    handler(sig, info, ctx);
                }
                Some(prev) => {
                    libc::sigaction(libc::SIGSEGV, prev, std::ptr::null_mut());
                }
                None => {
                    libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                }
            }
        }
    }
}
