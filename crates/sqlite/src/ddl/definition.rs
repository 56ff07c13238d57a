//! A table definition being built: an empty one with MySQL's defaults, the
//! names of indexes not named in the statement, and the checks every finished
//! definition passes (those MySQL makes on CREATE TABLE and ALTER TABLE).

use super::DEFAULT_COLLATION;
use crate::schema::{quote_ident, Base, ColumnDef, Default_, TableDef};
use turnstile_engine::SqlError;

/// The name MariaDB gives an unnamed key: its first column's, with `_2`,
/// `_3`... while taken (PRIMARY is always taken).
pub(super) fn unique_index_name(def: &TableDef, col: &str) -> String {
    let mut name = col.to_string();
    let mut n = 2;
    while name.eq_ignore_ascii_case("PRIMARY") || def.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&name)) {
        name = format!("{}_{}", col, n);
        n += 1;
    }
    name
}

/// The name MariaDB gives an unnamed table CHECK: `CONSTRAINT_<n>`, the
/// first n not taken.
pub(super) fn unnamed_check(def: &TableDef) -> String {
    let mut n = 1;
    while def.checks.iter().any(|k| k.name.eq_ignore_ascii_case(&format!("CONSTRAINT_{}", n))) {
        n += 1;
    }
    format!("CONSTRAINT_{}", n)
}

pub fn empty_def(name: &str) -> TableDef {
    TableDef {
        name: name.to_string(),
        columns: Vec::new(),
        primary: Vec::new(),
        primary_using: None,
        indexes: Vec::new(),
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        engine: "InnoDB".into(),
        collation: DEFAULT_COLLATION.into(),
        comment: String::new(),
        created: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        view: None,
    }
}

/// MariaDB's rules for generated columns: the expression names only
/// columns of the table (1054), no generated column at or after its own
/// (4029), and no AUTO_INCREMENT column when STORED (1901); no generated
/// column in the PRIMARY KEY (1903).
fn check_generated(def: &TableDef) -> Result<(), SqlError> {
    for (i, col) in def.columns.iter().enumerate() {
        let Some(g) = &col.generated else { continue };
        for name in super::expr_text::named_columns(&g.expr) {
            let Some(at) = def.columns.iter().position(|c| c.name.eq_ignore_ascii_case(&name)) else {
                return Err(SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'GENERATED ALWAYS AS'", name)));
            };
            let other = &def.columns[at];
            if at >= i && other.generated.is_some() {
                return Err(SqlError::new(4029, "01000", format!("Expression for field {} is referring to uninitialized field {}", quote_ident(&col.name), quote_ident(&other.name))));
            }
            if other.auto_increment && g.stored {
                return Err(SqlError::new(1901, "HY000", format!("Function or expression 'AUTO_INCREMENT' cannot be used in the GENERATED ALWAYS AS clause of {}", quote_ident(&other.name))));
            }
        }
        if def.primary.iter().any(|p| p.eq_ignore_ascii_case(&col.name)) {
            return Err(SqlError::new(1903, "HY000", "Primary key cannot be defined upon a generated column"));
        }
    }
    Ok(())
}

/// MariaDB's rules for a default naming columns: only the table's (1054);
/// not its own column, nor a later one whose value is itself computed (a
/// default naming columns, or a generated column), which is not known yet
/// when the default is (4029). `DEFAULT(col)` inside a default counts as
/// naming col.
fn check_row_defaults(def: &TableDef) -> Result<(), SqlError> {
    for (i, col) in def.columns.iter().enumerate() {
        let Some(Default_::Expr(e)) = &col.default else { continue };
        for name in super::expr_text::named_columns(e) {
            let Some(at) = def.columns.iter().position(|c| c.name.eq_ignore_ascii_case(&name)) else {
                return Err(SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'DEFAULT'", name)));
            };
            let other = &def.columns[at];
            if at == i || (at > i && (other.row_default().is_some() || other.generated.is_some())) {
                return Err(SqlError::new(4029, "01000", format!("Expression for field {} is referring to uninitialized field {}", quote_ident(&col.name), quote_ident(&other.name))));
            }
        }
    }
    Ok(())
}

/// MariaDB's checks of key prefixes (`KEY (a(10))`): only a string column
/// takes one, no longer than a CHAR's or VARCHAR's length (1089); a PRIMARY
/// KEY's prefix fits InnoDB's 3072 bytes (1071: a UNIQUE one is a hash
/// key there). Columns not (yet) in `def` are left to the 1072 check.
pub(super) fn check_key_prefixes(def: &TableDef, cols: &[String], prefix: &[Option<u64>], primary: bool) -> Result<(), SqlError> {
    for (name, len) in cols.iter().zip(prefix) {
        let (Some(n), Some(col)) = (len, def.column(name)) else { continue };
        let bounded = matches!(col.base, Base::Char | Base::VarChar | Base::Binary | Base::VarBinary);
        let string = bounded || matches!(col.base, Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob);
        if !string || (bounded && *n > col.length.unwrap_or(1)) {
            return Err(SqlError::new(
                1089,
                "HY000",
                "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys",
            ));
        }
        let per_char = match col.charset_name().unwrap_or(crate::schema::charset_of(&def.collation)) {
            "utf8mb4" => 4,
            "utf8mb3" => 3,
            _ => 1,
        };
        if primary && n.saturating_mul(per_char) > 3072 {
            return Err(SqlError::new(1071, "42000", "Specified key was too long; max key length is 3072 bytes"));
        }
    }
    Ok(())
}

/// Validate a finished definition: names unique, keys name real columns,
/// AUTO_INCREMENT rules, PRIMARY KEY columns NOT NULL.
pub fn finish_def(def: &mut TableDef) -> Result<(), SqlError> {
    if def.columns.is_empty() {
        return Err(SqlError::new(1113, "42000", "A table must have at least 1 column"));
    }
    for (i, col) in def.columns.iter().enumerate() {
        if def.columns[..i].iter().any(|c| c.name.eq_ignore_ascii_case(&col.name)) {
            return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", col.name)));
        }
        if col.name.len() > 64 {
            return Err(SqlError::new(1059, "42000", format!("Identifier name '{}' is too long", col.name)));
        }
    }
    // MEMORY keeps fixed-length rows: no BLOB or TEXT column (JSON is LONGTEXT).
    let lob = |b: Base| matches!(b, Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob | Base::Json);
    if def.engine.eq_ignore_ascii_case("MEMORY") && def.columns.iter().any(|c| lob(c.base)) {
        return Err(SqlError::new(1163, "42000", "Storage engine MEMORY doesn't support BLOB/TEXT columns"));
    }
    for k in def.primary.iter().chain(def.indexes.iter().flat_map(|i| i.columns.iter())) {
        if def.column(k).is_none() {
            return Err(SqlError::new(1072, "42000", format!("Key column '{}' doesn't exist in table", k)));
        }
    }
    // A CHECK names only the table's own columns (SQLite would take an
    // unknown quoted name for a string).
    let clauses = def.columns.iter().filter_map(|c| c.check.as_deref()).chain(def.checks.iter().map(|k| k.clause.as_str()));
    for clause in clauses {
        if let Some(unknown) = super::expr_text::named_columns(clause).into_iter().find(|n| def.column(n).is_none()) {
            return Err(SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'CHECK'", unknown)));
        }
    }
    check_generated(def)?;
    check_row_defaults(def)?;
    for (i, ck) in def.checks.iter().enumerate() {
        // A table CHECK's name is unique among the table's CHECKs, the
        // columns' own (named as their column) included.
        let taken = def.checks[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&ck.name)) || def.columns.iter().any(|c| c.check.is_some() && c.name.eq_ignore_ascii_case(&ck.name));
        if taken {
            return Err(SqlError::new(1826, "HY000", format!("Duplicate CHECK constraint name '{}'", ck.name)));
        }
    }
    for ix in def.indexes.iter() {
        check_key_prefixes(def, &ix.columns, &ix.prefix, false)?;
    }
    // A prefix as long as its CHAR or VARCHAR is the whole column (MariaDB drops it).
    let whole: Vec<Vec<bool>> = def
        .indexes
        .iter()
        .map(|ix| {
            ix.columns
                .iter()
                .zip(&ix.prefix)
                .map(|(k, p)| def.column(k).is_some_and(|c| matches!(c.base, Base::Char | Base::VarChar | Base::Binary | Base::VarBinary) && *p == Some(c.length.unwrap_or(1))))
                .collect()
        })
        .collect();
    for (ix, whole) in def.indexes.iter_mut().zip(whole) {
        for (p, w) in ix.prefix.iter_mut().zip(whole) {
            if w {
                *p = None;
            }
        }
    }
    for ix in def.indexes.iter().filter(|i| i.fulltext) {
        // MariaDB: FULLTEXT indexes only text columns.
        if let Some(c) = ix.columns.iter().filter_map(|k| def.column(k)).find(|c| !matches!(c.base, Base::Char | Base::VarChar | Base::TinyText | Base::Text | Base::MediumText | Base::LongText)) {
            return Err(SqlError::new(1283, "HY000", format!("Column '{}' cannot be part of FULLTEXT index", c.name)));
        }
    }
    for (i, ix) in def.indexes.iter().enumerate() {
        if ix.name.eq_ignore_ascii_case("PRIMARY") || def.indexes[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&ix.name)) {
            return Err(SqlError::new(1061, "42000", format!("Duplicate key name '{}'", ix.name)));
        }
    }
    let pk = def.primary.clone();
    for col in def.columns.iter_mut() {
        if pk.iter().any(|p| p.eq_ignore_ascii_case(&col.name)) {
            col.nullable = false;
        }
        if !col.nullable && matches!(col.default, Some(Default_::Null)) {
            return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
        }
    }
    let ai: Vec<&ColumnDef> = def.columns.iter().filter(|c| c.auto_increment).collect();
    if ai.len() > 1 {
        return Err(SqlError::new(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
    }
    if let Some(a) = ai.first() {
        if !a.base.is_integer() || a.base == Base::Bit || a.base == Base::Year {
            return Err(SqlError::new(1063, "42000", format!("Incorrect column specifier for column '{}'", a.name)));
        }
        let is_pk = def.primary.len() == 1 && def.primary[0].eq_ignore_ascii_case(&a.name);
        if !is_pk {
            let keyed = def.indexes.iter().any(|i| i.columns.first().is_some_and(|c| c.eq_ignore_ascii_case(&a.name)));
            // The first column of a key (a composite PRIMARY KEY's too): its
            // values are generated by `ts_ai_key` (rewrite/insert.rs), as
            // InnoDB does, one past the largest.
            let keyed = keyed || def.primary.first().is_some_and(|c| c.eq_ignore_ascii_case(&a.name));
            if !keyed {
                return Err(SqlError::new(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
            }
        }
    }
    sort_keys(def);
    Ok(())
}

/// MariaDB keeps a table's keys in this order (its `sort_keys`), which SHOW
/// CREATE TABLE and SHOW INDEX show: UNIQUE keys first, those on NOT NULL
/// columns before those with a nullable one, whole columns before prefixes;
/// then the other keys, FULLTEXT last; declaration order otherwise.
fn sort_keys(def: &mut TableDef) {
    let rank: Vec<u8> = def
        .indexes
        .iter()
        .map(|ix| {
            if ix.unique {
                let nullable = ix.columns.iter().any(|k| def.column(k).is_some_and(|c| c.nullable));
                let partial = ix.prefix.iter().any(|p| p.is_some());
                u8::from(nullable) * 2 + u8::from(partial)
            } else if ix.fulltext {
                5
            } else {
                4
            }
        })
        .collect();
    if rank.windows(2).all(|w| w[0] <= w[1]) {
        return;
    }
    let mut keyed: Vec<(u8, crate::schema::IndexDef)> = rank.into_iter().zip(std::mem::take(&mut def.indexes)).collect();
    keyed.sort_by_key(|(r, _)| *r);
    def.indexes = keyed.into_iter().map(|(_, ix)| ix).collect();
}
