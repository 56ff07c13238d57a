//! The view statements' syntax: CREATE [OR REPLACE] [ALGORITHM=...]
//! [DEFINER=...] [SQL SECURITY ...] VIEW v [(columns)] AS select [WITH
//! [CASCADED|LOCAL] CHECK OPTION], ALTER VIEW (the same after ALTER), and
//! DROP VIEW [IF EXISTS] v1, v2 [RESTRICT|CASCADE]. The SELECT is kept as the
//! client's text: exec/views.rs translates and checks it like any query.
//! A mariadb-dump file writes the prefix and the body in versioned comments
//! (`/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50013 DEFINER=... */ /*!50001
//! VIEW ...`); the lexer reads their content as text, so they parse alike.

use super::Ddl;
use crate::schema::{quote_ident, ViewDef};
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;

/// After CREATE (`or_replace` read) or ALTER: the view options up to VIEW.
/// `Ok(None)`: no VIEW follows (another statement), the cursor where it was.
pub(super) fn view_statement(c: &mut TokenCursor<'_>, or_replace: bool, alter: bool) -> Result<Option<Ddl>, SqlError> {
    let start = c.pos;
    // ALTER VIEW keeps the view's ALGORITHM and SQL SECURITY where it does
    // not restate them (empty here: views.rs fills them in).
    let mut algorithm = if alter { String::new() } else { "UNDEFINED".to_string() };
    let mut definer = String::new();
    let mut security = if alter { String::new() } else { "DEFINER".to_string() };
    loop {
        if c.eat_kw("ALGORITHM") {
            c.expect_op("=")?;
            let a = c.ident()?.to_ascii_uppercase();
            if !["UNDEFINED", "MERGE", "TEMPTABLE"].contains(&a.as_str()) {
                return Err(c.error().into());
            }
            algorithm = a;
        } else if c.is_kw("DEFINER") && c.peek_at(1).is_some_and(|t| t.is_op("=")) {
            c.next();
            c.next();
            let from = c.pos;
            while !c.at_end() && !c.is_kw("SQL") && !c.is_kw("VIEW") && !c.is_kw("TRIGGER") && !c.is_kw("PROCEDURE") && !c.is_kw("FUNCTION") && !c.is_kw("EVENT") {
                c.next();
            }
            definer = c.text_since(from).to_string();
            if definer.is_empty() {
                return Err(c.error().into());
            }
        } else if c.is_kw("SQL") && c.peek_at(1).is_some_and(|t| t.is_kw("SECURITY")) {
            c.next();
            c.next();
            let s = c.ident()?.to_ascii_uppercase();
            if s != "DEFINER" && s != "INVOKER" {
                return Err(c.error().into());
            }
            security = s;
        } else {
            break;
        }
    }
    if !c.eat_kw("VIEW") {
        c.pos = start;
        return Ok(None);
    }
    let view = c.qualified()?;
    let mut column_list = Vec::new();
    if c.eat_op("(") {
        loop {
            column_list.push(c.ident()?);
            if !c.eat_op(",") {
                break;
            }
        }
        c.expect_op(")")?;
    }
    c.expect_kw("AS")?;
    let body_start = c.pos;
    let starts_query = c.is_kw("SELECT") || c.is_kw("WITH") || c.is_kw("TABLE") || c.is_kw("VALUES") || c.is_op("(");
    if !starts_query {
        return Err(c.error().into());
    }
    // The body runs to the end, less a final `;` and `WITH ... CHECK OPTION`.
    let mut end = c.toks.len();
    if end > body_start && c.toks[end - 1].is_op(";") {
        end -= 1;
    }
    let mut check_option = "NONE".to_string();
    if end >= body_start + 3 && c.toks[end - 1].is_kw("OPTION") && c.toks[end - 2].is_kw("CHECK") {
        let (kind, with_at) = match &c.toks[end - 3] {
            t if t.is_kw("CASCADED") || t.is_kw("LOCAL") => (t.ident().unwrap_or("").to_ascii_uppercase(), end - 4),
            _ => ("CASCADED".to_string(), end - 3),
        };
        if with_at <= body_start || !c.toks[with_at].is_kw("WITH") {
            return Err(c.error().into());
        }
        check_option = kind;
        end = with_at;
    }
    if end <= body_start {
        return Err(c.error().into());
    }
    refuse_second_statement(c, body_start, end)?;
    let (body_start, end) = unwrap_parens(c, body_start, end);
    let select = c.sql[c.toks[body_start].start..c.toks[end - 1].end].to_string();
    c.pos = c.toks.len();
    let def = ViewDef { select, column_list, algorithm, definer: normal_definer(&definer), security, check_option, names: Vec::new(), shown: None, client_charset: None, expand: None };
    Ok(Some(Ddl::CreateView { or_replace, alter, view, def: Box::new(def) }))
}

/// A `;` inside a stored query is a second statement, which MySQL reads
/// as a syntax error in one COM_QUERY: refused here, so nothing after it
/// can reach SQLite with the query (SQLite compiles the first statement of
/// a text and would leave the rest to whatever runs it).
pub(super) fn refuse_second_statement(c: &mut TokenCursor<'_>, from: usize, to: usize) -> Result<(), SqlError> {
    if let Some(k) = (from..to).find(|&k| c.toks[k].is_op(";")) {
        c.pos = k;
        return Err(c.error().into());
    }
    Ok(())
}

/// `(SELECT ...)`, the whole query in parentheses: the query inside (the
/// rewriter reads a statement from its first word).
pub(super) fn unwrap_parens(c: &TokenCursor<'_>, mut from: usize, mut to: usize) -> (usize, usize) {
    while to > from + 2 && c.toks[from].is_op("(") && c.toks[to - 1].is_op(")") {
        let mut depth = 0i32;
        let closes_at = (from..to).find(|&k| {
            depth += if c.toks[k].is_op("(") {
                1
            } else if c.toks[k].is_op(")") {
                -1
            } else {
                0
            };
            depth == 0
        });
        if closes_at != Some(to - 1) {
            break;
        }
        from += 1;
        to -= 1;
    }
    (from, to)
}

/// DROP VIEW's names, after DROP VIEW.
pub(super) fn drop_view(c: &mut TokenCursor<'_>) -> Result<Ddl, SqlError> {
    let if_exists = c.eat_kws(&["IF", "EXISTS"]);
    let mut views = vec![c.qualified()?];
    while c.eat_op(",") {
        views.push(c.qualified()?);
    }
    if !c.eat_kw("RESTRICT") {
        c.eat_kw("CASCADE");
    }
    Ok(Ddl::DropView { if_exists, views })
}

/// `user@host` as written (any quoting) → `` `user`@`host` ``; empty or
/// CURRENT_USER stays empty (the session's account is filled in later).
pub fn normal_definer(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() || t.to_ascii_uppercase().starts_with("CURRENT_USER") {
        return String::new();
    }
    let unquote = |s: &str| -> String {
        let s = s.trim();
        let q = s.chars().next().filter(|c| matches!(c, '`' | '\'' | '"'));
        match q {
            Some(q) if s.len() >= 2 && s.ends_with(q) => s[1..s.len() - 1].replace(&format!("{q}{q}"), &q.to_string()),
            _ => s.to_string(),
        }
    };
    // The `@` outside quotes splits user from host.
    let mut quote: Option<char> = None;
    let mut at = None;
    for (i, ch) in t.char_indices() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if matches!(ch, '`' | '\'' | '"') => quote = Some(ch),
            None if ch == '@' => {
                at = Some(i);
                break;
            }
            None => {}
        }
    }
    match at {
        Some(i) => format!("{}@{}", quote_ident(&unquote(&t[..i])), quote_ident(&unquote(&t[i + 1..]))),
        None => format!("{}@`%`", quote_ident(&unquote(t))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn view(sql: &str) -> (bool, bool, String, ViewDef) {
        match parse(sql).unwrap().unwrap() {
            Ddl::CreateView { or_replace, alter, view, def } => (or_replace, alter, view.1, *def),
            other => panic!("{:?}", other),
        }
    }

    #[test]
    fn create_view_forms() {
        let (r, a, n, d) = view("CREATE VIEW v AS SELECT 1");
        assert!(!r && !a && n == "v" && d.select == "SELECT 1" && d.check_option == "NONE" && d.algorithm == "UNDEFINED" && d.security == "DEFINER");
        let (r, _, _, d) = view("CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`u`@`h` SQL SECURITY INVOKER VIEW db.v (a, b) AS SELECT x, y FROM t WITH LOCAL CHECK OPTION;");
        assert!(r && d.algorithm == "MERGE" && d.definer == "`u`@`h`" && d.security == "INVOKER" && d.column_list == ["a", "b"]);
        assert_eq!((d.select.as_str(), d.check_option.as_str()), ("SELECT x, y FROM t", "LOCAL"));
        let (_, _, _, d) = view("/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */ /*!50001 VIEW `v` AS select `t`.`a` AS `a` from `t` */ /*!50002 WITH CASCADED CHECK OPTION */;");
        assert_eq!((d.select.as_str(), d.check_option.as_str(), d.definer.as_str()), ("select `t`.`a` AS `a` from `t`", "CASCADED", "`root`@`localhost`"));
        let (_, _, _, d) = view("CREATE VIEW v AS ((SELECT 1) UNION (SELECT 2))");
        assert_eq!(d.select, "(SELECT 1) UNION (SELECT 2)");
        let (_, a, _, d) = view("ALTER VIEW v AS WITH c AS (SELECT 1) SELECT * FROM c WITH CHECK OPTION");
        assert!(a && d.check_option == "CASCADED" && d.select == "WITH c AS (SELECT 1) SELECT * FROM c");
        assert_eq!(normal_definer("'a b'@'%'"), "`a b`@`%`");
        assert_eq!(normal_definer("CURRENT_USER()"), "");
    }

    #[test]
    fn view_syntax_errors() {
        for bad in [
            "CREATE VIEW v AS SELECT 1; DROP TABLE t",
            "CREATE VIEW v AS",
            "CREATE VIEW v AS DELETE FROM t",
            "CREATE VIEW v SELECT 1",
            "CREATE ALGORITHM=FAST VIEW v AS SELECT 1",
            "CREATE VIEW v AS WITH CHECK OPTION",
        ] {
            assert_eq!(parse(bad).unwrap_err().code, 1064, "{bad}");
        }
        match parse("DROP VIEW IF EXISTS a, db.b CASCADE").unwrap().unwrap() {
            Ddl::DropView { if_exists, views } => assert!(if_exists && views.len() == 2 && views[1].0.as_deref() == Some("db")),
            other => panic!("{:?}", other),
        }
    }
}
