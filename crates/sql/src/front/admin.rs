//! Administration statements for parts of MariaDB that Turnstile does not
//! have, answered as MariaDB answers them on a server with no query cache,
//! no replication, no binary log and no plugins to load:
//! - RESET QUERY CACHE, RESET SLAVE | REPLICA [ALL] (comma-separated): OK;
//!   RESET MASTER [TO n]: 1186;
//! - STOP SLAVE | REPLICA [thread, ...]: OK with note 1255 (already stopped),
//!   START SLAVE | REPLICA: 1200 (no master configured); START/STOP ALL
//!   SLAVES: OK; a named master connection: 1617 (there is none);
//! - INSTALL PLUGIN name SONAME 'lib' | INSTALL SONAME 'lib': 1126 (nothing
//!   to open); UNINSTALL PLUGIN name | SONAME 'lib': 1305, a note with IF EXISTS.
//!
//! And one the server does: reloading the TLS certificate and settings,
//! MySQL's ALTER INSTANCE RELOAD TLS [NO ROLLBACK ON ERROR] and MariaDB's
//! FLUSH SSL (`ServerOps::reload_tls`; on an error the configuration in use
//! stays, and the statement fails with 3888 naming the cause).
//!
//! They are statements of their own so that a prepared statement or a
//! stored procedure may hold them, as in MariaDB.

use super::access::require;
use super::{lex_or_syntax, ok, Call};
use crate::privs;
use turnstile_engine::{Outcome, SqlError};
use turnstile_sqltext::lex::{Tok, Token};

/// Is this statement one of this module's (first keyword `kw`)?
pub(super) fn handles(kw: &str, sql: &str) -> bool {
    match kw {
        "RESET" | "STOP" | "INSTALL" | "UNINSTALL" => true,
        "START" => lex_or_syntax(sql).ok().and_then(|t| t.get(1).map(|w| w.is_kw("SLAVE") || w.is_kw("REPLICA") || w.is_kw("ALL"))).unwrap_or(false),
        "ALTER" => lex_or_syntax(sql).ok().is_some_and(|t| t.get(1).is_some_and(|w| w.is_kw("INSTANCE"))),
        "FLUSH" => lex_or_syntax(sql).ok().is_some_and(|t| t.get(1).is_some_and(|w| w.is_kw("SSL")) && t.iter().filter(|t| !t.is_op(";")).count() == 2),
        _ => false,
    }
}

/// ALTER INSTANCE RELOAD TLS [NO ROLLBACK ON ERROR], FLUSH SSL.
fn reload_tls(call: &mut Call<'_, '_>, toks: &[Token], near: impl Fn(usize) -> SqlError) -> Result<Outcome, SqlError> {
    if toks[0].is_kw("ALTER") {
        let words = ["INSTANCE", "RELOAD", "TLS"];
        if let Some(i) = (1..=3).find(|&i| !toks.get(i).is_some_and(|t| t.is_kw(words[i - 1]))) {
            return Err(near(i));
        }
        let rest = ["NO", "ROLLBACK", "ON", "ERROR"];
        if toks.len() > 4 && (toks.len() != 8 || (4..8).any(|i| !toks[i].is_kw(rest[i - 4]))) {
            return Err(near(4));
        }
    }
    require(call, None, privs::ADMIN, "CONNECTION_ADMIN")?;
    call.ops.reload_tls()?;
    Ok(ok())
}

/// Run one of this module's statements (`handles` said yes).
pub(super) fn statement(call: &mut Call<'_, '_>, kw: &str, sql: &str) -> Result<Outcome, SqlError> {
    let mut toks = lex_or_syntax(sql)?;
    if toks.last().is_some_and(|t| t.is_op(";")) {
        toks.pop();
    }
    let near = |i: usize| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]));
    match kw {
        "RESET" => reset(call, &toks, near),
        "ALTER" | "FLUSH" => reload_tls(call, &toks, near),
        "INSTALL" | "UNINSTALL" => {
            require(call, None, privs::ADMIN, "SUPER")?;
            plugin(call, kw == "INSTALL", &toks, near)
        }
        _ => {
            require(call, None, privs::ADMIN, "SUPER")?;
            replica(call, kw == "START", &toks, near)
        }
    }
}

/// RESET option [, option]...: QUERY CACHE, SLAVE | REPLICA [name] [ALL], MASTER [TO n].
fn reset(call: &mut Call<'_, '_>, toks: &[Token], near: impl Fn(usize) -> SqlError) -> Result<Outcome, SqlError> {
    require(call, None, privs::ADMIN, "RELOAD")?;
    let mut i = 1;
    let mut master = false;
    loop {
        match toks.get(i) {
            Some(t) if t.is_kw("QUERY") && toks.get(i + 1).is_some_and(|c| c.is_kw("CACHE")) => i += 2,
            Some(t) if t.is_kw("SLAVE") || t.is_kw("REPLICA") => {
                i = master_connection(toks, i + 1)?;
                if toks.get(i).is_some_and(|t| t.is_kw("ALL")) {
                    i += 1;
                }
            }
            Some(t) if t.is_kw("MASTER") => {
                master = true;
                i += 1;
                if toks.get(i).is_some_and(|t| t.is_kw("TO")) {
                    if !toks.get(i + 1).is_some_and(|n| matches!(n.tok, Tok::Number(_))) {
                        return Err(near(i + 1));
                    }
                    i += 2;
                }
            }
            _ => return Err(near(i)),
        }
        if toks.get(i).is_some_and(|t| t.is_op(",")) {
            i += 1;
            continue;
        }
        break;
    }
    if i != toks.len() {
        return Err(near(i));
    }
    if master {
        return Err(SqlError::new(1186, "HY000", "Binlog closed, cannot RESET MASTER"));
    }
    Ok(ok())
}

/// After SLAVE / REPLICA: an optional master connection name (there is
/// none: 1617) or FOR CHANNEL 'name'; the index after it.
fn master_connection(toks: &[Token], mut i: usize) -> Result<usize, SqlError> {
    if toks.get(i).is_some_and(|t| t.is_kw("FOR")) && toks.get(i + 1).is_some_and(|t| t.is_kw("CHANNEL")) {
        i += 2;
    }
    match toks.get(i).map(|t| &t.tok) {
        Some(Tok::Str(name)) => Err(SqlError::new(1617, "HY000", format!("There is no master connection '{}'", String::from_utf8_lossy(name)))),
        _ => Ok(i),
    }
}

/// START | STOP SLAVE | REPLICA [thread types] [connection], START | STOP ALL SLAVES | REPLICAS.
fn replica(call: &mut Call<'_, '_>, start: bool, toks: &[Token], near: impl Fn(usize) -> SqlError) -> Result<Outcome, SqlError> {
    if toks.get(1).is_some_and(|t| t.is_kw("ALL")) {
        return match toks.get(2) {
            Some(t) if (t.is_kw("SLAVES") || t.is_kw("REPLICAS")) && toks.len() == 3 => Ok(ok()),
            _ => Err(near(2)),
        };
    }
    let mut i = 2;
    // Thread types: IO_THREAD, SQL_THREAD, comma-separated.
    while toks.get(i).is_some_and(|t| t.is_kw("IO_THREAD") || t.is_kw("SQL_THREAD")) {
        i += 1;
        if toks.get(i).is_some_and(|t| t.is_op(",")) {
            i += 1;
        }
    }
    let i = master_connection(toks, i)?;
    if start {
        // START SLAVE may go on with UNTIL ... and USER/PASSWORD options; none is read.
        return Err(SqlError::new(1200, "HY000", "Misconfigured slave: MASTER_HOST was not set; Fix in config file or with CHANGE MASTER TO"));
    }
    if i != toks.len() {
        return Err(near(i));
    }
    call.ctx.note(1255, "Slave already has been stopped");
    Ok(ok())
}

/// INSTALL PLUGIN [IF NOT EXISTS] name SONAME 'lib' | INSTALL SONAME 'lib';
/// UNINSTALL PLUGIN [IF EXISTS] name | UNINSTALL SONAME [IF EXISTS] 'lib'.
fn plugin(call: &mut Call<'_, '_>, install: bool, toks: &[Token], near: impl Fn(usize) -> SqlError) -> Result<Outcome, SqlError> {
    let soname = toks.get(1).is_some_and(|t| t.is_kw("SONAME"));
    if !soname && !toks.get(1).is_some_and(|t| t.is_kw("PLUGIN")) {
        return Err(near(1));
    }
    let mut i = 2;
    let if_clause: &[&str] = if install { &["IF", "NOT", "EXISTS"] } else { &["IF", "EXISTS"] };
    let guarded = if_clause.iter().enumerate().all(|(k, w)| toks.get(i + k).is_some_and(|t| t.is_kw(w)));
    if guarded {
        i += if_clause.len();
    }
    let name = match toks.get(i).map(|t| &t.tok) {
        Some(Tok::Str(s)) if soname => String::from_utf8_lossy(s).into_owned(),
        Some(Tok::Word(_) | Tok::Quoted(_)) if !soname => toks[i].ident().unwrap_or_default().to_string(),
        _ => return Err(near(i)),
    };
    i += 1;
    let library = if install && !soname {
        if !toks.get(i).is_some_and(|t| t.is_kw("SONAME")) {
            return Err(near(i));
        }
        let Some(Tok::Str(lib)) = toks.get(i + 1).map(|t| &t.tok) else { return Err(near(i + 1)) };
        i += 2;
        String::from_utf8_lossy(lib).into_owned()
    } else {
        name.clone()
    };
    if i != toks.len() {
        return Err(near(i));
    }
    if install {
        return Err(SqlError::new(1126, "HY000", format!("Can't open shared library '{}' (errno: 2, cannot open shared object file: No such file or directory)", library)));
    }
    let e = SqlError::new(1305, "42000", format!("{} {} does not exist", if soname { "SONAME" } else { "PLUGIN" }, name));
    if guarded {
        call.ctx.note(e.code, e.message);
        return Ok(ok());
    }
    Err(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_statements() {
        assert!(handles("RESET", "RESET QUERY CACHE") && handles("START", "START SLAVE") && handles("START", "start all slaves"));
        assert!(!handles("START", "START TRANSACTION") && !handles("SELECT", "SELECT 1"));
    }
}
