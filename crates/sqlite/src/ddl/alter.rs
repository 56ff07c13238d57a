//! ALTER TABLE's operations applied to a table definition, in Rust: the new
//! definition, whether the table must be rebuilt (a column change) or only
//! re-indexed, and which old column each kept column is copied from.
//! Running it on SQLite is the session's job (exec/alter_table.rs).

use super::definition::{finish_def, unique_index_name};
use super::{AlterOp, Position};
use crate::schema::{CheckDef, ColumnDef, IndexDef, TableDef};
use turnstile_engine::SqlError;

/// What ALTER TABLE's operations made of a definition, beside the new
/// definition itself.
#[derive(Debug, Default)]
pub struct Altered {
    /// The table must be rebuilt (a column change), not only re-indexed.
    pub rebuild: bool,
    /// Old name -> new name of each column kept through the change.
    pub renames: Vec<(String, String)>,
    /// Notes as MariaDB raises them (code, message): for operations skipped
    /// under `IF [NOT] EXISTS`, and for YEAR columns given a width other than 4.
    pub notes: Vec<(u16, String)>,
}

/// Apply ALTER operations to a definition.
pub fn apply_alter(def: &mut TableDef, ops: &[AlterOp]) -> Result<Altered, SqlError> {
    let mut out = Altered { renames: def.columns.iter().map(|c| (c.name.clone(), c.name.clone())).collect(), ..Default::default() };
    renamed_keys_exist(def, ops)?;
    for op in ops {
        if let AlterOp::Guarded(inner) = op {
            if let Some(note) = skip_note(def, inner) {
                out.notes.push(note);
                continue;
            }
        }
        if let AlterOp::AddColumn { col, .. } | AlterOp::ChangeColumn { col, .. } = op {
            out.notes.extend(col.year_note());
        }
        out.rebuild |= apply_op(def, op, &mut out.renames)?;
    }
    finish_def(def)?;
    Ok(out)
}

/// RENAME KEY names a key of the table as it was: not one the same ALTER
/// adds or drops (MariaDB's 1176).
fn renamed_keys_exist(def: &TableDef, ops: &[AlterOp]) -> Result<(), SqlError> {
    let dropped: std::collections::HashSet<String> = ops.iter().filter_map(|op| if let AlterOp::DropIndex(n) = op { Some(n.to_ascii_lowercase()) } else { None }).collect();
    let keys: std::collections::HashSet<String> = def.indexes.iter().map(|ix| ix.name.to_ascii_lowercase()).collect();
    for op in ops {
        if let AlterOp::RenameIndex { old, .. } = op {
            let old_l = old.to_ascii_lowercase();
            if !keys.contains(&old_l) || dropped.contains(&old_l) {
                return Err(SqlError::new(1176, "42000", format!("Key '{}' doesn't exist in table '{}'", old, def.name)));
            }
        }
    }
    Ok(())
}

/// A column's own UNIQUE (`ADD c INT UNIQUE`): a one-column unique index named as MariaDB names it.
fn add_unique_index(def: &mut TableDef, column: &str) {
    let name = unique_index_name(def, column);
    def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique: true, columns: vec![column.to_string()], prefix: vec![None], comment: String::new(), fulltext: false, using: None });
}

/// One operation applied; whether it needs the table rebuilt.
fn apply_op(def: &mut TableDef, op: &AlterOp, renames: &mut Vec<(String, String)>) -> Result<bool, SqlError> {
    let mut rebuild = false;
    let no_col = |name: &str, table: &str| SqlError::new(1054, "42S22", format!("Unknown column '{}' in '{}'", name, table));
    match op {
        AlterOp::AddColumn { col, position, primary, unique } => {
            if def.column(&col.name).is_some() {
                return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", col.name)));
            }
            let mut col = col.clone();
            if col.base.is_text() && col.collation.is_none() {
                col.collation = Some(def.collation.clone());
            }
            insert_at(def, col.clone(), position)?;
            if *primary {
                if !def.primary.is_empty() {
                    return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
                }
                def.primary = vec![col.name.clone()];
            }
            if *unique {
                add_unique_index(def, &col.name);
            }
            rebuild = true;
        }
        AlterOp::DropColumn(name) => {
            let i = def.column_index(name).ok_or_else(|| SqlError::new(1091, "42000", format!("Can't DROP COLUMN `{}`; check that it exists", name)))?;
            let real = def.columns[i].name.clone();
            def.columns.remove(i);
            if def.columns.is_empty() {
                return Err(SqlError::new(1090, "42000", "You can't delete all columns with ALTER TABLE; use DROP TABLE instead"));
            }
            def.primary.retain(|c| !c.eq_ignore_ascii_case(&real));
            for ix in def.indexes.iter_mut() {
                let keep: Vec<bool> = ix.columns.iter().map(|c| !c.eq_ignore_ascii_case(&real)).collect();
                let mut k = keep.iter();
                ix.columns.retain(|_| *k.next().unwrap_or(&true));
                let mut k = keep.iter();
                ix.prefix.retain(|_| *k.next().unwrap_or(&true));
            }
            def.indexes.retain(|ix| !ix.columns.is_empty());
            renames.retain(|(_, new)| !new.eq_ignore_ascii_case(&real));
            rebuild = true;
        }
        AlterOp::ChangeColumn { old, col, position, primary, unique } => {
            let i = def.column_index(old).ok_or_else(|| no_col(old, &def.name))?;
            let real_old = def.columns[i].name.clone();
            if !col.name.eq_ignore_ascii_case(&real_old) && def.column(&col.name).is_some() {
                return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", col.name)));
            }
            let mut col = col.clone();
            if col.base.is_text() && col.collation.is_none() {
                col.collation = Some(def.collation.clone());
            }
            let was_pk = def.primary.iter().any(|p| p.eq_ignore_ascii_case(&real_old));
            if was_pk {
                col.nullable = false;
            }
            def.columns.remove(i);
            if *position == Position::Last {
                def.columns.insert(i, col.clone());
            } else {
                insert_at(def, col.clone(), position)?;
            }
            for p in def.primary.iter_mut() {
                if p.eq_ignore_ascii_case(&real_old) {
                    *p = col.name.clone();
                }
            }
            for ix in def.indexes.iter_mut() {
                for c in ix.columns.iter_mut() {
                    if c.eq_ignore_ascii_case(&real_old) {
                        *c = col.name.clone();
                    }
                }
            }
            for r in renames.iter_mut() {
                if r.1.eq_ignore_ascii_case(&real_old) {
                    r.1 = col.name.clone();
                }
            }
            if *primary {
                def.primary = vec![col.name.clone()];
            }
            if *unique {
                add_unique_index(def, &col.name);
            }
            rebuild = true;
        }
        AlterOp::RenameColumn { old, new } => {
            let i = def.column_index(old).ok_or_else(|| no_col(old, &def.name))?;
            // To its own name, in any case, is a rename (MariaDB).
            if !new.eq_ignore_ascii_case(&def.columns[i].name) && def.column(new).is_some() {
                return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", new)));
            }
            let real_old = def.columns[i].name.clone();
            def.columns[i].name = new.clone();
            for p in def.primary.iter_mut().chain(def.indexes.iter_mut().flat_map(|ix| ix.columns.iter_mut())) {
                if p.eq_ignore_ascii_case(&real_old) {
                    *p = new.clone();
                }
            }
            for r in renames.iter_mut() {
                if r.1.eq_ignore_ascii_case(&real_old) {
                    r.1 = new.clone();
                }
            }
            rebuild = true;
        }
        AlterOp::SetDefault { col, default } => {
            let i = def.column_index(col).ok_or_else(|| no_col(col, &def.name))?;
            def.columns[i].default = default.clone();
            rebuild = true;
        }
        AlterOp::AddIndex(ix) => {
            let mut ix = ix.clone();
            if ix.name.is_empty() {
                ix.name = unique_index_name(def, &ix.columns[0]);
            }
            def.indexes.push(ix);
        }
        AlterOp::AddPrimary(cols, prefix) => {
            if !def.primary.is_empty() {
                return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
            }
            super::definition::check_key_prefixes(def, cols, prefix, true)?;
            def.primary = cols.clone();
            def.primary_using = None;
            rebuild = true;
        }
        AlterOp::DropIndex(name) => {
            if name.eq_ignore_ascii_case("PRIMARY") {
                def.primary.clear();
                def.primary_using = None;
                return Ok(true);
            }
            let i = def.indexes.iter().position(|ix| ix.name.eq_ignore_ascii_case(name)).ok_or_else(|| SqlError::new(1091, "42000", format!("Can't DROP INDEX `{}`; check that it exists", name)))?;
            def.indexes.remove(i);
        }
        AlterOp::DropPrimary => {
            if def.primary.is_empty() {
                return Err(SqlError::new(1091, "42000", "Can't DROP INDEX `PRIMARY`; check that it exists"));
            }
            def.primary.clear();
            def.primary_using = None;
            for c in def.columns.iter_mut() {
                if c.auto_increment {
                    return Err(SqlError::new(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
                }
            }
            rebuild = true;
        }
        AlterOp::RenameIndex { old, new } => {
            let i = def.indexes.iter().position(|ix| ix.name.eq_ignore_ascii_case(old)).ok_or_else(|| SqlError::new(1176, "42000", format!("Key '{}' doesn't exist in table '{}'", old, def.name)))?;
            def.indexes[i].name = new.clone();
        }
        AlterOp::RenameTable(_) | AlterOp::OrderBy(_) | AlterOp::CopyAlgorithm | AlterOp::Force | AlterOp::Keys => {}
        AlterOp::Guarded(op) => return apply_op(def, op, renames),
        AlterOp::AddForeignKey(fk) => {
            let mut fk = fk.clone();
            if fk.name.is_empty() {
                fk.name = format!("{}_ibfk_{}", def.name, def.foreign_keys.len() + 1);
            }
            def.foreign_keys.push(fk);
            rebuild = true;
        }
        AlterOp::DropForeignKey(name) => {
            let before = def.foreign_keys.len();
            def.foreign_keys.retain(|f| !f.name.eq_ignore_ascii_case(name));
            if def.foreign_keys.len() == before {
                return Err(SqlError::new(1091, "42000", format!("Can't DROP FOREIGN KEY `{}`; check that it exists", name)));
            }
            rebuild = true;
        }
        AlterOp::AddCheck { name, clause } => {
            let name = name.clone().unwrap_or_else(|| super::definition::unnamed_check(def));
            def.checks.push(CheckDef { name, clause: clause.clone() });
            rebuild = true;
        }
        AlterOp::DropCheck(name) => {
            // MariaDB's DROP CONSTRAINT drops a CHECK, a foreign key or a key of that name.
            if let Some(i) = def.checks.iter().position(|k| k.name.eq_ignore_ascii_case(name)) {
                def.checks.remove(i);
            } else if let Some(i) = def.foreign_keys.iter().position(|f| f.name.eq_ignore_ascii_case(name)) {
                def.foreign_keys.remove(i);
            } else if let Some(i) = def.indexes.iter().position(|ix| ix.name.eq_ignore_ascii_case(name)) {
                def.indexes.remove(i);
            } else {
                return Err(SqlError::new(1091, "42000", format!("Can't DROP CONSTRAINT `{}`; check that it exists", name)));
            }
            rebuild = true;
        }
        AlterOp::ConvertTo(collation) => {
            for c in def.columns.iter_mut().filter(|c| c.base.is_text() && c.collation.is_some()) {
                c.collation = Some(collation.clone());
            }
            def.collation = collation.clone();
            rebuild = true;
        }
        AlterOp::Options { engine, collation, comment, .. } => {
            if let Some(e) = engine {
                def.engine = e.clone();
            }
            if let Some(c) = collation {
                def.collation = c.clone();
            }
            if let Some(c) = comment {
                def.comment = c.clone();
            }
        }
    }
    Ok(rebuild)
}

/// Under `IF [NOT] EXISTS`: the note MariaDB raises when the operation is
/// skipped (what it adds exists, or what it drops or changes does not).
fn skip_note(def: &TableDef, op: &AlterOp) -> Option<(u16, String)> {
    let has_col = |n: &str| def.column(n).is_some();
    let has_key = |n: &str| def.indexes.iter().any(|ix| ix.name.eq_ignore_ascii_case(n)) || def.foreign_keys.iter().any(|f| f.name.eq_ignore_ascii_case(n));
    let unknown_col = |n: &str| Some((1054, format!("Unknown column '{}' in '{}'", n, def.name)));
    let cant_drop = |what: &str, n: &str| Some((1091, format!("Can't DROP {} `{}`; check that it exists", what, n)));
    match op {
        AlterOp::AddColumn { col, .. } if has_col(&col.name) => Some((1060, format!("Duplicate column name '{}'", col.name))),
        AlterOp::AddIndex(ix) => {
            // An unnamed key is named after its first column.
            let name = if ix.name.is_empty() { ix.columns.first()?.clone() } else { ix.name.clone() };
            has_key(&name).then(|| (1061, format!("Duplicate key name '{}'", name)))
        }
        AlterOp::AddForeignKey(fk) if !fk.name.is_empty() && has_key(&fk.name) => Some((1061, format!("Duplicate key name '{}'", fk.name))),
        AlterOp::AddPrimary(..) if !def.primary.is_empty() => Some((1061, "Multiple primary key defined".to_string())),
        AlterOp::AddCheck { name: Some(n), .. } if def.checks.iter().any(|k| k.name.eq_ignore_ascii_case(n)) => Some((1826, format!("Duplicate CHECK constraint name '{}'", n))),
        AlterOp::DropColumn(n) if !has_col(n) => cant_drop("COLUMN", n),
        AlterOp::DropIndex(n) if !n.eq_ignore_ascii_case("PRIMARY") && !def.indexes.iter().any(|ix| ix.name.eq_ignore_ascii_case(n)) => cant_drop("INDEX", n),
        AlterOp::DropForeignKey(n) if !def.foreign_keys.iter().any(|f| f.name.eq_ignore_ascii_case(n)) => cant_drop("FOREIGN KEY", n),
        AlterOp::DropCheck(n) if !def.checks.iter().any(|k| k.name.eq_ignore_ascii_case(n)) && !has_key(n) => cant_drop("CONSTRAINT", n),
        AlterOp::ChangeColumn { old, .. } | AlterOp::RenameColumn { old, .. } if !has_col(old) => unknown_col(old),
        AlterOp::RenameIndex { old, .. } if !def.indexes.iter().any(|ix| ix.name.eq_ignore_ascii_case(old)) => Some((1176, format!("Key '{}' doesn't exist in table '{}'", old, def.name))),
        _ => None,
    }
}

fn insert_at(def: &mut TableDef, col: ColumnDef, position: &Position) -> Result<(), SqlError> {
    match position {
        Position::Last => def.columns.push(col),
        Position::First => def.columns.insert(0, col),
        Position::After(name) => {
            let i = def.column_index(name).ok_or_else(|| SqlError::new(1054, "42S22", format!("Unknown column '{}' in '{}'", name, def.name)))?;
            def.columns.insert(i + 1, col);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ddl::{parse, parse_create_table, Ddl};

    #[test]
    fn renamed_key_is_one_the_table_had() {
        let d = parse_create_table("CREATE TABLE t (a INT, b INT, KEY c (a))");
        let alter = |sql: &str| match parse(sql).unwrap().unwrap() {
            Ddl::Alter { ops, .. } => apply_alter(&mut d.clone(), &ops).map(|_| ()),
            _ => unreachable!(),
        };
        assert_eq!(alter("ALTER TABLE t ADD KEY d (b), RENAME KEY d TO e").unwrap_err().code, 1176);
        assert_eq!(alter("ALTER TABLE t DROP KEY c, RENAME KEY c TO d").unwrap_err().code, 1176);
        assert!(alter("ALTER TABLE t RENAME KEY c TO d").is_ok());
    }

    #[test]
    fn alter() {
        let mut d = parse_create_table("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10))");
        let ops = match parse("ALTER TABLE t ADD COLUMN c INT NOT NULL AFTER id, DROP COLUMN a, CHANGE b bb VARCHAR(20), ADD INDEX ic (c)").unwrap().unwrap() {
            Ddl::Alter { ops, .. } => ops,
            _ => unreachable!(),
        };
        let altered = apply_alter(&mut d, &ops).unwrap();
        let (rebuild, renames) = (altered.rebuild, altered.renames);
        assert!(rebuild);
        let names: Vec<&str> = d.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["id", "c", "bb"]);
        assert!(renames.contains(&("b".to_string(), "bb".to_string())));
        assert!(!renames.iter().any(|r| r.0 == "a"));
    }
}
