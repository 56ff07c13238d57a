//! ALTER TABLE's operations applied to a table definition, in Rust: the new
//! definition, whether the table must be rebuilt (a column change) or only
//! re-indexed, and which old column each kept column is copied from.
//! Running it on SQLite is the session's job (exec/alter_table.rs).

use super::definition::{finish_def, unique_index_name};
use super::{AlterOp, Position};
use crate::schema::{CheckDef, ColumnDef, IndexDef, TableDef};
use turnstile_engine::SqlError;

/// Apply ALTER operations to a definition. Returns whether the table must be
/// rebuilt (a column change) rather than only re-indexed.
pub fn apply_alter(def: &mut TableDef, ops: &[AlterOp]) -> Result<(bool, Vec<(String, String)>), SqlError> {
    let mut rebuild = false;
    // Old-name -> new-name for columns kept through the change.
    let mut renames: Vec<(String, String)> = def.columns.iter().map(|c| (c.name.clone(), c.name.clone())).collect();
    let no_col = |name: &str, table: &str| SqlError::new(1054, "42S22", format!("Unknown column '{}' in '{}'", name, table));
    for op in ops {
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
                    let name = unique_index_name(def, &col.name);
                    def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique: true, columns: vec![col.name.clone()], prefix: vec![None], comment: String::new(), fulltext: false });
                }
                rebuild = true;
            }
            AlterOp::DropColumn(name) => {
                let i = def.column_index(name).ok_or_else(|| SqlError::new(1091, "42000", format!("Can't DROP '{}'; check that column/key exists", name)))?;
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
                    let name = unique_index_name(def, &col.name);
                    def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique: true, columns: vec![col.name.clone()], prefix: vec![None], comment: String::new(), fulltext: false });
                }
                rebuild = true;
            }
            AlterOp::RenameColumn { old, new } => {
                let i = def.column_index(old).ok_or_else(|| no_col(old, &def.name))?;
                if def.column(new).is_some() {
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
            AlterOp::AddPrimary(cols) => {
                if !def.primary.is_empty() {
                    return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
                }
                def.primary = cols.clone();
                rebuild = true;
            }
            AlterOp::DropIndex(name) => {
                if name.eq_ignore_ascii_case("PRIMARY") {
                    def.primary.clear();
                    rebuild = true;
                    continue;
                }
                let i =
                    def.indexes.iter().position(|ix| ix.name.eq_ignore_ascii_case(name)).ok_or_else(|| SqlError::new(1091, "42000", format!("Can't DROP '{}'; check that column/key exists", name)))?;
                def.indexes.remove(i);
            }
            AlterOp::DropPrimary => {
                if def.primary.is_empty() {
                    return Err(SqlError::new(1091, "42000", "Can't DROP 'PRIMARY'; check that column/key exists"));
                }
                def.primary.clear();
                for c in def.columns.iter_mut() {
                    if c.auto_increment {
                        return Err(SqlError::new(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
                    }
                }
                rebuild = true;
            }
            AlterOp::RenameIndex { old, new } => {
                let i =
                    def.indexes.iter().position(|ix| ix.name.eq_ignore_ascii_case(old)).ok_or_else(|| SqlError::new(1176, "42000", format!("Key '{}' doesn't exist in table '{}'", old, def.name)))?;
                def.indexes[i].name = new.clone();
            }
            AlterOp::RenameTable(_) => {}
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
                    return Err(SqlError::new(1091, "42000", format!("Can't DROP '{}'; check that column/key exists", name)));
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
    }
    finish_def(def)?;
    Ok((rebuild, renames))
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
    fn alter() {
        let mut d = parse_create_table("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10))");
        let ops = match parse("ALTER TABLE t ADD COLUMN c INT NOT NULL AFTER id, DROP COLUMN a, CHANGE b bb VARCHAR(20), ADD INDEX ic (c)").unwrap().unwrap() {
            Ddl::Alter { ops, .. } => ops,
            _ => unreachable!(),
        };
        let (rebuild, renames) = apply_alter(&mut d, &ops).unwrap();
        assert!(rebuild);
        let names: Vec<&str> = d.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["id", "c", "bb"]);
        assert!(renames.contains(&("b".to_string(), "bb".to_string())));
        assert!(!renames.iter().any(|r| r.0 == "a"));
    }
}
