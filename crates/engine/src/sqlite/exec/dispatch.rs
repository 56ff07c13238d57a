//! Routing a statement to the code that runs it, by its first word (read
//! without allocating); and PREPARE and COM_FIELD_LIST, which describe what a
//! statement or a table returns (a prepared DML statement is compiled, not run).

use super::results::column_meta;
use super::SqliteSession;
use crate::sqlite::rewrite::Kind;
use crate::sqlite::{authorize, errors, show};
use crate::{privs, Access, Column, Done, EngineSession, ExecContext, Outcome, Prepared, RowSink, SqlError, Value};

/// First word of a statement, uppercased into a small buffer (no allocation).
fn first_word(sql: &str) -> ([u8; 12], usize) {
    let b = sql.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'(') {
            i += 1;
        }
        if b[i..].starts_with(b"/*") {
            match b[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(p) if !b[i..].starts_with(b"/*!") => {
                    i += p + 4;
                    continue;
                }
                _ => {
                    if b[i..].starts_with(b"/*!") {
                        i += 3;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        continue;
                    }
                    break;
                }
            }
        }
        if b[i..].starts_with(b"--") || b[i..].starts_with(b"#") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        break;
    }
    let mut out = [0u8; 12];
    let mut n = 0;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') && n < 12 {
        out[n] = b[i].to_ascii_uppercase();
        n += 1;
        i += 1;
    }
    (out, n)
}

impl SqliteSession {
    pub(super) fn execute_inner(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        if self.paused.is_some() {
            self.cancel_paused();
        }
        let (w, n) = first_word(sql);
        match &w[..n] {
            b"SELECT" | b"WITH" | b"TABLE" => self.dml(ctx, sql, params, sink, Kind::Select),
            b"INSERT" | b"REPLACE" => self.dml(ctx, sql, params, sink, Kind::Insert),
            b"UPDATE" => self.dml(ctx, sql, params, sink, Kind::Update),
            b"DELETE" => self.dml(ctx, sql, params, sink, Kind::Delete),
            b"SHOW" | b"DESCRIBE" | b"DESC" | b"EXPLAIN" => show::run(self, ctx.access, sql, sink),
            b"CREATE" | b"DROP" | b"ALTER" | b"RENAME" | b"TRUNCATE" => self.ddl(ctx, sql),
            b"SAVEPOINT" | b"RELEASE" | b"ROLLBACK" => self.savepoint(ctx, sql),
            b"LOCK" => {
                // LOCK TABLES commits (MySQL) and is otherwise a no-op:
                // writers are serialized anyway. The tables still need SELECT.
                self.check_lock_tables(sql, ctx.access)?;
                self.commit(ctx)?;
                Ok(Outcome::Done(Done::default()))
            }
            b"UNLOCK" => Ok(Outcome::Done(Done::default())),
            b"ANALYZE" | b"OPTIMIZE" | b"CHECK" | b"REPAIR" => self.maintenance(ctx.access, sql, sink),
            b"BEGIN" => {
                self.begin(ctx, false)?;
                Ok(Outcome::Done(Done::default()))
            }
            b"COMMIT" => {
                self.commit(ctx)?;
                Ok(Outcome::Done(Done::default()))
            }
            _ => {
                let what: String = sql.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
                Err(SqlError::unsupported(&what))
            }
        }
    }

    pub(super) fn field_list_inner(&mut self, access: &dyn Access, table: &str) -> Result<Vec<Column>, SqlError> {
        let db = self.db.clone().ok_or_else(SqlError::no_database)?;
        access.check_table(&db, table, privs::SELECT)?;
        self.ensure_conn()?;
        let def = self.conn.as_ref().and_then(|c| c.table_def("temp", table).or_else(|| c.table_def("main", table))).ok_or_else(|| errors::no_such_table(&db, table))?;
        Ok(def.columns.iter().map(|c| c.wire_column(&db, &def.name, &c.name, def.key_flags(&c.name))).collect())
    }

    pub(super) fn prepare_inner(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError> {
        let (w, n) = first_word(sql);
        let kind = match &w[..n] {
            b"SELECT" | b"WITH" | b"TABLE" => Kind::Select,
            b"INSERT" | b"REPLACE" => Kind::Insert,
            b"UPDATE" => Kind::Update,
            b"DELETE" => Kind::Delete,
            _ => {
                let params = crate::lex::count_params(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
                // What SHOW and DESCRIBE would refuse (no privilege, no such
                // table), PREPARE refuses too: run it into a sink that keeps nothing.
                show::run(self, access, sql, &mut crate::DiscardRows)?;
                let columns = show::describe_columns(self, sql)?;
                return Ok(Prepared { params, columns });
            }
        };
        self.ensure_conn()?;
        match self.compile(sql, kind, access) {
            // The schema changed while it compiled: once more (as `dml`).
            Err(e) if e.code == 1412 => self.compile(sql, kind, access)?,
            r => r?,
        }
        let conn = self.conn.as_ref().expect("conn");
        let entry = conn.cache.get(sql).expect("compiled");
        authorize::check(&entry.needs, access)?;
        let params = entry.stmt.param_count();
        let columns = if entry.stmt.column_count() > 0 {
            match &entry.meta {
                Some(m) => m.cols.clone(),
                None => column_meta(conn, entry, false).0.cols,
            }
        } else {
            Vec::new()
        };
        Ok(Prepared { params, columns })
    }
}
