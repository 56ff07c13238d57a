//! `DEFAULT(col)`: the default of a column of a table the statement names,
//! in any expression (`SELECT DEFAULT(a) FROM t`, `WHERE a = DEFAULT(a)`,
//! `UPDATE t SET a = DEFAULT(a) + 1`, `INSERT ... VALUES (DEFAULT(a))`), and
//! `col = DEFAULT` in ON DUPLICATE KEY UPDATE, as MariaDB 10.11 has them.
//! SQLite has neither, and reads `DEFAULT(` as a syntax error.
//!
//! The column is looked for among the tables the statement names (FROM and
//! JOIN items, UPDATE's and INSERT's table; `DEFAULT(t.a)` by alias or
//! name): none holding it is 1054, several are 1052. What is written is the
//! default's value (`implicit_default`, as the DDL writes it: the session
//! clock for CURRENT_TIMESTAMP), an expression default as its expression
//! over the row's columns, NULL for a generated column, 0 for an
//! AUTO_INCREMENT one; a NOT NULL column without a default is 1364, as
//! MariaDB says when it prepares the statement.

use super::translator::{Translator, WordAt, WordStep};
use crate::schema::{quote_ident, ColumnDef, Default_, TableDef};
use std::sync::Arc;
use turnstile_engine::SqlError;
use turnstile_sqltext::clause::NOT_TABLE_ALIAS;
use turnstile_sqltext::lex::{Tok, Token};
use turnstile_sqltext::parens;

/// A table the statement names: its definition and the name the statement
/// calls it by (its alias, else its name).
struct Named {
    def: Arc<TableDef>,
    called: String,
}

/// Words that end a FROM list (a comma after them is not another table).
const LIST_END: [&str; 14] = ["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "FOR", "LOCK", "SET", "ON", "USING"];

impl Translator<'_> {
    /// `DEFAULT(col)` anywhere, `DEFAULT` alone after `col =` in ON
    /// DUPLICATE KEY UPDATE, and MariaDB's `IGNORE` there, which is the same.
    pub(super) fn default_word(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let toks = self.toks;
        let i = word.at;
        let whole_value = toks.get(i + 1).is_none_or(|t| t.is_op(",") || t.is_op(";"));
        let odku_ignore = word.upper == "IGNORE" && !word.call && self.odku && whole_value;
        if word.upper != "DEFAULT" && !odku_ignore {
            return Ok(WordStep::NotMine);
        }
        if !word.call {
            // ON DUPLICATE KEY UPDATE col = DEFAULT: that column's default.
            let target = (self.odku && i >= 2 && toks[i - 1].is_op("=")).then(|| toks[i - 2].ident()).flatten();
            let Some(col) = target else { return Ok(WordStep::NotMine) };
            let text = self.default_of(None, col, true)?;
            self.push(&toks[i], &text);
            return Ok(WordStep::ResumeAt(i + 1));
        }
        let close = parens::closing(toks, i + 1).filter(|c| *c <= word.to).ok_or_else(|| SqlError::syntax(&self.sql[toks[i].start..]))?;
        let inner = &toks[i + 2..close];
        let names: Vec<&str> = inner.iter().step_by(2).filter_map(|t| t.ident()).collect();
        let dotted = inner.iter().skip(1).step_by(2).all(|t| t.is_op("."));
        if names.is_empty() || names.len() > 3 || names.len() * 2 - 1 != inner.len() || !dotted {
            return Err(SqlError::syntax(&self.sql[toks[i].start..]));
        }
        let (qualifier, col) = match names.len() {
            1 => (None, names[0]),
            n => (Some(names[n - 2]), names[n - 1]),
        };
        let text = self.default_of(qualifier, col, false)?;
        self.push(&toks[i], &text);
        self.last_end = Some(toks[close].end);
        Ok(WordStep::ResumeAt(close + 1))
    }

    /// The SQLite text of column `col`'s default (of the table `qualifier`
    /// calls, when given; `written`: of the table the statement writes, its
    /// first named).
    fn default_of(&self, qualifier: Option<&str>, col: &str, written: bool) -> Result<String, SqlError> {
        let mut named = named_tables(self.toks, self);
        if written {
            named.truncate(1);
        }
        let holding: Vec<&Named> = named.iter().filter(|n| qualifier.is_none_or(|q| n.called.eq_ignore_ascii_case(q) || n.def.name.eq_ignore_ascii_case(q)) && n.def.column(col).is_some()).collect();
        let table = match holding.as_slice() {
            [one] => *one,
            [] => return Err(SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'DEFAULT'", col))),
            _ => return Err(SqlError::new(1052, "23000", format!("Column '{}' in DEFAULT is ambiguous", col))),
        };
        let cd = table.def.column(col).expect("holding it");
        column_default(cd, (named.len() > 1).then_some(table.called.as_str()))
    }
}

/// A column's default as SQLite text; `qualifier` qualifies the columns an
/// expression default names (the statement names several tables).
fn column_default(cd: &ColumnDef, qualifier: Option<&str>) -> Result<String, SqlError> {
    if cd.generated.is_some() {
        return Ok("NULL".into());
    }
    if cd.auto_increment {
        return Ok("0".into());
    }
    match &cd.default {
        None if !cd.nullable => Err(SqlError::new(1364, "HY000", format!("Field '{}' doesn't have a default value", cd.name))),
        Some(Default_::Expr(e)) => {
            let text = match qualifier {
                Some(q) => qualified(e, q),
                None => e.clone(),
            };
            Ok(format!("({})", super::expression(&text)?))
        }
        _ => Ok(crate::ddl::implicit_default(cd)),
    }
}

/// Expression text `e` with each column name qualified by `q`.
fn qualified(e: &str, q: &str) -> String {
    let Ok(toks) = turnstile_sqltext::lex::tokenize(e) else { return e.to_string() };
    let mut out = String::with_capacity(e.len() + 16);
    let mut at = 0;
    for t in &toks {
        if let Tok::Quoted(name) = &t.tok {
            out.push_str(&e[at..t.start]);
            out.push_str(&format!("{}.{}", quote_ident(q), quote_ident(name)));
            at = t.end;
        }
    }
    out.push_str(&e[at..]);
    out
}

/// The base tables `toks` names (FROM and JOIN items, UPDATE's, INSERT's
/// and REPLACE's table), with the name each is called by.
fn named_tables(toks: &[Token], tr: &Translator<'_>) -> Vec<Named> {
    let mut out = Vec::new();
    // Paren depth of an open FROM list (a comma there starts another item).
    let mut list_at: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
            continue;
        }
        if t.is_op(")") {
            depth = depth.saturating_sub(1);
            list_at.retain(|d| *d <= depth);
            continue;
        }
        if LIST_END.iter().any(|k| t.is_kw(k)) {
            list_at.retain(|d| *d != depth);
        }
        let starts = ["FROM", "JOIN", "STRAIGHT_JOIN", "UPDATE", "INTO"].iter().any(|k| t.is_kw(k)) || (t.is_op(",") && list_at.contains(&depth));
        if !starts {
            continue;
        }
        if t.is_kw("FROM") || t.is_kw("UPDATE") {
            list_at.push(depth);
        }
        if let Some(n) = table_at(toks, i + 1, tr) {
            out.push(n);
        }
    }
    out
}

/// The table reference starting at token `i` (`[db.]name [[AS] alias]`),
/// when it is a base table the resolver knows.
fn table_at(toks: &[Token], i: usize, tr: &Translator<'_>) -> Option<Named> {
    let first = toks.get(i)?.ident()?;
    let (db, name, mut next) = match toks.get(i + 1) {
        Some(dot) if dot.is_op(".") => (Some(first), toks.get(i + 2)?.ident()?, i + 3),
        _ => (None, first, i + 1),
    };
    let def = tr.resolver.table(db, name)?;
    if toks.get(next).is_some_and(|t| t.is_kw("AS")) {
        next += 1;
    }
    let alias = toks.get(next).filter(|t| !NOT_TABLE_ALIAS.iter().any(|k| t.is_kw(k))).and_then(|t| t.ident());
    Some(Named { called: alias.unwrap_or(name).to_string(), def })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{table_def, TestResolver};
    use super::super::{rewrite, Kind};
    use std::sync::Arc;

    #[test]
    fn default_of_a_column() {
        let r = TestResolver(vec![Arc::new(table_def("CREATE TABLE t (a INT DEFAULT 10, b INT DEFAULT (a + 1), c VARCHAR(5) DEFAULT 'x', d INT, e INT NOT NULL)"))]);
        let rw = rewrite("SELECT DEFAULT(a), DEFAULT(t.c), DEFAULT(d) FROM t", Kind::Select, &r).unwrap();
        assert!(rw.sql.contains("10") && rw.sql.contains("'x'") && rw.sql.contains("NULL"), "{}", rw.sql);
        let rw = rewrite("SELECT DEFAULT(b) FROM t AS x", Kind::Select, &r).unwrap();
        assert!(rw.sql.contains("\"a\" + 1"), "{}", rw.sql);
        assert_eq!(rewrite("SELECT DEFAULT(e) FROM t", Kind::Select, &r).unwrap_err().code, 1364);
        assert_eq!(rewrite("SELECT DEFAULT(zz) FROM t", Kind::Select, &r).unwrap_err().code, 1054);
        assert_eq!(rewrite("SELECT DEFAULT(a) FROM t, t AS u", Kind::Select, &r).unwrap_err().code, 1052);
        assert_eq!(rewrite("SELECT DEFAULT(a b) FROM t", Kind::Select, &r).unwrap_err().code, 1064);
        assert_eq!(rewrite("SELECT DEFAULT(", Kind::Select, &r).unwrap_err().code, 1064);
    }
}
