//! The session's diagnostics area: the notes, warnings and error of the last
//! statement that raised any or used a table (MySQL's rule: SHOW WARNINGS,
//! SET and a SELECT without a table that raise nothing keep the previous
//! statement's), and SHOW WARNINGS / SHOW ERRORS / SHOW COUNT(*) WARNINGS.

use super::Call;
use crate::expr::Parser;
use turnstile_engine::{Column, Level, Outcome, RowSink, SqlError, Value, Warning};
use turnstile_sqltext::scan;
use turnstile_wire::consts::coltype;

/// After a statement: what it raised (and its error) becomes the session's
/// diagnostics, and its OK carries the count.
pub(super) fn record(call: &mut Call<'_, '_>, sql: &str, result: &mut Result<Outcome, SqlError>) {
    // The common case, every point select: nothing raised, nothing kept.
    if result.is_ok() && call.ctx.warning_count() == 0 {
        if call.sess.statement_warnings > 0 && scan::first_keyword(sql) == "EXECUTE" {
            // The statement EXECUTE ran recorded its own; its count stands
            // (the OK or the result's EOF carries it).
            if let Ok(Outcome::Done(d)) = result {
                d.warnings = d.warnings.max(call.sess.statement_warnings);
            }
            return;
        }
        let engine_count = if let Ok(Outcome::Done(d)) = result { d.warnings } else { 0 };
        call.sess.statement_warnings = engine_count;
        if !call.sess.diagnostics.is_empty() && !keeps_diagnostics(sql) {
            call.sess.diagnostics.clear();
            call.sess.diagnostics_count = 0;
        }
        return;
    }
    let (mut raised, mut count) = call.ctx.warnings().map(|w| w.take()).unwrap_or_default();
    if let Err(e) = result {
        if raised.len() < turnstile_engine::warnings::MAX_KEPT {
            raised.push(Warning { level: Level::Error, code: e.code, message: e.message.clone() });
        }
        count += 1;
    }
    let sess = &mut *call.sess;
    sess.statement_warnings = u16::try_from(count).unwrap_or(u16::MAX);
    if let Ok(Outcome::Done(d)) = result {
        // An engine may count warnings it does not describe.
        d.warnings = d.warnings.max(sess.statement_warnings);
        sess.statement_warnings = d.warnings;
    }
    if count > 0 {
        sess.diagnostics = raised;
        sess.diagnostics_count = count;
    } else if !sess.diagnostics.is_empty() && !keeps_diagnostics(sql) {
        sess.diagnostics.clear();
        sess.diagnostics_count = 0;
    }
}

/// A statement that raises nothing and uses no table leaves the previous
/// statement's diagnostics in place; EXECUTE leaves those of the statement
/// it ran (recorded when that ended).
pub(crate) fn keeps_diagnostics(sql: &str) -> bool {
    match scan::first_keyword(sql).as_str() {
        "SHOW" | "SET" | "EXECUTE" => true,
        "SELECT" | "DO" => !sql.to_ascii_lowercase().contains("from"),
        _ => false,
    }
}

/// @@error_count: errors among the diagnostics.
pub fn error_count(diagnostics: &[Warning]) -> i64 {
    diagnostics.iter().filter(|w| w.level == Level::Error).count() as i64
}

/// SHOW WARNINGS | ERRORS [LIMIT [offset,] n] and SHOW COUNT(*) WARNINGS |
/// ERRORS; `p` is past SHOW. None when it is another SHOW.
pub(super) fn show(call: &mut Call<'_, '_>, p: &mut Parser<'_>, sink: &mut dyn RowSink) -> Result<Option<Outcome>, SqlError> {
    if p.peek().is_some_and(|t| t.is_kw("COUNT")) {
        p.next();
        for op in ["(", "*", ")"] {
            if !p.eat_op(op) {
                return Err(p.error().into());
            }
        }
        let errors = if p.eat_kw("ERRORS") {
            true
        } else {
            p.expect_kw("WARNINGS")?;
            false
        };
        super::show::expect_end(p)?;
        let sess = &*call.sess;
        let (name, n) = if errors { ("@@session.error_count", error_count(&sess.diagnostics)) } else { ("@@session.warning_count", sess.diagnostics_count as i64) };
        sink.columns(&[Column::computed(name, coltype::LONGLONG)])?;
        sink.row(&[Value::Int(n)])?;
        return Ok(Some(Outcome::Rows));
    }
    let errors = if p.eat_kw("ERRORS") {
        true
    } else if p.eat_kw("WARNINGS") {
        false
    } else {
        return Ok(None);
    };
    let (offset, limit) = limit(p)?;
    super::show::expect_end(p)?;
    sink.columns(&[Column::varchar("Level"), Column::computed("Code", coltype::LONG), Column::varchar("Message")])?;
    let shown = call.sess.diagnostics.iter().filter(|w| !errors || w.level == Level::Error).skip(offset).take(limit);
    for w in shown {
        sink.row(&[Value::str(w.level.name()), Value::Int(w.code as i64), Value::str(&w.message)])?;
    }
    Ok(Some(Outcome::Rows))
}

/// LIMIT [offset,] n (default: all).
fn limit(p: &mut Parser<'_>) -> Result<(usize, usize), SqlError> {
    if !p.eat_kw("LIMIT") {
        return Ok((0, usize::MAX));
    }
    let first = number(p)?;
    if p.eat_op(",") {
        return Ok((first, number(p)?));
    }
    Ok((0, first))
}

fn number(p: &mut Parser<'_>) -> Result<usize, SqlError> {
    let n = p.number()?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}
