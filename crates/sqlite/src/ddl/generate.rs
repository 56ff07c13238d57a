//! SQLite DDL generated from a MySQL table definition: a STRICT table whose
//! named CHECK constraints carry MySQL's strict-mode rules (the error mapper
//! reads code and column back from the name) and the user's own CHECK
//! constraints (4025, MariaDB's message in the name), its indexes, the triggers for
//! ON UPDATE CURRENT_TIMESTAMP, and the SQLite type and collation of a column.

use crate::schema::{sq_ident, sq_str, Base, ColumnDef, Default_, IndexDef, TableDef};

/// Name of a CHECK constraint: the error mapper reads code and column back.
fn check_name(code: u16, col: &str) -> String {
    sq_ident(&format!("ts:{}:{}", code, col))
}

fn sqlite_literal_default(col: &ColumnDef) -> Option<String> {
    Some(match col.default.as_ref()? {
        Default_::Null => "NULL".into(),
        // ts_now, not SQLite's CURRENT_TIMESTAMP: the session's SET timestamp applies.
        Default_::CurrentTimestamp => format!("(ts_now({}))", col.length.unwrap_or(0)),
        // DECIMAL is stored as its canonical text (functions/decimal.rs).
        Default_::Literal(v) if col.base == Base::Decimal => match turnstile_sqltext::decimal::Decimal::parse(v.as_bytes()) {
            Some(d) => sq_str(&d.round(col.scale.unwrap_or(0) as u32).to_string()),
            None => sq_str(v),
        },
        Default_::Literal(_) if col.bit_default().is_some() => (col.bit_default().unwrap_or(0) as i64).to_string(),
        Default_::Literal(v) => {
            if col.base.is_integer() || matches!(col.base, Base::Float | Base::Double) {
                match v.parse::<f64>() {
                    Ok(_) if v.parse::<i64>().is_ok() || !col.base.is_integer() => v.clone(),
                    Ok(f) => format!("{}", f as i64),
                    Err(_) => sq_str(v),
                }
            } else {
                sq_str(v)
            }
        }
        Default_::Expr(e) => format!("({})", crate::rewrite::expression(e).unwrap_or_else(|_| e.clone())),
    })
}

/// Collation name registered on every connection for a MySQL collation
/// (DECIMAL: `ts_dec`, the numeric order of its stored text).
pub fn sqlite_collation(col: &ColumnDef) -> &'static str {
    if col.base == Base::Decimal || crate::rewrite::is_wide_unsigned(col) {
        "ts_dec"
    } else if !col.base.is_text() {
        "BINARY"
    } else if col.is_ci() {
        "ts_ci"
    } else {
        "RTRIM"
    }
}

/// The SQLite type (and so affinity) a column is declared with. DECIMAL is
/// TEXT: its exact canonical text, ordered by the `ts_dec` collation
/// (functions/decimal.rs); every value stored goes through `ts_dec`
/// (rewrite/store.rs), which rounds it to the column's scale and checks its
/// range. BIGINT UNSIGNED is ANY with `ts_dec`: an INTEGER up to 2^63-1, the
/// decimal text of a larger value (functions/unsigned.rs), except where it
/// is the table's rowid (`is_rowid_column`), which holds only INTEGERs.
pub fn storage_affinity(col: &ColumnDef) -> &'static str {
    if crate::rewrite::is_wide_unsigned(col) && !col.auto_increment {
        "ANY"
    } else if col.base.is_integer() {
        "INTEGER"
    } else if matches!(col.base, Base::Float | Base::Double) {
        "REAL"
    } else {
        "TEXT"
    }
}

/// Is `col` the table's rowid: the one column of an integer PRIMARY KEY
/// (SQLite's INTEGER PRIMARY KEY), which holds only 64-bit signed integers?
/// A BIGINT UNSIGNED key is one only with AUTO_INCREMENT (which needs the
/// rowid); otherwise it is an ANY column with its full range.
pub fn is_rowid_column(def: &TableDef, col: &ColumnDef) -> bool {
    def.primary.len() == 1 && def.primary[0].eq_ignore_ascii_case(&col.name) && col.base.is_integer() && col.base != Base::Bit && col.base != Base::Year && storage_affinity(col) == "INTEGER"
}

/// The table's MySQL name (ALTER TABLE builds the new table under a
/// `ts_rebuild_` name first).
fn mysql_name(def: &TableDef) -> &str {
    def.name.strip_prefix("ts_rebuild_").unwrap_or(&def.name)
}

/// A user's CHECK constraint for SQLite: its name carries MariaDB's
/// message for 4025 but the database, which the error mapper adds
/// (errors.rs). The clause was translated once when it was parsed
/// (ddl/expr_text.rs), so it translates here too.
fn user_check(def: &TableDef, name: &str, clause: &str) -> String {
    let rewritten = crate::rewrite::expression(clause).unwrap_or_else(|_| "1".into());
    let message = format!("CONSTRAINT {} failed for {}", crate::schema::quote_ident(name), crate::schema::quote_ident(mysql_name(def)));
    format!(" CONSTRAINT {} CHECK ({})", check_name(4025, &message), rewritten)
}

/// CREATE TABLE for SQLite. `schema` is `main`, `temp` or an attached name.
pub fn sqlite_create_table(def: &TableDef, schema: &str, name: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let rowid_pk = def.primary.len() == 1 && def.column(&def.primary[0]).is_some_and(|c| is_rowid_column(def, c));
    for col in &def.columns {
        let q = sq_ident(&col.name);
        let storage = storage_affinity(col);
        let mut s = format!("{} {}", q, storage);
        if rowid_pk && def.primary[0].eq_ignore_ascii_case(&col.name) {
            s.push_str(" PRIMARY KEY");
            if col.auto_increment {
                s.push_str(" AUTOINCREMENT");
            }
        }
        if storage == "TEXT" || storage == "ANY" {
            s.push_str(" COLLATE ");
            s.push_str(sqlite_collation(col));
        }
        if let Some(g) = &col.generated {
            // Translated once when parsed (ddl/expr_text.rs), so it translates here too.
            let rewritten = crate::rewrite::expression(&g.expr).unwrap_or_else(|_| "NULL".into());
            s.push_str(&format!(" GENERATED ALWAYS AS ({}) {}", rewritten, if g.stored { "STORED" } else { "VIRTUAL" }));
        } else if !col.nullable {
            s.push_str(" NOT NULL");
        }
        if let Some(d) = sqlite_literal_default(col).filter(|_| col.generated.is_none() && col.row_default().is_none()) {
            s.push_str(" DEFAULT ");
            s.push_str(&d);
        }
        // Strict-mode rules as named CHECK constraints.
        if let Some((lo, hi)) = col.base.int_range(col.unsigned) {
            if col.base == Base::BigInt {
                if col.unsigned {
                    s.push_str(&format!(" CONSTRAINT {} CHECK ({} >= 0)", check_name(1264, &col.name), q));
                }
            } else {
                s.push_str(&format!(" CONSTRAINT {} CHECK ({} BETWEEN {} AND {})", check_name(1264, &col.name), q, lo, hi));
            }
        }
        match col.base {
            Base::Float | Base::Double if col.unsigned => {
                s.push_str(&format!(" CONSTRAINT {} CHECK ({} >= 0)", check_name(1264, &col.name), q));
            }
            Base::Bit => {
                let n = col.length.unwrap_or(1);
                if n < 63 {
                    s.push_str(&format!(" CONSTRAINT {} CHECK ({} BETWEEN 0 AND {})", check_name(1406, &col.name), q, (1u64 << n) - 1));
                }
            }
            Base::Year => {
                s.push_str(&format!(" CONSTRAINT {} CHECK ({} = 0 OR {} BETWEEN 1901 AND 2155)", check_name(1264, &col.name), q, q));
            }
            _ => {}
        }
        if let Some(max) = col.base.max_len(col.length) {
            if col.base.is_binary() {
                s.push_str(&format!(" CONSTRAINT {} CHECK (length(CAST({} AS BLOB)) <= {})", check_name(1406, &col.name), q, max));
            } else {
                s.push_str(&format!(" CONSTRAINT {} CHECK (length({}) <= {})", check_name(1406, &col.name), q, max));
            }
        }
        if col.base == Base::Enum {
            let members: Vec<String> = col.members.iter().map(|m| sq_str(m)).collect();
            // '' too: a lenient write stores it for a value that is no member (MariaDB's
            // error value); a strict one refuses that value before (ts_enum).
            s.push_str(&format!(" CONSTRAINT {} CHECK ({} IN ('', {}))", check_name(1265, &col.name), q, members.join(",")));
        }
        if col.base == Base::Set {
            let members: Vec<String> = col.members.iter().map(|m| sq_str(m)).collect();
            s.push_str(&format!(" CONSTRAINT {} CHECK (ts_set_ok({}, {}))", check_name(1265, &col.name), q, members.join(",")));
        }
        if col.base == Base::Json {
            s.push_str(&format!(" CONSTRAINT {} CHECK (json_valid({}))", check_name(3140, &col.name), q));
        }
        if col.json_check {
            // MySQL 8.0 names a column's CHECK `<table>_chk_<n>`.
            let n = def.columns.iter().take_while(|c| !std::ptr::eq(*c, col)).filter(|c| c.json_check).count() + 1;
            s.push_str(&format!(" CONSTRAINT {} CHECK (json_valid({}))", check_name(3819, &format!("{}_chk_{}", def.name, n)), q));
        }
        if let Some(check) = &col.check {
            s.push_str(&user_check(def, &format!("{}.{}", mysql_name(def), col.name), check));
        }
        if col.base.is_temporal() {
            let kind = match col.base {
                Base::Date => "date",
                Base::Time => "time",
                Base::Timestamp => "timestamp",
                _ => "datetime",
            };
            s.push_str(&format!(" CONSTRAINT {} CHECK (ts_temporal_ok({}, '{}', {}))", check_name(1292, &col.name), q, kind, sq_str(&col.name)));
        }
        parts.push(s);
    }
    if !def.primary.is_empty() && !rowid_pk {
        parts.push(format!("PRIMARY KEY ({})", def.primary.iter().map(|c| sq_ident(c)).collect::<Vec<_>>().join(", ")));
    }
    for fk in &def.foreign_keys {
        parts.push(fk.clause(sq_ident));
    }
    for ck in &def.checks {
        parts.push(user_check(def, &ck.name, &ck.clause).trim_start().to_string());
    }
    format!("CREATE TABLE {}.{} (\n  {}\n) STRICT", sq_ident(schema), sq_ident(name), parts.join(",\n  "))
}

pub fn sqlite_create_index(def: &TableDef, ix: &IndexDef, schema: &str) -> String {
    format!(
        "CREATE {}INDEX {}.{} ON {} ({})",
        if ix.unique { "UNIQUE " } else { "" },
        sq_ident(schema),
        sq_ident(&ix.sqlite_name),
        sq_ident(&def.name),
        ix.columns.iter().map(|c| sq_ident(c)).collect::<Vec<_>>().join(", ")
    )
}

/// Triggers for ON UPDATE CURRENT_TIMESTAMP: after an update that changed some
/// other column and left this one alone, set it to now (as MySQL does).
pub fn sqlite_triggers(def: &TableDef, schema: &str) -> Vec<String> {
    let mut out = Vec::new();
    for col in def.columns.iter().filter(|c| c.on_update_now) {
        let others: Vec<String> = def.columns.iter().filter(|c| !c.name.eq_ignore_ascii_case(&col.name)).map(|c| format!("NEW.{q} IS NOT OLD.{q}", q = sq_ident(&c.name))).collect();
        if others.is_empty() {
            // No other column can change, so MySQL never updates it (and the
            // trigger's own UPDATE would re-fire it: recursive_triggers is on).
            continue;
        }
        let changed = others.join(" OR ");
        let now = format!("ts_now({})", col.length.unwrap_or(0));
        out.push(format!(
            "CREATE TRIGGER {}.{} AFTER UPDATE ON {} FOR EACH ROW WHEN NEW.{c} IS OLD.{c} AND ({}) BEGIN UPDATE {} SET {c} = {} WHERE rowid = NEW.rowid; END",
            sq_ident(schema),
            sq_ident(&format!("ts_onupdate:{}:{}", def.name, col.name)),
            sq_ident(&def.name),
            changed,
            sq_ident(&def.name),
            now,
            c = sq_ident(&col.name)
        ));
    }
    out
}

/// The value a NOT NULL column without a default gets when a rebuild adds it.
pub fn implicit_default(col: &ColumnDef) -> String {
    if let Some(d) = sqlite_literal_default(col) {
        return d;
    }
    if col.nullable {
        return "NULL".into();
    }
    match col.base {
        b if b.is_numeric() => "0".into(),
        Base::Date => "'0000-00-00'".into(),
        Base::DateTime | Base::Timestamp => "'0000-00-00 00:00:00'".into(),
        Base::Time => "'00:00:00'".into(),
        Base::Enum => col.members.first().map(|m| sq_str(m)).unwrap_or_else(|| "''".into()),
        Base::Json => "'null'".into(),
        _ => "''".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ddl::parse_create_table;

    #[test]
    fn sysbench_table() {
        let d = parse_create_table("CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */");
        assert_eq!(d.primary, vec!["id"]);
        assert_eq!(d.columns.len(), 4);
        assert!(d.columns[0].auto_increment);
        let sql = sqlite_create_table(&d, "main", &d.name);
        assert!(sql.contains("\"id\" INTEGER PRIMARY KEY AUTOINCREMENT"), "{}", sql);
        assert!(sql.contains("length(\"c\") <= 120"), "{}", sql);
        assert!(sql.ends_with("STRICT"));
        let show = d.show_create(None);
        assert!(show.contains("`k` int(11) NOT NULL DEFAULT 0"), "{}", show);
        assert!(show.contains("PRIMARY KEY (`id`)"), "{}", show);
    }
}
