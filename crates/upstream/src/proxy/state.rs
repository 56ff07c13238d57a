//! A session's state on borrowed connections: bringing a connection to it
//! before a command (`sync`: one batched SET for the variables that differ,
//! COM_SET_OPTION for multi-statements, COM_INIT_DB or COM_CHANGE_USER for
//! the schema, each only where it differs) and learning from an answer what
//! the command changed and what it pinned (`learn`: the session-state
//! tracker's variables and schema, the statement's shape, the transaction
//! state).

use super::{Io, Proxy};
use crate::backend::{Backend, BackendError};
use crate::classify::{pin, Shape};
use crate::forward::Forward;
use std::sync::atomic::Ordering;
use turnstile_wire::consts::com;

/// A variable value as SQL: numbers bare, other text quoted.
fn sql_value(v: &str) -> String {
    if !v.is_empty() && v.parse::<f64>().is_ok() && !v.contains(['e', 'E', 'x', 'X', 'i', 'I', 'n', 'N']) {
        return v.to_string();
    }
    if v.contains('\\') || v.contains('\0') {
        let hex: String = v.bytes().map(|b| format!("{:02X}", b)).collect();
        return format!("X'{}'", hex);
    }
    format!("'{}'", v.replace('\'', "''"))
}

/// Variables Turnstile keeps for itself, never copied between connections.
fn not_synced(name: &str) -> bool {
    name.starts_with("session_track_") || name.starts_with("rand_seed") || matches!(name, "last_insert_id" | "insert_id" | "identity" | "sql_log_bin" | "profiling")
}

impl Proxy {
    /// Bring `b` to the session's state.
    pub(super) fn sync(&mut self, b: &mut Backend, shape: Option<&Shape>, io: &Io<'_, '_>, want_schema: bool) -> Result<(), BackendError> {
        let mut sets: Vec<(String, String)> = Vec::new();
        for (k, v) in &self.vars {
            if b.held.vars.get(k) != Some(v) {
                sets.push((k.clone(), sql_value(v)));
            }
        }
        for k in b.held.vars.keys() {
            if !self.vars.contains_key(k) {
                sets.push((k.clone(), "DEFAULT".to_string()));
            }
        }
        if shape.is_some_and(|s| s.reads_last_insert_id) && b.held.last_insert_id != Some(self.last_insert_id) {
            sets.push(("last_insert_id".to_string(), self.last_insert_id.to_string()));
        }
        if !sets.is_empty() {
            // character_set_connection resets collation_connection: collations last.
            sets.sort_by_key(|(k, _)| (k.starts_with("collation"), k.clone()));
            let sql = format!("SET SESSION {}", sets.iter().map(|(k, v)| format!("{}={}", k, v)).collect::<Vec<_>>().join(", "));
            b.simple_command(com::QUERY, sql.as_bytes())?;
            self.up.counters.sync_sets.fetch_add(1, Ordering::Relaxed);
            b.held.vars = self.vars.clone();
            if shape.is_some_and(|s| s.reads_last_insert_id) {
                b.held.last_insert_id = Some(self.last_insert_id);
            }
        }
        if b.held.multi_statements != io.multi_statements {
            let option: u16 = if io.multi_statements { 0 } else { 1 };
            b.simple_command(com::SET_OPTION, &option.to_le_bytes())?;
            b.held.multi_statements = io.multi_statements;
        }
        if want_schema && b.held.schema != self.schema {
            match &self.schema {
                Some(db) => {
                    b.simple_command(com::INIT_DB, db.as_bytes())?;
                    self.up.counters.sync_init_db.fetch_add(1, Ordering::Relaxed);
                }
                None => {
                    // No schema can only be had by logging in again.
                    let login = self.login.clone();
                    b.change_user(&login)?;
                    crate::track_session(b)?;
                    self.up.writer().counters.change_user.fetch_add(1, Ordering::Relaxed);
                    return self.sync(b, shape, io, false);
                }
            }
            b.held.schema.clone_from(&self.schema);
        }
        Ok(())
    }

    /// MariaDB reports SET NAMES ... COLLATE as the three character_set_*
    /// variables only; the collation it set is asked for, so another
    /// connection gets it too.
    pub(super) fn complete_collation(b: &mut Backend, fwd: &mut Forward) -> Result<(), BackendError> {
        let vars = &fwd.outcome.vars;
        if !vars.iter().any(|(n, _)| n == "character_set_connection") || vars.iter().any(|(n, _)| n == "collation_connection") {
            return Ok(());
        }
        let (_, rows) = b.query_rows("SELECT @@collation_connection")?;
        if let Some(Some(c)) = rows.into_iter().next().and_then(|r| r.into_iter().next()) {
            fwd.outcome.vars.push(("collation_connection".to_string(), c));
        }
        Ok(())
    }

    /// Learn what the answer changed and what the statement pinned.
    pub(super) fn learn(&mut self, b: &mut Backend, fwd: &Forward, shape: Option<&Shape>) {
        let o = &fwd.outcome;
        let mut pins = self.pins;
        for (name, value) in &o.vars {
            if name.starts_with("session_track_") || name == "insert_id" || name.starts_with("rand_seed") {
                // rand_seed1/2 have no DEFAULT to bring another connection back with.
                pins |= pin::STATE_CHANGE;
                b.dirty = true;
                continue;
            }
            if name == "profiling" {
                // The connection's profiling history (SHOW PROFILES) would
                // show this session's statements to the next one, whoever
                // it logs in as: the connection is kept, then closed.
                pins |= pin::STATE_CHANGE;
                b.discard = true;
                continue;
            }
            if name == "sql_log_bin" {
                pins |= pin::SQL_LOG_BIN;
                continue;
            }
            if name == "last_insert_id" || name == "identity" {
                if let Ok(v) = value.parse() {
                    self.last_insert_id = v;
                    b.held.last_insert_id = Some(v);
                }
                continue;
            }
            debug_assert!(!not_synced(name));
            b.held.vars.insert(name.clone(), value.clone());
            self.vars.insert(name.clone(), value.clone());
        }
        if let Some(s) = &o.schema {
            let s = (!s.is_empty()).then(|| s.clone());
            if let Some(db) = &s {
                self.up.proofs.record(&self.login.user, db);
            }
            self.schema.clone_from(&s);
            b.held.schema = s;
        }
        if let Some(id) = o.last_insert_id {
            self.last_insert_id = id;
            b.held.last_insert_id = Some(id);
        }
        if let Some(shape) = shape {
            if o.succeeded {
                pins |= shape.pins;
            }
            if shape.unlocks_tables && o.error.is_none() {
                pins &= !pin::LOCK_TABLES;
            }
            let explained = !o.vars.is_empty() || o.schema.is_some() || shape.pins != 0 || shape.unlocks_tables;
            if o.state_changed && !explained {
                pins |= pin::STATE_CHANGE;
            }
        }
        match &o.characteristics {
            Some(c) if !c.is_empty() => pins |= pin::TRANSACTION_CHARACTERISTICS,
            Some(_) => pins &= !pin::TRANSACTION_CHARACTERISTICS,
            None => {}
        }
        if let Some(last) = &o.last {
            if last.in_transaction() {
                // START TRANSACTION's own characteristics are the transaction's.
                pins = (pins | pin::TRANSACTION) & !pin::TRANSACTION_CHARACTERISTICS;
            } else {
                pins &= !pin::TRANSACTION;
            }
        }
        pins = if self.cursors.is_empty() { pins & !pin::CURSOR } else { pins | pin::CURSOR };
        if pins & !(pin::TRANSACTION | pin::LOCK_TABLES | pin::CURSOR) != 0 {
            // Held state that only a reset removes.
            b.dirty = true;
        }
        self.last_rows = o.rows;
        if o.error.is_some() || o.ended_with_rows {
            self.row_count = -1;
        } else if let Some(ok) = &o.last {
            self.row_count = ok.affected_rows as i64;
        }
        self.set_pins(pins);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_written_as_sql() {
        assert_eq!(sql_value("28800"), "28800");
        assert_eq!(sql_value("0.5"), "0.5");
        assert_eq!(sql_value("ANSI_QUOTES,STRICT_ALL_TABLES"), "'ANSI_QUOTES,STRICT_ALL_TABLES'");
        assert_eq!(sql_value("it's"), "'it''s'");
        assert_eq!(sql_value("a\\b"), "X'615C62'");
        assert_eq!(sql_value(""), "''");
        assert_eq!(sql_value("inf"), "'inf'");
        assert_eq!(sql_value("+00:00"), "'+00:00'");
    }
}
