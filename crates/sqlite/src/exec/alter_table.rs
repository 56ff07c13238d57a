//! ALTER TABLE (and CREATE/DROP INDEX) on SQLite's tables. The new definition
//! is worked out by ddl.rs (`apply_alter`); a column change rebuilds the table
//! by copy (new table, copy rows, drop old, rename), as MySQL's COPY algorithm
//! does, and an index change only drops and creates indexes. Also the OK
//! MySQL answers with (rows copied).

use super::SqliteSession;
use crate::ddl::{self, AlterOp};
use crate::schema::{sq_ident, sq_str, TableDef};
use turnstile_engine::{Done, Outcome, SqlError};

impl SqliteSession {
    pub(super) fn alter(&mut self, schema: &str, temp: bool, dbname: &str, old: &TableDef, ops: &[AlterOp]) -> Result<Outcome, SqlError> {
        let out = self.alter_table(schema, temp, dbname, old, ops)?;
        let next = ops.iter().rev().find_map(|o| if let AlterOp::Options { auto_increment: Some(n), .. } = o { Some(*n) } else { None });
        if let Some(next) = next {
            let name = ops.iter().rev().find_map(|o| if let AlterOp::RenameTable(n) = o { Some(n.1.clone()) } else { None }).unwrap_or_else(|| old.name.clone());
            if old.auto_increment_column().is_some() {
                self.set_next_auto_increment(schema, &name, next)?;
            }
        }
        Ok(out)
    }

    /// AUTO_INCREMENT = n: the next value is n, or one past the largest in
    /// use if that is larger (InnoDB's rule; SQLite takes the larger of the
    /// sequence and the largest rowid, so storing n - 1 does the same).
    fn set_next_auto_increment(&mut self, schema: &str, table: &str, next: u64) -> Result<(), SqlError> {
        let seq = next.saturating_sub(1).min(i64::MAX as u64);
        let conn = self.conn();
        conn.exec(&format!("DELETE FROM {}.sqlite_sequence WHERE name = {}", sq_ident(schema), sq_str(table)))?;
        conn.exec(&format!("INSERT INTO {}.sqlite_sequence(name, seq) VALUES ({}, {})", sq_ident(schema), sq_str(table), seq))
    }

    fn alter_table(&mut self, schema: &str, temp: bool, dbname: &str, old: &TableDef, ops: &[AlterOp]) -> Result<Outcome, SqlError> {
        let mut nd = old.clone();
        let (rebuild, renames) = ddl::apply_alter(&mut nd, ops)?;
        let new_name = ops.iter().rev().find_map(|o| if let AlterOp::RenameTable(n) = o { Some(n.clone()) } else { None });
        if let Some(n) = &new_name {
            if n.0.as_deref().is_some_and(|d| d != dbname) {
                return Err(SqlError::unsupported("RENAME TABLE across databases"));
            }
            if !n.1.eq_ignore_ascii_case(&old.name) && self.def_of(schema, &n.1).is_some() {
                return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", n.1)));
            }
        }
        if rebuild {
            // Copy algorithm: new table, copy rows, drop old, rename.
            let tmp = format!("ts_rebuild_{}", old.name);
            let mut tmp_def = nd.clone();
            tmp_def.name = tmp.clone();
            for ix in tmp_def.indexes.iter_mut() {
                ix.sqlite_name.clear();
            }
            let sql = ddl::sqlite_create_table(&tmp_def, schema, &tmp);
            self.conn().exec(&sql)?;
            let mut cols = Vec::new();
            let mut exprs = Vec::new();
            // A generated column computes its own value.
            for c in nd.columns.iter().filter(|c| c.generated.is_none()) {
                cols.push(sq_ident(&c.name));
                match renames.iter().find(|(_, new)| new.eq_ignore_ascii_case(&c.name)) {
                    Some((oldname, _)) => exprs.push(sq_ident(oldname)),
                    None => exprs.push(ddl::implicit_default(c)),
                }
            }
            let copy = format!("INSERT INTO {s}.{} ({}) SELECT {} FROM {s}.{}", sq_ident(&tmp), cols.join(", "), exprs.join(", "), sq_ident(&old.name), s = sq_ident(schema));
            self.conn().exec(&copy)?;
            let conn = self.conn();
            let copied = conn.changes();
            let seq = if old.auto_increment_column().is_some() {
                conn.db.query_row(&format!("SELECT seq FROM {}.sqlite_sequence WHERE name = ?1", sq_ident(schema)), [&old.name], |r| r.get::<_, i64>(0)).ok()
            } else {
                None
            };
            conn.exec(&format!("DROP TABLE {}.{}", sq_ident(schema), sq_ident(&old.name)))?;
            let final_name = new_name.as_ref().map(|n| n.1.clone()).unwrap_or_else(|| old.name.clone());
            conn.rename_legacy(schema, &tmp, &final_name)?;
            if let (Some(seq), true) = (seq, nd.auto_increment_column().is_some()) {
                let _ = conn.exec(&format!("UPDATE {}.sqlite_sequence SET seq = max(seq, {}) WHERE name = {}", sq_ident(schema), seq, sq_str(&final_name)));
            }
            nd.name = final_name;
            let snapshot = nd.clone();
            for ix in nd.indexes.iter_mut() {
                ix.sqlite_name.clear();
                self.create_index(&snapshot, ix, schema)?;
            }
            for t in ddl::sqlite_triggers(&nd, schema) {
                self.conn().exec(&t)?;
            }
            self.remove_def(schema, temp, &old.name)?;
            self.save_def(schema, temp, &nd)?;
            return Ok(altered(if mysql_copies(old, ops) || !innodb(old) { copied } else { 0 }));
        }
        // Index changes only.
        for ix in &old.indexes {
            let kept = nd.indexes.iter().any(|n| n.sqlite_name == ix.sqlite_name && n.columns == ix.columns && n.unique == ix.unique);
            if !kept {
                self.conn().exec(&format!("DROP INDEX IF EXISTS {}.{}", sq_ident(schema), sq_ident(&ix.sqlite_name)))?;
            }
        }
        let snapshot = nd.clone();
        for ix in nd.indexes.iter_mut() {
            let exists = old.indexes.iter().any(|o| o.sqlite_name == ix.sqlite_name && !ix.sqlite_name.is_empty() && o.columns == ix.columns && o.unique == ix.unique);
            if !exists {
                ix.sqlite_name.clear();
                self.create_index(&snapshot, ix, schema)?;
            }
        }
        if let Some(n) = &new_name {
            if !n.1.eq_ignore_ascii_case(&old.name) || n.1 != old.name {
                self.save_def(schema, temp, &nd)?;
                // A rename alone is answered without the info string (MySQL).
                let rename_only = ops.iter().all(|o| matches!(o, AlterOp::RenameTable(_)));
                return self.rename_table(schema, temp, &nd, &n.1).map(|_| if rename_only { Outcome::Done(Done::default()) } else { altered(0) });
            }
        }
        self.save_def(schema, temp, &nd)?;
        // MariaDB rebuilds a MyISAM/Aria/MEMORY table for an index change
        // too and counts its rows; InnoDB adds the index in place (0).
        let records =
            if innodb(old) { 0 } else { self.conn().db.query_row(&format!("SELECT count(*) FROM {}.{}", sq_ident(schema), sq_ident(&nd.name)), [], |r| r.get::<_, i64>(0)).unwrap_or(0) as u64 };
        Ok(altered(records))
    }
}

/// Is the table InnoDB's (the default), which MariaDB alters in place where
/// it can? Other engines' tables it copies for every ALTER.
fn innodb(def: &TableDef) -> bool {
    def.engine.is_empty() || def.engine.eq_ignore_ascii_case("InnoDB")
}

/// The OK of ALTER TABLE (and CREATE/DROP INDEX, which MySQL runs as one):
/// `records` rows copied, MySQL's info string.
pub(super) fn altered(records: u64) -> Outcome {
    Outcome::Done(Done { affected_rows: records, info: format!("Records: {}  Duplicates: 0  Warnings: 0", records), ..Default::default() })
}

/// Whether MySQL 8.0 runs these ALTER operations with the COPY algorithm (it
/// then reports the rows copied; INSTANT and INPLACE report 0): changing a
/// column's type, and adding a foreign key (with foreign_key_checks on).
fn mysql_copies(old: &TableDef, ops: &[AlterOp]) -> bool {
    ops.iter().any(|op| match op {
        AlterOp::ChangeColumn { old: name, col, .. } => match old.column(name) {
            Some(o) => o.base != col.base || o.unsigned != col.unsigned || o.scale != col.scale || col.length.unwrap_or(0) < o.length.unwrap_or(0) || o.collation != col.collation,
            None => false,
        },
        AlterOp::AddForeignKey(_) => true,
        _ => false,
    })
}
