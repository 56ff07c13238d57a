//! Which scheduler serves connections, chosen once from `thread_handling`.
//!
//! The server holds one `Scheduler` and knows nothing of how either one
//! waits: both serve a connection through the same `Driver` (driver.rs);
//! this file only starts them on the listeners and stops them.
//!
//! Admin-port connections always get a thread of their own (`ThreadCache`),
//! under either scheduler, so an administrator gets in even when every pool
//! worker is blocked.

use crate::config::ThreadHandling;
use crate::listener::Listeners;
use crate::per_thread::{DoorSocket, ThreadCache};
use crate::pool::{Pool, PoolSettings};
use crate::server::Server;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

pub enum Scheduler {
    /// Thread-per-connection on every listener.
    PerThread { cache: Arc<ThreadCache> },
    /// The pool on the client listeners; threads on the admin port.
    Pool { pool: Arc<Pool>, cache: Arc<ThreadCache> },
}

impl Scheduler {
    /// Start serving the listeners. If the pool cannot start, connections
    /// get a thread each (logged); if no thread can start, the server shuts down.
    pub fn start(server: &Arc<Server>, listeners: &Listeners) -> Scheduler {
        let cache = ThreadCache::new(server.clone());
        let scheduler = match server.config.thread_handling {
            ThreadHandling::PoolOfThreads => match Pool::start(server.clone(), pool_settings(server), listeners.client_fds()) {
                Ok(pool) => Scheduler::Pool { pool, cache },
                Err(e) => {
                    tracing::error!(error = %e, "cannot start the thread pool; using one-thread-per-connection");
                    Scheduler::PerThread { cache }
                }
            },
            ThreadHandling::OneThreadPerConnection => Scheduler::PerThread { cache },
        };
        let inherited = listeners.inherited;
        let doors = match &scheduler {
            Scheduler::Pool { cache, .. } => listeners.admin_door().and_then(|admin| cache.open(DoorSocket::Tcp(admin, inherited), true)),
            Scheduler::PerThread { cache } => listeners.doors().and_then(|(tcp, admin, unix)| {
                cache.open(DoorSocket::Tcp(tcp, inherited), false)?;
                cache.open(DoorSocket::Tcp(admin, inherited), true)?;
                if let Some(u) = unix {
                    cache.open(DoorSocket::Unix(u), false)?;
                }
                Ok(())
            }),
        };
        if let Err(e) = doors {
            tracing::error!(error = %e, "cannot start accepting threads; shutting down");
            server.shutting_down.store(true, Ordering::SeqCst);
        }
        scheduler
    }

    /// Shutdown, first step: accept nothing more (before the listeners close).
    pub fn stop_accepting(&self) {
        match self {
            Scheduler::Pool { pool, cache } => {
                pool.stop_accepting();
                cache.close();
            }
            Scheduler::PerThread { cache } => cache.close(),
        }
    }

    /// Shutdown, last step, after the sessions are gone: stop the workers.
    pub fn stop(self) {
        if let Scheduler::Pool { pool, .. } = self {
            pool.stop();
        }
    }
}

fn pool_settings(server: &Server) -> PoolSettings {
    let cfg = &server.config;
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    PoolSettings {
        size: if cfg.thread_pool_size == 0 { cpus } else { cfg.thread_pool_size },
        oversubscribe: cfg.thread_pool_oversubscribe,
        max_threads: cfg.thread_pool_max_threads,
        idle_timeout: Duration::from_secs(cfg.thread_pool_idle_timeout),
        stall_limit: Duration::from_millis(cfg.thread_pool_stall_limit),
        kickup: Duration::from_millis(cfg.thread_pool_prio_kickup_timer),
        stack: cfg.thread_stack,
        nice: cfg.thread_pool_nice,
    }
}
