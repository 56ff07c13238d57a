//! Prepared statements (COM_STMT_PREPARE, EXECUTE, SEND_LONG_DATA, RESET,
//! CLOSE): what a session keeps per statement, and the bound on the long
//! data one statement may hold (max_allowed_packet for all its parameters).

use super::statements::{PausedResult, Step};
use super::{Flow, Flush, Session};
use std::sync::Arc;
use turnstile_engine::{Column, SqlError, Value};
use turnstile_sql::front::{self};
use turnstile_wire::command::{decode_execute_params_into, ParamType};
use turnstile_wire::consts::coltype;
use turnstile_wire::response::encode_eof;

pub(super) struct Stmt {
    /// Shared so an execute does not copy the text or the column list.
    pub(super) sql: Arc<str>,
    pub(super) params: usize,
    pub(super) columns: Arc<[Column]>,
    /// `front::is_direct_engine` of the text, decided at prepare.
    pub(super) direct: bool,
    pub(super) types: Vec<ParamType>,
    pub(super) long_data: Vec<Option<Vec<u8>>>,
    /// Bytes held in `long_data`, at most max_allowed_packet for the whole
    /// statement (`add_long_data`).
    pub(super) long_data_bytes: usize,
    /// More long data arrived than max_allowed_packet allows: what was sent is
    /// dropped and the next execute fails (ERR 1105, as MariaDB).
    pub(super) long_data_over: bool,
    /// The rows of the cursor its last execute opened, not yet fetched (cursor.rs).
    pub(super) cursor: Option<super::cursor::Cursor>,
    /// Its digest, normalized at its first execute (observe.rs): the schema
    /// it was for, the key and the text.
    pub(super) digest: Option<Box<super::observe::StmtDigest>>,
    /// Its place in the server's count of prepared statements, given back
    /// when the statement is dropped.
    pub(super) _slot: turnstile_sql::prepared_slots::Slot,
}

impl Stmt {
    /// COM_STMT_SEND_LONG_DATA: append to parameter `param`, unless the
    /// statement's long data would pass `max` bytes; then everything buffered
    /// is freed and further chunks are ignored until the execute (or
    /// COM_STMT_RESET), so memory stays bounded however much the client sends.
    pub(super) fn add_long_data(&mut self, param: usize, data: &[u8], max: usize) {
        if self.long_data_over || param >= self.long_data.len() {
            return;
        }
        if self.long_data_bytes + data.len() > max {
            self.long_data_over = true;
            self.clear_long_data();
            return;
        }
        self.long_data_bytes += data.len();
        self.long_data[param].get_or_insert_with(Vec::new).extend_from_slice(data);
    }

    /// Forget the long data (after an execute or COM_STMT_RESET), keeping `long_data_over`.
    pub(super) fn clear_long_data(&mut self) {
        self.long_data.iter_mut().for_each(|d| *d = None);
        self.long_data_bytes = 0;
    }
}

thread_local! {
    /// Each thread's parameter vector for COM_STMT_EXECUTE (see `execute_prepared`).
    static EXEC_PARAMS: std::cell::RefCell<Vec<Value>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `EXEC_PARAMS` keeps at most this many parameters' room.
const EXEC_PARAMS_KEEP: usize = 256;

impl Session {
    pub(super) fn prepare(&mut self, sql: String, out: &mut Vec<u8>) {
        // A place under max_prepared_stmt_count, all sessions together (as MariaDB).
        let max = self.server.globals.hot.max_prepared_stmt_count.load(std::sync::atomic::Ordering::Relaxed);
        let slot = match turnstile_sql::prepared_slots::Slot::take(u64::try_from(max).unwrap_or(0)) {
            Ok(slot) => slot,
            Err(e) => {
                self.send_err(out, &e);
                return;
            }
        };
        let params = match turnstile_sqltext::lex::count_markers(&sql) {
            Ok(n) => n,
            Err(e) => {
                self.send_err(out, &SqlError::syntax(&sql[e.at..]));
                return;
            }
        };
        if params > u16::MAX as usize {
            self.send_err(out, &SqlError::new(1390, "HY000", "Prepared statement contains too many placeholders"));
            return;
        }
        let kw = turnstile_sqltext::scan::first_keyword(&sql);
        if kw.is_empty() {
            self.send_err(out, &SqlError::empty_query());
            return;
        }
        if !front::is_statement_keyword(&kw) {
            self.send_err(out, &SqlError::syntax(sql.trim_start()));
            return;
        }
        // Result columns: the engine describes its own statements, the front
        // a SELECT without a table; other session statements describe theirs
        // when executed. DML is compiled now too, so
        // a syntax error or an unknown table or column is reported by PREPARE
        // (1064/1146/1054), as MySQL does, not by the first EXECUTE.
        let engine_prepares = matches!(kw.as_str(), "SELECT" | "SHOW" | "DESCRIBE" | "DESC" | "EXPLAIN" | "WITH" | "INSERT" | "REPLACE" | "UPDATE" | "DELETE");
        let columns = if engine_prepares && self.engine_bound(&sql) {
            match front::prepare(&mut self.sql, self.engine.as_mut().expect("authenticated").as_mut(), &*self.server, &sql) {
                Ok(p) => p.columns,
                Err(e) => {
                    self.send_err(out, &e);
                    return;
                }
            }
        } else if kw == "SELECT" {
            // No table: described from its select list (MariaDB sends these
            // columns at prepare too; a driver may read the count from them).
            front::describe_without_table(&sql).unwrap_or_default()
        } else {
            Vec::new()
        };
        let id = self.next_stmt_id;
        self.next_stmt_id = self.next_stmt_id.wrapping_add(1).max(1);
        let deprecate_eof = self.deprecate_eof();
        let (ncols, nparams) = (columns.len() as u16, params as u16);
        self.packet(out, |o| {
            o.push(0);
            o.extend_from_slice(&id.to_le_bytes());
            o.extend_from_slice(&ncols.to_le_bytes());
            o.extend_from_slice(&nparams.to_le_bytes());
            o.push(0);
            o.extend_from_slice(&0u16.to_le_bytes());
        });
        let st = self.status_flags();
        if params > 0 {
            let p = Column::computed("?", turnstile_wire::consts::coltype::VAR_STRING);
            for _ in 0..params {
                self.packet(out, |o| p.encode(o));
            }
            if !deprecate_eof {
                self.packet(out, |o| encode_eof(o, 0, st));
            }
        }
        if !columns.is_empty() {
            for c in &columns {
                self.packet(out, |o| c.encode(o));
            }
            if !deprecate_eof {
                self.packet(out, |o| encode_eof(o, 0, st));
            }
        }
        self.stmts.insert(
            id,
            Stmt {
                direct: front::is_direct_engine(&sql),
                sql: sql.into(),
                params,
                columns: columns.into(),
                types: Vec::new(),
                long_data: vec![None; params],
                long_data_bytes: 0,
                long_data_over: false,
                cursor: None,
                _slot: slot,
                digest: None,
            },
        );
    }

    /// Does this statement go to the engine (rather than being answered by the front)?
    pub(super) fn engine_bound(&self, sql: &str) -> bool {
        let Ok(toks) = turnstile_sqltext::lex::tokenize(sql) else { return false };
        match turnstile_sqltext::scan::first_keyword(sql).as_str() {
            "SELECT" => front::has_table(&toks),
            "SHOW" => !toks
                .iter()
                .any(|t| ["VARIABLES", "STATUS", "PROCESSLIST", "DATABASES", "SCHEMAS", "GRANTS", "WARNINGS", "ERRORS", "ENGINES", "COLLATION", "CHARACTER", "CHARSET"].iter().any(|k| t.is_kw(k))),
            _ => true,
        }
    }

    /// COM_STMT_EXECUTE; `flags` may ask for a cursor (`cursor::CURSOR_TYPE_READ_ONLY`).
    pub(super) fn execute_prepared(&mut self, id: u32, flags: u8, rest: &[u8], out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let Some(st) = self.stmts.get_mut(&id) else {
            self.send_err(out, &SqlError::unknown_stmt_handler(id, "mysqld_stmt_execute"));
            return Flow::Continue;
        };
        // A new execute closes the cursor the last one opened, as in MariaDB.
        st.cursor = None;
        if std::mem::take(&mut st.long_data_over) {
            st.clear_long_data();
            let e = SqlError::new(1105, "HY000", "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes");
            self.send_err(out, &e);
            return Flow::Continue;
        }
        // The thread's parameter vector, reused by every execute it runs
        // (the engine copies what it binds).
        let mut params = EXEC_PARAMS.with_borrow_mut(std::mem::take);
        let decoded = decode_execute_params_into(rest, st.params, &mut st.types, &mut st.long_data, &mut params);
        // The execute consumed the long data (what it did not take is dropped too).
        st.clear_long_data();
        if decoded.is_err() {
            self.send_err(out, &SqlError::wrong_arguments("mysqld_stmt_execute"));
            return Flow::Continue;
        }
        // A character-string parameter is text in the client's character set
        // (a BLOB-typed one is bytes): ASCII only unless that set is UTF-8.
        let is_string = |t: &ParamType| matches!(t.coltype, coltype::VARCHAR | coltype::VAR_STRING | coltype::STRING);
        let non_ascii = st.types.iter().zip(params.iter()).any(|(t, v)| is_string(t) && matches!(v, Value::Bytes(b) if !b.is_ascii()));
        if non_ascii {
            if let Some(cs) = self.sql.unconverted_client_charset(&self.server.globals) {
                params.clear();
                EXEC_PARAMS.with_borrow_mut(|slot| *slot = params);
                self.send_err(out, &super::refuse_unconverted_text(&cs));
                return Flow::Continue;
            }
        }
        let (sql, columns, direct) = (Arc::clone(&st.sql), Arc::clone(&st.columns), st.direct);
        self.begin_command("Execute", &sql);
        self.execute_start(id, &sql);
        let step = if flags & super::cursor::CURSOR_TYPE_READ_ONLY != 0 {
            self.execute_cursor(id, &sql, &params, direct, out)
        } else {
            let result = self.run_statement(&sql, &params, true, &columns, direct, out, flush);
            self.finish_statement(result, false, out)
        };
        params.clear();
        if params.capacity() <= EXEC_PARAMS_KEEP {
            EXEC_PARAMS.with_borrow_mut(|slot| *slot = params);
        }
        match step {
            Step::Paused => {
                self.paused = Some(PausedResult { rest: String::new(), binary: true });
                Flow::Paused
            }
            Step::Close => {
                self.end_command();
                Flow::Close
            }
            Step::Next | Step::Stop => {
                self.end_command();
                Flow::Continue
            }
        }
    }
}
