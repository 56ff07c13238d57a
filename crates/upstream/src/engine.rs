//! The upstream engine as the server's `Engine`: what the server asks of
//! its engine outside a session's statements (the databases there are, at
//! shutdown). Sessions never run statements through `EngineSession` here:
//! the server hands their packets to `proxy::Proxy`, which passes them to
//! the backend as they came.

use crate::Upstream;
use std::sync::Arc;
use turnstile_engine::{EngineSession, SqlError};

pub struct UpstreamEngine(pub Arc<Upstream>);

fn runs_on_backend() -> SqlError {
    SqlError::unsupported("this through Turnstile's own SQL front: the upstream engine passes every statement to its backend")
}

impl turnstile_engine::Engine for UpstreamEngine {
    fn name(&self) -> &'static str {
        "upstream"
    }

    fn list_databases(&self) -> Vec<String> {
        match self.0.monitor_rows("SHOW DATABASES") {
            Ok(rows) => rows.into_iter().filter_map(|r| r.into_iter().next().flatten()).filter(|d| !matches!(d.as_str(), "information_schema" | "performance_schema" | "mysql" | "sys")).collect(),
            Err(_) => Vec::new(),
        }
    }

    fn database_exists(&self, name: &str) -> bool {
        self.list_databases().iter().any(|d| d == name)
    }

    fn create_database(&self, _name: &str, _if_not_exists: bool) -> Result<bool, SqlError> {
        Err(runs_on_backend())
    }

    fn drop_database(&self, _name: &str, _if_exists: bool) -> Result<Option<u64>, SqlError> {
        Err(runs_on_backend())
    }

    fn open_session(&self) -> Result<Box<dyn EngineSession>, SqlError> {
        Err(runs_on_backend())
    }

    fn shutdown(&self) {
        self.0.stop();
    }
}
