//! What a statement does to session state, read from its text without
//! parsing it: a tolerant scan over words, skipping comments, quoted
//! strings and quoted names. It never refuses a statement (the backend's
//! parser decides what is valid); it only finds what pins a session to its
//! backend connection and what Turnstile answers itself.
//!
//! MariaDB's state-change tracker does not flag `SELECT ... INTO @v`,
//! `@v := ...`, GET_LOCK or SQL_CALC_FOUND_ROWS, so those are found here.

/// Why a session keeps its backend connection (bits of `Pins`).
pub mod pin {
    pub const TRANSACTION: u16 = 1 << 0;
    pub const USER_VARIABLES: u16 = 1 << 1;
    pub const TEMPORARY_TABLES: u16 = 1 << 2;
    pub const PREPARED_SQL: u16 = 1 << 3;
    pub const LOCKS: u16 = 1 << 4;
    pub const FOUND_ROWS: u16 = 1 << 5;
    pub const LOCK_TABLES: u16 = 1 << 6;
    pub const SQL_LOG_BIN: u16 = 1 << 7;
    pub const STATE_CHANGE: u16 = 1 << 8;
    pub const CURSOR: u16 = 1 << 9;
    pub const TRANSACTION_CHARACTERISTICS: u16 = 1 << 10;

    /// Every reason with its SHOW STATUS name (`Upstream_pinned_<name>`).
    pub const NAMES: &[(u16, &str)] = &[
        (TRANSACTION, "transaction"),
        (USER_VARIABLES, "user_variables"),
        (TEMPORARY_TABLES, "temporary_tables"),
        (PREPARED_SQL, "prepared_sql"),
        (LOCKS, "get_lock"),
        (FOUND_ROWS, "found_rows"),
        (LOCK_TABLES, "lock_tables"),
        (SQL_LOG_BIN, "sql_log_bin"),
        (STATE_CHANGE, "state_change"),
        (CURSOR, "cursor"),
        (TRANSACTION_CHARACTERISTICS, "transaction_characteristics"),
    ];
}

/// A statement Turnstile answers without the backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    /// `SELECT LAST_INSERT_ID()`, `SELECT @@IDENTITY`, `SELECT @@LAST_INSERT_ID`:
    /// the session's value, named as written.
    LastInsertId(String),
    /// `SELECT FOUND_ROWS()` after a SELECT without SQL_CALC_FOUND_ROWS.
    FoundRows(String),
    /// `KILL [CONNECTION | QUERY] n`: Turnstile's connection ids.
    Kill { id: u64, query_only: bool },
    /// `SELECT CONNECTION_ID()`: Turnstile's id (the handshake's, KILL's).
    ConnectionId(String),
    /// `SELECT ROW_COUNT()`: what the session's previous statement affected
    /// (the connection it gets may have run someone else's since).
    RowCount(String),
    /// `SELECT @@warning_count` / `@@error_count` (`errors`).
    DiagnosticsCount { errors: bool, name: String },
    /// `SHOW WARNINGS | ERRORS [LIMIT [offset,] n]`, `SHOW COUNT(*) WARNINGS | ERRORS`:
    /// the diagnostics of the session's last statement, kept by Turnstile
    /// (the backend connection that ran it may be serving someone else).
    ShowDiagnostics { errors: bool, count: bool, offset: u64, limit: Option<u64> },
    /// `BACKUP DATA ...` (Turnstile's own statement): refused with 1235, the
    /// backend's data is the backend's to back up (not MariaDB's 1064).
    BackupData,
}

/// What the scan found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Shape {
    /// Pins the statement takes (`pin::*`).
    pub pins: u16,
    /// UNLOCK TABLES: lets go of LOCK TABLES.
    pub unlocks_tables: bool,
    /// Reads LAST_INSERT_ID() or @@identity (the backend connection is given
    /// the session's value first).
    pub reads_last_insert_id: bool,
    /// An account statement (CREATE/ALTER/DROP/RENAME USER, GRANT, REVOKE,
    /// SET PASSWORD): the accounts are read again after it.
    pub changes_accounts: bool,
    /// An XA statement (XA START, END, PREPARE, COMMIT, ROLLBACK, RECOVER).
    pub xa: bool,
    /// GET [CURRENT | STACKED] DIAGNOSTICS at the top level: reads the
    /// diagnostics area of the backend connection it runs on.
    pub get_diagnostics: bool,
    /// DROP DATABASE / SCHEMA: the proofs that users may enter databases
    /// (`proofs`) are forgotten after it.
    pub drops_database: bool,
    /// SHOW [GLOBAL | SESSION] STATUS: Turnstile's own figures are added;
    /// the LIKE pattern, if any.
    pub show_status: Option<Option<String>>,
    /// SHOW GLOBAL STATUS (not SESSION or LOCAL).
    pub show_status_global: bool,
    /// How deep parentheses nest (`upstream_max_nesting` refuses deeper ones).
    pub nesting: u32,
    /// Only reads (SELECT without locking or INTO, SHOW, DESCRIBE, EXPLAIN):
    /// safe to run again on a fresh connection if the first one died.
    pub read_only: bool,
    pub local: Option<Local>,
    /// LOAD DATA | XML ... LOCAL: the backend will ask the client for a file.
    pub local_infile: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A word, upper-cased.
    Word(String),
    /// `@name` (a user variable).
    UserVar,
    /// `@@name`, lower-cased, without a scope prefix.
    SysVar(String),
    /// A string literal's text.
    Str(String),
    Num(String),
    Punct(u8),
    /// `:=`
    Assign,
}

/// Longest text scanned: statements past it are classified by their first
/// `MAX_SCAN_BYTES` (a long INSERT's values cannot hide a pin there, since
/// every pinning construct is also checked in what is scanned... and a
/// longer text is pinned conservatively: see `classify`).
pub const MAX_SCAN_BYTES: usize = 1 << 20;

/// `escapes`: a backslash escapes the next character in strings (not under
/// sql_mode NO_BACKSLASH_ESCAPES).
fn tokens(sql: &[u8], escapes: bool) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut i = 0;
    let n = sql.len();
    while i < n {
        let c = sql[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => i = skip_line(sql, i),
            b'-' if sql.get(i + 1) == Some(&b'-') && sql.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => i = skip_line(sql, i),
            b'/' if sql.get(i + 1) == Some(&b'*') => {
                // A MariaDB executable comment's body is read as code.
                if sql.get(i + 2) == Some(&b'!') || (sql.get(i + 2) == Some(&b'M') && sql.get(i + 3) == Some(&b'!')) {
                    i += if sql[i + 2] == b'M' { 4 } else { 3 };
                    while i < n && sql[i].is_ascii_digit() {
                        i += 1;
                    }
                } else {
                    i = find(sql, i + 2, b"*/").map_or(n, |e| e + 2);
                }
            }
            b'*' if sql.get(i + 1) == Some(&b'/') => i += 2,
            b'\'' | b'"' => {
                let (text, end) = quoted(sql, i, c, escapes);
                out.push(Tok::Str(text));
                i = end;
            }
            b'`' => {
                let (text, end) = quoted(sql, i, c, false);
                out.push(Tok::Word(format!("`{}", text)));
                i = end;
            }
            b'@' if sql.get(i + 1) == Some(&b'@') => {
                let (mut name, end) = word(sql, i + 2);
                let lower = name.to_ascii_lowercase();
                for scope in ["session.", "global.", "local."] {
                    if let Some(rest) = lower.strip_prefix(scope) {
                        name = rest.to_string();
                    }
                }
                out.push(Tok::SysVar(name.to_ascii_lowercase()));
                i = end;
            }
            b'@' => {
                let end = if matches!(sql.get(i + 1), Some(b'\'' | b'"' | b'`')) { quoted(sql, i + 1, sql[i + 1], escapes).1 } else { word(sql, i + 1).1 };
                out.push(Tok::UserVar);
                i = end.max(i + 1);
            }
            b':' if sql.get(i + 1) == Some(&b'=') => {
                out.push(Tok::Assign);
                i += 2;
            }
            c if c.is_ascii_digit() => {
                let (text, end) = word(sql, i);
                out.push(Tok::Num(text));
                i = end;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 => {
                let (text, end) = word(sql, i);
                out.push(Tok::Word(text.to_ascii_uppercase()));
                i = end;
            }
            c => {
                out.push(Tok::Punct(c));
                i += 1;
            }
        }
    }
    out
}

fn skip_line(sql: &[u8], i: usize) -> usize {
    sql[i..].iter().position(|&c| c == b'\n').map_or(sql.len(), |p| i + p + 1)
}

fn find(sql: &[u8], from: usize, what: &[u8]) -> Option<usize> {
    sql.get(from..)?.windows(what.len()).position(|w| w == what).map(|p| from + p)
}

fn word(sql: &[u8], from: usize) -> (String, usize) {
    let mut e = from;
    while e < sql.len() && (sql[e].is_ascii_alphanumeric() || matches!(sql[e], b'_' | b'$' | b'.') || sql[e] >= 0x80) {
        e += 1;
    }
    (String::from_utf8_lossy(&sql[from..e]).into_owned(), e)
}

/// A quoted string or name from its opening quote: its text and where it ends.
fn quoted(sql: &[u8], from: usize, q: u8, escapes: bool) -> (String, usize) {
    let mut text = Vec::new();
    let mut i = from + 1;
    while i < sql.len() {
        let c = sql[i];
        if c == b'\\' && escapes && q != b'`' && i + 1 < sql.len() {
            text.push(sql[i + 1]);
            i += 2;
            continue;
        }
        if c == q {
            if sql.get(i + 1) == Some(&q) {
                text.push(q);
                i += 2;
                continue;
            }
            return (String::from_utf8_lossy(&text).into_owned(), i + 1);
        }
        text.push(c);
        i += 1;
    }
    (String::from_utf8_lossy(&text).into_owned(), sql.len())
}

fn is_word(t: Option<&Tok>, w: &str) -> bool {
    matches!(t, Some(Tok::Word(x)) if x == w)
}

/// A word as written unquoted: a back-quoted name (`get_lock`) upper-cased.
fn unquoted_upper(w: &str) -> std::borrow::Cow<'_, str> {
    match w.strip_prefix('`') {
        Some(name) => std::borrow::Cow::Owned(name.to_ascii_uppercase()),
        None => std::borrow::Cow::Borrowed(w),
    }
}

/// Classify a statement text (COM_QUERY, or COM_STMT_PREPARE's).
/// `LOAD DATA|XML [LOW_PRIORITY|CONCURRENT] LOCAL` as consecutive words.
fn loads_local_file(toks: &[Tok]) -> bool {
    let word = |k: usize, w: &[&str]| matches!(toks.get(k), Some(Tok::Word(x)) if w.contains(&x.as_str()));
    (0..toks.len()).any(|k| word(k, &["LOAD"]) && word(k + 1, &["DATA", "XML"]) && (word(k + 2, &["LOCAL"]) || word(k + 2, &["LOW_PRIORITY", "CONCURRENT"]) && word(k + 3, &["LOCAL"])))
}

pub fn classify(sql: &[u8]) -> Shape {
    classify_with(sql, true)
}

/// `classify` for a session whose sql_mode has NO_BACKSLASH_ESCAPES or
/// ANSI_QUOTES (`literal_backslashes`): the text is scanned both with and
/// without backslash escapes and what either finds counts (a pin cannot hide
/// in what one reading takes for a string), so a pin is never missed.
pub fn classify_for(sql: &[u8], literal_backslashes: bool) -> Shape {
    let mut s = classify_with(sql, true);
    if literal_backslashes {
        let t = classify_with(sql, false);
        s.pins |= t.pins;
        s.reads_last_insert_id |= t.reads_last_insert_id;
        s.changes_accounts |= t.changes_accounts;
        s.drops_database |= t.drops_database;
        s.get_diagnostics |= t.get_diagnostics;
        s.local_infile |= t.local_infile;
        s.read_only &= t.read_only;
        if s.local != t.local {
            s.local = None;
        }
    }
    s
}

fn classify_with(sql: &[u8], escapes: bool) -> Shape {
    let scanned = &sql[..sql.len().min(MAX_SCAN_BYTES)];
    let toks = tokens(scanned, escapes);
    let mut s = Shape::default();
    let first = toks.iter().position(|t| *t != Tok::Punct(b'('));
    let lead = |k: usize| first.and_then(|f| toks.get(f + k));
    let words: Vec<&str> = toks.iter().filter_map(|t| if let Tok::Word(w) = t { Some(w.as_str()) } else { None }).collect();
    let first_word = words.first().copied().unwrap_or("");
    s.nesting = paren_depth(sql);
    s.local_infile = loads_local_file(&toks);
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::UserVar => {
                let next = toks.get(k + 1);
                let prev = k.checked_sub(1).and_then(|p| toks.get(p));
                let assigned = next == Some(&Tok::Assign)
                    || (first_word == "SET" && matches!(next, Some(Tok::Punct(b'='))))
                    || is_word(prev, "INTO")
                    || matches!(prev, Some(Tok::Punct(b','))) && into_list(&toks, k);
                if assigned {
                    s.pins |= pin::USER_VARIABLES;
                }
            }
            Tok::SysVar(v) if matches!(v.as_str(), "identity" | "last_insert_id") => s.reads_last_insert_id = true,
            Tok::Word(w) => match unquoted_upper(w).as_ref() {
                "GET_LOCK" | "GET_LOCK_NAMED" if toks.get(k + 1) == Some(&Tok::Punct(b'(')) => s.pins |= pin::LOCKS,
                // A sequence's LASTVAL / PREVIOUS VALUE FOR is the connection's.
                "NEXTVAL" | "SETVAL" if toks.get(k + 1) == Some(&Tok::Punct(b'(')) => s.pins |= pin::STATE_CHANGE,
                "NEXT" if is_word(toks.get(k + 1), "VALUE") && is_word(toks.get(k + 2), "FOR") => s.pins |= pin::STATE_CHANGE,
                // What a dynamic statement or a procedure sets is not in
                // this text: a user variable passed to CALL (an OUT
                // parameter) is taken as written.
                "IMMEDIATE" if k >= 1 && is_word(toks.get(k - 1), "EXECUTE") => s.pins |= pin::STATE_CHANGE,
                "SQL_CALC_FOUND_ROWS" => s.pins |= pin::FOUND_ROWS,
                "LAST_INSERT_ID" if toks.get(k + 1) == Some(&Tok::Punct(b'(')) => s.reads_last_insert_id = true,
                "TEMPORARY" if first_word == "CREATE" => s.pins |= pin::TEMPORARY_TABLES,
                _ => {}
            },
            _ => {}
        }
    }
    match first_word {
        "PREPARE" => s.pins |= pin::PREPARED_SQL,
        // An OUT or INOUT parameter writes the variable passed.
        "CALL" if toks.contains(&Tok::UserVar) => s.pins |= pin::USER_VARIABLES,
        // LOAD DATA ... (@v, ...) SET c = f(@v) assigns the file's fields to @v.
        "LOAD" if toks.contains(&Tok::UserVar) => s.pins |= pin::USER_VARIABLES,
        // HANDLER t OPEN: an open handler lives on the connection.
        "HANDLER" => s.pins |= pin::STATE_CHANGE,
        "XA" => s.xa = true,
        "LOCK" if is_word(lead(1), "TABLES") || is_word(lead(1), "TABLE") => s.pins |= pin::LOCK_TABLES,
        "FLUSH" if words.windows(2).any(|w| w == ["READ", "LOCK"]) => s.pins |= pin::LOCK_TABLES,
        "UNLOCK" => s.unlocks_tables = true,
        "GRANT" | "REVOKE" => s.changes_accounts = true,
        "CREATE" | "ALTER" | "DROP" | "RENAME" if words.iter().take(6).any(|w| *w == "USER" || *w == "ROLE") => s.changes_accounts = true,
        "SET" if is_word(lead(1), "PASSWORD") => s.changes_accounts = true,
        "DROP" if is_word(lead(1), "DATABASE") || is_word(lead(1), "SCHEMA") => s.drops_database = true,
        "GET" => s.get_diagnostics = is_word(lead(1), "DIAGNOSTICS") || is_word(lead(2), "DIAGNOSTICS"),
        "SHOW" => {
            s.read_only = true;
            s.local = show_diagnostics(&toks[first.unwrap_or(0)..]);
            let rest: Vec<&str> = words.iter().skip(1).take(3).copied().collect();
            let status_at = match rest.as_slice() {
                ["STATUS", ..] => Some(1),
                ["GLOBAL" | "SESSION" | "LOCAL", "STATUS", ..] => Some(2),
                _ => None,
            };
            if let Some(at) = status_at {
                let like = match (lead(at + 1), lead(at + 2)) {
                    (Some(Tok::Word(w)), Some(Tok::Str(p))) if w == "LIKE" => Some(p.clone()),
                    _ => None,
                };
                if lead(at + 1).is_none() || like.is_some() {
                    s.show_status = Some(like);
                    s.show_status_global = rest.first() == Some(&"GLOBAL");
                }
            }
        }
        "SELECT" | "DESCRIBE" | "DESC" | "EXPLAIN" => {
            let locking = words.windows(2).any(|w| w == ["FOR", "UPDATE"] || w == ["SHARE", "MODE"]) || words.contains(&"INTO");
            s.read_only = s.pins == 0 && !locking && !words.iter().any(|w| w.ends_with("_LOCK") || *w == "SLEEP");
        }
        "KILL" => s.local = kill(&toks[first.unwrap_or(0)..]),
        "BACKUP" if is_word(lead(1), "DATA") => s.local = Some(Local::BackupData),
        _ => {}
    }
    if s.local.is_none() && first_word == "SELECT" {
        s.local = local_select(&toks[first.unwrap_or(0)..]);
    }
    if sql.len() > MAX_SCAN_BYTES {
        // Not all of it was read: whatever the rest does, keep the connection.
        s.pins |= pin::STATE_CHANGE;
        s.read_only = false;
    }
    s
}

/// How deep parentheses nest in the whole text (not only the part
/// `tokens` reads), outside quoted strings, quoted names and comments
/// (an executable comment's body counts). One pass, no allocation.
fn paren_depth(sql: &[u8]) -> u32 {
    let (mut depth, mut most, mut i) = (0u32, 0u32, 0usize);
    while i < sql.len() {
        match sql[i] {
            b'(' => {
                depth += 1;
                most = most.max(depth);
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < sql.len() {
                    if sql[i] == b'\\' && q != b'`' {
                        i += 2;
                    } else if sql[i] == q {
                        i += 1;
                        if sql.get(i) != Some(&q) {
                            break;
                        }
                        i += 1;
                    } else {
                        i += 1;
                    }
                }
            }
            b'#' => i = skip_line(sql, i),
            b'-' if sql.get(i + 1) == Some(&b'-') && sql.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => i = skip_line(sql, i),
            b'/' if sql.get(i + 1) == Some(&b'*') && !matches!(sql.get(i + 2), Some(b'!' | b'M')) => i = find(sql, i + 2, b"*/").map_or(sql.len(), |e| e + 2),
            _ => i += 1,
        }
    }
    most
}

/// `@v` after a comma: is it in an `INTO @a, @b` list?
fn into_list(toks: &[Tok], k: usize) -> bool {
    let mut j = k;
    while j >= 2 && toks[j - 1] == Tok::Punct(b',') && toks[j - 2] == Tok::UserVar {
        j -= 2;
    }
    j >= 1 && is_word(toks.get(j - 1), "INTO")
}

/// `SELECT LAST_INSERT_ID()` and friends, alone (an optional alias and
/// semicolon), answered from the session.
fn local_select(t: &[Tok]) -> Option<Local> {
    let end = t.iter().rposition(|x| *x != Tok::Punct(b';')).map_or(0, |p| p + 1);
    let t = &t[..end];
    let call = |name: &str| matches!(t.get(1), Some(Tok::Word(w)) if w == name) && t.get(2) == Some(&Tok::Punct(b'(')) && t.get(3) == Some(&Tok::Punct(b')'));
    let (kind, written, name_len) = match t.get(1)? {
        Tok::SysVar(v) if v == "identity" => ("lid", "@@IDENTITY", 2),
        Tok::SysVar(v) if v == "last_insert_id" => ("lid", "@@LAST_INSERT_ID", 2),
        Tok::SysVar(v) if v == "warning_count" => ("warnings", "@@warning_count", 2),
        Tok::SysVar(v) if v == "error_count" => ("errors", "@@error_count", 2),
        _ if call("LAST_INSERT_ID") => ("lid", "LAST_INSERT_ID()", 4),
        _ if call("FOUND_ROWS") => ("found", "FOUND_ROWS()", 4),
        _ if call("CONNECTION_ID") => ("id", "CONNECTION_ID()", 4),
        _ if call("ROW_COUNT") => ("rows", "ROW_COUNT()", 4),
        _ => return None,
    };
    let alias = match &t[name_len..] {
        [] => None,
        [Tok::Word(a), Tok::Word(n)] if a == "AS" => Some(n.clone()),
        [Tok::Word(a), Tok::Str(n)] if a == "AS" => Some(n.clone()),
        _ => return None,
    };
    // An unquoted alias was upper-cased by the scan; a quoted one keeps its case.
    let name = alias.map(|a| a.trim_start_matches('`').to_string()).unwrap_or_else(|| written.to_string());
    Some(match kind {
        "lid" => Local::LastInsertId(name),
        "found" => Local::FoundRows(name),
        "id" => Local::ConnectionId(name),
        "rows" => Local::RowCount(name),
        k => Local::DiagnosticsCount { errors: k == "errors", name },
    })
}

/// SHOW WARNINGS | ERRORS [LIMIT [offset,] n] and SHOW COUNT(*) WARNINGS | ERRORS.
fn show_diagnostics(t: &[Tok]) -> Option<Local> {
    let end = t.iter().rposition(|x| *x != Tok::Punct(b';')).map_or(0, |p| p + 1);
    let t = &t[..end];
    let word = |k: usize| if let Some(Tok::Word(w)) = t.get(k) { w.as_str() } else { "" };
    let num = |k: usize| if let Some(Tok::Num(n)) = t.get(k) { n.parse::<u64>().ok() } else { None };
    if word(1) == "COUNT" && t.get(2) == Some(&Tok::Punct(b'(')) && t.get(3) == Some(&Tok::Punct(b'*')) && t.get(4) == Some(&Tok::Punct(b')')) && t.len() == 6 {
        return match word(5) {
            "WARNINGS" => Some(Local::ShowDiagnostics { errors: false, count: true, offset: 0, limit: None }),
            "ERRORS" => Some(Local::ShowDiagnostics { errors: true, count: true, offset: 0, limit: None }),
            _ => None,
        };
    }
    let errors = match word(1) {
        "WARNINGS" => false,
        "ERRORS" => true,
        _ => return None,
    };
    let (offset, limit) = match t.len() {
        2 => (0, None),
        4 if word(2) == "LIMIT" => (0, Some(num(3)?)),
        6 if word(2) == "LIMIT" && t.get(4) == Some(&Tok::Punct(b',')) => (num(3)?, Some(num(5)?)),
        _ => return None,
    };
    Some(Local::ShowDiagnostics { errors, count: false, offset, limit })
}

fn kill(t: &[Tok]) -> Option<Local> {
    let (query_only, at) = match t.get(1) {
        Some(Tok::Word(w)) if w == "QUERY" => (true, 2),
        Some(Tok::Word(w)) if w == "CONNECTION" => (false, 2),
        _ => (false, 1),
    };
    match (t.get(at), t.get(at + 1)) {
        (Some(Tok::Num(n)), None) | (Some(Tok::Num(n)), Some(Tok::Punct(b';'))) => Some(Local::Kill { id: n.parse().ok()?, query_only }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pins(sql: &str) -> u16 {
        classify(sql.as_bytes()).pins
    }

    #[test]
    fn local_file_loads_are_recognised() {
        let local = |sql: &str| classify(sql.as_bytes()).local_infile;
        assert!(local("LOAD DATA LOCAL INFILE '/tmp/x' INTO TABLE t"));
        assert!(local("load data low_priority local infile 'x' into table t"));
        assert!(local("LOAD XML CONCURRENT LOCAL INFILE 'x' INTO TABLE t"));
        assert!(local("SELECT 1; /* c */ LOAD DATA LOCAL INFILE 'x' INTO TABLE t"));
        assert!(!local("LOAD DATA INFILE '/srv/x' INTO TABLE t"));
        assert!(!local("SELECT 'LOAD DATA LOCAL INFILE'"));
        assert!(!local("SELECT `load`, data, local FROM t"));
    }

    #[test]
    fn user_variable_writes_pin_and_reads_do_not() {
        assert_eq!(pins("SET @a = 1"), pin::USER_VARIABLES);
        assert_eq!(pins("select 1 into @x"), pin::USER_VARIABLES);
        assert_eq!(pins("SELECT a, b INTO @x, @y FROM t"), pin::USER_VARIABLES);
        assert_eq!(pins("SELECT @n := @n + 1 FROM t"), pin::USER_VARIABLES);
        assert_eq!(pins("SELECT @x + 1"), 0);
        assert_eq!(pins("SELECT '@x := 1', `@y`"), 0);
        assert_eq!(pins("SELECT 1 /* @a := 2 */"), 0);
        assert_eq!(pins("SELECT 1 /*! , @a := 2 */"), pin::USER_VARIABLES);
    }

    #[test]
    fn other_pins() {
        assert_eq!(pins("CREATE TEMPORARY TABLE t (a int)"), pin::TEMPORARY_TABLES);
        assert_eq!(pins("create or replace temporary table t (a int)"), pin::TEMPORARY_TABLES);
        assert_eq!(pins("PREPARE s FROM 'select 1'"), pin::PREPARED_SQL);
        assert_eq!(pins("SELECT GET_LOCK('a', 1)"), pin::LOCKS);
        assert_eq!(pins("SELECT SQL_CALC_FOUND_ROWS * FROM t LIMIT 1"), pin::FOUND_ROWS);
        assert_eq!(pins("LOCK TABLES t READ"), pin::LOCK_TABLES);
        assert_eq!(pins("FLUSH TABLES WITH READ LOCK"), pin::LOCK_TABLES);
        assert!(classify(b"UNLOCK TABLES").unlocks_tables);
        assert_eq!(pins("SELECT 'GET_LOCK(1)' FROM get_lock"), 0);
    }

    #[test]
    fn local_answers() {
        assert_eq!(classify(b"SELECT LAST_INSERT_ID()").local, Some(Local::LastInsertId("LAST_INSERT_ID()".into())));
        assert_eq!(classify(b"select @@identity;").local, Some(Local::LastInsertId("@@IDENTITY".into())));
        assert_eq!(classify(b"SELECT LAST_INSERT_ID() AS `id`").local, Some(Local::LastInsertId("id".into())));
        assert_eq!(classify(b"SELECT FOUND_ROWS()").local, Some(Local::FoundRows("FOUND_ROWS()".into())));
        assert_eq!(classify(b"SELECT LAST_INSERT_ID() + 1").local, None);
        assert!(classify(b"SELECT LAST_INSERT_ID() + 1").reads_last_insert_id);
        assert_eq!(classify(b"KILL QUERY 12").local, Some(Local::Kill { id: 12, query_only: true }));
        assert_eq!(classify(b"kill 7").local, Some(Local::Kill { id: 7, query_only: false }));
        assert_eq!(classify(b"BACKUP DATA TO '/x'").local, Some(Local::BackupData));
        assert_eq!(classify(b"BACKUP STAGE START").local, None);
        assert_eq!(classify(b"SELECT CONNECTION_ID()").local, Some(Local::ConnectionId("CONNECTION_ID()".into())));
        assert_eq!(classify(b"select row_count() as n;").local, Some(Local::RowCount("N".into())));
        assert_eq!(classify(b"SELECT ROW_COUNT() + 1").local, None);
        assert_eq!(classify(b"select @@warning_count").local, Some(Local::DiagnosticsCount { errors: false, name: "@@warning_count".into() }));
        assert_eq!(classify(b"SHOW WARNINGS LIMIT 1, 2").local, Some(Local::ShowDiagnostics { errors: false, count: false, offset: 1, limit: Some(2) }));
        assert_eq!(classify(b"show count(*) errors").local, Some(Local::ShowDiagnostics { errors: true, count: true, offset: 0, limit: None }));
        assert_eq!(classify(b"SHOW WARNINGS FROM x").local, None);
    }

    #[test]
    fn show_status_and_reads() {
        assert_eq!(classify(b"SHOW GLOBAL STATUS LIKE 'Upstream%'").show_status, Some(Some("Upstream%".into())));
        assert_eq!(classify(b"show status").show_status, Some(None));
        assert!(classify(b"SHOW GLOBAL STATUS LIKE 'Upstream%'").show_status_global);
        assert!(!classify(b"SHOW SESSION STATUS LIKE 'Ssl%'").show_status_global);
        assert!(classify(b"SELECT * FROM t WHERE a = 1").read_only);
        assert!(!classify(b"SELECT * FROM t FOR UPDATE").read_only);
        assert!(!classify(b"INSERT INTO t VALUES (1)").read_only);
        assert!(classify(b"GRANT SELECT ON d.* TO u").changes_accounts);
        assert!(classify(b"CREATE USER u IDENTIFIED BY 'p'").changes_accounts);
        assert!(classify(b"drop schema if exists d").drops_database);
        assert!(!classify(b"DROP TABLE database_list").drops_database);
        assert!(classify(b"GET DIAGNOSTICS @n = NUMBER").get_diagnostics);
        assert!(classify(b"get current diagnostics condition 1 @m = MESSAGE_TEXT").get_diagnostics);
        assert!(!classify(b"SELECT GET_LOCK('a', 1)").get_diagnostics);
    }

    #[test]
    fn nesting_is_counted_outside_strings_and_comments() {
        assert_eq!(classify(b"SELECT ((1)), (2)").nesting, 2);
        assert_eq!(classify(b"SELECT '((((' /* (((( */").nesting, 0);
        let deep = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
        assert_eq!(classify(deep.as_bytes()).nesting, 5000);
        // Past the part the classifier reads, nesting still counts.
        let hidden = format!("SELECT '{}', {}1{}", "x".repeat(MAX_SCAN_BYTES), "(".repeat(2000), ")".repeat(2000));
        assert_eq!(classify(hidden.as_bytes()).nesting, 2000);
        assert_eq!(classify(b"SELECT 'it''s (', \"(\" /*! (1) */").nesting, 1);
    }

    #[test]
    fn unterminated_text_and_odd_bytes_never_panic() {
        for s in ["'", "/*", "@", "@@", "`", "SELECT '\\", "-- ", "KILL", "SELECT LAST_INSERT_ID(", "\u{ff}@\u{fe}:="] {
            let _ = classify(s.as_bytes());
        }
        let _ = classify(&[0xff, b'@', 0xfe, b':', b'=']);
    }
}
