//! turnstile-wire: the MySQL client/server protocol, sans-I/O.
//!
//! Bytes in, bytes out. Nothing here touches a socket, a thread or a clock, so the
//! same code serves the thread-per-connection scheduler, the pool-of-threads
//! scheduler, unit tests and fuzzers. Modules:
//! - `consts`: capability flags, status flags, command bytes, column types.
//! - `buf`: little-endian and length-encoded readers/writers.
//! - `packet`: framing (4-byte header, sequence ids, 16 MiB split and join).
//! - `handshake`: protocol v10 greeting, HandshakeResponse41, AuthSwitchRequest.
//! - `auth`: mysql_native_password and caching_sha2_password scrambles.
//! - `sha_crypt`: caching_sha2_password's salted stored form ($A$005$...).
//! - `response`: OK / ERR / EOF, column definitions, text and binary rows.
//! - `command`: decoding of client commands, including COM_STMT_EXECUTE parameters.
//! - `value`: the value type shared by rows and statement parameters.

pub mod auth;
pub mod buf;
pub mod command;
pub mod consts;
pub mod handshake;
pub mod packet;
pub mod response;
pub mod sha_crypt;
pub mod value;

/// A protocol-level decoding failure: the peer sent something malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError(pub &'static str);

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed packet: {}", self.0)
    }
}

impl std::error::Error for ProtocolError {}

pub type Result<T> = std::result::Result<T, ProtocolError>;
