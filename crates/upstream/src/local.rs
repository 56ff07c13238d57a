//! Answers the upstream engine makes itself, without the backend: what
//! belongs to the client session rather than to whichever backend
//! connection ran its last statement (LAST_INSERT_ID(), FOUND_ROWS(),
//! CONNECTION_ID(), the diagnostics of the last statement), encoded as a
//! text result set.

use turnstile_wire::buf::put_lenenc_bytes;
use turnstile_wire::consts::{colflag, coltype};
use turnstile_wire::packet::{begin_packet, end_packet};
use turnstile_wire::response::{encode_column_count, encode_eof, encode_ok, Column};

/// One condition of SHOW WARNINGS: level ("Note", "Warning", "Error"), code, message.
pub type Condition = (String, u32, String);

/// Write a text result set (sequence ids from 1), NULL for None.
pub fn result_set(out: &mut Vec<u8>, deprecate_eof: bool, status: u16, columns: &[Column], rows: &[Vec<Option<String>>]) {
    let mut seq = 1u8;
    let mut pkt = |out: &mut Vec<u8>, f: &dyn Fn(&mut Vec<u8>)| {
        let start = begin_packet(out);
        f(out);
        end_packet(out, start, &mut seq);
    };
    pkt(out, &|o| encode_column_count(o, columns.len()));
    for c in columns {
        pkt(out, &|o| c.encode(o));
    }
    if !deprecate_eof {
        pkt(out, &|o| encode_eof(o, 0, status));
    }
    for r in rows {
        pkt(out, &|o| {
            for v in r {
                match v {
                    Some(v) => put_lenenc_bytes(o, v.as_bytes()),
                    None => o.push(0xfb),
                }
            }
        });
    }
    if deprecate_eof {
        pkt(out, &|o| encode_ok(o, 0xfe, 0, 0, status, 0, ""));
    } else {
        pkt(out, &|o| encode_eof(o, 0, status));
    }
}

/// An unsigned BIGINT column, as MariaDB types LAST_INSERT_ID() and friends.
pub fn unsigned_column(name: &str) -> Column {
    let mut col = Column::computed(name, coltype::LONGLONG);
    col.flags |= colflag::UNSIGNED | colflag::NOT_NULL;
    col.length = 20;
    col
}

/// A signed BIGINT result column as MariaDB describes ROW_COUNT()'s (no
/// NUM flag: MariaDB does not send it).
pub fn signed_column(name: &str) -> Column {
    let mut col = Column::computed(name, coltype::LONGLONG);
    col.flags = (col.flags | colflag::NOT_NULL) & !colflag::NUM;
    col.length = 21;
    col
}

/// SHOW WARNINGS' columns.
pub fn diagnostics_columns() -> Vec<Column> {
    let mut level = Column::varchar("Level");
    level.length = 7 * 4;
    let mut code = Column::computed("Code", coltype::LONG);
    code.flags |= colflag::UNSIGNED | colflag::NOT_NULL;
    code.length = 4;
    let mut message = Column::varchar("Message");
    message.length = 512 * 4;
    vec![level, code, message]
}

/// The conditions SHOW WARNINGS (all) or SHOW ERRORS (errors only) lists.
pub fn select(diag: &[Condition], errors: bool) -> impl Iterator<Item = &Condition> {
    diag.iter().filter(move |(level, _, _)| !errors || level == "Error")
}
