//! performance_schema's tables that Turnstile keeps, in MariaDB 10.11's
//! shapes: `threads` (a row per session, as MariaDB shows its foreground
//! threads), `events_statements_summary_by_digest` (the server's statement
//! digests, `turnstile_server::digests`), and `session_connect_attrs` /
//! `session_account_connect_attrs` (the attributes each session's client
//! sent at connect, kept while performance_schema is ON).
//!
//! Like information_schema (info_tables.rs), performance_schema is a
//! per-connection in-memory database, attached beside it and refilled by
//! every statement that names it, from what only the server knows (through
//! `Access`). Reading it takes SELECT on `performance_schema` (an
//! administrator's or a grant's), as in MariaDB.

use turnstile_engine::{Access, SqlError};

/// The schema's name (any case in a statement).
pub const SCHEMA: &str = "performance_schema";

/// Its tables. Column types are MariaDB's, as info_tables.rs declares them
/// (its `wire_column` reads them back); the timers are picoseconds.
pub const PERF_TABLES: &str = "
CREATE TABLE IF NOT EXISTS performance_schema.threads (THREAD_ID UNSIGNED BIGINT(20), NAME VARCHAR(128), TYPE VARCHAR(10), PROCESSLIST_ID UNSIGNED BIGINT(20) NULL, PROCESSLIST_USER VARCHAR(128) NULL, PROCESSLIST_HOST VARCHAR(255) NULL, PROCESSLIST_DB VARCHAR(64) NULL, PROCESSLIST_COMMAND VARCHAR(16) NULL, PROCESSLIST_TIME BIGINT(20) NULL, PROCESSLIST_STATE VARCHAR(64) NULL, PROCESSLIST_INFO LONGTEXT NULL, PARENT_THREAD_ID UNSIGNED BIGINT(20) NULL, ROLE VARCHAR(64) NULL, INSTRUMENTED VARCHAR(3), HISTORY VARCHAR(3), CONNECTION_TYPE VARCHAR(16) NULL, THREAD_OS_ID UNSIGNED BIGINT(20) NULL);
CREATE TABLE IF NOT EXISTS performance_schema.events_statements_summary_by_digest (SCHEMA_NAME VARCHAR(64) NULL, DIGEST VARCHAR(32) NULL, DIGEST_TEXT LONGTEXT NULL, COUNT_STAR UNSIGNED BIGINT(20), SUM_TIMER_WAIT UNSIGNED BIGINT(20), MIN_TIMER_WAIT UNSIGNED BIGINT(20), AVG_TIMER_WAIT UNSIGNED BIGINT(20), MAX_TIMER_WAIT UNSIGNED BIGINT(20), SUM_LOCK_TIME UNSIGNED BIGINT(20), SUM_ERRORS UNSIGNED BIGINT(20), SUM_WARNINGS UNSIGNED BIGINT(20), SUM_ROWS_AFFECTED UNSIGNED BIGINT(20), SUM_ROWS_SENT UNSIGNED BIGINT(20), SUM_ROWS_EXAMINED UNSIGNED BIGINT(20), SUM_CREATED_TMP_DISK_TABLES UNSIGNED BIGINT(20), SUM_CREATED_TMP_TABLES UNSIGNED BIGINT(20), SUM_SELECT_FULL_JOIN UNSIGNED BIGINT(20), SUM_SELECT_FULL_RANGE_JOIN UNSIGNED BIGINT(20), SUM_SELECT_RANGE UNSIGNED BIGINT(20), SUM_SELECT_RANGE_CHECK UNSIGNED BIGINT(20), SUM_SELECT_SCAN UNSIGNED BIGINT(20), SUM_SORT_MERGE_PASSES UNSIGNED BIGINT(20), SUM_SORT_RANGE UNSIGNED BIGINT(20), SUM_SORT_ROWS UNSIGNED BIGINT(20), SUM_SORT_SCAN UNSIGNED BIGINT(20), SUM_NO_INDEX_USED UNSIGNED BIGINT(20), SUM_NO_GOOD_INDEX_USED UNSIGNED BIGINT(20), FIRST_SEEN DATETIME(6), LAST_SEEN DATETIME(6));
CREATE TABLE IF NOT EXISTS performance_schema.session_connect_attrs (PROCESSLIST_ID INT(11), ATTR_NAME VARCHAR(32), ATTR_VALUE VARCHAR(1024) NULL, ORDINAL_POSITION INT(11) NULL);
CREATE TABLE IF NOT EXISTS performance_schema.session_account_connect_attrs (PROCESSLIST_ID INT(11), ATTR_NAME VARCHAR(32), ATTR_VALUE VARCHAR(1024) NULL, ORDINAL_POSITION INT(11) NULL);
";

/// Is `name` performance_schema or information_schema, the schemas of
/// in-memory tables refilled per statement?
pub fn is_system_view_schema(name: &str) -> bool {
    name.eq_ignore_ascii_case(SCHEMA) || name.eq_ignore_ascii_case("information_schema")
}

/// Its tables' names.
pub fn own_tables() -> impl Iterator<Item = &'static str> {
    PERF_TABLES.split(';').filter_map(|s| s.trim().strip_prefix("CREATE TABLE IF NOT EXISTS performance_schema.")).filter_map(|s| s.split(' ').next())
}

/// Refill the tables from the server's sessions and digests. Only for a
/// session that may read them: the privilege check of the statement itself
/// (SELECT on performance_schema) comes first.
pub fn fill(db: &rusqlite::Connection, access: &dyn Access) -> Result<(), SqlError> {
    use rusqlite::types::Value as V;
    let t = |x: &str| V::Text(x.to_string());
    let o = |x: Option<String>| x.map_or(V::Null, V::Text);
    let i = |x: u64| V::Integer(x.min(i64::MAX as u64) as i64);
    let internal = |e: rusqlite::Error| SqlError::internal(e.to_string());
    db.execute_batch("DELETE FROM performance_schema.threads; DELETE FROM performance_schema.events_statements_summary_by_digest;").map_err(internal)?;
    let mut st = db.prepare_cached("INSERT INTO performance_schema.threads VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)").map_err(internal)?;
    for p in access.processlist() {
        let transport = if p.host == "localhost" { "Socket" } else { "TCP/IP" };
        // PROCESSLIST's host is `ip:port`; PROCESSLIST_HOST is the host alone.
        let host = if p.host == "localhost" { &p.host[..] } else { p.host.rsplit_once(':').map_or(&p.host[..], |(h, _)| h) };
        let row = [
            i(p.id),
            t("thread/sql/one_connection"),
            t("FOREGROUND"),
            i(p.id),
            t(&p.user),
            t(host),
            o(p.db),
            t(p.command),
            i(p.time),
            t(p.state),
            o(p.info),
            V::Null,
            V::Null,
            t("YES"),
            t("YES"),
            t(transport),
            V::Null,
        ];
        st.execute(rusqlite::params_from_iter(row)).map_err(internal)?;
    }
    db.execute_batch("DELETE FROM performance_schema.session_connect_attrs; DELETE FROM performance_schema.session_account_connect_attrs;").map_err(internal)?;
    let me = access.who().0.to_string();
    for table in ["session_connect_attrs", "session_account_connect_attrs"] {
        let mut st = db.prepare_cached(&format!("INSERT INTO performance_schema.{table} VALUES (?1,?2,?3,?4)")).map_err(internal)?;
        // session_account_connect_attrs: the sessions of this session's own user.
        for row in access.connect_attrs().into_iter().filter(|r| table == "session_connect_attrs" || r.user == me) {
            for (n, (name, value)) in row.attrs.into_iter().enumerate() {
                st.execute(rusqlite::params![row.id as i64, name, value, n as i64]).map_err(internal)?;
            }
        }
    }
    let mut st = db.prepare_cached(&format!("INSERT INTO performance_schema.events_statements_summary_by_digest VALUES ({})", crate::show::marks(29))).map_err(internal)?;
    for d in access.digests() {
        let avg = d.sum_ps.checked_div(d.count).unwrap_or(0);
        let seen = |us: u64| V::Text(datetime_us(us));
        let mut row = vec![o(d.schema), o(d.digest), o(d.text), i(d.count), i(d.sum_ps), i(d.min_ps), i(avg), i(d.max_ps), i(0), i(d.errors), i(d.warnings), i(d.rows_affected), i(d.rows_sent), i(0)];
        row.extend((0..13).map(|_| i(0)));
        row.push(seen(d.first_seen_us));
        row.push(seen(d.last_seen_us));
        st.execute(rusqlite::params_from_iter(row)).map_err(internal)?;
    }
    Ok(())
}

/// `YYYY-MM-DD hh:mm:ss.ffffff` (UTC) of microseconds since the epoch.
fn datetime_us(us: u64) -> String {
    let secs = us / 1_000_000;
    let (y, m, d) = turnstile_sqltext::civil::civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:06}", s / 3600, s / 60 % 60, s % 60, us % 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_named() {
        let names: Vec<&str> = own_tables().collect();
        assert_eq!(names, ["threads", "events_statements_summary_by_digest", "session_connect_attrs", "session_account_connect_attrs"]);
        assert_eq!(datetime_us(1_795_888_970_000_001), "2026-11-28 18:02:50.000001");
    }
}
