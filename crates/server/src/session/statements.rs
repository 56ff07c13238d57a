//! Running COM_QUERY: one statement or several (CLIENT_MULTI_STATEMENTS), each
//! through the SQL front into a `WireSink`, with panics caught per command; and
//! a result set paused because the client is slow to read (pool scheduler),
//! resumed when the socket drains.

use super::result_sink::{set_row_format, WireSink};
use super::{Flow, Flush, Session};
use std::sync::atomic::Ordering;
use turnstile_engine::{Column, ExecContext, Outcome, RowSink, SqlError, Value};
use turnstile_sql::front::{self, Call};
use turnstile_wire::consts::status;
use turnstile_wire::response::{encode_eof, encode_ok};

/// What happens after one statement.
pub(super) enum Step {
    Next,
    Stop,
    Paused,
    Close,
}

/// A result set waiting for the client to read, and what follows it.
pub(super) struct PausedResult {
    /// The text of the statements after it (multi-statements), not yet split.
    pub(super) rest: String,
    pub(super) binary: bool,
}

/// Does `rest` (what follows a statement) hold another statement? Only
/// blanks and `;` are none, as `lex::next_statement` skips them.
fn more_statements(rest: &str) -> bool {
    rest.bytes().any(|c| !c.is_ascii_whitespace() && c != b';')
}

impl Session {
    /// COM_QUERY, possibly several statements.
    pub(super) fn run_query(&mut self, sql: &str, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        if self.multi_statements && sql.contains(';') {
            let _lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
            match turnstile_sqltext::lex::next_statement(sql) {
                Some((first, rest)) => self.run_statements(first, rest.to_string(), out, flush),
                None => self.run_statements(sql, String::new(), out, flush),
            }
        } else {
            // The common case: one statement, run from the packet without a copy.
            self.run_statements(sql, String::new(), out, flush)
        }
    }

    /// Run `first`, then the statements of `rest`, in order until one fails
    /// or pauses. Each statement after the first is split from `rest` only
    /// when its turn comes, by the sql_mode the ones before it left
    /// (NO_BACKSLASH_ESCAPES decides where its strings end), as MariaDB reads them.
    pub(super) fn run_statements(&mut self, first: &str, mut rest: String, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
        let mut owned;
        let mut stmt: &str = first;
        loop {
            if self.server.config.statistics {
                self.server.stats.questions.inc();
            }
            self.statement_start(stmt);
            match self.start_local_infile(stmt, &rest, out) {
                // Waiting for the client's file (`infile.rs`).
                Some(Step::Paused) => return Flow::Continue,
                Some(_) => break,
                None => {}
            }
            let more = more_statements(&rest);
            let result = self.run_statement(stmt, &[], false, &[], false, out, flush);
            lexing.set(self.no_backslash_escapes());
            match self.finish_statement(result, more, out) {
                Step::Next => {}
                Step::Stop => break,
                Step::Paused => {
                    self.paused = Some(PausedResult { rest, binary: false });
                    return Flow::Paused;
                }
                Step::Close => {
                    self.end_command();
                    return Flow::Close;
                }
            }
            match turnstile_sqltext::lex::next_statement(&rest) {
                Some((next, after)) => {
                    owned = next.to_string();
                    rest = after.to_string();
                    stmt = &owned;
                }
                None => break,
            }
        }
        self.end_command();
        Flow::Continue
    }

    /// Continue a paused result set once the client has read some output.
    pub fn resume(&mut self, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        if self.upstream.is_some() {
            return self.guarded(out, |s, out| s.resume_upstream(out, flush));
        }
        self.guarded(out, |s, out| s.resume_inner(out, flush))
    }

    /// Run a command with panics caught: a bug anywhere in the front or the
    /// session (the engine catches its own) ends this connection with ERR
    /// 1105, not the worker thread serving it and every other connection
    /// queued on it. The panic hook (`panics.rs`) logs it once, briefly.
    pub(super) fn guarded(&mut self, out: &mut Vec<u8>, f: impl FnOnce(&mut Session, &mut Vec<u8>) -> Flow) -> Flow {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self, out))) {
            Ok(flow) => flow,
            Err(_) => {
                out.clear();
                self.seq = 1;
                self.paused = None;
                self.send_err(out, &SqlError::internal("internal error; the connection is closed"));
                Flow::Close
            }
        }
    }

    pub(super) fn resume_inner(&mut self, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let Some(p) = self.paused.take() else { return Flow::Continue };
        let result = {
            let deprecate_eof = self.deprecate_eof();
            let engine = self.engine.as_mut().expect("authenticated");
            // The paused result's row format (its column types) carries on.
            let format = std::mem::take(&mut self.row_format);
            let mut sink = WireSink::new(out, &mut self.seq, deprecate_eof, p.binary, format, flush, 0, self.pausable);
            sink.sent_columns = true;
            let warnings = turnstile_engine::Warnings::default();
            let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe, &warnings).with_deadline(self.sql.deadline_ms, self.sql.deadline_kind);
            let r = engine.resume(&ctx, &mut sink);
            // What the rows just sent assigned (`SELECT @n := @n + 1 FROM t`).
            turnstile_sql::front::take_user_variables(&mut self.sql, engine.as_mut());
            let r = if sink.io_error.is_some() { Err(None) } else { r.map_err(Some) };
            self.row_format = std::mem::take(&mut sink.format);
            self.watch.rows_sent += sink.rows;
            (r, true)
        };
        let more = more_statements(&p.rest);
        match self.finish_statement(result, more, out) {
            Step::Paused => {
                self.paused = Some(p);
                Flow::Paused
            }
            Step::Close => {
                self.end_command();
                Flow::Close
            }
            Step::Stop => {
                self.end_command();
                Flow::Continue
            }
            Step::Next => {
                let _lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
                match turnstile_sqltext::lex::next_statement(&p.rest) {
                    Some((next, after)) if !p.binary => {
                        let (next, after) = (next.to_string(), after.to_string());
                        self.run_statements(&next, after, out, flush)
                    }
                    _ => {
                        self.end_command();
                        Flow::Continue
                    }
                }
            }
        }
    }

    /// Drop a paused result (client gone or killed).
    pub fn cancel_paused(&mut self) {
        self.cancel_upstream();
        if self.paused.take().is_some() {
            if let Some(e) = self.engine.as_mut() {
                e.cancel_paused();
            }
            // Its rows were not all sent: the client went away or it was killed.
            self.statement_end(Some(2013), 0, 0);
            self.end_command();
        }
    }

    /// Write the end of one statement's response; decide what happens next.
    pub(super) fn finish_statement(&mut self, result: (Result<Outcome, Option<SqlError>>, bool), more: bool, out: &mut Vec<u8>) -> Step {
        let (result, sent_columns) = result;
        if self.sql.kill_self || self.handle.kill_connection.load(Ordering::Relaxed) {
            self.sql.kill_self = false;
            if let Some(e) = self.engine.as_mut() {
                e.cancel_paused();
            }
            out.clear();
            self.seq = 1;
            self.statement_end(Some(1317), 0, 0);
            self.send_err(out, &SqlError::query_interrupted());
            return Step::Close;
        }
        let st = self.status_flags() | if more { status::MORE_RESULTS_EXISTS } else { 0 };
        match &result {
            Ok(Outcome::Paused) => {}
            Ok(Outcome::Done(d)) => self.statement_end(None, d.affected_rows, d.warnings as u64),
            Ok(Outcome::Rows) => self.statement_end(None, 0, self.sql.statement_warnings as u64),
            Err(Some(e)) => self.statement_end(Some(e.code), 0, 0),
            Err(None) => self.statement_end(Some(2013), 0, 0),
        }
        match result {
            Err(None) => Step::Close,
            Ok(Outcome::Paused) => Step::Paused,
            Ok(Outcome::Rows) => {
                let warnings = self.sql.statement_warnings;
                if !sent_columns {
                    // An engine that streamed nothing still owes a well-formed reply.
                    self.send_ok(out, 0, 0, warnings, more);
                } else if self.deprecate_eof() {
                    self.packet(out, |o| encode_ok(o, 0xfe, 0, 0, st, warnings, ""));
                } else {
                    self.packet(out, |o| encode_eof(o, warnings, st));
                }
                Step::Next
            }
            Ok(Outcome::Done(d)) => {
                self.send_ok_info(out, d.affected_rows, d.last_insert_id, d.warnings, &d.info, more);
                Step::Next
            }
            Err(Some(e)) => {
                self.send_err(out, &e);
                Step::Stop
            }
        }
    }

    /// Run one statement into `sink` (a cursor's), not onto the wire.
    pub(super) fn run_into(&mut self, sql: &str, params: &[Value], direct: bool, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        let engine = self.engine.as_mut().expect("authenticated");
        let warnings = turnstile_engine::Warnings::default();
        let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe, &warnings);
        let mut call = Call { sess: &mut self.sql, engine: engine.as_mut(), ops: &*self.server, ctx: &ctx, params };
        if direct {
            front::execute_direct(&mut call, sql, sink)
        } else {
            front::execute(&mut call, sql, sink)
        }
    }

    /// Run one statement, streaming its rows. `direct`: a prepared statement's
    /// `front::is_direct_engine`. `Err(None)` means the socket failed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_statement(
        &mut self,
        sql: &str,
        params: &[Value],
        binary: bool,
        columns: &[Column],
        direct: bool,
        out: &mut Vec<u8>,
        flush: &mut Flush<'_>,
    ) -> (Result<Outcome, Option<SqlError>>, bool) {
        let deprecate_eof = self.deprecate_eof();
        let status_before = self.status_flags();
        let engine = self.engine.as_mut().expect("authenticated");
        // A prepared statement's known columns set the format up front; the
        // engine's column definitions (if it sends them) set it again.
        let mut format = std::mem::take(&mut self.row_format);
        set_row_format(&mut format, binary, columns);
        let mut sink = WireSink::new(out, &mut self.seq, deprecate_eof, binary, format, flush, status_before, self.pausable);
        let warnings = turnstile_engine::Warnings::default();
        let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe, &warnings);
        let mut call = Call { sess: &mut self.sql, engine: engine.as_mut(), ops: &*self.server, ctx: &ctx, params };
        let result = if direct { front::execute_direct(&mut call, sql, &mut sink) } else { front::execute(&mut call, sql, &mut sink) };
        let sent_columns = sink.sent_columns;
        self.row_format = std::mem::take(&mut sink.format);
        self.watch.rows_sent += sink.rows;
        if sink.io_error.is_some() {
            return (Err(None), sent_columns);
        }
        (result.map_err(Some), sent_columns)
    }
}
