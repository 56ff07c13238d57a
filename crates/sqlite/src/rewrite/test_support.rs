//! The schema the rewriter's unit tests run against, shared by the tests of
//! every part of the rewriter: databases `sbtest` (current) and `other`, the
//! table `sbtest1`, and `tmp1`, a temporary table of sbtest1's shape.

use super::{rewrite, Kind, Resolver};
use crate::ddl;
use crate::schema::TableDef;
use std::sync::Arc;

pub(super) struct TestResolver(pub(super) Vec<Arc<TableDef>>);

impl Resolver for TestResolver {
    fn home(&self) -> Option<&str> {
        Some("sbtest")
    }
    fn is_database(&self, n: &str) -> bool {
        n == "other" || n == "sbtest"
    }
    fn table(&self, _: Option<&str>, name: &str) -> Option<Arc<TableDef>> {
        // tmp1: a temporary table (of sbtest1's shape)
        self.0.iter().find(|t| t.name == name || name == "tmp1").cloned()
    }
    fn is_temp(&self, name: &str) -> bool {
        name == "tmp1"
    }
}

/// The definition a CREATE TABLE statement makes.
pub(super) fn table_def(create: &str) -> TableDef {
    match ddl::parse(create).unwrap().unwrap() {
        ddl::Ddl::CreateTable { def, .. } => *def,
        _ => unreachable!(),
    }
}

pub(super) fn resolver() -> TestResolver {
    let d = table_def("CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120), PRIMARY KEY (id))");
    TestResolver(vec![Arc::new(d)])
}

pub(super) fn rewrite_select(sql: &str) -> String {
    rewrite(sql, Kind::Select, &resolver()).unwrap().sql
}
