//! LOAD DATA LOCAL INFILE as a state of the session, not a blocking read.
//!
//! The statement (`front::load_data`) is checked first (the table exists and
//! may be written); then the session sends the 0xFB request naming the file
//! and enters `Phase::LocalInfile`. Every packet the client sends from then
//! on is file data, appended as it arrives, until its empty packet ends the
//! file: then the rows are written (in one transaction) and the statement's
//! OK or ERR goes out, and any statements after it in the same COM_QUERY
//! run. Between packets the driver waits for input like for any other
//! packet, so under pool-of-threads a client that streams slowly holds no
//! worker; the wait is net_read_timeout (the driver's `wait_ms`), and when it
//! passes or the client goes away the data is dropped and nothing was
//! written.
//!
//! Limits: each packet is bounded by max_allowed_packet (the driver's
//! decoder), the whole file by load_data_max_bytes. Past it the bytes
//! already held are freed, later packets are read and dropped, and the
//! statement fails with ERR 1105 at the end of the file, so memory stays
//! bounded however long a client keeps sending.
//!
//! Allowed only when the client asked for it (CLIENT_LOCAL_FILES) and the
//! global local_infile is ON; otherwise the front answers 4166, as MariaDB.

use super::statements::Step;
use super::{Flow, Flush, Phase, Session};
use turnstile_engine::{ExecContext, Outcome, SqlError};
use turnstile_sql::front::load_data::{self, LoadSpec};
use turnstile_sql::front::Call;
use turnstile_wire::consts::cap;

/// A LOCAL file being received.
pub(super) struct Infile {
    /// The statement's text (for diagnostics) and what it says.
    sql: String,
    spec: LoadSpec,
    data: Vec<u8>,
    /// The file passed load_data_max_bytes: its bytes are dropped.
    over: bool,
    limit_bytes: u64,
    /// The statements after it in the same COM_QUERY.
    rest: String,
}

impl Session {
    /// May this session ask its client for a local file?
    pub(super) fn local_infile_allowed(&self) -> bool {
        self.caps & cap::LOCAL_FILES != 0 && self.server.globals.hot.local_infile.load(std::sync::atomic::Ordering::Relaxed) != 0
    }

    /// If `sql` is a LOAD DATA LOCAL this session may run: check it, send
    /// the file request (or the statement's error) and return the flow; None
    /// for every other statement (the front runs it, and answers 4166 to a
    /// LOCAL load it could not ask for).
    pub(super) fn start_local_infile(&mut self, sql: &str, rest: &str, out: &mut Vec<u8>) -> Option<Step> {
        if !load_data::is_load_data(sql) || !self.local_infile_allowed() {
            return None;
        }
        let spec = load_data::parse(sql).ok().filter(|s| s.local)?;
        let checked = self.with_call(|call| load_data::check_local(call, sql, &spec).map(|()| load_data::local_limit_bytes(call)));
        match checked {
            Ok(limit_bytes) => {
                let file = spec.file.clone();
                self.packet(out, |o| {
                    o.push(0xFB);
                    o.extend_from_slice(file.as_bytes());
                });
                self.infile = Some(Box::new(Infile { sql: sql.to_string(), spec, data: Vec::new(), over: false, limit_bytes, rest: rest.to_string() }));
                self.phase = Phase::LocalInfile;
                Some(Step::Paused)
            }
            Err(e) => {
                self.statement_end(Some(e.code), 0, 0);
                self.send_err(out, &e);
                Some(Step::Stop)
            }
        }
    }

    /// Run `f` with a `Call` of this session (as `run_statement` builds it).
    fn with_call<T>(&mut self, f: impl FnOnce(&mut Call<'_, '_>) -> T) -> T {
        let engine = self.engine.as_mut().expect("authenticated");
        let warnings = turnstile_engine::Warnings::default();
        let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe, &warnings);
        let mut call = Call { sess: &mut self.sql, engine: engine.as_mut(), ops: &*self.server, ctx: &ctx, params: &[] };
        f(&mut call)
    }

    /// One packet of the file; the empty one ends it.
    pub(super) fn on_infile_packet(&mut self, payload: &[u8], out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        if self.upstream.is_some() {
            return self.upstream_file_packet(payload, out, flush);
        }
        let Some(infile) = self.infile.as_mut() else {
            debug_assert!(false, "LocalInfile phase without a file");
            self.phase = Phase::Command;
            return Flow::Continue;
        };
        if !payload.is_empty() {
            if !infile.over && (infile.data.len() + payload.len()) as u64 <= infile.limit_bytes {
                infile.data.extend_from_slice(payload);
            } else {
                infile.over = true;
                infile.data = Vec::new();
            }
            return Flow::Continue;
        }
        let infile = self.infile.take().expect("checked above");
        self.phase = Phase::Command;
        let Infile { sql, spec, data, over, rest, .. } = *infile;
        let result = self.with_call(|call| load_data::load_local(call, &sql, &spec, &data, over));
        drop(data);
        let more = rest.bytes().any(|c| !c.is_ascii_whitespace() && c != b';');
        let result: Result<Outcome, Option<SqlError>> = result.map_err(Some);
        match self.finish_statement((result, false), more, out) {
            Step::Next if more => {
                let _lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
                match turnstile_sqltext::lex::next_statement(&rest) {
                    Some((next, after)) => {
                        let (next, after) = (next.to_string(), after.to_string());
                        self.run_statements(&next, after, out, flush)
                    }
                    None => {
                        self.end_command();
                        Flow::Continue
                    }
                }
            }
            Step::Close => {
                self.end_command();
                Flow::Close
            }
            _ => {
                self.end_command();
                Flow::Continue
            }
        }
    }

    /// A file was being received when the connection ended: drop it.
    pub(super) fn drop_infile(&mut self) {
        if self.infile.take().is_some() {
            self.phase = Phase::Command;
            // The statement ends without its file: the client went away (2013).
            self.statement_end(Some(2013), 0, 0);
            self.end_command();
        }
    }

    /// The session waits for the client's file (the driver's read timeout
    /// is net_read_timeout, and no ERR 4031 goes out).
    pub fn in_infile(&self) -> bool {
        self.phase == Phase::LocalInfile
    }
}
