//! BIT_AND, BIT_OR and BIT_XOR: MySQL's unsigned 64-bit aggregates, usable
//! as window functions with any frame.
//!
//! A frame that moves (`ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING`) takes
//! rows out again, which AND and OR cannot undo from their result alone: the
//! state counts, for each of the 64 bits, how many values in the frame have
//! it set, and how many values there are. AND is the bits every value has,
//! OR those one has, XOR those an odd number have. Above 2^63-1 the result
//! is returned as its decimal text (the result side reads it as unsigned).

use super::int;
use rusqlite::functions::{Aggregate, Context, FunctionFlags, WindowAggregate};
use rusqlite::types::Value as SV;
use rusqlite::Connection;

#[derive(Clone, Copy)]
enum Op {
    And,
    Or,
    Xor,
}

/// One function's rule.
struct Bits(Op);

/// Per bit, how many values in the frame have it; and how many values.
struct Counts {
    bits: [u64; 64],
    n: u64,
}

impl Bits {
    fn result(&self, acc: Option<&Counts>) -> SV {
        let v = match (self.0, acc) {
            (Op::And, None) => u64::MAX,
            (_, None) => 0,
            (op, Some(c)) => (0..64)
                .filter(|&b| match op {
                    Op::And => c.n == 0 || c.bits[b] == c.n,
                    Op::Or => c.bits[b] > 0,
                    Op::Xor => c.bits[b] % 2 == 1,
                })
                .fold(0u64, |v, b| v | (1u64 << b)),
        };
        if v > i64::MAX as u64 {
            SV::Text(v.to_string())
        } else {
            SV::Integer(v as i64)
        }
    }

    /// Adds (`sign` 1) or takes out (`sign` -1) the value of the current row.
    fn count(ctx: &Context<'_>, acc: &mut Counts, add: bool) {
        let Some(v) = int(&ctx.get_raw(0)) else { return };
        let v = v as u64;
        for (b, count) in acc.bits.iter_mut().enumerate() {
            if v >> b & 1 == 1 {
                *count = if add { count.saturating_add(1) } else { count.saturating_sub(1) };
            }
        }
        acc.n = if add { acc.n.saturating_add(1) } else { acc.n.saturating_sub(1) };
    }
}

impl Aggregate<Counts, SV> for Bits {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<Counts> {
        Ok(Counts { bits: [0; 64], n: 0 })
    }
    fn step(&self, ctx: &mut Context<'_>, acc: &mut Counts) -> rusqlite::Result<()> {
        Self::count(ctx, acc, true);
        Ok(())
    }
    fn finalize(&self, _: &mut Context<'_>, acc: Option<Counts>) -> rusqlite::Result<SV> {
        Ok(self.result(acc.as_ref()))
    }
}

impl WindowAggregate<Counts, SV> for Bits {
    fn value(&self, acc: Option<&mut Counts>) -> rusqlite::Result<SV> {
        Ok(self.result(acc.map(|a| &*a)))
    }
    fn inverse(&self, ctx: &mut Context<'_>, acc: &mut Counts) -> rusqlite::Result<()> {
        Self::count(ctx, acc, false);
        Ok(())
    }
}

pub(super) fn register(db: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    db.create_window_function("bit_and", 1, flags, Bits(Op::And))?;
    db.create_window_function("bit_or", 1, flags, Bits(Op::Or))?;
    db.create_window_function("bit_xor", 1, flags, Bits(Op::Xor))
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    fn q(db: &Connection, sql: &str) -> Vec<String> {
        let mut st = db.prepare(sql).unwrap();
        let rows = st.query_map([], |r| Ok(format!("{:?}", r.get::<_, rusqlite::types::Value>(0)?))).unwrap();
        rows.map(|r| r.unwrap()).collect()
    }

    #[test]
    fn aggregates_and_moving_frames() {
        let db = Connection::open_in_memory().unwrap();
        super::register(&db).unwrap();
        db.execute_batch("CREATE TABLE t(pk INTEGER, b INTEGER); INSERT INTO t VALUES (1, 1), (2, 2), (3, 4), (4, 6), (5, NULL)").unwrap();
        assert_eq!(q(&db, "SELECT bit_or(b) FROM t"), ["Integer(7)"]);
        assert_eq!(q(&db, "SELECT bit_and(b) FROM t WHERE pk > 3"), ["Integer(6)"]);
        assert_eq!(q(&db, "SELECT bit_xor(b) FROM t"), ["Integer(1)"]);
        // No rows: AND is all ones (as text, above 2^63-1), the others 0.
        assert_eq!(q(&db, "SELECT bit_and(b) FROM t WHERE pk > 9"), ["Text(\"18446744073709551615\")"]);
        assert_eq!(q(&db, "SELECT bit_or(b) FROM t WHERE pk > 9"), ["Integer(0)"]);
        let or = q(&db, "SELECT bit_or(b) OVER (ORDER BY pk ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER BY pk");
        assert_eq!(or, ["Integer(3)", "Integer(7)", "Integer(6)", "Integer(6)", "Integer(6)"]);
        let and = q(&db, "SELECT bit_and(b) OVER (ORDER BY pk ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t ORDER BY pk");
        assert_eq!(and, ["Integer(1)", "Integer(0)", "Integer(0)", "Integer(4)", "Integer(6)"]);
        let empty = q(&db, "SELECT bit_and(b) OVER (ORDER BY pk ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING) FROM t ORDER BY pk");
        assert_eq!(empty[0], "Text(\"18446744073709551615\")");
    }
}
