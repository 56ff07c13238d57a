//! Server responses: OK, ERR and EOF packets, result-set column definitions,
//! and text and binary rows. Each encoder appends one payload (no header); the
//! caller frames it with `packet::begin_packet`/`end_packet`.

use crate::buf::{put_lenenc_bytes, put_lenenc_int, put_u16, put_u32, put_u64};
use crate::consts::{colflag, coltype};
use crate::value::Value;

/// Append an OK payload. `header` is 0x00, or 0xfe when the OK replaces an EOF
/// at the end of a result set (CLIENT_DEPRECATE_EOF).
pub fn encode_ok(out: &mut Vec<u8>, header: u8, affected_rows: u64, last_insert_id: u64, status: u16, warnings: u16, info: &str) {
    out.push(header);
    put_lenenc_int(out, affected_rows);
    put_lenenc_int(out, last_insert_id);
    put_u16(out, status);
    put_u16(out, warnings);
    // Length-encoded, as mysqld sends it and libmysqlclient, MariaDB
    // Connector/C and the other drivers read it (raw text makes the mysql CLI
    // report ERROR 2027, malformed packet).
    if !info.is_empty() {
        put_lenenc_bytes(out, info.as_bytes());
    }
}

/// Longest error message sent, in bytes: MySQL formats every message into a
/// buffer of MYSQL_ERRMSG_SIZE (512) bytes with its terminating NUL, so a client
/// never receives more than 511. Truncating here, where every ERR is encoded,
/// keeps a name of megabytes echoed in a message (an identifier, a user or
/// database name) from being sent back whole.
pub const MAX_ERROR_MESSAGE: usize = 511;

/// `message` cut to at most `MAX_ERROR_MESSAGE` bytes, at a character boundary.
pub fn truncate_error_message(message: &str) -> &str {
    let mut end = message.len().min(MAX_ERROR_MESSAGE);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    &message[..end]
}

/// Append an ERR payload (protocol 4.1 form, with SQLSTATE). The message is
/// cut to `MAX_ERROR_MESSAGE` bytes.
pub fn encode_err(out: &mut Vec<u8>, code: u16, sqlstate: &str, message: &str) {
    out.push(0xff);
    put_u16(out, code);
    out.push(b'#');
    let state = sqlstate.as_bytes();
    let mut s = [b'H', b'Y', b'0', b'0', b'0'];
    for (i, b) in state.iter().take(5).enumerate() {
        s[i] = *b;
    }
    out.extend_from_slice(&s);
    out.extend_from_slice(truncate_error_message(message).as_bytes());
}

/// Append an ERR payload sent in place of the greeting (1040, 1053): the
/// client's capabilities are not known yet, so there is no SQLSTATE, as
/// MySQL and MariaDB send it (a 4.1 client reads the message right after
/// the code; drivers show "Error 1040: Too many connections").
pub fn encode_err_before_handshake(out: &mut Vec<u8>, code: u16, message: &str) {
    out.push(0xff);
    put_u16(out, code);
    out.extend_from_slice(truncate_error_message(message).as_bytes());
}

/// Append an EOF payload (clients without CLIENT_DEPRECATE_EOF).
pub fn encode_eof(out: &mut Vec<u8>, warnings: u16, status: u16) {
    out.push(0xfe);
    put_u16(out, warnings);
    put_u16(out, status);
}

/// One column of a result set (Protocol::ColumnDefinition41).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub charset: u16,
    pub length: u32,
    pub coltype: u8,
    pub flags: u16,
    pub decimals: u8,
}

impl Column {
    /// A computed column (no table) of the given type.
    pub fn computed(name: &str, coltype: u8) -> Column {
        let (charset, length, flags, decimals) = match coltype {
            coltype::LONGLONG => (63, 21, colflag::BINARY | colflag::NUM, 0),
            coltype::LONG => (63, 11, colflag::BINARY | colflag::NUM, 0),
            coltype::DOUBLE => (63, 23, colflag::BINARY | colflag::NUM, 31),
            coltype::NEWDECIMAL => (63, 66, colflag::BINARY | colflag::NUM, 6),
            coltype::NULL => (63, 0, colflag::BINARY, 0),
            coltype::DATETIME => (63, 19, colflag::BINARY, 0),
            coltype::DATE => (63, 10, colflag::BINARY, 0),
            coltype::TIME => (63, 10, colflag::BINARY, 0),
            coltype::BLOB => (63, 65535, colflag::BINARY | colflag::BLOB, 0),
            _ => (crate::consts::charset::UTF8MB4_GENERAL_CI, 1024, 0, 31),
        };
        Column { schema: String::new(), table: String::new(), org_table: String::new(), name: name.to_string(), org_name: String::new(), charset, length, coltype, flags, decimals }
    }

    pub fn varchar(name: &str) -> Column {
        Column::computed(name, coltype::VAR_STRING)
    }

    /// A computed binary string (VARBINARY): charset binary, BINARY flag.
    pub fn varbinary(name: &str) -> Column {
        let mut c = Column::computed(name, coltype::VAR_STRING);
        c.charset = crate::consts::charset::BINARY;
        c.flags |= colflag::BINARY;
        c
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        put_lenenc_bytes(out, b"def");
        put_lenenc_bytes(out, self.schema.as_bytes());
        put_lenenc_bytes(out, self.table.as_bytes());
        put_lenenc_bytes(out, self.org_table.as_bytes());
        put_lenenc_bytes(out, self.name.as_bytes());
        put_lenenc_bytes(out, self.org_name.as_bytes());
        out.push(0x0c);
        put_u16(out, self.charset);
        put_u32(out, self.length);
        out.push(self.coltype);
        put_u16(out, self.flags);
        out.push(self.decimals);
        out.extend_from_slice(&[0, 0]);
    }

    /// COM_FIELD_LIST appends the column's default value after the
    /// definition (NULL: 0xFB), as the text MariaDB stores in its default row.
    pub fn encode_for_field_list(&self, out: &mut Vec<u8>, default: Option<&[u8]>) {
        self.encode(out);
        match default {
            Some(d) => put_lenenc_bytes(out, d),
            None => out.push(0xfb),
        }
    }
}

/// A result's column definitions encoded once, for a cached statement whose
/// columns do not change between executions: the payloads only, because the
/// packets' sequence ids differ from one command to the next. Sending them is
/// a copy per column instead of six length-prefixed strings and five numbers.
#[derive(Debug, Clone, Default)]
pub struct EncodedColumns {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl EncodedColumns {
    pub fn new(columns: &[Column]) -> EncodedColumns {
        let mut e = EncodedColumns { bytes: Vec::with_capacity(columns.len() * 48), ends: Vec::with_capacity(columns.len()) };
        for c in columns {
            c.encode(&mut e.bytes);
            e.ends.push(e.bytes.len());
        }
        e
    }

    /// Each column definition's payload, in order.
    pub fn payloads(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let p = &self.bytes[start..end];
            start = end;
            p
        })
    }
}

/// Fractional-second digits per column for `encode_text_row`: empty unless a
/// table's column is DATETIME, TIMESTAMP or TIME, or a computed one says its
/// digits (`CAST(x AS TIME(3))`, decimals 3). Other computed columns (no
/// table, e.g. NOW(6)) carry no reliable precision: `FSP_UNKNOWN`, which
/// shows a non-zero fraction as six digits.
pub fn text_fsp(columns: &[Column]) -> Vec<u8> {
    let temporal = |c: &Column| matches!(c.coltype, coltype::DATETIME | coltype::TIMESTAMP | coltype::TIME) && (!c.org_table.is_empty() || (1..=6).contains(&c.decimals));
    if !columns.iter().any(temporal) {
        return Vec::new();
    }
    columns.iter().map(|c| if temporal(c) { c.decimals.min(6) } else { FSP_UNKNOWN }).collect()
}

pub const FSP_UNKNOWN: u8 = u8::MAX;

/// Digits per column a text row pads its value to: empty unless a column is
/// an integer with the ZEROFILL flag (a YEAR has it), whose value MySQL
/// sends zero-padded to the column's length (`INT(5) ZEROFILL` 42 is
/// `00042`, YEAR 0 is `0000`, YEAR(2) 1970 is `70`); 0 for other columns.
/// Only a table's column pads: a computed one (`MIN(year_col)`) does not.
pub fn text_zerofill(columns: &[Column]) -> Vec<u8> {
    let padded = |c: &Column| {
        c.flags & colflag::ZEROFILL != 0 && !c.org_table.is_empty() && matches!(c.coltype, coltype::TINY | coltype::SHORT | coltype::INT24 | coltype::LONG | coltype::LONGLONG | coltype::YEAR)
    };
    if !columns.iter().any(padded) {
        return Vec::new();
    }
    columns.iter().map(|c| if padded(c) { c.length.min(255) as u8 } else { 0 }).collect()
}

pub fn encode_column_count(out: &mut Vec<u8>, n: usize) {
    put_lenenc_int(out, n as u64);
}

/// Append a text-protocol row. `fsp`: fractional-second digits of each
/// column (see `Value::to_text_fsp`); empty when no column is temporal.
pub fn encode_text_row(out: &mut Vec<u8>, row: &[Value], fsp: &[u8]) {
    encode_text_row_padded(out, row, fsp, &[]);
}

/// `encode_text_row` with the ZEROFILL widths of `text_zerofill` (empty:
/// none): an integer shorter than its width is padded with zeros; a YEAR(2)
/// shows its last two digits.
pub fn encode_text_row_padded(out: &mut Vec<u8>, row: &[Value], fsp: &[u8], zerofill: &[u8]) {
    for (i, v) in row.iter().enumerate() {
        let width = zerofill.get(i).copied().unwrap_or(0) as usize;
        match (v, width) {
            (Value::Int(n), w) if w > 0 && *n >= 0 => put_lenenc_bytes(out, padded(*n as u64, w).as_bytes()),
            (Value::UInt(n), w) if w > 0 => put_lenenc_bytes(out, padded(*n, w).as_bytes()),
            _ => match v.to_text_fsp(fsp.get(i).copied().filter(|&d| d != FSP_UNKNOWN)) {
                None => out.push(0xfb),
                Some(t) => put_lenenc_bytes(out, &t),
            },
        }
    }
}

/// `n` zero-padded to `width` digits; a width of 2 (YEAR(2)) keeps the
/// last two digits of a larger number.
fn padded(n: u64, width: usize) -> String {
    let n = if width == 2 && n >= 100 { n % 100 } else { n };
    format!("{:0w$}", n, w = width)
}

/// Append a binary-protocol row, each value encoded as its column's type says.
pub fn encode_binary_row(out: &mut Vec<u8>, columns: &[Column], row: &[Value]) {
    encode_binary_row_typed(out, columns.iter().map(|c| c.coltype), row)
}

/// `encode_binary_row` given just the column types (what a result set needs
/// to keep between rows).
pub fn encode_binary_row_typed(out: &mut Vec<u8>, coltypes: impl ExactSizeIterator<Item = u8>, row: &[Value]) {
    out.push(0x00);
    let bitmap_len = (coltypes.len() + 7 + 2) / 8;
    let bitmap_at = out.len();
    out.resize(bitmap_at + bitmap_len, 0);
    for (i, (ty, v)) in coltypes.zip(row.iter()).enumerate() {
        if v.is_null() {
            let bit = i + 2;
            out[bitmap_at + bit / 8] |= 1 << (bit % 8);
            continue;
        }
        encode_binary_value(out, ty, v);
    }
}

/// Encode one non-NULL value in the binary protocol's format for `ty`.
pub fn encode_binary_value(out: &mut Vec<u8>, ty: u8, v: &Value) {
    match ty {
        coltype::TINY => out.push(v.as_i64().unwrap_or(0) as u8),
        coltype::SHORT | coltype::YEAR => put_u16(out, v.as_i64().unwrap_or(0) as u16),
        coltype::LONG | coltype::INT24 => put_u32(out, v.as_i64().unwrap_or(0) as u32),
        coltype::LONGLONG => {
            let bits = match v {
                Value::UInt(u) => *u,
                other => other.as_i64().unwrap_or(0) as u64,
            };
            put_u64(out, bits)
        }
        coltype::FLOAT => out.extend_from_slice(&(v.as_f64().unwrap_or(0.0) as f32).to_le_bytes()),
        coltype::DOUBLE => out.extend_from_slice(&v.as_f64().unwrap_or(0.0).to_le_bytes()),
        coltype::DATE | coltype::DATETIME | coltype::TIMESTAMP | coltype::NEWDATE => match v {
            Value::Date { year, month, day } => put_binary_datetime(out, *year, *month, *day, 0, 0, 0, 0),
            Value::DateTime { year, month, day, hour, minute, second, micro } => put_binary_datetime(out, *year, *month, *day, *hour, *minute, *second, *micro),
            _ => out.push(0),
        },
        coltype::TIME => match v {
            Value::Time { negative, days, hour, minute, second, micro } => {
                // MySQL's length: 12 with a fraction, 8 with any other part,
                // 0 for 00:00:00 (MariaDB sends no sign for it either).
                let len = if *micro > 0 {
                    12
                } else if *days > 0 || *hour > 0 || *minute > 0 || *second > 0 {
                    8
                } else {
                    0
                };
                out.push(len);
                if len == 0 {
                    return;
                }
                out.push(*negative as u8);
                put_u32(out, *days);
                out.extend_from_slice(&[*hour, *minute, *second]);
                if len == 12 {
                    put_u32(out, *micro);
                }
            }
            _ => out.push(0),
        },
        _ => match v.to_text() {
            Some(t) => put_lenenc_bytes(out, &t),
            None => out.push(0xfb),
        },
    }
}

/// A DATE/DATETIME/TIMESTAMP in the binary protocol with MySQL's length: 11
/// with a fraction, 7 with a time of day, 4 with a date, 0 for the zero date
/// (`0000-00-00`, which a client would otherwise decode as year 0 month 0, shown
/// as `-0001-11-30` by some).
#[allow(clippy::too_many_arguments)]
fn put_binary_datetime(out: &mut Vec<u8>, year: u16, month: u8, day: u8, hour: u8, minute: u8, second: u8, micro: u32) {
    let len = if micro > 0 {
        11
    } else if hour > 0 || minute > 0 || second > 0 {
        7
    } else if year > 0 || month > 0 || day > 0 {
        4
    } else {
        0
    };
    out.push(len);
    if len == 0 {
        return;
    }
    put_u16(out, year);
    out.extend_from_slice(&[month, day]);
    if len >= 7 {
        out.extend_from_slice(&[hour, minute, second]);
    }
    if len == 11 {
        put_u32(out, micro);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn error_messages_are_cut_at_512_bytes_on_a_char_boundary() {
        let mut out = Vec::new();
        let long = format!("Unknown database '{}'", "d".repeat(4 << 20));
        encode_err(&mut out, 1049, "42000", &long);
        assert_eq!(out.len(), 9 + MAX_ERROR_MESSAGE);
        assert_eq!(&out[9..], &long.as_bytes()[..MAX_ERROR_MESSAGE]);
        // 'é' is two bytes: the cut never splits one.
        let wide = "é".repeat(400);
        assert_eq!(truncate_error_message(&wide).len(), MAX_ERROR_MESSAGE - 1);
        assert_eq!(truncate_error_message("short"), "short");
        assert_eq!(truncate_error_message(&"x".repeat(MAX_ERROR_MESSAGE)).len(), MAX_ERROR_MESSAGE);
    }

    use super::*;
    use mysql_common::constants::CapabilityFlags;
    use mysql_common::io::ParseBuf;
    use mysql_common::packets::{Column as McColumn, CommonOkPacket, ErrPacket, OkPacketDeserializer, ResultSetTerminator};
    use mysql_common::proto::MyDeserialize;

    #[test]
    fn ok_packet_decodes_with_mysql_common() {
        let mut out = Vec::new();
        encode_ok(&mut out, 0, 3, 77, 0x0003, 1, "");
        let ok = OkPacketDeserializer::<CommonOkPacket>::deserialize(CapabilityFlags::CLIENT_PROTOCOL_41, &mut ParseBuf(&out)).unwrap();
        let ok: mysql_common::packets::OkPacket = ok.into();
        assert_eq!(ok.affected_rows(), 3);
        assert_eq!(ok.last_insert_id(), Some(77));
        assert_eq!(ok.warnings(), 1);
        assert_eq!(ok.status_flags().bits(), 0x0003);
    }

    #[test]
    fn ok_info_is_length_encoded() {
        let info = "Rows matched: 3  Changed: 2  Warnings: 0";
        let mut out = Vec::new();
        encode_ok(&mut out, 0, 2, 0, 0x0002, 0, info);
        assert_eq!(out[7] as usize, info.len());
        let caps = CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_SESSION_TRACK;
        let ok = OkPacketDeserializer::<CommonOkPacket>::deserialize(caps, &mut ParseBuf(&out)).unwrap();
        let ok: mysql_common::packets::OkPacket = ok.into();
        assert_eq!(ok.info_ref(), Some(info.as_bytes()));
        assert_eq!(ok.affected_rows(), 2);
    }

    #[test]
    fn eof_style_ok_decodes_as_terminator() {
        let mut out = Vec::new();
        encode_ok(&mut out, 0xfe, 0, 0, 0x0002, 0, "");
        let caps = CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_DEPRECATE_EOF;
        let ok = OkPacketDeserializer::<ResultSetTerminator>::deserialize(caps, &mut ParseBuf(&out)).unwrap();
        let ok: mysql_common::packets::OkPacket = ok.into();
        assert_eq!(ok.status_flags().bits(), 0x0002);
    }

    #[test]
    fn err_packet_decodes_with_mysql_common() {
        let mut out = Vec::new();
        encode_err(&mut out, 1045, "28000", "Access denied for user 'x'@'localhost' (using password: YES)");
        let err = ErrPacket::deserialize(CapabilityFlags::CLIENT_PROTOCOL_41, &mut ParseBuf(&out)).unwrap();
        match err {
            ErrPacket::Error(e) => {
                assert_eq!(e.error_code(), 1045);
                assert_eq!(e.sql_state_ref().unwrap().as_str(), "28000");
                assert!(e.message_str().starts_with("Access denied"));
            }
            _ => panic!("not an error"),
        }
    }

    #[test]
    fn column_definition_decodes_with_mysql_common() {
        let mut c = Column::computed("id", coltype::LONGLONG);
        c.schema = "db".into();
        c.table = "t".into();
        c.flags |= colflag::NOT_NULL | colflag::PRI_KEY;
        let mut out = Vec::new();
        c.encode(&mut out);
        let mc = McColumn::deserialize((), &mut ParseBuf(&out)).unwrap();
        assert_eq!(mc.name_str(), "id");
        assert_eq!(mc.schema_str(), "db");
        assert_eq!(mc.table_str(), "t");
        assert_eq!(mc.column_type() as u8, coltype::LONGLONG);
        assert_eq!(mc.character_set(), 63);
        assert!(mc.flags().contains(mysql_common::constants::ColumnFlags::PRI_KEY_FLAG));
    }

    #[test]
    fn binary_temporal_lengths_are_mysqls() {
        let enc = |ty: u8, v: Value| {
            let mut out = Vec::new();
            encode_binary_value(&mut out, ty, &v);
            out
        };
        let dt = |h: u8, micro: u32| Value::DateTime { year: 2024, month: 1, day: 2, hour: h, minute: 0, second: 0, micro };
        let zero_dt = Value::DateTime { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, micro: 0 };
        assert_eq!(enc(coltype::DATETIME, zero_dt), [0]);
        assert_eq!(enc(coltype::DATE, Value::Date { year: 0, month: 0, day: 0 }), [0]);
        assert_eq!(enc(coltype::DATETIME, dt(0, 0)), [4, 0xe8, 7, 1, 2]);
        assert_eq!(enc(coltype::DATETIME, dt(3, 0)), [7, 0xe8, 7, 1, 2, 3, 0, 0]);
        assert_eq!(enc(coltype::DATETIME, dt(0, 5))[0], 11);
        let time = |negative: bool, second: u8, micro: u32| Value::Time { negative, days: 0, hour: 0, minute: 0, second, micro };
        assert_eq!(enc(coltype::TIME, time(false, 0, 0)), [0]);
        assert_eq!(enc(coltype::TIME, time(true, 3, 0)), [8, 1, 0, 0, 0, 0, 0, 0, 3]);
        assert_eq!(enc(coltype::TIME, time(false, 0, 9))[0], 12);
    }

    #[test]
    fn binary_row_decodes_with_mysql_common() {
        use mysql_common::row::new_row;
        use mysql_common::row::RowDeserializer;
        use mysql_common::value::ServerSide;
        let cols = vec![
            Column::computed("a", coltype::LONGLONG),
            Column::computed("b", coltype::VAR_STRING),
            Column::computed("c", coltype::DOUBLE),
            Column::computed("d", coltype::DATETIME),
            Column::computed("e", coltype::LONG),
        ];
        let row = vec![Value::Int(-9), Value::str("héllo"), Value::Double(1.5), Value::DateTime { year: 2020, month: 2, day: 29, hour: 23, minute: 59, second: 58, micro: 7 }, Value::Null];
        let mut out = Vec::new();
        encode_binary_row(&mut out, &cols, &row);
        let mc: Vec<McColumn> = cols
            .iter()
            .map(|c| {
                let mut b = Vec::new();
                c.encode(&mut b);
                McColumn::deserialize((), &mut ParseBuf(&b)).unwrap()
            })
            .collect();
        let mc: std::sync::Arc<[McColumn]> = mc.into();
        let r = RowDeserializer::<ServerSide, mysql_common::proto::Binary>::deserialize(mc.clone(), &mut ParseBuf(&out)).unwrap();
        let r: mysql_common::row::Row = r.into();
        use mysql_common::value::Value as V;
        assert_eq!(r.as_ref(0), Some(&V::Int(-9)));
        assert_eq!(r.as_ref(1), Some(&V::Bytes("héllo".as_bytes().to_vec())));
        assert_eq!(r.as_ref(2), Some(&V::Double(1.5)));
        assert_eq!(r.as_ref(3), Some(&V::Date(2020, 2, 29, 23, 59, 58, 7)));
        assert_eq!(r.as_ref(4), Some(&V::NULL));
        let _ = new_row;
    }

    #[test]
    fn text_row_decodes_with_mysql_common() {
        use mysql_common::row::RowDeserializer;
        use mysql_common::value::ClientSide;
        let cols = [Column::computed("a", coltype::LONGLONG), Column::varchar("b")];
        let mut out = Vec::new();
        encode_text_row(&mut out, &[Value::Int(42), Value::Null], &[]);
        let mc: Vec<McColumn> = cols
            .iter()
            .map(|c| {
                let mut b = Vec::new();
                c.encode(&mut b);
                McColumn::deserialize((), &mut ParseBuf(&b)).unwrap()
            })
            .collect();
        let r = RowDeserializer::<ClientSide, mysql_common::proto::Text>::deserialize(mc.into(), &mut ParseBuf(&out)).unwrap();
        let r: mysql_common::row::Row = r.into();
        assert_eq!(r.as_ref(0), Some(&mysql_common::value::Value::Bytes(b"42".to_vec())));
        assert_eq!(r.as_ref(1), Some(&mysql_common::value::Value::NULL));
    }

    #[test]
    fn zerofill_integers_are_padded() {
        let mut year = Column::computed("y", coltype::YEAR);
        year.flags |= colflag::ZEROFILL;
        year.length = 4;
        year.org_table = "t".into();
        let mut y2 = year.clone();
        y2.length = 2;
        let plain = Column::computed("n", coltype::LONGLONG);
        let cols = [year, y2, plain];
        let widths = text_zerofill(&cols);
        assert_eq!(widths, vec![4, 2, 0]);
        let mut out = Vec::new();
        encode_text_row_padded(&mut out, &[Value::UInt(0), Value::UInt(1970), Value::Int(7)], &[], &widths);
        assert_eq!(out, b"\x040000\x0270\x017");
        assert!(text_zerofill(&cols[2..]).is_empty());
    }

    #[test]
    fn text_fractions_follow_the_column() {
        let dt = Value::DateTime { year: 2024, month: 2, day: 29, hour: 1, minute: 2, second: 3, micro: 125_000 };
        let zero = Value::DateTime { year: 2024, month: 2, day: 29, hour: 1, minute: 2, second: 3, micro: 0 };
        let t = |v: &Value, fsp| String::from_utf8(v.to_text_fsp(fsp).unwrap().into_owned()).unwrap();
        assert_eq!(t(&dt, Some(3)), "2024-02-29 01:02:03.125");
        assert_eq!(t(&zero, Some(6)), "2024-02-29 01:02:03.000000");
        assert_eq!(t(&dt, Some(0)), "2024-02-29 01:02:03");
        assert_eq!(t(&dt, None), "2024-02-29 01:02:03.125000");
        let time = Value::Time { negative: true, days: 1, hour: 2, minute: 3, second: 4, micro: 500_000 };
        assert_eq!(t(&time, Some(1)), "-26:03:04.5");
        let mut cols = vec![Column::computed("a", coltype::LONG), Column::computed("b", coltype::DATETIME), Column::computed("c", coltype::DATETIME)];
        cols[1].decimals = 3;
        cols[1].org_table = "t".into();
        assert_eq!(text_fsp(&cols), vec![FSP_UNKNOWN, 3, FSP_UNKNOWN]);
        assert!(text_fsp(&cols[..1]).is_empty());
    }

    #[test]
    fn float_text_is_the_shortest_f32_form() {
        let t = |v: Value| String::from_utf8(v.to_text().unwrap().into_owned()).unwrap();
        assert_eq!(t(Value::Float(0.1)), "0.1");
        assert_eq!(t(Value::Float(-3.25)), "-3.25");
        assert_eq!(t(Value::Float(16777216.0)), "16777216");
    }

    #[test]
    fn double_text_follows_mysql() {
        let t = |v: f64| String::from_utf8(Value::Double(v).to_text().unwrap().into_owned()).unwrap();
        assert_eq!(t(1e300), "1e300");
        assert_eq!(t(-2.5e-300), "-2.5e-300");
        assert_eq!(t(1e14), "100000000000000");
        assert_eq!(t(1e15), "1e15");
        assert_eq!(t(1.5e20), "1.5e20");
        assert_eq!(t(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(t(1e-15), "0.000000000000001");
        assert_eq!(t(1e-16), "1e-16");
        assert_eq!(t(-0.0), "0");
        assert_eq!(t(42.0), "42");
    }
}
