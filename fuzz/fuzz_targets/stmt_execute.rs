//! Fuzz target: COM_STMT_EXECUTE and its parameter block (crates/wire command).
//!
//! Input: 2 bytes (little-endian) with the statement's parameter count (as
//! COM_STMT_PREPARE found it, at most 1023 here), 1 byte whose bits say which
//! parameters have COM_STMT_SEND_LONG_DATA data, then the command payload
//! (0x17, statement id, flags, iterations, parameter block). Runs what
//! `Session::execute_prepared` runs: `Command::decode`, then
//! `decode_execute_params_into` twice on the same statement state, as a
//! client that sends the types only with the first execute (sysbench) does,
//! and the text rendering of every value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::on_server_stack;
use turnstile_wire::command::{decode_execute_params_into, Command, ParamType};

/// COM_STMT_PREPARE accepts up to 65535 placeholders; beyond 1023 a fuzz input
/// only repeats itself.
const MAX_PARAMS: usize = 1023;

fn check(data: &[u8]) {
    let [lo, hi, long_mask, payload @ ..] = data else {
        return;
    };
    let params = u16::from_le_bytes([*lo, *hi]) as usize % (MAX_PARAMS + 1);
    let Ok(Command::StmtExecute { rest, .. }) = Command::decode(payload, 0) else {
        return;
    };
    let mut types: Vec<ParamType> = Vec::new();
    let mut long_data: Vec<Option<Vec<u8>>> = (0..params).map(|i| (i < 8 && long_mask & (1 << i) != 0).then(|| b"long".to_vec())).collect();
    let mut values = Vec::new();
    for _ in 0..2 {
        if decode_execute_params_into(rest, params, &mut types, &mut long_data, &mut values).is_ok() {
            assert_eq!(values.len(), params);
            assert_eq!(types.len(), params);
            for v in &values {
                let _ = v.to_text();
                let _ = v.to_text_fsp(Some(3));
                let _ = v.as_i64();
                let _ = v.as_f64();
            }
        }
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
