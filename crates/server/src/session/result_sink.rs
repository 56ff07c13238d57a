//! Encoding a result set into packets as the engine produces its rows, and
//! flushing (or pausing, under the pool) when the output buffer fills.

use super::{Flush, FLUSH_AT, PAUSE_AT};
use std::io;
use turnstile_engine::{Column, RowSink, SqlError, Value};
use turnstile_wire::consts::status;
use turnstile_wire::packet::{begin_packet, end_packet};
use turnstile_wire::response::{encode_binary_row_typed, encode_column_count, encode_eof, encode_ok, encode_text_row_padded, text_fsp, text_zerofill, EncodedColumns};

/// Streams a result set into the output buffer, flushing as it fills.
/// What a result's rows need from its column definitions.
#[derive(Default)]
pub(super) struct RowFormat {
    /// Column types of the result, for binary rows.
    pub(super) coltypes: Vec<u8>,
    /// Fractional-second digits per column for text rows (see `text_fsp`).
    pub(super) fsp: Vec<u8>,
    /// ZEROFILL widths per column for text rows (see `text_zerofill`).
    pub(super) zerofill: Vec<u8>,
}

pub(super) struct WireSink<'a, 'f> {
    pub(super) out: &'a mut Vec<u8>,
    pub(super) seq: &'a mut u8,
    pub(super) deprecate_eof: bool,
    pub(super) binary: bool,
    pub(super) format: RowFormat,
    pub(super) sent_columns: bool,
    pub(super) flush: &'a mut Flush<'f>,
    pub(super) io_error: Option<io::Error>,
    pub(super) status: u16,
    pub(super) pausable: bool,
    /// Rows written (Rows_sent of the slow log and digests).
    pub(super) rows: u64,
}

impl<'a, 'f> WireSink<'a, 'f> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(out: &'a mut Vec<u8>, seq: &'a mut u8, deprecate_eof: bool, binary: bool, format: RowFormat, flush: &'a mut Flush<'f>, status: u16, pausable: bool) -> Self {
        WireSink { out, seq, deprecate_eof, binary, format, sent_columns: false, flush, io_error: None, status, pausable, rows: 0 }
    }

    pub(super) fn packet(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        let start = begin_packet(self.out);
        f(self.out);
        end_packet(self.out, start, self.seq);
    }

    /// After the column definitions: the EOF packet (unless DEPRECATE_EOF) and
    /// the row format for the rows that follow.
    pub(super) fn columns_end(&mut self, columns: &[Column]) -> Result<(), SqlError> {
        if !self.deprecate_eof {
            let st = self.status;
            self.packet(|o| encode_eof(o, 0, st));
        }
        set_row_format(&mut self.format, self.binary, columns);
        self.sent_columns = true;
        self.maybe_flush()
    }

    pub(super) fn maybe_flush(&mut self) -> Result<(), SqlError> {
        if self.out.len() >= FLUSH_AT {
            if let Err(e) = (self.flush)(self.out) {
                self.io_error = Some(e);
                return Err(SqlError::new(1160, "08S01", "Got an error writing communication packets"));
            }
        }
        Ok(())
    }
}

/// Fill `format` for a result with `columns` (reusing its buffers): column
/// types for binary rows, fractional-second digits for text rows.
pub(super) fn set_row_format(format: &mut RowFormat, binary: bool, columns: &[Column]) {
    if binary {
        format.coltypes.clear();
        format.coltypes.extend(columns.iter().map(|c| c.coltype));
    } else {
        format.fsp = text_fsp(columns);
        format.zerofill = text_zerofill(columns);
    }
}

impl RowSink for WireSink<'_, '_> {
    fn columns(&mut self, columns: &[Column]) -> Result<(), SqlError> {
        self.packet(|o| encode_column_count(o, columns.len()));
        for c in columns {
            self.packet(|o| c.encode(o));
        }
        self.columns_end(columns)
    }

    fn columns_encoded(&mut self, columns: &[Column], encoded: &EncodedColumns) -> Result<(), SqlError> {
        self.packet(|o| encode_column_count(o, columns.len()));
        for payload in encoded.payloads() {
            self.packet(|o| o.extend_from_slice(payload));
        }
        self.columns_end(columns)
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        self.rows += 1;
        let format = std::mem::take(&mut self.format);
        if self.binary {
            self.packet(|o| encode_binary_row_typed(o, format.coltypes.iter().copied(), row));
        } else {
            self.packet(|o| encode_text_row_padded(o, row, &format.fsp, &format.zerofill));
        }
        self.format = format;
        self.maybe_flush()
    }

    fn wants_pause(&self) -> bool {
        self.pausable && self.out.len() >= PAUSE_AT
    }

    fn end_result(&mut self) -> Result<(), SqlError> {
        if !self.sent_columns {
            return Ok(());
        }
        let st = self.status | status::MORE_RESULTS_EXISTS;
        if self.deprecate_eof {
            self.packet(|o| encode_ok(o, 0xfe, 0, 0, st, 0, ""));
        } else {
            self.packet(|o| encode_eof(o, 0, st));
        }
        self.sent_columns = false;
        self.maybe_flush()
    }
}
