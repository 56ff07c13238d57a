//! Connection phase: the server's protocol v10 greeting, the client's
//! HandshakeResponse41, AuthSwitchRequest and AuthMoreData.

use crate::buf::{put_nul_str, put_u16, put_u32, Reader};
use crate::consts::cap;
use crate::{ProtocolError, Result};

/// The server's first packet.
#[derive(Debug, Clone)]
pub struct Greeting<'a> {
    pub server_version: &'a str,
    pub connection_id: u32,
    pub scramble: &'a [u8; 20],
    pub capabilities: u32,
    pub charset: u8,
    pub status: u16,
    pub auth_plugin: &'a str,
}

impl Greeting<'_> {
    /// Append the greeting payload (without packet header).
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(10);
        put_nul_str(out, self.server_version.as_bytes());
        put_u32(out, self.connection_id);
        out.extend_from_slice(&self.scramble[..8]);
        out.push(0);
        put_u16(out, self.capabilities as u16);
        out.push(self.charset);
        put_u16(out, self.status);
        put_u16(out, (self.capabilities >> 16) as u16);
        out.push(21);
        out.extend_from_slice(&[0u8; 10]);
        out.extend_from_slice(&self.scramble[8..]);
        out.push(0);
        put_nul_str(out, self.auth_plugin.as_bytes());
    }
}

/// The client's reply to the greeting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandshakeResponse {
    pub capabilities: u32,
    pub max_packet: u32,
    pub charset: u8,
    pub username: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub auth_plugin: Option<String>,
    /// Connection attributes, still encoded (framing checked; decode with `attributes()`).
    /// Kept raw so a login does not allocate two strings per attribute.
    pub attributes_raw: Vec<u8>,
}

/// Limits applied while decoding a handshake response.
pub const MAX_CONNECT_ATTRS_BYTES: usize = 64 * 1024;

impl HandshakeResponse {
    /// True if this is only an SSLRequest (the client wants TLS before the rest).
    pub fn is_ssl_request(payload: &[u8]) -> bool {
        payload.len() == 32 && {
            let caps = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
            caps & cap::SSL != 0
        }
    }

    pub fn decode(payload: &[u8]) -> Result<HandshakeResponse> {
        let mut r = Reader::new(payload);
        let capabilities = r.u32()?;
        if capabilities & cap::PROTOCOL_41 == 0 {
            return Err(ProtocolError("client does not speak protocol 4.1"));
        }
        let max_packet = r.u32()?;
        let charset = r.u8()?;
        r.take(23)?;
        let username = utf8(r.nul_bytes())?;
        let auth_response = if capabilities & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            r.lenenc_bytes()?.to_vec()
        } else if capabilities & cap::SECURE_CONNECTION != 0 {
            let n = r.u8()? as usize;
            r.take(n)?.to_vec()
        } else {
            r.nul_bytes().to_vec()
        };
        let mut database = None;
        if capabilities & cap::CONNECT_WITH_DB != 0 && !r.is_empty() {
            let db = utf8(r.nul_bytes())?;
            if !db.is_empty() {
                database = Some(db);
            }
        }
        let mut auth_plugin = None;
        if capabilities & cap::PLUGIN_AUTH != 0 && !r.is_empty() {
            let p = utf8(r.nul_bytes())?;
            if !p.is_empty() {
                auth_plugin = Some(p);
            }
        }
        let mut attributes_raw = Vec::new();
        if capabilities & cap::CONNECT_ATTRS != 0 && !r.is_empty() {
            let total = r.lenenc_int()?.ok_or(ProtocolError("NULL attributes length"))? as usize;
            if total > MAX_CONNECT_ATTRS_BYTES {
                return Err(ProtocolError("connection attributes too large"));
            }
            let raw = r.take(total)?;
            let mut attrs = Reader::new(raw);
            // Framing only, as MySQL checks them: every name has a value and
            // no length runs past the block. Text is decoded (lossily) when read.
            while !attrs.is_empty() {
                attrs.lenenc_bytes()?;
                attrs.lenenc_bytes()?;
            }
            attributes_raw = raw.to_vec();
        }
        Ok(HandshakeResponse { capabilities, max_packet, charset, username, auth_response, database, auth_plugin, attributes_raw })
    }

    /// The connection attributes as (name, value) pairs.
    pub fn attributes(&self) -> Vec<(String, String)> {
        decode_attributes(&self.attributes_raw)
    }

    /// Encode (client side); used by tests and by the load generator.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_u32(out, self.capabilities);
        put_u32(out, self.max_packet);
        out.push(self.charset);
        out.extend_from_slice(&[0u8; 23]);
        put_nul_str(out, self.username.as_bytes());
        if self.capabilities & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            crate::buf::put_lenenc_bytes(out, &self.auth_response);
        } else {
            out.push(self.auth_response.len() as u8);
            out.extend_from_slice(&self.auth_response);
        }
        if self.capabilities & cap::CONNECT_WITH_DB != 0 {
            put_nul_str(out, self.database.as_deref().unwrap_or("").as_bytes());
        }
        if self.capabilities & cap::PLUGIN_AUTH != 0 {
            put_nul_str(out, self.auth_plugin.as_deref().unwrap_or("").as_bytes());
        }
        if self.capabilities & cap::CONNECT_ATTRS != 0 {
            crate::buf::put_lenenc_bytes(out, &self.attributes_raw);
        }
    }
}

/// AuthSwitchRequest: ask the client to authenticate with another plugin.
pub fn encode_auth_switch(out: &mut Vec<u8>, plugin: &str, scramble: &[u8]) {
    out.push(0xfe);
    put_nul_str(out, plugin.as_bytes());
    out.extend_from_slice(scramble);
    out.push(0);
}

/// AuthMoreData: extra plugin data (caching_sha2_password's fast-auth marker).
pub fn encode_auth_more_data(out: &mut Vec<u8>, data: &[u8]) {
    out.push(0x01);
    out.extend_from_slice(data);
}

pub(crate) fn utf8(b: &[u8]) -> Result<String> {
    String::from_utf8(b.to_vec()).map_err(|_| ProtocolError("invalid UTF-8"))
}

/// Connection attributes as the handshake sends them (length-encoded name,
/// value, name, value, ...) as (name, value) pairs; text decoded lossily.
pub fn decode_attributes(raw: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut r = Reader::new(raw);
    while let (Ok(k), Ok(v)) = (r.lenenc_bytes(), r.lenenc_bytes()) {
        out.push((String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned()));
    }
    out
}

/// The first attributes of `raw` that fit in `limit` bytes, whole (as MySQL
/// keeps at most performance_schema_session_connect_attrs_size of them).
pub fn bounded_attributes(raw: &[u8], limit: usize) -> &[u8] {
    let mut r = Reader::new(raw);
    let mut end = 0;
    while let (Ok(_), Ok(_)) = (r.lenenc_bytes(), r.lenenc_bytes()) {
        let at = raw.len() - r.remaining();
        if at > limit {
            break;
        }
        end = at;
    }
    &raw[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_round_trip_all_options() {
        let r = HandshakeResponse {
            capabilities: cap::PROTOCOL_41 | cap::SECURE_CONNECTION | cap::PLUGIN_AUTH | cap::PLUGIN_AUTH_LENENC_CLIENT_DATA | cap::CONNECT_WITH_DB | cap::CONNECT_ATTRS,
            max_packet: 1 << 24,
            charset: 45,
            username: "root".into(),
            auth_response: vec![1; 20],
            database: Some("db1".into()),
            auth_plugin: Some("mysql_native_password".into()),
            attributes_raw: {
                let mut a = Vec::new();
                crate::buf::put_lenenc_bytes(&mut a, b"_client_name");
                crate::buf::put_lenenc_bytes(&mut a, b"test");
                a
            },
        };
        let mut out = Vec::new();
        r.encode(&mut out);
        let back = HandshakeResponse::decode(&out).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.attributes(), vec![("_client_name".to_string(), "test".to_string())]);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for len in 0..64 {
            let junk: Vec<u8> = (0..len).map(|i| (i * 37 + 255) as u8).collect();
            let _ = HandshakeResponse::decode(&junk);
        }
        let mut p = vec![0xff, 0xff, 0xff, 0xff];
        p.extend_from_slice(&[0; 28]);
        p.push(0xfe);
        assert!(HandshakeResponse::decode(&p).is_err());
    }

    #[test]
    fn greeting_decodes_with_mysql_common() {
        use mysql_common::packets::HandshakePacket;
        use mysql_common::proto::MyDeserialize;
        let scramble = *b"0123456789abcdefghij";
        let g =
            Greeting { server_version: "8.0.36-turnstile", connection_id: 42, scramble: &scramble, capabilities: cap::SERVER_DEFAULT, charset: 45, status: 2, auth_plugin: "caching_sha2_password" };
        let mut out = Vec::new();
        g.encode(&mut out);
        let p = HandshakePacket::deserialize((), &mut mysql_common::io::ParseBuf(&out)).unwrap();
        assert_eq!(p.connection_id(), 42);
        assert_eq!(p.server_version_ref(), b"8.0.36-turnstile");
        assert_eq!(p.nonce(), scramble.to_vec());
        assert_eq!(p.auth_plugin_name_ref(), Some(&b"caching_sha2_password"[..]));
        assert_eq!(p.capabilities().bits(), cap::SERVER_DEFAULT);
    }
}
