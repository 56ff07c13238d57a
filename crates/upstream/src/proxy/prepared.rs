//! Binary-protocol prepared statements through the upstream engine: the
//! session's statements get session-level ids, and each is prepared on a
//! backend connection when it first runs there (connections keep up to
//! `upstream_max_prepared_per_connection` by text, shared by all sessions).
//! Parameter types a client sent once are added to a later execute that
//! omits them; long data is kept until the execute, bounded by
//! max_allowed_packet.
//!
//! Cursors (COM_STMT_EXECUTE with a cursor type, then COM_STMT_FETCH): a
//! cursor lives on the backend connection that opened it, so the session
//! keeps that connection (`pin::CURSOR`) until every cursor it opened is
//! exhausted (LAST_ROW_SENT), closed or reset. A cursor dropped before its
//! last row leaves the connection to be reset before another session uses
//! it.

use super::{lost, Io, Kind, Proxy, Queued, Start, Step};
use crate::backend::{err_parts, Backend, BackendError};
use crate::classify::{pin, Shape};
use crate::forward::{prepare_ok, Forward};
use turnstile_engine::SqlError;
use turnstile_wire::buf::put_u32;
use turnstile_wire::consts::{com, status};

pub(super) struct PStmt {
    sql: String,
    params: u16,
    shape: Shape,
    /// Parameter types the client last sent (a later execute may omit them).
    types: Option<Vec<u8>>,
    long_data: Vec<(u16, Vec<u8>)>,
    long_bytes: usize,
    /// More long data came than max_allowed_packet: the next execute fails.
    long_over: bool,
}

pub(super) struct Exec {
    sql: String,
    body: Vec<u8>,
    long: Vec<(u16, Vec<u8>)>,
    cap: usize,
    /// Executed with a cursor type: the statement's session id.
    cursor: Option<u32>,
}

/// COM_STMT_EXECUTE's flags: CURSOR_TYPE_READ_ONLY and the other cursor types.
const CURSOR_TYPES: u8 = 0x07;

/// `b` keeps the statement `sql` prepared as `stmt` (backend id, parameter
/// count): one it had under the same text is closed, and past `cap` others
/// are (COM_STMT_CLOSE: no answer is read).
fn keep_on(b: &mut Backend, sql: &str, stmt: (u32, u16), cap: usize) -> Result<(), BackendError> {
    let mut closing = Vec::new();
    if let Some((old, _)) = b.held.stmts.insert(sql.to_string(), stmt) {
        if old != stmt.0 {
            closing.push(old);
        }
    }
    while b.held.stmts.len() > cap {
        let Some(other) = b.held.stmts.keys().find(|k| k.as_str() != sql).cloned() else { break };
        closing.push(b.held.stmts.remove(&other).expect("present").0);
    }
    closing.into_iter().try_for_each(|id| b.close_statement(id).map_err(BackendError::from))
}

impl Proxy {
    /// COM_STMT_PREPARE: run on a borrowed connection like any command (so
    /// under the pool no thread waits for the answer); the answer goes to
    /// the client under a session-level id (`note_prepared`).
    pub fn prepare(&mut self, sql: &[u8], out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        let id = self.next_stmt_id;
        self.next_stmt_id = self.next_stmt_id.wrapping_add(1).max(1);
        let mut payload = Vec::with_capacity(sql.len() + 1);
        payload.push(com::STMT_PREPARE);
        payload.extend_from_slice(sql);
        self.run(&payload, None, out, io, Kind::Prepare(id))
    }

    /// A COM_STMT_PREPARE's answer is in: the connection keeps the
    /// statement by text (a statement prepared again under the same text
    /// replaces the old one; past `upstream_max_prepared_per_connection`
    /// another is closed), and the session gets it under `id`.
    pub(super) fn note_prepared(&mut self, b: &mut Backend, id: u32, sql: String, shape: Shape, fwd: &Forward) {
        let Some((backend_id, params)) = fwd.outcome.prepared else { return };
        // A connection that died here is found so by the next command on it.
        let _ = keep_on(b, &sql, (backend_id, params), self.up.options.max_prepared_per_connection);
        self.stmts.insert(id, PStmt { sql, params, shape, types: None, long_data: Vec::new(), long_bytes: 0, long_over: false });
    }

    /// Prepare `sql` on `b` before an execute, unless it has it already
    /// (a blocking round trip: once per connection and statement text).
    /// Returns the backend's (id, parameter count), or the backend's error.
    fn prepare_on(b: &mut Backend, sql: &str, cap: usize) -> Result<(u32, u16), BackendError> {
        if let Some(x) = b.held.stmts.get(sql) {
            return Ok(*x);
        }
        b.send_command(com::STMT_PREPARE, sql.as_bytes())?;
        let (_, first) = b.read_packet()?;
        if first.first() == Some(&0xff) {
            let first = first.to_vec();
            let (code, message) = err_parts(&first);
            return Err(BackendError::Err { code, message, payload: first });
        }
        let (id, cols, params) = prepare_ok(first)?;
        // The definitions are not needed here (the client has them).
        for _ in 0..u32::from(params) + u32::from(cols) {
            b.read_packet()?;
        }
        keep_on(b, sql, (id, params), cap)?;
        Ok((id, params))
    }

    /// COM_STMT_SEND_LONG_DATA: kept until the execute (no answer), at most
    /// `max_bytes` (max_allowed_packet) per statement; past it the execute
    /// fails, as Turnstile's own engine does.
    pub fn long_data(&mut self, id: u32, param: u16, data: &[u8], max_bytes: usize) {
        let Some(st) = self.stmts.get_mut(&id) else { return };
        if st.long_over || param >= st.params {
            return;
        }
        if st.long_bytes + data.len() > max_bytes {
            st.long_over = true;
            st.long_data.clear();
            st.long_bytes = 0;
            return;
        }
        st.long_bytes += data.len();
        match st.long_data.iter_mut().find(|(p, _)| *p == param) {
            Some((_, d)) => d.extend_from_slice(data),
            None => st.long_data.push((param, data.to_vec())),
        }
    }

    pub fn close_statement(&mut self, id: u32) {
        self.drop_cursor(id);
        self.stmts.remove(&id);
    }

    /// COM_STMT_RESET: false when there is no such statement.
    pub fn reset_statement(&mut self, id: u32) -> bool {
        self.drop_cursor(id);
        match self.stmts.get_mut(&id) {
            Some(st) => {
                st.long_data.clear();
                st.long_bytes = 0;
                st.long_over = false;
                true
            }
            None => false,
        }
    }

    /// COM_STMT_EXECUTE: prepared on the borrowed connection if it has not
    /// been there yet, then run with the backend's id.
    pub fn execute(&mut self, payload: &[u8], out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        if payload.len() < 10 {
            Self::send_err(out, 1, &SqlError::new(1835, "HY000", "Malformed communication packet."));
            return Step::Done;
        }
        let id = u32::from_le_bytes([payload[1], payload[2], payload[3], payload[4]]);
        let Some(st) = self.stmts.get_mut(&id) else {
            Self::send_err(out, 1, &SqlError::unknown_stmt_handler(id, "mysqld_stmt_execute"));
            return Step::Done;
        };
        if std::mem::take(&mut st.long_over) {
            Self::send_err(out, 1, &SqlError::new(1105, "HY000", "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes"));
            return Step::Done;
        }
        // Keep the types a client sends once, for connections that did not see them.
        let mut body = payload[5..].to_vec();
        let n = st.params as usize;
        if n > 0 {
            let bound_at = 5 + n.div_ceil(8);
            match body.get(bound_at) {
                Some(1) => st.types = body.get(bound_at + 1..bound_at + 1 + 2 * n).map(<[u8]>::to_vec),
                Some(0) => {
                    if let Some(t) = &st.types {
                        body[bound_at] = 1;
                        body.splice(bound_at + 1..bound_at + 1, t.iter().copied());
                    }
                }
                _ => {}
            }
        }
        let sql = st.sql.clone();
        let shape = st.shape.clone();
        let long = std::mem::take(&mut st.long_data);
        st.long_bytes = 0;
        let cap = self.up.options.max_prepared_per_connection;
        // A new execute closes the statement's cursor on the backend.
        let cursor = (payload[5] & CURSOR_TYPES != 0).then_some(id);
        let exec = Exec { sql, body, long, cap, cursor };
        self.run_exec(exec, &shape, out, io, false)
    }

    pub(super) fn run_exec(&mut self, mut exec: Exec, shape: &Shape, out: &mut Vec<u8>, io: &mut Io<'_, '_>, first: bool) -> Step {
        // The packet is built on the connection (its own id): run it through
        // `start` with a payload made per connection.
        let (mut b, lent) = match self.borrow_or_queue(io, first) {
            Ok(Ok(x)) => x,
            Ok(Err(w)) => {
                self.queued = Some((w, Queued::Execute { exec, shape: shape.clone() }));
                return Step::Waiting;
            }
            Err(e) => {
                Self::send_err(out, 1, &e);
                return Step::Done;
            }
        };
        b.waits = io.waits.announces().then_some(io.waits);
        let prepared = self.sync(&mut b, Some(shape), io, true).and_then(|()| Self::prepare_on(&mut b, &exec.sql, exec.cap));
        let backend_id = match prepared {
            Ok((id, _)) => id,
            Err(BackendError::Err { payload, .. }) => {
                Self::send_backend_err(out, 1, &payload);
                self.settle(b);
                return Step::Done;
            }
            Err(_) => {
                self.broken(b);
                Self::send_err(out, 1, &lost());
                return Step::Done;
            }
        };
        for (param, data) in std::mem::take(&mut exec.long) {
            let mut p = vec![com::STMT_SEND_LONG_DATA];
            put_u32(&mut p, backend_id);
            p.extend_from_slice(&param.to_le_bytes());
            p.extend_from_slice(&data);
            if b.write_packet(0, &p).is_err() {
                self.broken(b);
                Self::send_err(out, 1, &lost());
                return Step::Done;
            }
        }
        let mut payload = Vec::with_capacity(exec.body.len() + 5);
        payload.push(com::STMT_EXECUTE);
        put_u32(&mut payload, backend_id);
        payload.extend_from_slice(&exec.body);
        // The connection goes back in as the session's own for this one command.
        self.conn = Some(b);
        let kind = exec.cursor.map_or(Kind::Plain, Kind::Cursor);
        self.start(&payload, Some(shape), out, io, kind, Start { retried: false, lent, first: false })
    }

    /// COM_STMT_FETCH: the next `rows` of the statement's open cursor, on
    /// the connection the session kept for it.
    pub fn fetch(&mut self, id: u32, rows: u32, out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        let Some(st) = self.stmts.get(&id) else {
            Self::send_err(out, 1, &SqlError::unknown_stmt_handler(id, "mysqld_stmt_fetch"));
            return Step::Done;
        };
        let backend_id = match (&self.conn, self.cursors.contains(&id)) {
            (Some(b), true) => b.held.stmts.get(&st.sql).map(|(bid, _)| *bid),
            _ => None,
        };
        let Some(backend_id) = backend_id else {
            Self::send_err(out, 1, &SqlError::new(1421, "HY000", format!("The statement ({}) has no open cursor", id)));
            return Step::Done;
        };
        let mut payload = Vec::with_capacity(9);
        payload.push(com::STMT_FETCH);
        put_u32(&mut payload, backend_id);
        put_u32(&mut payload, rows);
        self.run(&payload, None, out, io, Kind::Fetch(id))
    }

    /// After an execute with a cursor type or a fetch: is the statement's
    /// cursor open now? One dropped before its last row (an error) leaves
    /// the connection to be reset.
    pub(super) fn note_cursor(&mut self, b: &mut Backend, id: u32, fwd: &Forward) {
        let o = &fwd.outcome;
        let st = o.last.as_ref().map_or(0, |ok| ok.status);
        let open = o.error.is_none() && st & status::CURSOR_EXISTS != 0 && st & status::LAST_ROW_SENT == 0;
        let was = self.cursors.contains(&id);
        if open && !was {
            self.cursors.push(id);
        } else if !open && was {
            self.cursors.retain(|c| *c != id);
            if st & status::LAST_ROW_SENT == 0 {
                b.dirty = true;
            }
        }
    }

    /// COM_STMT_CLOSE or COM_STMT_RESET of a statement whose cursor is
    /// open: the cursor goes, and the connection with it once no cursor
    /// holds it (to be reset before another session uses it).
    fn drop_cursor(&mut self, id: u32) {
        if !self.cursors.contains(&id) {
            return;
        }
        self.cursors.retain(|c| *c != id);
        if let Some(b) = self.conn.as_mut() {
            b.dirty = true;
        }
        if self.cursors.is_empty() {
            self.set_pins(self.pins & !pin::CURSOR);
            if self.pins == 0 {
                if let Some(b) = self.conn.take() {
                    self.settle(b);
                }
            }
        }
    }
}
