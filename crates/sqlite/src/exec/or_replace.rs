//! CREATE OR REPLACE [TEMPORARY] TABLE (MariaDB): the table of that name is
//! dropped, then created as CREATE TABLE would. Not atomic, as in MariaDB:
//! a CREATE that fails after the drop leaves no table. The drop is checked
//! as DROP TABLE (the DROP privilege), and what MariaDB refuses is refused
//! before anything is dropped: IF NOT EXISTS with OR REPLACE (1221), and the
//! table itself as the source of its data (1093).

use super::SqliteSession;
use crate::ddl::{Ddl, Name};
use turnstile_engine::{privs, ExecContext, SqlError};
use turnstile_sqltext::lex::{self, Tok};

/// `sql` without its `OR REPLACE` when it is CREATE OR REPLACE [TEMPORARY]
/// TABLE; None for every other statement.
pub(super) fn strip(sql: &str) -> Option<String> {
    let toks = lex::tokenize(sql).ok()?;
    let kw = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    let table_at = if kw(3, "TEMPORARY") { 4 } else { 3 };
    if !(kw(0, "CREATE") && kw(1, "OR") && kw(2, "REPLACE") && kw(table_at, "TABLE")) {
        return None;
    }
    Some(format!("{}{}", &sql[..toks[1].start], &sql[toks[3].start..]))
}

impl SqliteSession {
    /// The drop half of CREATE OR REPLACE TABLE, for the parsed CREATE.
    pub(super) fn replace_table(&mut self, ctx: &ExecContext<'_>, create: &Ddl) -> Result<(), SqlError> {
        let Ddl::CreateTable { temporary, if_not_exists, table, like, select, .. } = create else {
            return Err(SqlError::syntax("OR REPLACE"));
        };
        if *if_not_exists {
            return Err(SqlError::new(1221, "HY000", "Incorrect usage of OR REPLACE and IF NOT EXISTS"));
        }
        let own = |n: &Name| n.1.eq_ignore_ascii_case(&table.1) && (n.0.is_none() || n.0 == table.0 || (table.0.is_none() && n.0 == self.db));
        if like.as_ref().is_some_and(own) || select.as_ref().is_some_and(|s| names_table(&s.select, &table.1)) {
            return Err(SqlError::new(1093, "HY000", format!("Table '{}' is specified twice, both as a target for 'CREATE' and as a separate source for data", table.1)));
        }
        self.ensure_conn()?;
        // The CREATE's privileges before anything is dropped.
        self.check_ddl(create, ctx.access)?;
        // DROP also when there is nothing to drop, as MariaDB asks.
        if !*temporary {
            let db = table.0.as_deref().or(self.db.as_deref()).ok_or_else(SqlError::no_database)?;
            ctx.access.check_table(db, &table.1, privs::DROP)?;
        }
        if let Some(ctas) = select {
            // The SELECT compiles (its tables' privileges checked) first too.
            self.query_shape(ctx, &ctas.select, true, false)?;
        }
        let exists = {
            let (schema, _, _) = self.target(table, *temporary)?;
            self.def_of(&schema, &table.1).is_some()
        };
        if exists {
            self.run_ddl(ctx, Ddl::DropTable { temporary: *temporary, if_exists: false, tables: vec![table.clone()] })?;
        }
        Ok(())
    }
}

/// Does a query name table `name` (an identifier token equal to it, outside
/// strings)? A column of the same name counts too: MariaDB refuses only the
/// table, but a false refusal here is an error, never lost data.
fn names_table(query: &str, name: &str) -> bool {
    lex::tokenize(query).is_ok_and(|toks| toks.iter().any(|t| matches!(&t.tok, Tok::Word(w) | Tok::Quoted(w) if w.eq_ignore_ascii_case(name))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_only_create_or_replace_table() {
        assert_eq!(strip("CREATE OR REPLACE TABLE t (a INT)").as_deref(), Some("CREATE TABLE t (a INT)"));
        assert_eq!(strip("create or replace temporary table t as select 1").as_deref(), Some("create temporary table t as select 1"));
        assert_eq!(strip("CREATE OR REPLACE VIEW v AS SELECT 1"), None);
        assert_eq!(strip("CREATE TABLE t (a INT)"), None);
        assert!(names_table("SELECT * FROM `t1`", "T1") && !names_table("SELECT 't1' FROM t2", "t1"));
    }
}
