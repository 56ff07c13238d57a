//! SHOW ... WHERE: the rows a SHOW statement made, filtered by the WHERE
//! clause as MariaDB filters them (any expression over the SHOW's columns,
//! subqueries included).
//!
//! The rows are written into a scratch table of the connection's in-memory
//! information_schema (`ts_show_<columns>`, one per column layout, so that a
//! compiled SELECT over it stays valid), read back with
//! `SELECT * FROM information_schema.ts_show_... WHERE <condition>` through
//! the ordinary translation and privilege checks, and deleted again before
//! the connection goes back to the pool: no other session sees them. The
//! columns keep the SHOW's types (declared as info_tables.rs reads them).

use super::SqliteSession;
use crate::rewrite::Kind;
use crate::schema::sq_ident;
use turnstile_engine::{Column, EngineSession, ExecContext, Outcome, RowSink, SqlError, Value};
use turnstile_wire::consts::{charset, colflag, coltype};

/// Prefix of the scratch tables (information_schema's own listing and its
/// table count leave them out: show.rs).
pub(crate) const SCRATCH_PREFIX: &str = "ts_show_";

/// The declared type that gives column `c` back its wire type (info_tables::wire_column).
fn declared_type(c: &Column) -> String {
    let unsigned = if c.flags & colflag::UNSIGNED != 0 { "UNSIGNED " } else { "" };
    match c.coltype {
        coltype::LONGLONG => format!("{unsigned}BIGINT({})", c.length.clamp(1, 21)),
        coltype::LONG | coltype::INT24 | coltype::SHORT => format!("{unsigned}INT({})", c.length.clamp(1, 11)),
        coltype::TINY => format!("{unsigned}TINYINT({})", c.length.clamp(1, 4)),
        coltype::DATETIME | coltype::TIMESTAMP => format!("DATETIME({})", c.decimals.min(6)),
        coltype::NEWDECIMAL | coltype::DECIMAL => format!("DECIMAL({},{})", c.length.clamp(1, 65), c.decimals.min(30)),
        coltype::BLOB | coltype::TINY_BLOB | coltype::MEDIUM_BLOB | coltype::LONG_BLOB if c.charset == charset::BINARY => "BLOB".into(),
        coltype::BLOB | coltype::TINY_BLOB | coltype::MEDIUM_BLOB | coltype::LONG_BLOB => "LONGTEXT".into(),
        _ => format!("VARCHAR({})", (c.length / 3).max(1)),
    }
}

/// A row value as SQLite stores it.
fn stored(v: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        Value::Null => V::Null,
        Value::Int(i) => V::Integer(*i),
        Value::UInt(u) => i64::try_from(*u).map_or_else(|_| V::Text(u.to_string()), V::Integer),
        Value::Float(f) => V::Real(f64::from(*f)),
        Value::Double(d) => V::Real(*d),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => V::Text(s.to_string()),
            Err(_) => V::Blob(b.clone()),
        },
        other => other.to_text().map_or(V::Null, |t| V::Text(String::from_utf8_lossy(&t).into_owned())),
    }
}

/// The scratch table for these columns: its name (by a hash of the layout)
/// and its definition.
fn scratch_table(columns: &[Column]) -> (String, String) {
    let defs: Vec<String> = columns.iter().map(|c| format!("{} {}", sq_ident(&c.name), declared_type(c))).collect();
    let body = defs.join(", ");
    // FNV-1a: the same layout, the same table.
    let hash = body.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let name = format!("{SCRATCH_PREFIX}{hash:016x}");
    let create = format!("CREATE TABLE IF NOT EXISTS information_schema.{} ({body})", sq_ident(&name));
    (name, create)
}

impl SqliteSession {
    pub(super) fn filter_show_rows(&mut self, ctx: &ExecContext<'_>, columns: &[Column], rows: Vec<Vec<Value>>, condition: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        if self.paused.is_some() {
            self.cancel_paused();
        }
        if columns.is_empty() {
            return Err(SqlError::unsupported("SHOW ... WHERE"));
        }
        self.sql_mode = ctx.sql_mode;
        self.ensure_conn_for_read()?;
        let (name, create) = scratch_table(columns);
        let delete = format!("DELETE FROM information_schema.{}", sq_ident(&name));
        {
            let conn = self.conn.as_mut().expect("conn");
            crate::show::attach_info_schema(conn)?;
            conn.exec(&create)?;
            conn.exec(&delete)?;
            let marks = crate::show::marks(columns.len());
            let mut st = conn.db.prepare_cached(&format!("INSERT INTO information_schema.{} VALUES ({marks})", sq_ident(&name))).map_err(|e| SqlError::internal(e.to_string()))?;
            for r in &rows {
                st.execute(rusqlite::params_from_iter(r.iter().map(stored))).map_err(|e| SqlError::internal(e.to_string()))?;
            }
        }
        let mut out = turnstile_engine::CollectRows::default();
        // (MySQL's text: the name in backticks; it is [a-z0-9_] only.)
        // (The condition in parentheses: one expression, whatever follows it.)
        let select = format!("SELECT * FROM information_schema.`{name}` WHERE ({condition})");
        let r = self.dml(ctx, &select, &[], &mut out, Kind::Select);
        if let Some(c) = self.conn.as_mut() {
            c.exec(&delete)?;
        }
        r?;
        sink.columns(&out.columns)?;
        for row in &out.rows {
            sink.row(row)?;
        }
        Ok(Outcome::Rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_keep_their_types_through_the_scratch_table() {
        for c in [Column::varchar("Key_name"), Column::computed("Non_unique", coltype::LONGLONG), Column::computed("Created", coltype::DATETIME)] {
            let (back, _) = crate::info_tables::wire_column(&c.name, &declared_type(&c));
            assert_eq!(back.coltype, c.coltype, "{}", c.name);
        }
        let (a, _) = scratch_table(&[Column::varchar("Table"), Column::computed("In_use", coltype::LONGLONG)]);
        let (b, create) = scratch_table(&[Column::varchar("Table"), Column::computed("In_use", coltype::LONGLONG)]);
        assert_eq!(a, b);
        assert!(a.starts_with(SCRATCH_PREFIX) && create.contains("\"In_use\" BIGINT(21)"));
    }
}
