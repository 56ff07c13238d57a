//! Routing a statement to the code that runs it, by its first word (read
//! without allocating; EXPLAIN and DESCRIBE of a statement apart from
//! those of a table); and PREPARE and COM_FIELD_LIST, which describe what a
//! statement or a table returns (a prepared DML statement is compiled, not run).

use super::explain;
use super::results::column_meta;
use super::SqliteSession;
use crate::rewrite::Kind;
use crate::{authorize, errors, show};
use turnstile_engine::{privs, Access, Done, EngineSession, ExecContext, Outcome, Prepared, RowSink, SqlError, Value};

/// First word of a statement (turnstile-sqltext's `scan::first_word`: the
/// lexer's comment rules), uppercased into a small buffer (no allocation);
/// a longer word is cut at 12 bytes, which no word routed on is.
fn first_word(sql: &str) -> ([u8; 12], usize) {
    let w = turnstile_sqltext::scan::first_word(sql).as_bytes();
    let n = w.len().min(12);
    let mut out = [0u8; 12];
    out[..n].copy_from_slice(&w[..n]);
    out.make_ascii_uppercase();
    (out, n)
}

impl SqliteSession {
    pub(super) fn execute_inner(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        if self.paused.is_some() {
            self.cancel_paused();
        }
        self.sql_mode = ctx.sql_mode;
        self.quote_show_create = ctx.quote_show_create;
        let (w, n) = first_word(sql);
        match &w[..n] {
            b"SELECT" | b"WITH" | b"TABLE" => self.dml(ctx, sql, params, sink, Kind::Select),
            b"INSERT" | b"REPLACE" => self.dml(ctx, sql, params, sink, Kind::Insert),
            b"UPDATE" => self.dml(ctx, sql, params, sink, Kind::Update),
            b"DELETE" => self.dml(ctx, sql, params, sink, Kind::Delete),
            b"DESCRIBE" | b"DESC" | b"EXPLAIN" => match explain::head_of(sql)? {
                Some((head, _)) => self.explain(ctx, sql, sink, head),
                None => show::run(self, ctx.access, sql, sink),
            },
            b"SHOW" => show::run(self, ctx.access, sql, sink),
            b"CREATE" | b"DROP" | b"ALTER" | b"RENAME" | b"TRUNCATE" => self.ddl(ctx, sql),
            b"SAVEPOINT" | b"RELEASE" | b"ROLLBACK" => self.savepoint(ctx, sql),
            b"LOCK" => {
                // LOCK TABLES commits (MySQL) and is otherwise a no-op:
                // writers are serialized anyway. The tables still need SELECT.
                self.check_lock_tables(sql, ctx.access)?;
                self.commit(ctx)?;
                self.tables_locked = true;
                Ok(Outcome::Done(Done::default()))
            }
            b"UNLOCK" => {
                // UNLOCK TABLES commits what was done under LOCK TABLES.
                if std::mem::take(&mut self.tables_locked) {
                    self.commit(ctx)?;
                }
                Ok(Outcome::Done(Done::default()))
            }
            b"ANALYZE" if crate::explain::analyzes_statement(sql) => Err(SqlError::unsupported("ANALYZE of a statement")),
            b"ANALYZE" | b"OPTIMIZE" | b"CHECK" | b"REPAIR" => self.maintenance(ctx.access, sql, sink),
            b"CHECKSUM" => self.checksum(ctx, sql, sink),
            b"BEGIN" => {
                self.begin(ctx, self.read_only)?;
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

    pub(super) fn field_list_inner(&mut self, access: &dyn Access, table: &str) -> Result<Vec<turnstile_engine::FieldListColumn>, SqlError> {
        let db = self.db.clone().ok_or_else(SqlError::no_database)?;
        access.check_table(&db, table, privs::SELECT)?;
        self.ensure_conn()?;
        let def = self.conn.as_ref().and_then(|c| c.table_def("temp", table).or_else(|| c.table_def("main", table))).ok_or_else(|| errors::no_such_table(&db, table))?;
        Ok(def.columns.iter().map(|c| turnstile_engine::FieldListColumn { column: c.wire_column(&db, &def.name, &c.name, def.key_flags(&c.name)), default: field_list_default(c) }).collect())
    }

    pub(super) fn prepare_inner(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError> {
        let (w, n) = first_word(sql);
        let kind = match &w[..n] {
            b"SELECT" | b"WITH" | b"TABLE" => Kind::Select,
            b"INSERT" | b"REPLACE" => Kind::Insert,
            b"UPDATE" => Kind::Update,
            b"DELETE" => Kind::Delete,
            b"EXPLAIN" | b"DESCRIBE" | b"DESC" if explain::head_of(sql)?.is_some() => {
                let (head, _) = explain::head_of(sql)?.expect("checked");
                return self.explain_prepare(access, sql, head);
            }
            _ => {
                let params = turnstile_sqltext::lex::count_params(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
                // What SHOW and DESCRIBE would refuse (no privilege, no such
                // table), PREPARE refuses too: run it into a sink that keeps nothing.
                show::run(self, access, sql, &mut turnstile_engine::DiscardRows)?;
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
                None => column_meta(conn, entry, sql, false).0.cols,
            }
        } else {
            Vec::new()
        };
        Ok(Prepared { params, columns })
    }
}

/// A column's default as COM_FIELD_LIST sends it: what MariaDB keeps in the
/// table's default row. A literal is its text; NULL, and no default on a
/// nullable column, are NULL; a NOT NULL column without a default (and a
/// CURRENT_TIMESTAMP one) holds its type's zero value. An expression default
/// (`DEFAULT (1+1)`), which MariaDB evaluates, is sent as NULL.
fn field_list_default(c: &crate::schema::ColumnDef) -> Option<String> {
    use crate::schema::{Base, Default_};
    match &c.default {
        Some(Default_::Literal(text)) if c.base == Base::Decimal => return Some(decimal_at_scale(text, c.scale.unwrap_or(0) as usize)),
        Some(Default_::Literal(_)) => return c.default_text(),
        Some(Default_::Expr(_)) => return None,
        Some(Default_::Null) => return None,
        None if c.nullable => return None,
        None | Some(Default_::CurrentTimestamp) => {}
    }
    let fsp = |text: &str| match c.length.unwrap_or(0) {
        0 => text.to_string(),
        n => format!("{}.{}", text, "0".repeat(n.min(6) as usize)),
    };
    Some(match c.base {
        Base::Decimal => match c.scale.unwrap_or(0) {
            0 => "0".to_string(),
            n => format!("0.{}", "0".repeat(n.min(38) as usize)),
        },
        Base::TinyInt | Base::SmallInt | Base::MediumInt | Base::Int | Base::BigInt | Base::Float | Base::Double | Base::Bit => "0".to_string(),
        Base::Year => "0000".to_string(),
        Base::Date => "0000-00-00".to_string(),
        Base::DateTime | Base::Timestamp => fsp("0000-00-00 00:00:00"),
        Base::Time => fsp("00:00:00"),
        Base::Enum => c.members.first().cloned().unwrap_or_default(),
        _ => String::new(),
    })
}

/// A DECIMAL literal written with the column's scale (`1.5` in DECIMAL(5,2)
/// is `1.50`), as MariaDB stores it; more digits than the scale are kept.
fn decimal_at_scale(text: &str, scale: usize) -> String {
    let digits = text.split_once('.').map_or(0, |(_, f)| f.len());
    match (digits, scale) {
        (_, 0) => text.to_string(),
        (0, _) => format!("{}.{}", text, "0".repeat(scale)),
        (d, s) if d < s => format!("{}{}", text, "0".repeat(s - d)),
        _ => text.to_string(),
    }
}
