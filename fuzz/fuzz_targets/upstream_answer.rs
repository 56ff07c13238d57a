//! Fuzz target: what the upstream engine reads (crates/upstream).
//!
//! Input: the first byte picks the client's capabilities (CLIENT_DEPRECATE_EOF
//! or not, a field list or a query, whether the client may be asked for a
//! LOCAL INFILE file: its request ends the client's file at once, as an empty
//! file would, and the answer goes on) and the command (an execute that may
//! open a cursor, a cursor's fetch, or a COM_STMT_PREPARE); the rest is a backend's answer as
//! packets, each a 2-byte little-endian length and that many bytes. They go
//! through `Forward::feed` (the pass-through state machine: OK packets with
//! session-state blocks, result sets, errors, several results) until the
//! answer ends or is refused; the OK parser and the statement classifier
//! also read the whole input. Nothing may panic, and an answer that ended
//! wrote whole packets.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::on_server_stack;
use turnstile_upstream::{classify, forward::Forward, ok_packet};

fn check(data: &[u8]) {
    let _ = classify::classify(data);
    let _ = ok_packet::parse(data);
    let Some((&mode, mut rest)) = data.split_first() else { return };
    let mut fwd = Forward::new(mode & 1 != 0, 2, 1).local_files(mode & 4 != 0);
    if mode & 2 != 0 {
        fwd = fwd.field_list();
    }
    if mode & 8 != 0 {
        fwd = fwd.cursor_open();
    }
    if mode & 16 != 0 {
        fwd = fwd.fetch();
    }
    if mode & 32 != 0 {
        fwd = fwd.prepare(7);
    }
    let mut out = Vec::new();
    while rest.len() >= 2 && !fwd.is_done() {
        let n = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        let (p, tail) = rest[2..].split_at(n.min(rest.len() - 2));
        rest = tail;
        if fwd.feed(p, &mut out).is_err() {
            return;
        }
        if fwd.in_file() {
            let next = fwd.seq().wrapping_add(1);
            fwd.file_sent(next);
        }
    }
    if fwd.is_done() {
        // Whole packets only: walk the headers.
        let mut at = 0;
        while at < out.len() {
            assert!(at + 4 <= out.len(), "a packet header cut short");
            let len = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], 0]) as usize;
            at += 4 + len;
        }
        assert_eq!(at, out.len(), "a packet cut short");
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
