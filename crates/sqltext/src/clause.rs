//! Which clause of a statement a name stands in, for MariaDB's error
//! messages: 1054 says "Unknown column 'x' in 'WHERE'" (MariaDB 10.11; MySQL
//! says 'where clause' or 'field list'). Used by the SQLite engine's error
//! mapping and by the SQL front's own expression evaluation, so both name
//! the clause the same way.

/// The clause an unknown column `col` stands in, as MariaDB 10.11 names it
/// in 1054 ("Unknown column 'x' in 'WHERE'"): the nearest clause keyword
/// before the column's first use in the client's text, at its parenthesis
/// level or an enclosing one. "field list" when it is not found.
pub fn of_name(original: &str, col: &str) -> &'static str {
    let Ok(toks) = crate::lex::tokenize(original) else { return "field list" };
    let name = col.rsplit('.').next().unwrap_or(col).trim_matches('"').trim_matches('`');
    let Some(at) = toks.iter().position(|t| t.ident().is_some_and(|n| n.eq_ignore_ascii_case(name))) else { return "field list" };
    let insert = toks.first().is_some_and(|t| t.is_kw("INSERT") || t.is_kw("REPLACE"));
    let mut depth = 0usize;
    for k in (0..at).rev() {
        let t = &toks[k];
        if t.is_op(")") {
            depth += 1;
            continue;
        }
        if t.is_op("(") {
            if depth == 0 {
                // `INSERT INTO t (cols)`: the column list.
                let table_before = k >= 2 && (toks[k - 2].is_kw("INTO") || toks[k - 2].is_kw("REPLACE") || (k >= 4 && toks[k - 3].is_op(".") && toks[k - 4].is_kw("INTO")));
                if insert && table_before && toks[k - 1].ident().is_some() {
                    return "INSERT INTO";
                }
            }
            depth = depth.saturating_sub(1);
            continue;
        }
        if depth > 0 {
            continue;
        }
        let clause = match t {
            t if t.is_kw("SELECT") => "SELECT",
            t if t.is_kw("WHERE") => "WHERE",
            t if t.is_kw("HAVING") => "HAVING",
            t if t.is_kw("ON") => "ON",
            t if t.is_kw("ORDER") => "ORDER BY",
            t if t.is_kw("GROUP") => "GROUP BY",
            t if t.is_kw("VALUES") || t.is_kw("VALUE") => "VALUES",
            t if t.is_kw("SET") && insert => "INSERT INTO",
            t if t.is_kw("SET") => "SET",
            t if t.is_kw("UPDATE") && k > 0 && toks[k - 1].is_kw("KEY") => "UPDATE",
            _ => continue,
        };
        return clause;
    }
    "field list"
}

/// Words that may follow a table reference and are not its alias (`FROM t
/// WHERE ...`, `t JOIN u`, `t PARTITION (p)`, `UPDATE t SET`, `INTO t
/// VALUES`): all reserved, so an unquoted one is never an alias. Read by
/// the SQLite engine's scans of table references (DEFAULT(col)'s tables,
/// a view's FROM).
pub const NOT_TABLE_ALIAS: [&str; 31] = [
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "CROSS",
    "OUTER",
    "NATURAL",
    "STRAIGHT_JOIN",
    "ON",
    "USING",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "WINDOW",
    "FOR",
    "LOCK",
    "INTO",
    "USE",
    "FORCE",
    "IGNORE",
    "SET",
    "VALUES",
    "VALUE",
    "SELECT",
    "PARTITION",
    "RETURNING",
];

#[cfg(test)]
mod tests {
    use super::of_name;

    #[test]
    fn clauses_as_mariadb_names_them() {
        for (sql, clause) in [
            ("INSERT INTO t (nope) VALUES (1)", "INSERT INTO"),
            ("INSERT INTO t (a) VALUES (nope)", "VALUES"),
            ("INSERT INTO t SET nope = 1", "INSERT INTO"),
            ("UPDATE t SET a = nope", "SET"),
            ("SELECT nope FROM t", "SELECT"),
            ("SELECT a FROM t WHERE (a = 1 AND nope = 1)", "WHERE"),
            ("SELECT a FROM t ORDER BY nope", "ORDER BY"),
            ("SELECT a FROM t GROUP BY nope", "GROUP BY"),
            ("SELECT a FROM t HAVING nope = 1", "HAVING"),
            ("SELECT t.a FROM t JOIN t t2 ON t.nope = 1", "ON"),
            ("INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE nope = 1", "UPDATE"),
            ("SELECT a FROM t WHERE a IN (SELECT nope FROM u)", "SELECT"),
        ] {
            assert_eq!(of_name(sql, "nope"), clause, "{}", sql);
        }
        assert_eq!(of_name("SELECT t.nope FROM t", "t.nope"), "SELECT");
        assert_eq!(of_name("SELECT 1", "nope"), "field list");
    }
}
