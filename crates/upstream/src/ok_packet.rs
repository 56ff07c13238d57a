//! The backend's OK packet (also a result's closing OK under
//! CLIENT_DEPRECATE_EOF), read with CLIENT_SESSION_TRACK: its counts and
//! flags, and the session state changes it reports (system variables, the
//! schema, "some other state changed", transaction characteristics), from
//! which the frontend session keeps its state.

use turnstile_wire::buf::Reader;
use turnstile_wire::consts::status;

/// Session state tracker entry types (MySQL's `enum_session_state_type`).
const TRACK_SYSTEM_VARIABLES: u8 = 0;
const TRACK_SCHEMA: u8 = 1;
const TRACK_STATE_CHANGE: u8 = 2;
const TRACK_TRANSACTION_CHARACTERISTICS: u8 = 4;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Ok {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub status: u16,
    pub warnings: u16,
    pub info: Vec<u8>,
    /// System variables the statement changed (name, new value).
    pub vars: Vec<(String, String)>,
    /// The schema it changed to.
    pub schema: Option<String>,
    /// The server flagged some change of session state.
    pub state_changed: bool,
    /// Transaction characteristics now pending (`SET TRANSACTION ...` text),
    /// Some("") when they were cleared.
    pub characteristics: Option<String>,
}

impl Ok {
    pub fn in_transaction(&self) -> bool {
        self.status & status::IN_TRANS != 0
    }

    pub fn more_results(&self) -> bool {
        self.status & status::MORE_RESULTS_EXISTS != 0
    }
}

/// Read an OK payload (header 0x00 or 0xfe) sent with CLIENT_SESSION_TRACK.
pub fn parse(payload: &[u8]) -> Option<Ok> {
    let mut r = Reader::new(payload);
    let header = r.u8().ok()?;
    if header != 0x00 && header != 0xfe {
        return None;
    }
    let mut ok = Ok { affected_rows: r.lenenc_int().ok()?.unwrap_or(0), last_insert_id: r.lenenc_int().ok()?.unwrap_or(0), status: r.u16().ok()?, warnings: r.u16().ok()?, ..Ok::default() };
    if r.is_empty() {
        return Some(ok);
    }
    ok.info = r.lenenc_bytes().ok()?.to_vec();
    if ok.status & status::SESSION_STATE_CHANGED == 0 || r.is_empty() {
        return Some(ok);
    }
    let state = r.lenenc_bytes().ok()?;
    let mut s = Reader::new(state);
    while !s.is_empty() {
        let kind = s.u8().ok()?;
        let data = s.lenenc_bytes().ok()?;
        let mut d = Reader::new(data);
        match kind {
            TRACK_SYSTEM_VARIABLES => {
                let name = String::from_utf8_lossy(d.lenenc_bytes().ok()?).to_ascii_lowercase();
                let value = String::from_utf8_lossy(d.lenenc_bytes().ok()?).into_owned();
                ok.vars.push((name, value));
            }
            TRACK_SCHEMA => ok.schema = Some(String::from_utf8_lossy(d.lenenc_bytes().ok()?).into_owned()),
            // MariaDB sends the flag bare ("1"), MySQL as a length-encoded string.
            TRACK_STATE_CHANGE => ok.state_changed = data == b"1" || data == b"\x011",
            TRACK_TRANSACTION_CHARACTERISTICS => ok.characteristics = Some(String::from_utf8_lossy(d.lenenc_bytes().ok()?).into_owned()),
            _ => {}
        }
    }
    Some(ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use turnstile_wire::buf::{put_lenenc_bytes, put_lenenc_int, put_u16};

    fn entry(kind: u8, data: &[u8]) -> Vec<u8> {
        let mut e = vec![kind];
        put_lenenc_bytes(&mut e, data);
        e
    }

    #[test]
    fn reads_variables_schema_and_state_change() {
        let mut var = Vec::new();
        put_lenenc_bytes(&mut var, b"SQL_MODE");
        put_lenenc_bytes(&mut var, b"ANSI");
        let mut schema = Vec::new();
        put_lenenc_bytes(&mut schema, b"shop");
        let mut state = entry(TRACK_SYSTEM_VARIABLES, &var);
        state.extend(entry(TRACK_SCHEMA, &schema));
        state.extend(entry(TRACK_STATE_CHANGE, b"1"));
        let mut p = vec![0];
        put_lenenc_int(&mut p, 3);
        put_lenenc_int(&mut p, 7);
        put_u16(&mut p, status::AUTOCOMMIT | status::SESSION_STATE_CHANGED);
        put_u16(&mut p, 1);
        put_lenenc_bytes(&mut p, b"");
        put_lenenc_bytes(&mut p, &state);
        let ok = parse(&p).expect("parses");
        assert_eq!((ok.affected_rows, ok.last_insert_id, ok.warnings), (3, 7, 1));
        assert_eq!(ok.vars, vec![("sql_mode".to_string(), "ANSI".to_string())]);
        assert_eq!(ok.schema.as_deref(), Some("shop"));
        assert!(ok.state_changed);
    }

    #[test]
    fn a_truncated_state_block_is_refused_not_misread() {
        let mut p = vec![0, 0, 0];
        put_u16(&mut p, status::SESSION_STATE_CHANGED);
        put_u16(&mut p, 0);
        put_lenenc_bytes(&mut p, b"");
        p.extend_from_slice(&[9, 0, 5]);
        assert_eq!(parse(&p), None);
    }
}

#[cfg(test)]
mod mariadb_bytes {
    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn set_names_and_use_as_mariadb_10_11_sends_them() {
        let set_names = unhex("000000024000000065001d146368617261637465725f7365745f636c69656e7407757466386d62340021186368617261637465725f7365745f636f6e6e656374696f6e07757466386d6234001e156368617261637465725f7365745f726573756c747307757466386d6234020131");
        let ok = super::parse(&set_names).expect("parses");
        assert_eq!(ok.vars.len(), 3);
        assert!(ok.state_changed);
        let use_test = unhex("00000002400000000a01050474657374020131");
        assert_eq!(super::parse(&use_test).expect("parses").schema.as_deref(), Some("test"));
    }
}
