//! Packet framing: a 3-byte payload length, a 1-byte sequence id, the payload.
//!
//! A logical payload of 16 MiB - 1 bytes or more is split into physical packets of
//! 0xffffff bytes followed by a shorter one (possibly empty). The decoder joins them
//! and enforces `max_allowed_packet` as soon as a header announces too much, before
//! buffering the body, so an oversize packet costs no memory.

use crate::consts::MAX_PACKET_PAYLOAD;

/// Why the decoder refused input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The logical payload exceeds `max_allowed_packet` (MySQL error 1153).
    TooLarge,
    /// A continuation packet carried the wrong sequence id.
    OutOfOrder,
}

/// Incremental decoder. Feed it whatever the socket produced; take complete
/// logical payloads out. Half a packet simply waits for more bytes.
#[derive(Debug)]
pub struct PacketDecoder {
    buf: Vec<u8>,
    /// Start of undecoded bytes in `buf`.
    start: usize,
    max_payload: usize,
}

impl PacketDecoder {
    pub fn new(max_payload: usize) -> Self {
        PacketDecoder { buf: Vec::new(), start: 0, max_payload }
    }

    pub fn set_max_payload(&mut self, max_payload: usize) {
        self.max_payload = max_payload;
    }

    pub fn feed(&mut self, data: &[u8]) {
        self.compact();
        self.buf.extend_from_slice(data);
    }

    /// Spare room to read into directly (avoids a copy); call `commit(n)` after.
    pub fn spare(&mut self, at_least: usize) -> &mut [u8] {
        self.compact();
        let len = self.buf.len();
        self.buf.resize(len + at_least, 0);
        &mut self.buf[len..]
    }

    /// Keep `n` of the bytes most recently handed out by `spare`.
    pub fn commit(&mut self, spare_len: usize, n: usize) {
        debug_assert!(n <= spare_len && spare_len <= self.buf.len() - self.start, "commit {} of {} spare bytes", n, spare_len);
        let keep = self.buf.len() - spare_len + n;
        self.buf.truncate(keep);
    }

    /// Bytes received but not yet returned as a payload.
    pub fn buffered(&self) -> usize {
        debug_assert!(self.start <= self.buf.len());
        self.buf.len() - self.start
    }

    /// Take the bytes received and not yet decoded (what follows a packet
    /// after which the stream changes, as an SSLRequest's TLS handshake).
    pub fn take_buffered(&mut self) -> Vec<u8> {
        let rest = self.buf[self.start..].to_vec();
        self.buf.clear();
        self.start = 0;
        rest
    }

    /// Capacity of the internal buffer.
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// When nothing is buffered, exchange the (empty) internal buffer with
    /// `other` (cleared first) and return true; otherwise change nothing. Lets
    /// a caller lend the decoder a reusable buffer and take it back when idle.
    pub fn swap_idle_buffer(&mut self, other: &mut Vec<u8>) -> bool {
        if self.buffered() != 0 {
            return false;
        }
        self.buf.clear();
        self.start = 0;
        other.clear();
        std::mem::swap(&mut self.buf, other);
        true
    }

    /// Release buffer memory when idle (keeps at most `keep` bytes of capacity).
    pub fn shrink(&mut self, keep: usize) {
        self.compact();
        if self.buf.capacity() > keep && self.buf.len() <= keep {
            self.buf.shrink_to(keep);
        }
    }

    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }

    /// Decode the next complete logical payload into `out` (cleared first).
    /// Returns the sequence id of its last physical packet, or `None` when more
    /// bytes are needed.
    pub fn next(&mut self, out: &mut Vec<u8>) -> Result<Option<u8>, FrameError> {
        // First pass: check that the whole logical packet is here, without copying.
        let data = &self.buf[self.start..];
        let mut pos = 0usize;
        let mut total = 0usize;
        let mut first_seq: Option<u8> = None;
        let last_seq;
        loop {
            if data.len() < pos + 4 {
                return Ok(None);
            }
            let len = u32::from_le_bytes([data[pos], data[pos + 1], data[pos + 2], 0]) as usize;
            let seq = data[pos + 3];
            match first_seq {
                None => first_seq = Some(seq),
                Some(f) => {
                    let expected = f.wrapping_add(((pos / (MAX_PACKET_PAYLOAD + 4)) & 0xff) as u8);
                    if seq != expected {
                        return Err(FrameError::OutOfOrder);
                    }
                }
            }
            total += len;
            if total > self.max_payload {
                return Err(FrameError::TooLarge);
            }
            if data.len() < pos + 4 + len {
                return Ok(None);
            }
            pos += 4 + len;
            if len < MAX_PACKET_PAYLOAD {
                last_seq = seq;
                break;
            }
        }
        // Second pass: copy payload bytes out.
        out.clear();
        out.reserve(total);
        let mut p = 0usize;
        while p < pos {
            let len = u32::from_le_bytes([data[p], data[p + 1], data[p + 2], 0]) as usize;
            out.extend_from_slice(&data[p + 4..p + 4 + len]);
            p += 4 + len;
        }
        self.start += pos;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        Ok(Some(last_seq))
    }
}

/// Append one logical payload as framed packets, advancing `seq`.
pub fn write_packet(out: &mut Vec<u8>, seq: &mut u8, payload: &[u8]) {
    let mut rest = payload;
    loop {
        let n = rest.len().min(MAX_PACKET_PAYLOAD);
        out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
        out.push(*seq);
        *seq = seq.wrapping_add(1);
        out.extend_from_slice(&rest[..n]);
        rest = &rest[n..];
        if n < MAX_PACKET_PAYLOAD {
            break;
        }
    }
}

/// Start a packet whose payload is written straight into `out`; returns the
/// header position to pass to `end_packet`.
pub fn begin_packet(out: &mut Vec<u8>) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0, 0, 0, 0]);
    start
}

/// Finish a packet begun with `begin_packet`, splitting it if it is 16 MiB or more.
pub fn end_packet(out: &mut Vec<u8>, start: usize, seq: &mut u8) {
    debug_assert!(start + 4 <= out.len(), "end_packet without begin_packet");
    let len = out.len() - start - 4;
    if len < MAX_PACKET_PAYLOAD {
        out[start..start + 3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
        out[start + 3] = *seq;
        *seq = seq.wrapping_add(1);
    } else {
        let payload = out.split_off(start + 4);
        out.truncate(start);
        write_packet(out, seq, &payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_round_trip_and_partial_input() {
        let mut wire = Vec::new();
        let mut seq = 0;
        write_packet(&mut wire, &mut seq, b"hello");
        write_packet(&mut wire, &mut seq, b"");
        assert_eq!(seq, 2);
        let mut d = PacketDecoder::new(1 << 20);
        let mut out = Vec::new();
        d.feed(&wire[..3]);
        assert_eq!(d.next(&mut out), Ok(None));
        d.feed(&wire[3..]);
        assert_eq!(d.next(&mut out), Ok(Some(0)));
        assert_eq!(out, b"hello");
        assert_eq!(d.next(&mut out), Ok(Some(1)));
        assert!(out.is_empty());
        assert_eq!(d.next(&mut out), Ok(None));
    }

    #[test]
    fn sixteen_mib_split_and_join() {
        for size in [MAX_PACKET_PAYLOAD - 1, MAX_PACKET_PAYLOAD, MAX_PACKET_PAYLOAD + 10, 2 * MAX_PACKET_PAYLOAD] {
            let payload: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            let mut wire = Vec::new();
            let mut seq = 7;
            write_packet(&mut wire, &mut seq, &payload);
            let physical = size / MAX_PACKET_PAYLOAD + 1;
            assert_eq!(seq, 7 + physical as u8);
            assert_eq!(wire.len(), size + 4 * physical);
            let mut d = PacketDecoder::new(64 << 20);
            d.feed(&wire);
            let mut out = Vec::new();
            assert_eq!(d.next(&mut out), Ok(Some(7 + physical as u8 - 1)));
            assert!(out == payload);
        }
    }

    #[test]
    fn begin_end_packet_matches_write_packet() {
        let mut a = Vec::new();
        let mut sa = 3;
        write_packet(&mut a, &mut sa, b"abc");
        let mut b = Vec::new();
        let mut sb = 3;
        let s = begin_packet(&mut b);
        b.extend_from_slice(b"abc");
        end_packet(&mut b, s, &mut sb);
        assert_eq!(a, b);
        assert_eq!(sa, sb);
    }

    #[test]
    fn too_large_detected_from_header() {
        let mut d = PacketDecoder::new(100);
        d.feed(&[200, 0, 0, 0]);
        let mut out = Vec::new();
        assert_eq!(d.next(&mut out), Err(FrameError::TooLarge));
    }

    #[test]
    fn out_of_order_continuation_rejected() {
        let mut wire = vec![0xff, 0xff, 0xff, 0];
        wire.extend(std::iter::repeat_n(0, MAX_PACKET_PAYLOAD));
        wire.extend_from_slice(&[1, 0, 0, 5, 9]);
        let mut d = PacketDecoder::new(64 << 20);
        d.feed(&wire);
        let mut out = Vec::new();
        assert_eq!(d.next(&mut out), Err(FrameError::OutOfOrder));
    }
}
