//! LOCK TABLES and the table maintenance statements (ANALYZE, OPTIMIZE, CHECK,
//! REPAIR TABLE, CHECKSUM TABLE). Writers are serialized anyway and SQLite
//! needs no such maintenance: these check the privileges MySQL asks for and
//! answer as MySQL does (ANALYZE also runs SQLite's). CHECKSUM TABLE's value
//! is Turnstile's own (a CRC-32 of the rows' text in rowid order, not
//! MariaDB's record-format CRC): equal contents give equal checksums, an
//! empty table 0, as in MariaDB.

use super::SqliteSession;
use crate::schema::{sq_ident, TableDef};
use turnstile_engine::{privs, Access, Column, ExecContext, Level, Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::cursor::TokenCursor;
use turnstile_wire::consts::coltype;

/// The maintenance statements' result columns as MariaDB 10.11 describes
/// them: VARCHARs of 512, 40 and 40 bytes, and Msg_text a MEDIUMTEXT
/// (MEDIUM_BLOB on the wire, 1,572,864 bytes, no BLOB flag).
fn maintenance_header() -> [Column; 4] {
    let text = |name: &str, ty: u8, length: u32| {
        let mut c = Column::computed(name, ty);
        c.length = length;
        c.flags = 0;
        c.decimals = 39;
        c
    };
    [text("Table", coltype::VAR_STRING, 512), text("Op", coltype::VAR_STRING, 40), text("Msg_type", coltype::VAR_STRING, 40), text("Msg_text", coltype::MEDIUM_BLOB, 1_572_864)]
}

/// The Msg_type/Msg_text rows MariaDB 10.11 gives for one table of `op`
/// (analyze, check, optimize, repair): by the table's engine (InnoDB repairs
/// nothing and optimizes by recreating; MEMORY supports none of them), a view
/// only for CHECK, and a table that is not there an Error then a failed status.
fn maintenance_answer(op: &str, def: Option<&TableDef>, full: &str) -> Vec<(&'static str, String)> {
    let failed = |text: String| vec![("Error", text), ("status", "Operation failed".to_string())];
    let ok = || vec![("status", "OK".to_string())];
    let Some(def) = def else {
        return failed(format!("Table '{}' doesn't exist", full));
    };
    if def.view.is_some() {
        return if op == "check" { ok() } else { failed(format!("'{}' is not of type 'BASE TABLE'", full)) };
    }
    let unsupported = || vec![("note", format!("The storage engine for the table doesn't support {}", op))];
    match (def.engine.to_ascii_lowercase().as_str(), op) {
        ("memory" | "heap", _) => unsupported(),
        ("innodb", "repair") => unsupported(),
        ("innodb", "optimize") => vec![("note", "Table does not support optimize, doing recreate + analyze instead".to_string()), ("status", "OK".to_string())],
        _ => ok(),
    }
}

impl SqliteSession {
    /// `LOCK TABLE[S] name [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE}, ...`:
    /// LOCK TABLES on the database and SELECT on every table named, as MySQL asks.
    pub(super) fn check_lock_tables(&self, sql: &str, access: &dyn Access) -> Result<(), SqlError> {
        let toks = turnstile_sqltext::lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        let mut c = TokenCursor::new(sql, &toks);
        c.expect_kw("LOCK")?;
        if !(c.eat_kw("TABLES") || c.eat_kw("TABLE")) {
            return Err(c.error().into());
        }
        loop {
            let (db, table) = c.qualified()?;
            let db = db.or_else(|| self.db.clone()).ok_or_else(SqlError::no_database)?;
            let temp = db.as_str() == self.db.as_deref().unwrap_or("") && self.conn.as_ref().is_some_and(|c| c.temp.table(&table).is_some());
            if !temp {
                // A database privilege, checked first (1044), then SELECT (1142).
                if access.privileges(&db) & privs::LOCK_TABLES == 0 {
                    let (user, host) = access.who();
                    return Err(SqlError::db_access_denied(user, host, &db));
                }
                access.check_table(&db, &table, privs::SELECT)?;
            }
            if c.eat_kw("AS") || !(c.is_kw("READ") || c.is_kw("WRITE") || c.is_kw("LOW_PRIORITY")) {
                c.ident()?;
            }
            if c.eat_kw("READ") {
                c.eat_kw("LOCAL");
            } else {
                c.eat_kw("LOW_PRIORITY");
                c.expect_kw("WRITE")?;
            }
            if !c.eat_op(",") {
                break;
            }
        }
        c.eat_op(";");
        if c.at_end() {
            Ok(())
        } else {
            Err(c.error().into())
        }
    }

    /// `CHECKSUM TABLE[S] t, ... [QUICK | EXTENDED]`: SELECT on each table;
    /// a row per table, its checksum NULL with an Error condition 1146 for
    /// one that is not there (1347 for a view), and NULL for QUICK
    /// (InnoDB keeps no live checksum).
    pub(super) fn checksum(&mut self, ctx: &ExecContext<'_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        let toks = turnstile_sqltext::lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        let mut c = TokenCursor::new(sql, &toks);
        c.expect_kw("CHECKSUM")?;
        if !(c.eat_kw("TABLE") || c.eat_kw("TABLES")) {
            return Err(c.error().into());
        }
        let mut names = vec![c.qualified()?];
        while c.eat_op(",") {
            names.push(c.qualified()?);
        }
        let quick = c.eat_kw("QUICK");
        if !quick {
            c.eat_kw("EXTENDED");
        }
        c.eat_op(";");
        if !c.at_end() {
            return Err(c.error().into());
        }
        for (db, table) in &names {
            let db = db.as_deref().or(self.db.as_deref()).ok_or_else(SqlError::no_database)?;
            ctx.access.check_table(db, table, privs::SELECT)?;
        }
        self.ensure_conn()?;
        let mut table_col = Column::computed("Table", coltype::VAR_STRING);
        table_col.length = 512;
        table_col.flags = 0;
        let mut sum_col = Column::computed("Checksum", coltype::LONGLONG);
        sum_col.length = 21;
        sink.columns(&[table_col, sum_col])?;
        for n in names {
            let (s, dbn, _) = self.target(&n, false)?;
            let full = format!("{}.{}", dbn, n.1);
            let value = match self.def_of(&s, &n.1) {
                None => {
                    ctx.warnings().inspect(|w| w.push(Level::Error, 1146, format!("Table '{}' doesn't exist", full)));
                    Value::Null
                }
                Some(d) if d.view.is_some() => {
                    ctx.warnings().inspect(|w| w.push(Level::Error, 1347, format!("'{}' is not of type 'BASE TABLE'", full)));
                    Value::Null
                }
                Some(_) if quick => Value::Null,
                Some(_) => Value::Int(self.table_crc(&s, &n.1)?),
            };
            sink.row(&[Value::str(&full), value])?;
        }
        Ok(Outcome::Rows)
    }

    /// A CRC-32 of every row's values as text, in rowid order (0: no rows).
    fn table_crc(&mut self, schema: &str, table: &str) -> Result<i64, SqlError> {
        use rusqlite::ffi;
        let sql = format!("SELECT * FROM {}.{} ORDER BY rowid", sq_ident(schema), sq_ident(table));
        let conn = self.conn();
        let st = conn.prepare(&sql, &sql)?;
        let n = st.column_count();
        let mut hasher = crc32fast::Hasher::new();
        let mut any = false;
        loop {
            match st.step() {
                ffi::SQLITE_ROW => any = true,
                ffi::SQLITE_DONE => break,
                rc => return Err(crate::errors::from_conn(conn, rc, &sql)),
            }
            for i in 0..n {
                match st.column_type(i) {
                    ffi::SQLITE_NULL => hasher.update(&[0]),
                    _ => hasher.update(st.bytes(i)),
                }
                hasher.update(&[0xff]);
            }
        }
        Ok(if any { i64::from(hasher.finalize()) } else { 0 })
    }

    pub(super) fn maintenance(&mut self, access: &dyn Access, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        let toks = turnstile_sqltext::lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        let mut c = TokenCursor::new(sql, &toks);
        let op = c.ident()?.to_ascii_lowercase();
        c.eat_kw("NO_WRITE_TO_BINLOG");
        c.eat_kw("LOCAL");
        if !(c.eat_kw("TABLE") || c.eat_kw("TABLES")) {
            return Err(c.error().into());
        }
        let mut names = vec![c.qualified()?];
        while c.eat_op(",") {
            names.push(c.qualified()?);
        }
        // MySQL: SELECT and INSERT (CHECK TABLE: any privilege on the table).
        let need = if op == "check" { privs::SELECT } else { privs::SELECT | privs::INSERT };
        for (db, table) in &names {
            let db = db.as_deref().or(self.db.as_deref()).ok_or_else(SqlError::no_database)?;
            access.check_table(db, table, need)?;
        }
        self.ensure_conn()?;
        sink.columns(&maintenance_header())?;
        for n in names {
            let (s, dbn, _) = self.target(&n, false)?;
            let def = self.def_of(&s, &n.1);
            let full = format!("{}.{}", dbn, n.1);
            if op == "analyze" && def.as_ref().is_some_and(|d| d.view.is_none()) {
                let _ = self.conn().exec(&format!("ANALYZE {}.{}", sq_ident(&s), sq_ident(&n.1)));
            }
            for (ty, text) in maintenance_answer(&op, def.as_deref(), &full) {
                sink.row(&[Value::str(&full), Value::str(&op), Value::str(ty), Value::str(&text)])?;
            }
        }
        Ok(Outcome::Rows)
    }
}
