//! Primitive encoders and decoders: fixed-width little-endian integers,
//! length-encoded integers and strings, NUL-terminated strings.

use crate::{ProtocolError, Result};

/// A cursor over a received payload. Every read is bounds-checked and returns
/// `ProtocolError` instead of panicking.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn rest(&mut self) -> &'a [u8] {
        let r = &self.data[self.pos..];
        self.pos = self.data.len();
        r
    }

    pub fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(ProtocolError("truncated"));
        }
        let r = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(r)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u24(&mut self) -> Result<u32> {
        let b = self.take(3)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    pub fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-encoded integer. `None` for the NULL marker 0xfb.
    pub fn lenenc_int(&mut self) -> Result<Option<u64>> {
        match self.u8()? {
            0xfb => Ok(None),
            0xfc => Ok(Some(self.u16()? as u64)),
            0xfd => Ok(Some(self.u24()? as u64)),
            0xfe => Ok(Some(self.u64()?)),
            0xff => Err(ProtocolError("invalid length-encoded integer")),
            b => Ok(Some(b as u64)),
        }
    }

    pub fn lenenc_bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.lenenc_int()?.ok_or(ProtocolError("unexpected NULL"))?;
        if n > self.remaining() as u64 {
            return Err(ProtocolError("length-encoded string past end"));
        }
        self.take(n as usize)
    }

    /// Bytes up to a NUL (consumed, not returned). A missing NUL takes the rest.
    pub fn nul_bytes(&mut self) -> &'a [u8] {
        let rest = &self.data[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(i) => {
                self.pos += i + 1;
                &rest[..i]
            }
            None => {
                self.pos = self.data.len();
                rest
            }
        }
    }
}

pub fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u24(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes()[..3]);
}

pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xfc);
        put_u16(out, v as u16);
    } else if v < 1 << 24 {
        out.push(0xfd);
        put_u24(out, v as u32);
    } else {
        out.push(0xfe);
        put_u64(out, v);
    }
}

pub fn put_lenenc_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_lenenc_int(out, b.len() as u64);
    out.extend_from_slice(b);
}

pub fn put_nul_str(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(b);
    out.push(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenenc_round_trip() {
        for v in [0u64, 250, 251, 65535, 65536, (1 << 24) - 1, 1 << 24, u64::MAX] {
            let mut out = Vec::new();
            put_lenenc_int(&mut out, v);
            let mut r = Reader::new(&out);
            assert_eq!(r.lenenc_int().unwrap(), Some(v));
            assert!(r.is_empty());
        }
    }

    #[test]
    fn truncated_reads_fail_cleanly() {
        let mut r = Reader::new(&[0xfe, 1, 2]);
        assert!(r.lenenc_int().is_err());
        let mut r = Reader::new(&[5, b'a']);
        assert!(r.lenenc_bytes().is_err());
    }
}
