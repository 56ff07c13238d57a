//! Cursors: COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY and COM_STMT_FETCH,
//! as MariaDB 10.11 answers them. The execute runs the statement to its end
//! and keeps its rows, encoded as binary-protocol row payloads, with the
//! prepared statement (MariaDB materialises a cursor in a temporary table
//! too); it sends the column definitions and an EOF (an OK-style 0xFE under
//! CLIENT_DEPRECATE_EOF) with SERVER_STATUS_CURSOR_EXISTS and no rows. Each
//! fetch sends up to the rows asked for and an EOF with CURSOR_EXISTS, or,
//! once it ran out, with SERVER_STATUS_LAST_ROW_SENT, and the cursor closes.
//! A statement without a result set answers OK as without the flag.
//!
//! Memory: all open cursors of a session hold at most `max_cursor_bytes` of
//! rows together; a cursor that would pass it fails at its execute with ERR
//! 1114 (MariaDB's "table is full", the error of a temporary table that may
//! not grow) and keeps nothing. A cursor is freed when it is read to its end,
//! at COM_STMT_RESET, COM_STMT_CLOSE, the statement's next execute,
//! COM_RESET_CONNECTION and COM_CHANGE_USER.

use super::statements::Step;
use super::{Flow, Flush, Session, FLUSH_AT};
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Value};
use turnstile_wire::consts::status;
use turnstile_wire::response::{encode_binary_row_typed, encode_column_count, encode_eof, encode_ok};

/// COM_STMT_EXECUTE's flag that opens a cursor (the other cursor types, FOR
/// UPDATE and SCROLLABLE, open none in MariaDB either).
pub(super) const CURSOR_TYPE_READ_ONLY: u8 = 1;

/// The rows of one open cursor: binary row payloads, each after its length
/// (4 bytes, little-endian), and how far the client has fetched.
pub(super) struct Cursor {
    rows: Vec<u8>,
    pos: usize,
}

impl Cursor {
    /// Bytes this cursor counts against `max_cursor_bytes`.
    pub(super) fn bytes(&self) -> usize {
        self.rows.len()
    }

    /// The next row's payload, if any is left.
    fn next_row(&mut self) -> Option<&[u8]> {
        let head = self.rows.get(self.pos..self.pos + 4)?;
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let start = self.pos + 4;
        debug_assert!(start + len <= self.rows.len(), "a cursor row runs past its buffer");
        self.pos = start + len;
        self.rows.get(start..start + len)
    }
}

/// Collects a result set for a cursor, refusing rows past `budget` bytes.
struct CursorSink {
    columns: Option<Vec<Column>>,
    coltypes: Vec<u8>,
    rows: Vec<u8>,
    budget: usize,
}

fn cursor_full() -> SqlError {
    SqlError::new(1114, "HY000", "The table '#cursor' is full")
}

impl RowSink for CursorSink {
    fn columns(&mut self, columns: &[Column]) -> Result<(), SqlError> {
        self.coltypes = columns.iter().map(|c| c.coltype).collect();
        self.columns = Some(columns.to_vec());
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        let start = self.rows.len();
        self.rows.extend_from_slice(&[0; 4]);
        encode_binary_row_typed(&mut self.rows, self.coltypes.iter().copied(), row);
        let len = self.rows.len() - start - 4;
        if self.rows.len() > self.budget || len > u32::MAX as usize {
            // Give the memory back at once, not when the statement ends.
            self.rows = Vec::new();
            return Err(cursor_full());
        }
        self.rows[start..start + 4].copy_from_slice(&(len as u32).to_le_bytes());
        Ok(())
    }
}

impl Session {
    /// Bytes of rows this session's open cursors hold.
    pub(super) fn cursor_bytes(&self) -> usize {
        self.stmts.values().filter_map(|s| s.cursor.as_ref()).map(Cursor::bytes).sum()
    }

    /// COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY, parameters decoded: run
    /// the statement into a cursor of statement `id`.
    pub(super) fn execute_cursor(&mut self, id: u32, sql: &str, params: &[Value], direct: bool, out: &mut Vec<u8>) -> Step {
        let max = usize::try_from(self.server.config.max_cursor_bytes).unwrap_or(usize::MAX);
        let mut sink = CursorSink { columns: None, coltypes: Vec::new(), rows: Vec::new(), budget: max.saturating_sub(self.cursor_bytes()) };
        let result = self.run_into(sql, params, direct, &mut sink);
        let killed = self.sql.kill_self || self.handle.kill_connection.load(std::sync::atomic::Ordering::Relaxed);
        let columns = match (&result, sink.columns.take()) {
            (Ok(Outcome::Rows), Some(columns)) if !killed => columns,
            (Ok(Outcome::Paused), _) => return self.finish_statement((Err(Some(SqlError::internal("a cursor's statement paused"))), false), false, out),
            _ => return self.finish_statement((result.map_err(Some), false), false, out),
        };
        self.packet(out, |o| encode_column_count(o, columns.len()));
        for c in &columns {
            self.packet(out, |o| c.encode(o));
        }
        let st = self.status_flags() | status::CURSOR_EXISTS;
        self.end_of_rows(out, self.sql.statement_warnings, st);
        sink.rows.shrink_to_fit();
        if let Some(stmt) = self.stmts.get_mut(&id) {
            stmt.cursor = Some(Cursor { rows: sink.rows, pos: 0 });
        }
        Step::Next
    }

    /// The EOF that ends column definitions or fetched rows: an OK with the
    /// 0xFE header under CLIENT_DEPRECATE_EOF (MariaDB sends it after a
    /// cursor's columns even then, for its status).
    fn end_of_rows(&mut self, out: &mut Vec<u8>, warnings: u16, st: u16) {
        if self.deprecate_eof() {
            self.packet(out, |o| encode_ok(o, 0xfe, 0, 0, st, warnings, ""));
        } else {
            self.packet(out, |o| encode_eof(o, warnings, st));
        }
    }

    /// COM_STMT_FETCH: up to `n` rows of statement `id`'s cursor.
    pub(super) fn fetch(&mut self, id: u32, n: u32, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let Some(stmt) = self.stmts.get_mut(&id) else {
            self.send_err(out, &SqlError::unknown_stmt_handler(id, "mysqld_stmt_fetch"));
            return Flow::Continue;
        };
        let Some(mut cursor) = stmt.cursor.take() else {
            self.send_err(out, &SqlError::new(1421, "HY000", format!("The statement ({}) has no open cursor", id)));
            return Flow::Continue;
        };
        let mut sent = 0u32;
        while sent < n {
            let Some(row) = cursor.next_row() else { break };
            self.packet(out, |o| o.extend_from_slice(row));
            sent += 1;
            if out.len() >= FLUSH_AT && flush(out).is_err() {
                return Flow::Close;
            }
        }
        // As MariaDB: the end is known only when a fetch asks past it.
        let st = if sent < n {
            self.status_flags() | status::LAST_ROW_SENT
        } else {
            if let Some(stmt) = self.stmts.get_mut(&id) {
                stmt.cursor = Some(cursor);
            }
            self.status_flags() | status::CURSOR_EXISTS
        };
        self.end_of_rows(out, 0, st);
        Flow::Continue
    }
}
