//! Client commands: decoding of the command phase's payloads.
//!
//! `Command::decode` never panics; anything it cannot make sense of is a
//! `ProtocolError` (the connection is closed) or `Command::Unknown` (the server
//! answers ERR 1047 and keeps the connection).

use crate::buf::Reader;
use crate::consts::{coltype, com};
use crate::handshake::utf8;
use crate::value::Value;
use crate::{ProtocolError, Result};

#[derive(Debug, Clone, PartialEq)]
pub enum Command<'a> {
    Quit,
    InitDb(&'a [u8]),
    Query(&'a [u8]),
    FieldList {
        table: &'a [u8],
        wildcard: &'a [u8],
    },
    Statistics,
    ProcessKill(u32),
    Ping,
    ChangeUser(ChangeUser),
    StmtPrepare(&'a [u8]),
    StmtExecute {
        statement_id: u32,
        flags: u8,
        rest: &'a [u8],
    },
    StmtSendLongData {
        statement_id: u32,
        param: u16,
        data: &'a [u8],
    },
    StmtClose(u32),
    StmtReset(u32),
    StmtFetch {
        statement_id: u32,
        rows: u32,
    },
    SetOption(u16),
    ResetConnection,
    Sleep,
    /// Any other byte: answered with ERR 1047.
    Unknown(u8),
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangeUser {
    pub username: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub charset: Option<u16>,
    pub auth_plugin: Option<String>,
    pub attributes: Vec<(String, String)>,
}

impl<'a> Command<'a> {
    /// Decode a command payload. `client_caps` decides optional fields of COM_CHANGE_USER.
    pub fn decode(payload: &'a [u8], client_caps: u32) -> Result<Command<'a>> {
        let mut r = Reader::new(payload);
        let code = r.u8().map_err(|_| ProtocolError("empty command packet"))?;
        Ok(match code {
            com::QUIT => Command::Quit,
            com::INIT_DB => Command::InitDb(r.rest()),
            com::QUERY => Command::Query(r.rest()),
            com::FIELD_LIST => {
                let table = r.nul_bytes();
                Command::FieldList { table, wildcard: r.rest() }
            }
            com::STATISTICS => Command::Statistics,
            com::PROCESS_KILL => Command::ProcessKill(r.u32()?),
            com::PING => Command::Ping,
            com::SLEEP => Command::Sleep,
            com::CHANGE_USER => Command::ChangeUser(decode_change_user(&mut r, client_caps)?),
            com::STMT_PREPARE => Command::StmtPrepare(r.rest()),
            com::STMT_EXECUTE => {
                let statement_id = r.u32()?;
                let flags = r.u8()?;
                let _iterations = r.u32()?;
                Command::StmtExecute { statement_id, flags, rest: r.rest() }
            }
            com::STMT_SEND_LONG_DATA => {
                let statement_id = r.u32()?;
                let param = r.u16()?;
                Command::StmtSendLongData { statement_id, param, data: r.rest() }
            }
            com::STMT_CLOSE => Command::StmtClose(r.u32()?),
            com::STMT_RESET => Command::StmtReset(r.u32()?),
            com::STMT_FETCH => {
                let statement_id = r.u32()?;
                Command::StmtFetch { statement_id, rows: r.u32()? }
            }
            com::SET_OPTION => Command::SetOption(r.u16()?),
            com::RESET_CONNECTION => Command::ResetConnection,
            other => Command::Unknown(other),
        })
    }
}

fn decode_change_user(r: &mut Reader<'_>, caps: u32) -> Result<ChangeUser> {
    use crate::consts::cap;
    let username = utf8(r.nul_bytes())?;
    let auth_response = if caps & cap::SECURE_CONNECTION != 0 {
        let n = r.u8()? as usize;
        r.take(n)?.to_vec()
    } else {
        r.nul_bytes().to_vec()
    };
    let db = utf8(r.nul_bytes())?;
    let database = if db.is_empty() { None } else { Some(db) };
    let mut cu = ChangeUser { username, auth_response, database, ..Default::default() };
    if r.remaining() >= 2 {
        cu.charset = Some(r.u16()?);
    }
    if caps & cap::PLUGIN_AUTH != 0 && !r.is_empty() {
        let p = utf8(r.nul_bytes())?;
        if !p.is_empty() {
            cu.auth_plugin = Some(p);
        }
    }
    if caps & cap::CONNECT_ATTRS != 0 && !r.is_empty() {
        let total = r.lenenc_int()?.unwrap_or(0) as usize;
        if total > crate::handshake::MAX_CONNECT_ATTRS_BYTES {
            return Err(ProtocolError("connection attributes too large"));
        }
        let mut a = Reader::new(r.take(total)?);
        while !a.is_empty() {
            let k = utf8(a.lenenc_bytes()?)?;
            let v = utf8(a.lenenc_bytes()?)?;
            cu.attributes.push((k, v));
        }
    }
    Ok(cu)
}

/// A parameter type as sent in COM_STMT_EXECUTE: the column type and whether unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParamType {
    pub coltype: u8,
    pub unsigned: bool,
}

/// Decode COM_STMT_EXECUTE's parameter block (everything after `iterations`).
///
/// `types` holds the types remembered from an earlier execute; when the client
/// sets new-params-bound it is overwritten (sysbench sends types only once).
/// `long_data[i]`, when present, replaces parameter `i` (COM_STMT_SEND_LONG_DATA).
pub fn decode_execute_params(rest: &[u8], num_params: usize, types: &mut Vec<ParamType>, long_data: &mut [Option<Vec<u8>>]) -> Result<Vec<Value>> {
    let mut values = Vec::new();
    decode_execute_params_into(rest, num_params, types, long_data, &mut values)?;
    Ok(values)
}

/// `decode_execute_params` into `values` (cleared first), so a caller that
/// executes statements in a loop reuses one vector.
pub fn decode_execute_params_into(rest: &[u8], num_params: usize, types: &mut Vec<ParamType>, long_data: &mut [Option<Vec<u8>>], values: &mut Vec<Value>) -> Result<()> {
    values.clear();
    if num_params == 0 {
        return Ok(());
    }
    let mut r = Reader::new(rest);
    let null_bitmap = r.take(num_params.div_ceil(8))?;
    let new_params_bound = r.u8()?;
    if new_params_bound == 1 {
        types.clear();
        for _ in 0..num_params {
            let t = r.u8()?;
            let f = r.u8()?;
            types.push(ParamType { coltype: t, unsigned: f & 0x80 != 0 });
        }
    } else if types.len() != num_params {
        return Err(ProtocolError("parameter types were never sent"));
    }
    values.reserve(num_params);
    for i in 0..num_params {
        if let Some(data) = long_data.get_mut(i).and_then(|d| d.take()) {
            values.push(Value::Bytes(data));
            continue;
        }
        if null_bitmap[i / 8] & (1 << (i % 8)) != 0 {
            values.push(Value::Null);
            continue;
        }
        values.push(decode_binary_value(&mut r, types[i])?);
    }
    Ok(())
}

fn decode_binary_value(r: &mut Reader<'_>, t: ParamType) -> Result<Value> {
    let int = |v: i64, u: u64| {
        if t.unsigned {
            Value::UInt(u)
        } else {
            Value::Int(v)
        }
    };
    Ok(match t.coltype {
        coltype::NULL => Value::Null,
        coltype::TINY => {
            let b = r.u8()?;
            int(b as i8 as i64, b as u64)
        }
        coltype::SHORT | coltype::YEAR => {
            let v = r.u16()?;
            int(v as i16 as i64, v as u64)
        }
        coltype::LONG | coltype::INT24 => {
            let v = r.u32()?;
            int(v as i32 as i64, v as u64)
        }
        coltype::LONGLONG => {
            let v = r.u64()?;
            int(v as i64, v)
        }
        coltype::FLOAT => Value::Float(f32::from_le_bytes(r.take(4)?.try_into().unwrap())),
        coltype::DOUBLE => Value::Double(f64::from_le_bytes(r.take(8)?.try_into().unwrap())),
        coltype::DATE | coltype::DATETIME | coltype::TIMESTAMP | coltype::NEWDATE => {
            let len = r.u8()?;
            let mut d = Reader::new(r.take(len as usize)?);
            let (mut year, mut month, mut day, mut hour, mut minute, mut second, mut micro) = (0, 0, 0, 0, 0, 0, 0);
            if len >= 4 {
                year = d.u16()?;
                month = d.u8()?;
                day = d.u8()?;
            }
            if len >= 7 {
                hour = d.u8()?;
                minute = d.u8()?;
                second = d.u8()?;
            }
            if len >= 11 {
                micro = d.u32()?;
            }
            if t.coltype == coltype::DATE {
                Value::Date { year, month, day }
            } else {
                Value::DateTime { year, month, day, hour, minute, second, micro }
            }
        }
        coltype::TIME => {
            let len = r.u8()?;
            let mut d = Reader::new(r.take(len as usize)?);
            let (mut negative, mut days, mut hour, mut minute, mut second, mut micro) = (false, 0, 0, 0, 0, 0);
            if len >= 8 {
                negative = d.u8()? != 0;
                days = d.u32()?;
                hour = d.u8()?;
                minute = d.u8()?;
                second = d.u8()?;
            }
            if len >= 12 {
                micro = d.u32()?;
            }
            Value::Time { negative, days, hour, minute, second, micro }
        }
        // Strings, decimals, blobs, JSON, enums: length-encoded bytes.
        _ => Value::Bytes(r.lenenc_bytes()?.to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_simple_commands() {
        assert_eq!(Command::decode(&[com::PING], 0).unwrap(), Command::Ping);
        assert_eq!(Command::decode(b"\x03SELECT 1", 0).unwrap(), Command::Query(b"SELECT 1"));
        assert_eq!(Command::decode(&[0x0c, 5, 0, 0, 0], 0).unwrap(), Command::ProcessKill(5));
        assert_eq!(Command::decode(&[0x99], 0).unwrap(), Command::Unknown(0x99));
        assert!(Command::decode(&[], 0).is_err());
        assert!(Command::decode(&[0x0c, 5], 0).is_err());
    }

    #[test]
    fn execute_params_from_mysql_common() {
        // mysql_common encodes an execute request independently.
        use mysql_common::packets::ComStmtExecuteRequestBuilder;
        use mysql_common::proto::MySerialize;
        use mysql_common::value::Value as V;
        let params = vec![V::Int(-3), V::Bytes(b"abc".to_vec()), V::NULL, V::Double(2.5), V::Date(2021, 5, 6, 7, 8, 9, 10), V::UInt(u64::MAX)];
        let (req, _) = ComStmtExecuteRequestBuilder::new(9).build(&params);
        let mut buf = Vec::new();
        req.serialize(&mut buf);
        let cmd = Command::decode(&buf, 0).unwrap();
        let Command::StmtExecute { statement_id, rest, .. } = cmd else { panic!() };
        assert_eq!(statement_id, 9);
        let mut types = Vec::new();
        let mut long = vec![None; params.len()];
        let vals = decode_execute_params(rest, params.len(), &mut types, &mut long).unwrap();
        assert_eq!(vals[0], Value::Int(-3));
        assert_eq!(vals[1], Value::str("abc"));
        assert_eq!(vals[2], Value::Null);
        assert_eq!(vals[3], Value::Double(2.5));
        assert_eq!(vals[4], Value::DateTime { year: 2021, month: 5, day: 6, hour: 7, minute: 8, second: 9, micro: 10 });
        assert_eq!(vals[5], Value::UInt(u64::MAX));
        assert_eq!(types.len(), params.len());
    }

    #[test]
    fn execute_without_types_reuses_remembered_types() {
        let mut types = vec![ParamType { coltype: coltype::LONGLONG, unsigned: false }];
        let mut rest = vec![0u8, 0u8];
        rest.extend_from_slice(&7i64.to_le_bytes());
        let vals = decode_execute_params(&rest, 1, &mut types, &mut [None]).unwrap();
        assert_eq!(vals, vec![Value::Int(7)]);
        let mut none = Vec::new();
        assert!(decode_execute_params(&rest, 1, &mut none, &mut [None]).is_err());
    }

    #[test]
    fn change_user_round_trip() {
        use crate::consts::cap;
        let mut p = vec![com::CHANGE_USER];
        p.extend_from_slice(b"bob\0");
        p.push(3);
        p.extend_from_slice(b"xyz");
        p.extend_from_slice(b"db\0");
        p.extend_from_slice(&45u16.to_le_bytes());
        p.extend_from_slice(b"mysql_native_password\0");
        let caps = cap::PROTOCOL_41 | cap::SECURE_CONNECTION | cap::PLUGIN_AUTH;
        let Command::ChangeUser(cu) = Command::decode(&p, caps).unwrap() else { panic!() };
        assert_eq!(cu.username, "bob");
        assert_eq!(cu.auth_response, b"xyz");
        assert_eq!(cu.database.as_deref(), Some("db"));
        assert_eq!(cu.charset, Some(45));
        assert_eq!(cu.auth_plugin.as_deref(), Some("mysql_native_password"));
    }
}
