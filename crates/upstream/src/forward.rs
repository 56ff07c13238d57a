//! A backend's answer to one command, passed to the client as the bytes the
//! backend sent: only sequence ids are renumbered, and the packets whose
//! form depends on the client's capabilities are rewritten. Backend
//! connections always use CLIENT_DEPRECATE_EOF and CLIENT_SESSION_TRACK; a
//! client without DEPRECATE_EOF gets the EOF after column definitions and an
//! EOF for the closing OK, and no client gets the session-state block
//! (Turnstile does not offer SESSION_TRACK; it reads the block itself).
//!
//! A state machine that can stop when the output buffer is full
//! (`Step::Full`) and go on later, so a large result streams with
//! backpressure: the caller flushes (or pauses until the client reads)
//! and calls `pump` again.

use crate::backend::{Backend, BackendError};
use crate::ok_packet::{self, Ok};
use turnstile_wire::buf::put_lenenc_bytes;
use turnstile_wire::consts::status;
use turnstile_wire::packet::{begin_packet, end_packet};
use turnstile_wire::response::{encode_eof, encode_ok};

const CONTINUED: usize = 0xff_ffff;

/// A PREPARE_OK packet's statement id, column count and parameter count.
pub fn prepare_ok(p: &[u8]) -> Result<(u32, u16, u16), BackendError> {
    if p.len() < 12 || p[0] != 0x00 {
        return Err(BackendError::Protocol("malformed prepare answer".into()));
    }
    Ok((u32::from_le_bytes([p[1], p[2], p[3], p[4]]), u16::from_le_bytes([p[5], p[6]]), u16::from_le_bytes([p[7], p[8]])))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The first packet of a response (or of the next result of several).
    Start,
    ColumnDefs {
        left: u64,
    },
    Rows,
    /// A COM_STMT_EXECUTE that may open a cursor, for a client without
    /// DEPRECATE_EOF: its column definitions are in, and the next packet
    /// says whether a cursor opened (the backend's closing OK with
    /// CURSOR_EXISTS: the client gets one EOF with that status) or rows
    /// follow (the EOF after the column definitions, then the rows).
    CursorOrRows,
    /// COM_FIELD_LIST: column definitions up to the closing OK.
    FieldList,
    /// COM_STMT_PREPARE: the first packet (PREPARE_OK or ERR) is next; the
    /// statement id the client gets is the session's.
    PrepareOk {
        client_id: u32,
    },
    /// The PREPARE_OK's parameter, then column definitions still to come
    /// (a client without DEPRECATE_EOF gets an EOF after each group).
    PrepareDefs {
        params: u16,
        cols: u16,
    },
    /// The backend asked for a LOCAL INFILE file (the request went to the
    /// client): the client's packets go to the backend until its empty one,
    /// then `file_sent`.
    File,
    Done,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    Done,
    /// The output buffer reached its limit; call `pump` again after flushing.
    Full,
    /// The backend has not sent the next packet yet (only when `pump` may
    /// not wait): call `pump` again once its socket is readable.
    Wait,
    /// The backend asked for a LOCAL INFILE file and the request is in
    /// `out`: relay the client's file packets, then `file_sent` and `pump`.
    File,
}

/// What the whole answer changed, over all its results.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The last OK (a result's closing one included).
    pub last: Option<Ok>,
    pub vars: Vec<(String, String)>,
    pub schema: Option<String>,
    pub state_changed: bool,
    pub characteristics: Option<String>,
    /// The answer ended with ERR (maybe after some results): its payload.
    pub error: Option<Vec<u8>>,
    /// Some result or OK came before that.
    pub succeeded: bool,
    /// Rows of the last result set.
    pub rows: u64,
    /// A COM_STMT_PREPARE's answer: the backend's statement id and its
    /// parameter count.
    pub prepared: Option<(u32, u16)>,
    /// The answer's last result was a result set (not an OK): ROW_COUNT()
    /// is -1 after it.
    pub ended_with_rows: bool,
    /// LAST_INSERT_ID as the last OK that carried one set it.
    pub last_insert_id: Option<u64>,
}

pub struct Forward {
    phase: Phase,
    seq: u8,
    deprecate_eof: bool,
    /// Status flags for the EOF after column definitions.
    status_hint: u16,
    /// Rows added at the end of the first result (SHOW STATUS: Turnstile's own).
    inject: Option<Vec<(String, String)>>,
    continuing: bool,
    /// The client may be asked for a local file (CLIENT_LOCAL_FILES and
    /// local_infile): else a backend asking for one is a protocol error.
    files: bool,
    /// The sequence id of the backend's last packet (a file's packets follow it).
    backend_seq: u8,
    /// A COM_STMT_EXECUTE that may open a cursor (`cursor_open`).
    cursor: bool,
    pub outcome: Outcome,
    /// Bytes written to the client so far.
    pub written: usize,
}

impl Forward {
    /// An answer whose first packet has sequence id `first_seq` for the client.
    pub fn new(deprecate_eof: bool, status_hint: u16, first_seq: u8) -> Forward {
        Forward {
            phase: Phase::Start,
            seq: first_seq,
            deprecate_eof,
            status_hint,
            inject: None,
            continuing: false,
            files: false,
            backend_seq: 0,
            cursor: false,
            outcome: Outcome::default(),
            written: 0,
        }
    }

    /// The client may be asked for a LOCAL INFILE file.
    pub fn local_files(mut self, allowed: bool) -> Forward {
        self.files = allowed;
        self
    }

    /// The sequence id the backend expects on the file's first packet.
    pub fn backend_file_seq(&self) -> u8 {
        self.backend_seq.wrapping_add(1)
    }

    /// The client's file ended (its empty packet went to the backend): the
    /// backend's answer follows, to the client with sequence id `client_seq`.
    pub fn file_sent(&mut self, client_seq: u8) {
        debug_assert_eq!(self.phase, Phase::File, "a file ends only after it was asked for");
        self.phase = Phase::Start;
        self.seq = client_seq;
    }

    /// COM_STMT_EXECUTE with a cursor type: after the column definitions,
    /// a cursor's answer ends with the backend's OK (status CURSOR_EXISTS)
    /// and no rows; a client without DEPRECATE_EOF gets one EOF for it.
    pub fn cursor_open(mut self) -> Forward {
        self.cursor = true;
        self
    }

    /// COM_STMT_FETCH: binary rows, then the closing OK (status
    /// CURSOR_EXISTS, and LAST_ROW_SENT once the cursor is exhausted).
    pub fn fetch(mut self) -> Forward {
        self.phase = Phase::Rows;
        self
    }

    /// COM_STMT_PREPARE's answer, with `client_id` as the statement id.
    pub fn prepare(mut self, client_id: u32) -> Forward {
        self.phase = Phase::PrepareOk { client_id };
        self
    }

    pub fn field_list(mut self) -> Forward {
        self.phase = Phase::FieldList;
        self
    }

    pub fn inject(mut self, rows: Vec<(String, String)>) -> Forward {
        self.inject = Some(rows);
        self
    }

    /// The next sequence id for the client.
    pub fn seq(&self) -> u8 {
        self.seq
    }

    /// The client's LOCAL INFILE file is being relayed (`Step::File`).
    pub fn in_file(&self) -> bool {
        self.phase == Phase::File
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    fn raw(&mut self, out: &mut Vec<u8>, payload: &[u8]) {
        let len = payload.len() as u32;
        out.extend_from_slice(&len.to_le_bytes()[..3]);
        out.push(self.seq);
        self.seq = self.seq.wrapping_add(1);
        out.extend_from_slice(payload);
        self.written += payload.len() + 4;
    }

    fn packet(&mut self, out: &mut Vec<u8>, f: impl FnOnce(&mut Vec<u8>)) {
        let start = begin_packet(out);
        f(out);
        end_packet(out, start, &mut self.seq);
        self.written += out.len() - start;
    }

    fn note_ok(&mut self, ok: &Ok) {
        let o = &mut self.outcome;
        o.vars.extend(ok.vars.iter().cloned());
        if ok.schema.is_some() {
            o.schema.clone_from(&ok.schema);
        }
        o.state_changed |= ok.state_changed;
        if ok.characteristics.is_some() {
            o.characteristics.clone_from(&ok.characteristics);
        }
        if ok.last_insert_id != 0 {
            o.last_insert_id = Some(ok.last_insert_id);
        }
        o.succeeded = true;
        o.last = Some(ok.clone());
    }

    /// The OK as the client reads it: no session-state block.
    fn client_ok(&mut self, out: &mut Vec<u8>, ok: &Ok, header: u8) {
        let st = ok.status & !status::SESSION_STATE_CHANGED;
        let info = String::from_utf8_lossy(&ok.info).into_owned();
        self.packet(out, |o| encode_ok(o, header, ok.affected_rows, ok.last_insert_id, st, ok.warnings, &info));
    }

    /// A backend row of SHOW STATUS whose name Turnstile answers itself
    /// (`inject`): dropped, so the client sees one row per name, Turnstile's.
    fn injected_instead(&self, row: &[u8]) -> bool {
        let Some(rows) = &self.inject else { return false };
        let Ok(name) = turnstile_wire::buf::Reader::new(row).lenenc_bytes() else { return false };
        rows.iter().any(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name))
    }

    fn end_of_result(&mut self, out: &mut Vec<u8>, ok: &Ok) {
        if let Some(rows) = self.inject.take() {
            for (name, value) in rows {
                self.packet(out, |o| {
                    put_lenenc_bytes(o, name.as_bytes());
                    put_lenenc_bytes(o, value.as_bytes());
                });
                self.outcome.rows += 1;
            }
        }
        if self.deprecate_eof {
            self.client_ok(out, ok, 0xfe);
        } else {
            let st = ok.status & !status::SESSION_STATE_CHANGED;
            self.packet(out, |o| encode_eof(o, ok.warnings, st));
        }
    }

    /// Move packets from the backend to `out` until the answer ends or
    /// `out` holds `limit` bytes.
    /// `may_wait`: block on the backend's socket (a thread per connection);
    /// otherwise stop with `Step::Wait` when nothing is there to read.
    pub fn pump(&mut self, b: &mut Backend, out: &mut Vec<u8>, limit: usize, may_wait: bool) -> Result<Step, BackendError> {
        while self.phase != Phase::Done {
            if self.phase == Phase::File {
                return Ok(Step::File);
            }
            if out.len() >= limit {
                return Ok(Step::Full);
            }
            let (seq, payload) = if may_wait {
                b.read_packet()?
            } else {
                match b.try_read_packet()? {
                    Some(x) => x,
                    None => return Ok(Step::Wait),
                }
            };
            self.backend_seq = seq;
            self.feed(payload, out)?;
        }
        Ok(Step::Done)
    }

    /// Take one physical packet of the answer (the fuzz target drives this
    /// directly, with no socket).
    pub fn feed(&mut self, p: &[u8], out: &mut Vec<u8>) -> Result<(), BackendError> {
        if self.phase == Phase::Done {
            return Err(BackendError::Protocol("a packet after the answer ended".into()));
        }
        if self.continuing {
            self.continuing = p.len() == CONTINUED;
            self.raw(out, p);
            return Ok(());
        }
        self.continuing = p.len() == CONTINUED;
        self.step(p, out)
    }

    fn step(&mut self, p: &[u8], out: &mut Vec<u8>) -> Result<(), BackendError> {
        let first = p.first().copied().unwrap_or(0);
        let short = p.len() < CONTINUED;
        match self.phase {
            Phase::Start => match first {
                0x00 if short => {
                    let ok = ok_packet::parse(p).ok_or_else(|| BackendError::Protocol("malformed OK".into()))?;
                    self.note_ok(&ok);
                    self.outcome.ended_with_rows = false;
                    self.client_ok(out, &ok, 0x00);
                    if !ok.more_results() {
                        self.phase = Phase::Done;
                    }
                }
                0xff => {
                    self.raw(out, p);
                    self.outcome.error = Some(p.to_vec());
                    self.phase = Phase::Done;
                }
                0xfb if short && self.files => {
                    self.raw(out, p);
                    self.phase = Phase::File;
                }
                0xfb => return Err(BackendError::Protocol("the backend asked for a LOCAL INFILE file this client may not be asked for".into())),
                _ => {
                    let n = turnstile_wire::buf::Reader::new(p).lenenc_int().ok().flatten().unwrap_or(0);
                    self.raw(out, p);
                    self.outcome.rows = 0;
                    self.phase = Phase::ColumnDefs { left: n };
                    if n == 0 {
                        self.columns_done(out);
                    }
                }
            },
            Phase::ColumnDefs { left } => {
                debug_assert!(left > 0, "ColumnDefs with none left becomes Rows");
                self.raw(out, p);
                self.phase = Phase::ColumnDefs { left: left - 1 };
                if left == 1 {
                    self.columns_done(out);
                }
            }
            Phase::Rows | Phase::FieldList => match first {
                0xfe if short => {
                    let ok = ok_packet::parse(p).ok_or_else(|| BackendError::Protocol("malformed closing OK".into()))?;
                    self.note_ok(&ok);
                    self.outcome.ended_with_rows = true;
                    self.end_of_result(out, &ok);
                    self.phase = if ok.more_results() { Phase::Start } else { Phase::Done };
                }
                0xff if short => {
                    self.raw(out, p);
                    self.outcome.error = Some(p.to_vec());
                    self.phase = Phase::Done;
                }
                _ => {
                    if self.phase == Phase::Rows && self.injected_instead(p) {
                        return Ok(());
                    }
                    self.raw(out, p);
                    if self.phase == Phase::Rows {
                        self.outcome.rows += 1;
                    }
                }
            },
            Phase::PrepareOk { client_id } => {
                if first == 0xff {
                    self.raw(out, p);
                    self.outcome.error = Some(p.to_vec());
                    self.phase = Phase::Done;
                    return Ok(());
                }
                let (id, cols, params) = prepare_ok(p)?;
                let mut ok = p.to_vec();
                ok[1..5].copy_from_slice(&client_id.to_le_bytes());
                self.raw(out, &ok);
                self.outcome.prepared = Some((id, params));
                self.outcome.succeeded = true;
                self.phase = Phase::PrepareDefs { params, cols };
                self.prepare_defs_done(out, 0);
            }
            Phase::PrepareDefs { params, cols } => {
                self.raw(out, p);
                let had_params = params > 0;
                self.phase = if had_params { Phase::PrepareDefs { params: params - 1, cols } } else { Phase::PrepareDefs { params, cols: cols - 1 } };
                self.prepare_defs_done(out, if had_params { 1 } else { 2 });
            }
            Phase::CursorOrRows => {
                if first == 0xfe && short {
                    let ok = ok_packet::parse(p).ok_or_else(|| BackendError::Protocol("malformed closing OK".into()))?;
                    if ok.status & status::CURSOR_EXISTS != 0 {
                        self.note_ok(&ok);
                        let st = ok.status & !status::SESSION_STATE_CHANGED;
                        self.packet(out, |o| encode_eof(o, ok.warnings, st));
                        self.phase = Phase::Done;
                        return Ok(());
                    }
                }
                let st = self.status_hint;
                self.packet(out, |o| encode_eof(o, 0, st));
                self.phase = Phase::Rows;
                return self.step(p, out);
            }
            Phase::File => return Err(BackendError::Protocol("a packet from the backend while the client sends a file".into())),
            Phase::Done => debug_assert!(false, "no packet after the answer ended"),
        }
        Ok(())
    }

    /// After a PREPARE_OK (`just` 0), a parameter (1) or a column
    /// definition (2): the EOF that ends a group for a client without
    /// DEPRECATE_EOF, and the end of the answer.
    fn prepare_defs_done(&mut self, out: &mut Vec<u8>, just: u8) {
        let Phase::PrepareDefs { params, cols } = self.phase else { return };
        let st = self.status_hint;
        // A group ended: the last parameter came, or the last column.
        let group_ended = (just == 1 && params == 0) || (just == 2 && cols == 0);
        if group_ended && !self.deprecate_eof {
            self.packet(out, |o| encode_eof(o, 0, st));
        }
        if params == 0 && cols == 0 {
            self.phase = Phase::Done;
        }
    }

    fn columns_done(&mut self, out: &mut Vec<u8>) {
        if self.deprecate_eof {
            self.phase = Phase::Rows;
        } else if self.cursor {
            self.phase = Phase::CursorOrRows;
        } else {
            let st = self.status_hint;
            self.packet(out, |o| encode_eof(o, 0, st));
            self.phase = Phase::Rows;
        }
    }
}
