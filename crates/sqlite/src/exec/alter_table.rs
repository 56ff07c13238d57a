//! ALTER TABLE (and CREATE/DROP INDEX) on SQLite's tables. The new definition
//! is worked out by ddl.rs (`apply_alter`); a column change rebuilds the table
//! by copy (new table, copy rows, drop old, rename), as MySQL's COPY algorithm
//! does, and an index change only drops and creates indexes. Also the OK
//! MySQL answers with (rows copied).

use super::SqliteSession;
use crate::ddl::{self, AlterOp};
use crate::schema::{charset_of, sq_ident, sq_str, Base, ColumnDef, TableDef};
use turnstile_engine::{Done, ExecContext, Outcome, SqlError};

impl SqliteSession {
    pub(super) fn alter(&mut self, ctx: &ExecContext<'_>, (schema, temp, dbname): (&str, bool, &str), old: &TableDef, ops: &[AlterOp]) -> Result<Outcome, SqlError> {
        let out = self.alter_table(ctx, (schema, temp, dbname), old, ops)?;
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

    fn alter_table(&mut self, ctx: &ExecContext<'_>, (schema, temp, dbname): (&str, bool, &str), old: &TableDef, ops: &[AlterOp]) -> Result<Outcome, SqlError> {
        let mut nd = old.clone();
        let ddl::Altered { rebuild, renames, notes } = ddl::apply_alter(&mut nd, ops)?;
        let mut warnings = notes.len() as u64;
        for (code, message) in notes {
            ctx.note(code, message);
        }
        // ENABLE/DISABLE KEYS: only MyISAM and Aria have the option (MariaDB's Note 1031).
        if ops.iter().any(|o| matches!(o, AlterOp::Keys)) && !matches!(old.engine.to_ascii_lowercase().as_str(), "myisam" | "aria") {
            ctx.note(1031, format!("Storage engine {} of the table `{}`.`{}` doesn't have this option", old.engine, dbname, old.name));
            warnings += 1;
        }
        let order = order_by(ctx, old, ops)?;
        let rebuild = rebuild || !order.is_empty();
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
                    // An AUTO_INCREMENT column added numbers the rows 1, 2, ...
                    // in table order, as MariaDB does (the rowid counts itself).
                    None if c.auto_increment && ddl::is_rowid_column(&nd, c) => exprs.push("NULL".into()),
                    None if c.auto_increment => exprs.push("row_number() OVER ()".into()),
                    None => exprs.push(ddl::implicit_default(c)),
                }
            }
            let copy = format!("INSERT INTO {s}.{} ({}) SELECT {} FROM {s}.{}{}", sq_ident(&tmp), cols.join(", "), exprs.join(", "), sq_ident(&old.name), order, s = sq_ident(schema));
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
            let copies = mariadb_copies(old, &nd, &renames, ops) || !order.is_empty();
            return Ok(altered_warned(if copies { copied } else { 0 }, warnings));
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
                return self.rename_table(schema, temp, &nd, &n.1).map(|_| if rename_only { Outcome::Done(Done::default()) } else { altered_warned(0, warnings) });
            }
        }
        self.save_def(schema, temp, &nd)?;
        // MariaDB rebuilds a MyISAM/Aria/MEMORY table for an index change
        // too and counts its rows; InnoDB adds the index in place (0).
        let records = if mariadb_copies(old, &nd, &renames, ops) {
            self.conn().db.query_row(&format!("SELECT count(*) FROM {}.{}", sq_ident(schema), sq_ident(&nd.name)), [], |r| r.get::<_, i64>(0)).unwrap_or(0) as u64
        } else {
            0
        };
        Ok(altered_warned(records, warnings))
    }
}

/// ALTER TABLE ... ORDER BY: the ` ORDER BY ...` the copy reads the rows
/// in, or nothing. An InnoDB table with a primary key keeps its order
/// (InnoDB clusters rows by it) and MariaDB's warning 1105 says so.
fn order_by(ctx: &ExecContext<'_>, old: &TableDef, ops: &[AlterOp]) -> Result<String, SqlError> {
    let Some(cols) = ops.iter().rev().find_map(|o| if let AlterOp::OrderBy(c) = o { Some(c) } else { None }) else {
        return Ok(String::new());
    };
    for (name, _) in cols {
        if old.column(name).is_none() {
            return Err(SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'order clause'", name)));
        }
    }
    if innodb(old) && !old.primary.is_empty() {
        ctx.warn(1105, format!("ORDER BY ignored as there is a user-defined clustered index in the table '{}'", old.name));
        return Ok(String::new());
    }
    let keys: Vec<String> = cols.iter().map(|(n, desc)| format!("{}{}", sq_ident(n), if *desc { " DESC" } else { "" })).collect();
    Ok(format!(" ORDER BY {}", keys.join(", ")))
}

/// Is the table InnoDB's (the default), which MariaDB alters in place where
/// it can? Other engines' tables it copies for every ALTER.
fn innodb(def: &TableDef) -> bool {
    def.engine.is_empty() || def.engine.eq_ignore_ascii_case("InnoDB")
}

/// The OK of ALTER TABLE (and CREATE/DROP INDEX, which MySQL runs as one):
/// `records` rows copied, MySQL's info string.
pub(super) fn altered(records: u64) -> Outcome {
    altered_warned(records, 0)
}

/// `altered`, with the number of notes the statement raised in its info.
pub(super) fn altered_warned(records: u64, warnings: u64) -> Outcome {
    Outcome::Done(Done { affected_rows: records, info: format!("Records: {}  Duplicates: 0  Warnings: {}", records, warnings), ..Default::default() })
}

/// Whether MariaDB 10.11 copies the rows for these operations (its OK then
/// counts them; done in place it answers 0), as measured against it with
/// alter_table.test's "which operations require copy" section. InnoDB
/// copies for a column whose stored form changes, DROP PRIMARY KEY, a
/// foreign key added, CONVERT TO and ALGORITHM=COPY; defaults, renames,
/// comments, NULL-ness, an ENUM or SET grown within its size and a
/// VARCHAR grown within its length bytes are in place. Another engine
/// (MyISAM, Aria, MEMORY) also copies for any column or key added, dropped
/// or redefined, FORCE, and a new engine, character set or AUTO_INCREMENT.
fn mariadb_copies(old: &TableDef, new: &TableDef, renames: &[(String, String)], ops: &[AlterOp]) -> bool {
    let innodb = innodb(old);
    let restored = renames.iter().any(|(o, n)| match (old.column(o), new.column(n)) {
        (Some(a), Some(b)) => !same_storage(a, b) || (!innodb && redefined(a, b)),
        _ => false,
    });
    // Kept columns in a new order (FIRST / AFTER).
    let places: Vec<usize> = renames.iter().filter_map(|(_, n)| new.columns.iter().position(|c| c.name.eq_ignore_ascii_case(n))).collect();
    let moved = !innodb && places.windows(2).any(|w| w[0] > w[1]);
    let copying = |op: &AlterOp| matches!(op, AlterOp::DropPrimary | AlterOp::AddForeignKey(_) | AlterOp::CopyAlgorithm | AlterOp::ConvertTo(_));
    let rebuilding = |op: &AlterOp| match op {
        AlterOp::AddColumn { .. } | AlterOp::DropColumn(_) | AlterOp::AddIndex(_) | AlterOp::DropIndex(_) | AlterOp::AddPrimary(..) | AlterOp::AddCheck { .. } | AlterOp::Force => true,
        AlterOp::Options { engine, collation, auto_increment, .. } => engine.is_some() || collation.is_some() || auto_increment.is_some(),
        _ => false,
    };
    let engine_change = ops.iter().any(|op| matches!(op.inner(), AlterOp::Options { engine: Some(e), .. } if !e.eq_ignore_ascii_case(&old.engine)));
    restored || moved || engine_change || ops.iter().any(|op| copying(op.inner())) || (!innodb && ops.iter().any(|op| rebuilding(op.inner())))
}

/// A column kept through ALTER whose values are stored as before: the same
/// type, sign, scale and character set; a VARCHAR not shortened and still
/// under (or over) 256 bytes; an ENUM or SET with members only added at its
/// end and no more bytes per value.
fn same_storage(a: &ColumnDef, b: &ColumnDef) -> bool {
    let charset = |c: &ColumnDef| c.collation.as_deref().map(charset_of);
    if a.base != b.base || a.unsigned != b.unsigned || a.scale != b.scale || charset(a) != charset(b) {
        return false;
    }
    if !a.members.is_empty() || !b.members.is_empty() {
        let extended = b.members.len() >= a.members.len() && a.members.iter().zip(&b.members).all(|(x, y)| x == y);
        return extended && member_bytes(a) == member_bytes(b);
    }
    if a.base == Base::VarChar {
        let bytes = |c: &ColumnDef| c.length.unwrap_or(1) * max_char_bytes(charset(c).unwrap_or("utf8mb4"));
        return b.length >= a.length && (bytes(a) > 255) == (bytes(b) > 255);
    }
    a.base.is_integer() || a.length == b.length
}

/// MyISAM rewrites a column whose definition changes in more than its name
/// and default (NULL-ness, for one).
fn redefined(a: &ColumnDef, b: &ColumnDef) -> bool {
    a.nullable != b.nullable || a.length != b.length || a.members != b.members || a.auto_increment != b.auto_increment
}

/// Bytes an ENUM (1 or 2) or SET (1, 2, 3, 4 or 8) value takes.
fn member_bytes(c: &ColumnDef) -> usize {
    let n = c.members.len();
    match c.base {
        Base::Set => match n.div_ceil(8) {
            0 | 1 => 1,
            2 => 2,
            3 => 3,
            4 => 4,
            _ => 8,
        },
        _ => 1 + usize::from(n > 255),
    }
}

/// The most bytes one character takes in a character set.
fn max_char_bytes(charset: &str) -> u64 {
    match charset {
        "utf8mb4" | "utf16" | "utf16le" | "utf32" => 4,
        "utf8" | "utf8mb3" => 3,
        "ucs2" => 2,
        _ => 1,
    }
}
