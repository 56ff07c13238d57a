//! EXPLAIN of a statement, in MariaDB 10.11's shapes, from SQLite's query plan.
//!
//! `EXPLAIN [EXTENDED | PARTITIONS | FORMAT={TRADITIONAL|JSON}] stmt` (and
//! DESCRIBE/DESC of a statement) for SELECT, WITH, TABLE, VALUES, INSERT,
//! REPLACE, UPDATE and DELETE. The statement is compiled exactly as it would
//! be run (exec/explain.rs: same translation, same authorizer, same
//! privileges, same nesting limits) and never stepped; its EXPLAIN QUERY
//! PLAN tree is then mapped here onto MariaDB's traditional table: a row per
//! table read, numbered by SELECT block, with MariaDB's select_type, access
//! type, key, key_len, ref, an estimated row count and Extra.
//!
//! Nothing of SQLite's own plan text reaches a client: every value shown is
//! one of MariaDB's words, a MySQL index name found in the table's definition
//! (a SQLite index that maps to none shows as NULL), a count, or a table
//! name the lookup (`Lookup::table`) accepts: a name the client's text or a
//! view's definition uses, never the translator's own helper names (`ts_*`),
//! which are looked through as if they were not there. Plan lines this file
//! does not know are skipped, their children still read.
//!
//! How SQLite's words map (MariaDB's in brackets): `SCAN t` [ALL], `SCAN t
//! USING [COVERING] INDEX i` [index, key i, "Using index" when covering],
//! `SEARCH t USING INDEX i (a=?)` [ref; eq_ref or const when i is unique and
//! every column is matched; range when a term is not `=`], `USING INTEGER
//! PRIMARY KEY (rowid=?)` [const/eq_ref on PRIMARY], `MULTI-INDEX OR`
//! [index_merge], `USE TEMP B-TREE FOR ORDER BY` ["Using filesort"], `FOR
//! GROUP BY` ["Using temporary; Using filesort"], `FOR DISTINCT` ["Using
//! temporary"], `SCALAR/LIST SUBQUERY` [SUBQUERY, DEPENDENT SUBQUERY when
//! correlated], `MATERIALIZE/CO-ROUTINE x` [DERIVED, read as `<derivedN>`],
//! `COMPOUND QUERY`/`MERGE` [UNION parts and a UNION RESULT row], `SCAN
//! CONSTANT ROW` ["No tables used"]. A table's rows estimate comes from
//! the lookup (ANALYZE TABLE's statistics, else the span of its row ids).

use crate::schema::{Base, ColumnDef, TableDef};
use std::sync::Arc;
use turnstile_engine::{Column, SqlError, Value};
use turnstile_sqltext::lex::{Tok, Token};
use turnstile_wire::consts::{charset, colflag, coltype};

/// How the plan is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// EXTENDED: a `filtered` column and Note 1003 with the statement.
    pub extended: bool,
    /// PARTITIONS: a `partitions` column (always NULL: no partitioned tables).
    pub partitions: bool,
    /// FORMAT=JSON: one `EXPLAIN` column holding a JSON document.
    pub json: bool,
}

/// An EXPLAIN of a statement: how to show it, and where the statement starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub options: Options,
    /// Byte offset of the explained statement in the text.
    pub at: usize,
}

/// Words that start a statement EXPLAIN describes.
const STATEMENTS: [&str; 8] = ["SELECT", "WITH", "TABLE", "VALUES", "INSERT", "REPLACE", "UPDATE", "DELETE"];

fn starts_statement(t: &Token) -> bool {
    t.is_op("(") || STATEMENTS.iter().any(|w| t.is_kw(w))
}

/// `EXPLAIN|DESCRIBE|DESC [options] statement`: Some(head); None when the
/// text describes a table (`DESCRIBE t`), which SHOW's code answers.
pub fn head(sql: &str, toks: &[Token]) -> Result<Option<Head>, SqlError> {
    let Some(first) = toks.first() else { return Ok(None) };
    if !(first.is_kw("EXPLAIN") || first.is_kw("DESCRIBE") || first.is_kw("DESC")) {
        return Ok(None);
    }
    let mut options = Options::default();
    let mut i = 1;
    let Some(t) = toks.get(i) else { return Ok(None) };
    if t.is_kw("FOR") && toks.get(i + 1).is_some_and(|t| t.is_kw("CONNECTION")) {
        return Err(SqlError::unsupported("EXPLAIN FOR CONNECTION"));
    }
    if t.is_kw("ANALYZE") {
        return Err(SqlError::unsupported("EXPLAIN ANALYZE"));
    }
    if t.is_kw("EXTENDED") || t.is_kw("PARTITIONS") {
        if !toks.get(i + 1).is_some_and(starts_statement) {
            // `DESCRIBE EXTENDED t`: a table's columns, as SHOW answers them.
            return Ok(None);
        }
        options.extended = t.is_kw("EXTENDED");
        options.partitions = t.is_kw("PARTITIONS");
        i += 1;
    } else if t.is_kw("FORMAT") {
        if !toks.get(i + 1).is_some_and(|t| t.is_op("=")) {
            return Ok(None);
        }
        let Some(f) = toks.get(i + 2) else { return Err(SqlError::syntax("")) };
        let name = f.ident().map(str::to_string).or_else(|| match &f.tok {
            Tok::Str(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        });
        match name.as_deref().map(str::to_ascii_uppercase).as_deref() {
            Some("JSON") => options.json = true,
            Some("TRADITIONAL") => {}
            // MariaDB: ER_UNKNOWN_EXPLAIN_FORMAT.
            _ => return Err(SqlError::new(1791, "HY000", format!("Unknown EXPLAIN/ANALYZE format name: '{}'", name.unwrap_or_default()))),
        }
        i += 3;
    }
    match toks.get(i) {
        Some(t) if starts_statement(t) => Ok(Some(Head { options, at: t.start })),
        Some(t) if i > 1 => Err(SqlError::syntax(&sql[t.start..])),
        None if i > 1 => Err(SqlError::syntax("")),
        _ => Ok(None),
    }
}

/// `ANALYZE [FORMAT=...] statement` (MariaDB runs the statement and shows
/// its plan with counts): not supported, whatever the statement touches.
pub fn analyzes_statement(sql: &str) -> bool {
    let Ok(toks) = turnstile_sqltext::lex::tokenize(sql) else { return false };
    let at = if toks.get(1).is_some_and(|t| t.is_kw("FORMAT")) { 4 } else { 1 };
    // `ANALYZE TABLE t` is the maintenance statement.
    toks.first().is_some_and(|t| t.is_kw("ANALYZE")) && toks.get(at).is_some_and(|t| starts_statement(t) && !t.is_kw("TABLE"))
}

/// A table as the plan names it, resolved by the session.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The name shown in the `table` column (an alias or the table's name).
    pub name: String,
    /// Its definition, when it is a table or view the session knows.
    pub def: Option<Arc<TableDef>>,
    /// Estimated rows of the whole table.
    pub rows: Option<u64>,
}

/// What the mapping asks of the session about names in the plan.
pub trait Lookup {
    /// The table SQLite's plan names `name` (an alias, `table` or
    /// `schema.table`); None for a name the client must not see.
    fn table(&self, name: &str) -> Option<Shown>;
    /// Average rows per value of the first `parts` columns of the index
    /// (`None` for the primary key), from ANALYZE TABLE's statistics.
    fn rows_per_key(&self, def: &TableDef, index: Option<&str>, parts: usize) -> Option<u64>;
    /// The table a SQLite index (its SQLite name) belongs to, among those
    /// the statement reaches.
    fn index_table(&self, sqlite_index: &str) -> Option<Shown>;
}

/// One row of the traditional table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanRow {
    pub id: Option<u32>,
    pub select_type: String,
    pub table: Option<String>,
    pub access: Option<&'static str>,
    pub possible_keys: Option<String>,
    pub key: Option<String>,
    pub key_len: Option<String>,
    pub refs: Option<String>,
    pub rows: Option<u64>,
    /// Columns of the key this access uses (FORMAT=JSON's used_key_parts).
    pub key_parts: Vec<String>,
    pub extra: Vec<String>,
    /// The row's Extra is NULL (MariaDB's INSERT ... VALUES row).
    pub extra_null: bool,
}

/// One line of SQLite's EXPLAIN QUERY PLAN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub id: i64,
    pub parent: i64,
    pub detail: String,
}

/// A SELECT block: an id and its rows.
#[derive(Debug, Clone)]
struct Block {
    id: u32,
    select_type: &'static str,
    rows: Vec<PlanRow>,
    /// It reads a constant row (`SELECT 1`, VALUES): "No tables used" when
    /// it reads no table either.
    constant: bool,
    filesort: bool,
    temporary: bool,
}

/// The walk over the plan tree.
struct Walk<'a> {
    nodes: &'a [Node],
    lookup: &'a dyn Lookup,
    blocks: Vec<Block>,
    /// Names SQLite gives a derived table or CTE it materializes, and the
    /// block that computes it.
    derived: Vec<(String, u32)>,
    /// UNION RESULT rows: (the union's block ids), placed after the last.
    unions: Vec<Vec<u32>>,
}

/// What kind of statement the plan is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Select,
    /// INSERT/REPLACE ... VALUES: MariaDB's one INSERT row for the target.
    InsertValues,
    /// INSERT/REPLACE ... SELECT, UPDATE, DELETE: the plan of what it reads.
    Other,
    /// DELETE: a plan that reads nothing is SQLite's truncation, MariaDB's
    /// "Deleting all rows".
    Delete,
}

/// The traditional table for a plan.
pub fn rows(nodes: &[Node], lookup: &dyn Lookup, verb: Verb, target: Option<&str>) -> Result<Vec<PlanRow>, SqlError> {
    if verb == Verb::InsertValues {
        let table = target.and_then(|t| lookup.table(t)).map(|s| s.name);
        return Ok(vec![PlanRow { id: Some(1), select_type: "INSERT".into(), table, access: Some("ALL"), extra_null: true, ..PlanRow::default() }]);
    }
    if verb == Verb::Delete && nodes.is_empty() {
        let rows = target.and_then(|t| lookup.table(t)).and_then(|s| s.rows).map(|n| n.max(1));
        return Ok(vec![PlanRow { id: Some(1), select_type: "SIMPLE".into(), rows, extra: vec!["Deleting all rows".into()], ..PlanRow::default() }]);
    }
    let mut w = Walk { nodes, lookup, blocks: Vec::new(), derived: Vec::new(), unions: Vec::new() };
    let top = w.new_block("SIMPLE");
    w.children(0, top, 0)?;
    Ok(w.finish())
}

/// Deepest plan tree walked (SQLite's plans are as deep as the statement's
/// nesting, which the translator limits to 64 SELECTs).
const MAX_DEPTH: usize = 1000;

impl Walk<'_> {
    fn new_block(&mut self, select_type: &'static str) -> usize {
        let id = self.blocks.len() as u32 + 1;
        self.blocks.push(Block { id, select_type, rows: Vec::new(), constant: false, filesort: false, temporary: false });
        self.blocks.len() - 1
    }

    fn children(&mut self, parent: i64, block: usize, depth: usize) -> Result<(), SqlError> {
        if depth > MAX_DEPTH {
            return Err(SqlError::new(1436, "HY000", "Thread stack overrun"));
        }
        turnstile_engine::stack::check()?;
        let kids: Vec<usize> = (0..self.nodes.len()).filter(|&i| self.nodes[i].parent == parent && self.nodes[i].id != parent).collect();
        let mut i = 0;
        while i < kids.len() {
            let n = kids[i];
            let detail = self.nodes[n].detail.clone();
            let id = self.nodes[n].id;
            if detail == "COMPOUND QUERY" || detail.starts_with("MERGE (") {
                self.compound(id, block, depth)?;
            } else {
                self.node(&detail, id, block, depth)?;
            }
            i += 1;
        }
        Ok(())
    }

    fn node(&mut self, detail: &str, id: i64, block: usize, depth: usize) -> Result<(), SqlError> {
        if let Some(rest) = detail.strip_prefix("SCAN ").or_else(|| detail.strip_prefix("SEARCH ")) {
            if rest == "CONSTANT ROW" || rest.ends_with(" CONSTANT ROWS") || rest.ends_with("-ROW VALUES CLAUSE") {
                self.blocks[block].constant = true;
            } else if let Some(row) = self.access(detail.starts_with("SEARCH "), rest, block) {
                self.blocks[block].rows.push(row);
            }
            return self.children(id, block, depth + 1);
        }
        if let Some(how) = detail.strip_prefix("USING ").and_then(|d| d.strip_suffix(" FOR IN-OPERATOR")) {
            // `x IN (SELECT k FROM u)` probed in u's key (MariaDB: a semi-join
            // reading u by that key in the same block).
            if let Some(row) = self.in_probe(how) {
                self.blocks[block].rows.push(row);
            }
            return self.children(id, block, depth + 1);
        }
        if detail == "MULTI-INDEX OR" {
            return self.multi_index(id, block);
        }
        if let Some(rest) = detail.strip_prefix("USE TEMP B-TREE FOR ") {
            let b = &mut self.blocks[block];
            match rest {
                "GROUP BY" => {
                    b.temporary = true;
                    b.filesort = true;
                }
                "DISTINCT" => b.temporary = true,
                _ => b.filesort = true,
            }
            return Ok(());
        }
        for (prefix, select_type) in
            [("CORRELATED SCALAR SUBQUERY", "DEPENDENT SUBQUERY"), ("CORRELATED LIST SUBQUERY", "DEPENDENT SUBQUERY"), ("SCALAR SUBQUERY", "SUBQUERY"), ("LIST SUBQUERY", "SUBQUERY")]
        {
            if detail.starts_with(prefix) {
                let b = self.new_block(select_type);
                return self.children(id, b, depth + 1);
            }
        }
        for prefix in ["MATERIALIZE ", "CO-ROUTINE "] {
            if let Some(name) = detail.strip_prefix(prefix) {
                // cte.rs renames a recursive CTE `r` to `ts:r` (and reads it as `r`).
                let client = name.strip_prefix("ts:").filter(|n| self.lookup.table(n).is_some());
                if self.is_derived_name(name) || client.is_some() {
                    let b = self.new_block("DERIVED");
                    let bid = self.blocks[b].id;
                    self.derived.push((name.to_string(), bid));
                    if let Some(n) = client {
                        self.derived.push((n.to_string(), bid));
                    }
                    return self.children(id, b, depth + 1);
                }
                // The translator's own helper (`ts_src`): looked through.
                return self.children(id, block, depth + 1);
            }
        }
        if detail == "RECURSIVE STEP" {
            let b = self.new_block("RECURSIVE UNION");
            let (first, this) = (self.blocks[block].id, self.blocks[b].id);
            self.children(id, b, depth + 1)?;
            self.unions.push(vec![first, this]);
            return Ok(());
        }
        // Anything else (BLOOM FILTER, RIGHT-JOIN, ...): its children only.
        self.children(id, block, depth + 1)
    }

    /// A derived table or CTE the client named (or SQLite's own name for an
    /// unnamed subquery), as opposed to the translator's helpers.
    fn is_derived_name(&self, name: &str) -> bool {
        if name.starts_with("(subquery-") || name.starts_with("(join-") {
            return true;
        }
        self.lookup.table(name).is_some()
    }

    /// COMPOUND QUERY (LEFT-MOST SUBQUERY, then UNION ALL / UNION USING TEMP
    /// B-TREE / ...) or MERGE (LEFT, RIGHT): the first part in this block,
    /// each other part a UNION block, and a UNION RESULT row unless every
    /// operator is UNION ALL.
    fn compound(&mut self, id: i64, block: usize, depth: usize) -> Result<(), SqlError> {
        let op = self.detail_of(id);
        let merge = op.starts_with("MERGE (");
        let parts: Vec<(i64, String)> = self.nodes.iter().filter(|n| n.parent == id && n.id != id).map(|n| (n.id, n.detail.clone())).collect();
        let mut ids = vec![self.blocks[block].id];
        let mut all = !merge || op.contains("UNION ALL");
        for (k, (pid, detail)) in parts.iter().enumerate() {
            if k == 0 || detail == "LEFT-MOST SUBQUERY" || detail == "LEFT" {
                self.children(*pid, block, depth + 1)?;
                continue;
            }
            if detail.starts_with("USE TEMP B-TREE") {
                self.node(detail, *pid, block, depth + 1)?;
                continue;
            }
            let word = if merge { op.as_str() } else { detail.as_str() };
            let select_type = if word.contains("INTERSECT") {
                "INTERSECT"
            } else if word.contains("EXCEPT") {
                "EXCEPT"
            } else {
                "UNION"
            };
            if !merge && detail != "UNION ALL" {
                all = false;
            }
            let b = self.new_block(select_type);
            ids.push(self.blocks[b].id);
            self.children(*pid, b, depth + 1)?;
        }
        if !all && ids.len() > 1 {
            self.unions.push(ids);
        }
        Ok(())
    }

    fn detail_of(&self, id: i64) -> String {
        self.nodes.iter().find(|n| n.id == id).map(|n| n.detail.clone()).unwrap_or_default()
    }

    /// `INDEX i` or `ROWID SEARCH ON TABLE t` of an IN probe: the table
    /// read by that key.
    fn in_probe(&self, how: &str) -> Option<PlanRow> {
        let (shown, key) = if let Some(t) = how.strip_prefix("ROWID SEARCH ON TABLE ") {
            let s = self.lookup.table(t)?;
            let key = s.def.as_ref().filter(|d| !d.primary.is_empty()).map(|d| ("PRIMARY".to_string(), d.primary.clone(), true));
            (s, key)
        } else {
            let ix = how.strip_prefix("INDEX ")?;
            let s = self.lookup.index_table(ix)?;
            let key = s.def.as_ref().and_then(|d| mysql_index(d, ix));
            (s, key)
        };
        let (kname, kcols, unique) = key?;
        let def = shown.def.clone()?;
        Some(PlanRow {
            table: Some(shown.name),
            access: Some(if unique { "eq_ref" } else { "ref" }),
            possible_keys: Some(kname.clone()),
            key_len: key_len(&def, &kcols, 1),
            key: Some(kname),
            refs: Some("func".into()),
            rows: Some(1),
            key_parts: kcols.into_iter().take(1).collect(),
            extra: vec!["Using index".into()],
            ..PlanRow::default()
        })
    }

    /// MULTI-INDEX OR: one index_merge row over the indexes its INDEX n parts search.
    fn multi_index(&mut self, id: i64, block: usize) -> Result<(), SqlError> {
        let mut parts: Vec<PlanRow> = Vec::new();
        let ors: Vec<i64> = self.nodes.iter().filter(|n| n.parent == id && n.id != id).map(|n| n.id).collect();
        for o in ors {
            let lines: Vec<String> = self.nodes.iter().filter(|n| n.parent == o && n.id != o).map(|n| n.detail.clone()).collect();
            for l in lines {
                if let Some(rest) = l.strip_prefix("SEARCH ").or_else(|| l.strip_prefix("SCAN ")) {
                    if let Some(r) = self.access(l.starts_with("SEARCH "), rest, block) {
                        parts.push(r);
                    }
                }
            }
        }
        let Some(first) = parts.first() else { return Ok(()) };
        let keys: Vec<String> = parts.iter().map(|p| p.key.clone().unwrap_or_else(|| "NULL".into())).collect();
        let lens: Vec<String> = parts.iter().map(|p| p.key_len.clone().unwrap_or_else(|| "NULL".into())).collect();
        let row = PlanRow {
            id: None,
            select_type: String::new(),
            table: first.table.clone(),
            access: Some("index_merge"),
            possible_keys: Some(keys.join(",")),
            key: Some(keys.join(",")),
            key_len: Some(lens.join(",")),
            refs: None,
            rows: Some(parts.iter().filter_map(|p| p.rows).sum()),
            key_parts: Vec::new(),
            extra: vec![format!("Using union({})", keys.join(",")), "Using where".into()],
            extra_null: false,
        };
        self.blocks[block].rows.push(row);
        Ok(())
    }

    /// `t`, `t USING INDEX i (a=? AND b>?)`, ... (after SCAN/SEARCH).
    fn access(&self, search: bool, rest: &str, block: usize) -> Option<PlanRow> {
        let rest = rest.strip_suffix(" LEFT-JOIN").or_else(|| rest.strip_suffix(" RIGHT-JOIN")).unwrap_or(rest);
        let (name, how) = match rest.find(" USING ") {
            Some(at) => (&rest[..at], Some(&rest[at + 7..])),
            None => (rest.split(" VIRTUAL TABLE").next().unwrap_or(rest), None),
        };
        let (table, shown) = match self.derived.iter().rev().find(|(n, _)| n == name) {
            Some((_, bid)) => (format!("<derived{}>", bid), None),
            None => {
                let s = self.lookup.table(name)?;
                (s.name.clone(), Some(s))
            }
        };
        let def = shown.as_ref().and_then(|s| s.def.clone());
        // MariaDB shows at least 1 (an empty table too).
        let total = shown.as_ref().and_then(|s| s.rows).unwrap_or(2).max(1);
        let first = self.blocks[block].rows.is_empty();
        let mut row = PlanRow { table: Some(table), access: Some("ALL"), rows: Some(total), ..PlanRow::default() };
        let Some(how) = how else { return Some(row) };
        let (covering, how) = match how.strip_prefix("COVERING ") {
            Some(h) => (true, h),
            None => (false, how),
        };
        let (index, cond) = split_condition(how);
        // (MySQL key name, its columns, unique)
        let key: Option<(String, Vec<String>, bool)> = if index == "INTEGER PRIMARY KEY" || index == "PRIMARY KEY" {
            def.as_ref().filter(|d| !d.primary.is_empty()).map(|d| ("PRIMARY".to_string(), d.primary.clone(), true))
        } else if let Some(ix) = index.strip_prefix("INDEX ") {
            def.as_ref().and_then(|d| mysql_index(d, ix))
        } else if index.starts_with("AUTOMATIC") {
            Some(("key0".to_string(), Vec::new(), false))
        } else {
            None
        };
        let terms: Vec<(String, bool)> = cond.map(parse_terms).unwrap_or_default();
        if !search {
            // A full scan in the index's order.
            row.access = Some("index");
            if let Some((k, cols, _)) = &key {
                row.key = Some(k.clone());
                row.key_len = def.as_ref().and_then(|d| key_len(d, cols, cols.len()));
                row.key_parts = cols.clone();
            }
            if covering {
                row.extra.push("Using index".into());
            }
            return Some(row);
        }
        let eq = terms.iter().all(|(_, e)| *e);
        let mut parts: Vec<String> = Vec::new();
        for (c, _) in &terms {
            if !parts.iter().any(|p| p.eq_ignore_ascii_case(c)) {
                parts.push(c.clone());
            }
        }
        let (kname, kcols, unique) = key.clone().unwrap_or_default();
        let whole = unique && !kcols.is_empty() && parts.len() >= kcols.len();
        let first_const = first && self.blocks[block].select_type != "DEPENDENT SUBQUERY";
        row.access = Some(if !eq {
            "range"
        } else if whole && first_const {
            "const"
        } else if whole {
            "eq_ref"
        } else {
            "ref"
        });
        if key.is_some() {
            row.key = Some(kname.clone());
            row.possible_keys = Some(kname.clone());
            let used = parts.len().min(kcols.len().max(1));
            row.key_len = def.as_ref().and_then(|d| key_len(d, &kcols, used));
            row.key_parts = if index == "INTEGER PRIMARY KEY" { kcols.clone() } else { parts.clone() };
        }
        if eq {
            let r = if first_const { "const" } else { "func" };
            row.refs = Some(vec![r; parts.len().max(1)].join(","));
        }
        row.rows = Some(match row.access {
            Some("const") | Some("eq_ref") => 1,
            Some("ref") => def.as_ref().and_then(|d| self.lookup.rows_per_key(d, (kname != "PRIMARY").then_some(kname.as_str()), parts.len())).unwrap_or(10).min(total).max(1),
            _ => (total / 4).max(1),
        });
        if row.access == Some("range") {
            row.extra.push("Using where".into());
        }
        if covering {
            row.extra.push("Using index".into());
        }
        Some(row)
    }

    /// The blocks in id order, first-row Extra added, UNION RESULT rows placed.
    fn finish(mut self) -> Vec<PlanRow> {
        let several = self.blocks.len() > 1;
        let mut out: Vec<PlanRow> = Vec::new();
        for b in &mut self.blocks {
            let select_type = if b.id == 1 && several { "PRIMARY" } else { b.select_type };
            if b.rows.is_empty() {
                let extra = if b.constant || b.id == 1 || b.select_type != "SIMPLE" { "No tables used" } else { "Impossible WHERE" };
                b.rows.push(PlanRow { extra: vec![extra.into()], ..PlanRow::default() });
            }
            if let Some(r) = b.rows.first_mut() {
                if b.temporary {
                    r.extra.push("Using temporary".into());
                }
                if b.filesort {
                    r.extra.push("Using filesort".into());
                }
            }
            for r in &mut b.rows {
                r.id = Some(b.id);
                r.select_type = select_type.to_string();
            }
            out.append(&mut b.rows);
            for u in self.unions.iter().filter(|u| u.last() == Some(&b.id)) {
                let ids: Vec<String> = u.iter().map(|i| i.to_string()).collect();
                out.push(PlanRow { id: None, select_type: "UNION RESULT".into(), table: Some(format!("<union{}>", ids.join(","))), access: Some("ALL"), ..PlanRow::default() });
            }
        }
        // A union's first part is its block's own select type (PRIMARY,
        // DERIVED, SUBQUERY); MariaDB numbers the rows of a union's parts in
        // the order they appear, which the walk kept.
        out
    }
}

/// `INDEX i (a=? AND b>?)` → ("INDEX i", Some("a=? AND b>?")).
fn split_condition(how: &str) -> (&str, Option<&str>) {
    if let Some(open) = how.rfind(" (") {
        if how.ends_with(')') {
            return (&how[..open], Some(&how[open + 2..how.len() - 1]));
        }
    }
    (how, None)
}

/// `a=? AND b>? AND b<?` → [(a, true), (b, false), (b, false)].
fn parse_terms(cond: &str) -> Vec<(String, bool)> {
    cond.split(" AND ")
        .filter_map(|t| {
            let at = t.find(['=', '<', '>'])?;
            let col = t[..at].trim_start_matches('(').trim().to_string();
            let op = &t[at..];
            let eq = op.starts_with("=?") || op == "=?";
            Some((col, eq))
        })
        .collect()
}

/// A SQLite index of `def` by its SQLite name: its MySQL name, columns, uniqueness.
fn mysql_index(def: &TableDef, sqlite_name: &str) -> Option<(String, Vec<String>, bool)> {
    if let Some(ix) = def.indexes.iter().find(|ix| ix.sqlite_name.eq_ignore_ascii_case(sqlite_name)) {
        return Some((ix.name.clone(), ix.columns.clone(), ix.unique));
    }
    // The primary key of a table whose key is not its rowid.
    if sqlite_name.starts_with("sqlite_autoindex_") && !def.primary.is_empty() {
        return Some(("PRIMARY".to_string(), def.primary.clone(), true));
    }
    None
}

/// MariaDB's key_len: the bytes of the first `used` key columns (+1 for a
/// nullable one, +2 for a variable-length one).
fn key_len(def: &TableDef, cols: &[String], used: usize) -> Option<String> {
    let mut total = 0u64;
    for c in cols.iter().take(used) {
        let col = def.column(c)?;
        total += column_key_bytes(col)?;
    }
    (used > 0).then(|| total.to_string())
}

fn column_key_bytes(col: &ColumnDef) -> Option<u64> {
    let mb = match col.charset_name() {
        Some("utf8mb4") | None => 4,
        Some("utf8mb3") => 3,
        _ => 1,
    };
    let frac = |l: Option<u64>| l.unwrap_or(0).div_ceil(2);
    let n = match col.base {
        Base::TinyInt | Base::Year => 1,
        Base::SmallInt => 2,
        Base::MediumInt | Base::Date => 3,
        Base::Int | Base::Float => 4,
        Base::BigInt | Base::Double => 8,
        Base::Decimal => decimal_bytes(col.length.unwrap_or(10), col.scale.unwrap_or(0)),
        Base::Bit => col.length.unwrap_or(1).div_ceil(8),
        Base::Time => 3 + frac(col.length),
        Base::DateTime => 5 + frac(col.length),
        Base::Timestamp => 4 + frac(col.length),
        Base::Char => col.length.unwrap_or(1) * mb,
        Base::VarChar => col.length.unwrap_or(1) * mb + 2,
        Base::Binary => col.length.unwrap_or(1),
        Base::VarBinary => col.length.unwrap_or(1) + 2,
        Base::Enum => {
            if col.members.len() > 255 {
                2
            } else {
                1
            }
        }
        Base::Set => (col.members.len() as u64).div_ceil(8).max(1),
        _ => return None,
    };
    Some(n + col.nullable as u64)
}

/// Bytes of MySQL's binary DECIMAL(p, s).
fn decimal_bytes(p: u64, s: u64) -> u64 {
    const REST: [u64; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let int = p.saturating_sub(s);
    (int / 9) * 4 + REST[(int % 9) as usize] + (s / 9) * 4 + REST[(s % 9) as usize]
}

/// A MariaDB EXPLAIN column: its name, type, length and flags.
fn col(name: &str, ty: u8, length: u32, flags: u16) -> Column {
    let mut c = Column::computed(name, ty);
    c.length = length;
    c.flags = flags;
    if ty == coltype::VAR_STRING || ty == coltype::MEDIUM_BLOB {
        c.charset = charset::UTF8MB4_GENERAL_CI;
        c.decimals = 39;
    }
    c
}

/// The result columns (MariaDB 10.11's names, types, lengths and flags).
pub fn columns(o: Options) -> Vec<Column> {
    if o.json {
        return vec![col("EXPLAIN", coltype::VAR_STRING, 312, colflag::NOT_NULL)];
    }
    let s = |n: &str, len: u32| col(n, coltype::VAR_STRING, len, 0);
    let mut v = vec![col("id", coltype::LONGLONG, 3, colflag::BINARY | colflag::UNSIGNED), col("select_type", coltype::VAR_STRING, 76, colflag::NOT_NULL), s("table", 256)];
    if o.partitions {
        v.push(col("partitions", coltype::MEDIUM_BLOB, 25_264_128, 0));
    }
    v.extend([s("type", 40), s("possible_keys", 16384), s("key", 256), s("key_len", 16384), s("ref", 8192)]);
    v.push(col("rows", coltype::VAR_STRING, 256, if o.extended { colflag::NOT_NULL } else { 0 }));
    if o.extended {
        let mut f = col("filtered", coltype::DOUBLE, 4, colflag::BINARY);
        f.decimals = 2;
        v.push(f);
    }
    v.push(col("Extra", coltype::VAR_STRING, 1020, colflag::NOT_NULL));
    v
}

fn opt(v: &Option<String>) -> Value {
    v.as_deref().map_or(Value::Null, Value::str)
}

/// One row of the traditional table as values for `columns(o)`.
pub fn values(r: &PlanRow, o: Options) -> Vec<Value> {
    let mut v = vec![r.id.map_or(Value::Null, |i| Value::UInt(i as u64)), Value::str(&r.select_type), opt(&r.table)];
    if o.partitions {
        v.push(Value::Null);
    }
    v.push(r.access.map_or(Value::Null, Value::str));
    v.extend([opt(&r.possible_keys), opt(&r.key), opt(&r.key_len), opt(&r.refs)]);
    v.push(r.rows.map_or(Value::Null, |n| Value::str(&n.to_string())));
    if o.extended {
        // MariaDB's text, 100.00 (the binary protocol sends the column's DOUBLE).
        v.push(if r.table.is_some() { Value::str("100.00") } else { Value::Null });
    }
    v.push(if r.extra_null { Value::Null } else { Value::str(&extra_text(&r.extra)) });
    v
}

fn extra_text(extra: &[String]) -> String {
    extra.join("; ")
}

/// JSON string literal.
fn js(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// FORMAT=JSON: MariaDB's document for the first SELECT block (its tables in
/// `nested_loop`, a sort as `read_sorted_file`), other blocks as
/// `subqueries` of it.
pub fn json(rows: &[PlanRow], verb_key: Option<&str>) -> String {
    let mut ids: Vec<u32> = rows.iter().filter_map(|r| r.id).collect();
    ids.dedup();
    let mut out = String::from("{\n");
    let (first, rest) = match ids.split_first() {
        Some((f, r)) => (*f, r.to_vec()),
        None => (1, Vec::new()),
    };
    // A union at the top: MariaDB's `union_result` over its parts.
    let top_union = rows
        .iter()
        .filter(|r| r.id.is_none())
        .filter_map(|r| r.table.as_deref())
        .find_map(|t| t.strip_prefix("<union").and_then(|t| t.strip_suffix('>')))
        .map(|ids| ids.split(',').filter_map(|i| i.parse::<u32>().ok()).collect::<Vec<u32>>())
        .filter(|ids| ids.first() == Some(&first));
    match top_union {
        Some(parts) => {
            let others: Vec<u32> = rest.iter().copied().filter(|i| !parts.contains(i)).collect();
            let names: Vec<String> = parts.iter().map(|i| i.to_string()).collect();
            out.push_str(&format!(
                "  \"query_block\": {{\n    \"union_result\": {{\n      \"table_name\": {},\n      \"access_type\": \"ALL\",\n      \"query_specifications\": [",
                js(&format!("<union{}>", names.join(",")))
            ));
            for (k, id) in parts.iter().enumerate() {
                let subs: &[u32] = if k == 0 { &others } else { &[] };
                out.push_str(if k == 0 { "\n" } else { ",\n" });
                out.push_str(&format!("{}{{\n{}\n{}}}", pad(4), block_json(rows, *id, subs, verb_key, 5), pad(4)));
            }
            out.push_str("\n      ]\n    }\n  }");
        }
        None => out.push_str(&block_json(rows, first, &rest, verb_key, 1)),
    }
    out.push_str("\n}");
    out
}

fn pad(n: usize) -> String {
    "  ".repeat(n)
}

fn block_json(rows: &[PlanRow], id: u32, subs: &[u32], verb_key: Option<&str>, depth: usize) -> String {
    let p = pad(depth);
    let mut s = format!("{p}\"query_block\": {{\n{p}  \"select_id\": {id}");
    let mine: Vec<&PlanRow> = rows.iter().filter(|r| r.id == Some(id)).collect();
    if let Some(op) = mine.first().map(|r| r.select_type.as_str()).filter(|t| ["UNION", "INTERSECT", "EXCEPT", "RECURSIVE UNION"].contains(t)) {
        s.push_str(&format!(",\n{p}  \"operation\": {}", js(op)));
    }
    if mine.len() == 1 && mine[0].table.is_none() {
        s.push_str(&format!(",\n{p}  \"table\": {{\n{p}    \"message\": {}\n{p}  }}", js(&extra_text(&mine[0].extra))));
    } else {
        s.push_str(&format!(",\n{p}  \"nested_loop\": ["));
        for (k, r) in mine.iter().enumerate() {
            let sorted = r.extra.iter().any(|e| e == "Using filesort");
            let inner = if sorted { depth + 5 } else { depth + 3 };
            let t = table_json(r, verb_key, inner);
            let body = if sorted {
                let q = pad(depth + 2);
                format!("{q}{{\n{q}  \"read_sorted_file\": {{\n{q}    \"filesort\": {{\n{t}\n{q}    }}\n{q}  }}\n{q}}}")
            } else {
                let q = pad(depth + 2);
                format!("{q}{{\n{t}\n{q}}}")
            };
            s.push_str(if k == 0 { "\n" } else { ",\n" });
            s.push_str(&body);
        }
        s.push_str(&format!("\n{p}  ]"));
    }
    if !subs.is_empty() {
        s.push_str(&format!(",\n{p}  \"subqueries\": ["));
        for (k, sid) in subs.iter().enumerate() {
            s.push_str(if k == 0 { "\n" } else { ",\n" });
            s.push_str(&format!("{}{{\n{}\n{}}}", pad(depth + 2), block_json(rows, *sid, &[], None, depth + 3), pad(depth + 2)));
        }
        s.push_str(&format!("\n{p}  ]"));
    }
    s.push_str(&format!("\n{p}}}"));
    s
}

fn table_json(r: &PlanRow, verb_key: Option<&str>, depth: usize) -> String {
    let p = pad(depth);
    let list = |v: &[String]| format!("[{}]", v.iter().map(|x| js(x)).collect::<Vec<_>>().join(", "));
    let mut f: Vec<String> = Vec::new();
    if let Some(k) = verb_key {
        f.push(format!("{}: 1", js(k)));
    }
    f.push(format!("\"table_name\": {}", js(r.table.as_deref().unwrap_or(""))));
    f.push(format!("\"access_type\": {}", js(r.access.unwrap_or("ALL"))));
    if let Some(pk) = &r.possible_keys {
        f.push(format!("\"possible_keys\": {}", list(&pk.split(',').map(str::to_string).collect::<Vec<_>>())));
    }
    if let Some(k) = &r.key {
        f.push(format!("\"key\": {}", js(k)));
    }
    if let Some(l) = &r.key_len {
        f.push(format!("\"key_length\": {}", js(l)));
    }
    if !r.key_parts.is_empty() {
        f.push(format!("\"used_key_parts\": {}", list(&r.key_parts)));
    }
    if let Some(rf) = &r.refs {
        f.push(format!("\"ref\": {}", list(&rf.split(',').map(str::to_string).collect::<Vec<_>>())));
    }
    f.push(format!("\"rows\": {}", r.rows.unwrap_or(0)));
    f.push("\"filtered\": 100".to_string());
    if r.extra.iter().any(|e| e == "Using index") {
        f.push("\"using_index\": true".to_string());
    }
    let inner: Vec<String> = f.iter().map(|x| format!("{p}  {x}")).collect();
    format!("{p}\"table\": {{\n{}\n{p}}}", inner.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::IndexDef;

    struct Fake(Arc<TableDef>);
    impl Lookup for Fake {
        fn table(&self, name: &str) -> Option<Shown> {
            let n = name.strip_prefix("main.").unwrap_or(name);
            if n.starts_with("ts_") {
                return None;
            }
            let def = (n == "t" || n == "x").then(|| self.0.clone());
            Some(Shown { name: n.to_string(), def, rows: Some(100) })
        }
        fn rows_per_key(&self, _: &TableDef, _: Option<&str>, _: usize) -> Option<u64> {
            None
        }
        fn index_table(&self, ix: &str) -> Option<Shown> {
            (ix == "t_ia").then(|| Shown { name: "t".into(), def: Some(self.0.clone()), rows: Some(100) })
        }
    }

    fn def() -> Arc<TableDef> {
        let mut id = ColumnDef::new("id".into(), Base::Int);
        id.nullable = false;
        let a = ColumnDef::new("a".into(), Base::Int);
        let mut b = ColumnDef::new("b".into(), Base::VarChar);
        b.length = Some(10);
        b.collation = Some("utf8mb4_general_ci".into());
        Arc::new(TableDef {
            name: "t".into(),
            columns: vec![id, a, b],
            primary: vec!["id".into()],
            primary_using: None,
            indexes: vec![IndexDef {
                name: "ia".into(),
                sqlite_name: "t_ia".into(),
                unique: false,
                columns: vec!["a".into()],
                prefix: vec![None],
                comment: String::new(),
                fulltext: false,
                using: None,
            }],
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            engine: "InnoDB".into(),
            collation: "utf8mb4_general_ci".into(),
            comment: String::new(),
            created: 0,
            view: None,
        })
    }

    fn plan(lines: &[(i64, i64, &str)]) -> Vec<PlanRow> {
        let nodes: Vec<Node> = lines.iter().map(|(i, p, d)| Node { id: *i, parent: *p, detail: d.to_string() }).collect();
        rows(&nodes, &Fake(def()), Verb::Select, None).unwrap()
    }

    fn brief(r: &PlanRow) -> String {
        format!("{:?} {} {:?} {:?} {:?} {:?} {:?} {:?}", r.id, r.select_type, r.table, r.access, r.key, r.key_len, r.refs, extra_text(&r.extra))
    }

    #[test]
    fn single_table_accesses() {
        let r = plan(&[(2, 0, "SCAN t")]);
        assert_eq!(brief(&r[0]), "Some(1) SIMPLE Some(\"t\") Some(\"ALL\") None None None \"\"");
        let r = plan(&[(2, 0, "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)")]);
        assert_eq!(brief(&r[0]), "Some(1) SIMPLE Some(\"t\") Some(\"const\") Some(\"PRIMARY\") Some(\"4\") Some(\"const\") \"\"");
        let r = plan(&[(3, 0, "SEARCH x USING COVERING INDEX t_ia (a>?)"), (9, 0, "USE TEMP B-TREE FOR ORDER BY")]);
        assert_eq!(brief(&r[0]), "Some(1) SIMPLE Some(\"x\") Some(\"range\") Some(\"ia\") Some(\"5\") None \"Using where; Using index; Using filesort\"");
        let r = plan(&[(3, 0, "SEARCH t USING INDEX sqlite_internal_name (a=?)")]);
        assert_eq!(r[0].key, None, "an index the table does not define is not shown");
        let r = plan(&[(1, 0, "SCAN CONSTANT ROW")]);
        assert_eq!(brief(&r[0]), "Some(1) SIMPLE None None None None None \"No tables used\"");
    }

    #[test]
    fn blocks_unions_and_helpers() {
        let r = plan(&[(1, 0, "COMPOUND QUERY"), (2, 1, "LEFT-MOST SUBQUERY"), (5, 2, "SCAN t"), (11, 1, "UNION USING TEMP B-TREE"), (13, 11, "SCAN u")]);
        let b: Vec<String> = r.iter().map(|r| format!("{:?} {} {:?}", r.id, r.select_type, r.table)).collect();
        assert_eq!(b, ["Some(1) PRIMARY Some(\"t\")", "Some(2) UNION Some(\"u\")", "None UNION RESULT Some(\"<union1,2>\")"]);
        let r = plan(&[(2, 0, "CO-ROUTINE d"), (8, 2, "SCAN t"), (36, 0, "SCAN d")]);
        let b: Vec<String> = r.iter().map(|r| format!("{:?} {} {:?}", r.id, r.select_type, r.table)).collect();
        assert_eq!(b, ["Some(1) PRIMARY Some(\"<derived2>\")", "Some(2) DERIVED Some(\"t\")"]);
        // The translator's helper CTE is looked through; its scan is not shown.
        let r = plan(&[(2, 0, "CO-ROUTINE ts_src"), (8, 2, "SCAN t"), (36, 0, "SCAN ts_src")]);
        assert_eq!(r.len(), 1);
        assert_eq!(brief(&r[0]), "Some(1) SIMPLE Some(\"t\") Some(\"ALL\") None None None \"\"");
        let r = plan(&[(2, 0, "SCAN t"), (5, 0, "CORRELATED SCALAR SUBQUERY 1"), (9, 5, "SEARCH x USING INDEX t_ia (a=?)")]);
        assert_eq!(r[1].select_type, "DEPENDENT SUBQUERY");
        assert_eq!(r[0].select_type, "PRIMARY");
    }

    #[test]
    fn in_probes_and_deletes() {
        let r = plan(&[(2, 0, "SCAN x"), (5, 0, "USING INDEX t_ia FOR IN-OPERATOR"), (6, 0, "USING INDEX sqlite_x FOR IN-OPERATOR")]);
        assert_eq!(r.len(), 2);
        assert_eq!(brief(&r[1]), "Some(1) SIMPLE Some(\"t\") Some(\"ref\") Some(\"ia\") Some(\"5\") Some(\"func\") \"Using index\"");
        let r = rows(&[], &Fake(def()), Verb::Delete, Some("t")).unwrap();
        assert_eq!(brief(&r[0]), "Some(1) SIMPLE None None None None None \"Deleting all rows\"");
        assert_eq!(r[0].rows, Some(100));
    }

    #[test]
    fn heads() {
        let h = |s: &str| head(s, &turnstile_sqltext::lex::tokenize(s).unwrap());
        assert_eq!(h("DESCRIBE t").unwrap(), None);
        assert_eq!(h("EXPLAIN t").unwrap(), None);
        assert_eq!(h("DESC EXTENDED t").unwrap(), None);
        assert_eq!(h("EXPLAIN SELECT 1").unwrap().unwrap().at, 8);
        assert!(h("EXPLAIN EXTENDED SELECT 1").unwrap().unwrap().options.extended);
        assert!(h("explain format=json select 1").unwrap().unwrap().options.json);
        assert_eq!(h("EXPLAIN FORMAT=xml SELECT 1").unwrap_err().code, 1791);
        assert_eq!(h("EXPLAIN FOR CONNECTION 3").unwrap_err().code, 1235);
        assert!(h("EXPLAIN (SELECT 1)").unwrap().is_some());
    }

    #[test]
    fn json_of_a_union() {
        let r = plan(&[(1, 0, "COMPOUND QUERY"), (2, 1, "LEFT-MOST SUBQUERY"), (5, 2, "SCAN t"), (11, 1, "UNION USING TEMP B-TREE"), (13, 11, "SCAN u")]);
        let doc = json(&r, None);
        assert!(doc.starts_with("{\n  \"query_block\": {\n    \"union_result\": {\n      \"table_name\": \"<union1,2>\""), "{doc}");
        assert!(doc.contains("\"select_id\": 2,\n            \"operation\": \"UNION\""), "{doc}");
        assert_eq!(doc.matches('{').count(), doc.matches('}').count());
    }

    #[test]
    fn key_lengths() {
        assert_eq!(decimal_bytes(10, 2), 5);
        let d = def();
        assert_eq!(key_len(&d, &["b".to_string()], 1).as_deref(), Some("43"));
    }
}
