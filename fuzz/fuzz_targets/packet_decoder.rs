//! Fuzz target: packet framing (crates/wire PacketDecoder).
//!
//! Input: byte 0 picks `max_allowed_packet`, byte 1 seeds how the stream is cut
//! into reads, the rest is what a client sent. The stream is decoded twice, fed
//! whole and fed in pieces through `feed` and `spare`/`commit` (with `shrink`
//! and `swap_idle_buffer` between reads, as the schedulers do); both must give
//! the same payloads and the same error, since a decoder must not depend on how
//! bytes arrive. Each payload re-encoded with `write_packet` decodes to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::on_server_stack;
use turnstile_wire::packet::{write_packet, FrameError, PacketDecoder};

/// Limits a decoder runs with: tiny ones reach TooLarge with short inputs;
/// 64 KiB is the handshake limit, 64 MiB the default max_allowed_packet.
const MAX_PAYLOADS: [usize; 6] = [0, 3, 100, 4096, 64 * 1024, 64 << 20];

#[derive(Debug, PartialEq)]
enum Item {
    Payload(Vec<u8>, u8),
    Error(FrameError),
}

/// Take every complete payload out; stop at the first error (the server
/// closes the connection there).
fn drain(d: &mut PacketDecoder, items: &mut Vec<Item>, buf: &mut Vec<u8>) -> bool {
    loop {
        match d.next(buf) {
            Ok(Some(seq)) => items.push(Item::Payload(buf.clone(), seq)),
            Ok(None) => return true,
            Err(e) => {
                items.push(Item::Error(e));
                return false;
            }
        }
    }
}

fn whole(max: usize, stream: &[u8]) -> Vec<Item> {
    let mut d = PacketDecoder::new(max);
    let (mut items, mut buf) = (Vec::new(), Vec::new());
    d.feed(stream);
    drain(&mut d, &mut items, &mut buf);
    items
}

fn pieces(max: usize, mut seed: u32, mut stream: &[u8]) -> Vec<Item> {
    let mut d = PacketDecoder::new(max);
    let (mut items, mut buf, mut idle) = (Vec::new(), Vec::new(), Vec::new());
    while !stream.is_empty() {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let n = ((seed >> 16) as usize % 37 + 1).min(stream.len());
        if seed & 1 == 0 {
            d.feed(&stream[..n]);
        } else {
            let room = n + (seed >> 8) as usize % 16;
            let spare = d.spare(room);
            assert_eq!(spare.len(), room);
            spare[..n].copy_from_slice(&stream[..n]);
            d.commit(room, n);
        }
        stream = &stream[n..];
        if !drain(&mut d, &mut items, &mut buf) {
            return items;
        }
        if seed & 2 != 0 {
            d.shrink(16);
        }
        if seed & 4 != 0 && d.swap_idle_buffer(&mut idle) {
            assert_eq!(d.buffered(), 0);
        }
    }
    items
}

fn check(data: &[u8]) {
    let [pick, seed, stream @ ..] = data else {
        return;
    };
    let max = MAX_PAYLOADS[*pick as usize % MAX_PAYLOADS.len()];
    let expected = whole(max, stream);
    assert_eq!(pieces(max, *seed as u32, stream), expected, "decoding depends on how the bytes arrive");
    for item in &expected {
        if let Item::Payload(p, seq) = item {
            let mut framed = Vec::new();
            let mut s = *seq;
            write_packet(&mut framed, &mut s, p);
            let mut d = PacketDecoder::new(max);
            d.feed(&framed);
            let mut out = Vec::new();
            assert_eq!(d.next(&mut out), Ok(Some(*seq)));
            assert_eq!(&out, p);
            assert_eq!(d.buffered(), 0);
        }
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
