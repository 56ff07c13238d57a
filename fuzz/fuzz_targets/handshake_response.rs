//! Fuzz target: the connection phase's client packets (crates/wire handshake).
//!
//! Input: a HandshakeResponse41 payload, as the server receives it after its
//! greeting. Runs what `Session::on_handshake` runs on it: the SSLRequest
//! check, `HandshakeResponse::decode`, the attributes and both token checks;
//! a decoded response re-encoded decodes to itself. The same bytes, after the
//! 4-byte capabilities, are also decoded as a COM_CHANGE_USER body with those
//! capabilities (the same fields, in the command phase).
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::on_server_stack;
use turnstile_wire::auth;
use turnstile_wire::command::Command;
use turnstile_wire::consts::{cap, com};
use turnstile_wire::handshake::HandshakeResponse;

const SCRAMBLE: &[u8; 20] = b"0123456789abcdefghij";

fn check(data: &[u8]) {
    let _ = HandshakeResponse::is_ssl_request(data);
    if let Ok(r) = HandshakeResponse::decode(data) {
        let _ = r.attributes();
        let _ = auth::verify_native(Some(&auth::native_stored(b"pw")), SCRAMBLE, &r.auth_response);
        let _ = auth::verify_sha2(Some(&auth::sha2_stored(b"pw")), SCRAMBLE, &r.auth_response);
        // `encode` writes the token length-prefixed; decode reads it so only
        // with one of these two capabilities.
        let prefixed = r.capabilities & (cap::SECURE_CONNECTION | cap::PLUGIN_AUTH_LENENC_CLIENT_DATA) != 0;
        let fits = r.capabilities & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 || r.auth_response.len() < 256;
        if prefixed && fits {
            let mut again = Vec::new();
            r.encode(&mut again);
            assert_eq!(HandshakeResponse::decode(&again).as_ref(), Ok(&r), "re-encoded handshake response differs");
        }
    }
    if data.len() >= 4 {
        let caps = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
        let mut payload = vec![com::CHANGE_USER];
        payload.extend_from_slice(&data[4..]);
        let _ = Command::decode(&payload, caps);
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
