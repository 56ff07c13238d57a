#!/usr/bin/env python3
"""Turn recorded client traffic into seed files, one directory per fuzz target.

    python3 fuzz/tools/make_corpus.py REC_DIR OUT_DIR

REC_DIR holds fuzz/tools/record.py's recordings. For each connection the
client's and the server's bytes are split into packets (4-byte header) and
paired in arrival order, and written as the targets expect their input:

- packet_decoder/: the client's byte stream (its first 4 KiB), after the two
  bytes the target reads first (max_allowed_packet choice, read-size seed);
- handshake_response/: the HandshakeResponse41 payload (sequence id 1);
- stmt_execute/: every COM_STMT_EXECUTE payload, after its statement's
  parameter count (from the server's COM_STMT_PREPARE OK, u16 little-endian)
  and a byte marking parameters that got COM_STMT_SEND_LONG_DATA;
- lexer/, rewrite/, sql_expr/: the SQL texts of COM_QUERY and
  COM_STMT_PREPARE (rewrite: the statements that reach the rewriter; sql_expr:
  SELECT without FROM and SET).

Files are named by content hash (as libFuzzer names corpus entries), so equal
seeds collapse. The committed corpus is this output after `-merge=1`, which
keeps only the seeds that add coverage (docs/fuzzing.md).
"""

from __future__ import annotations

import hashlib
import re
import struct
import sys
from pathlib import Path

COM_QUERY, COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA = 0x03, 0x16, 0x17, 0x18
STREAM_SEED_BYTES = 4096
# packet_decoder's first byte picks max_allowed_packet: index 5 is 64 MiB,
# 3 is 4096 bytes (so a recorded bulk insert meets TooLarge).
DECODER_PICKS = (5, 3)
DML = re.compile(r"^[\s(]*(SELECT|WITH|TABLE|INSERT|REPLACE|UPDATE|DELETE)\b", re.I)
SESSION_EXPR = re.compile(r"^\s*(SELECT\b(?!.*\bFROM\b)|SET\b)", re.I | re.S)


def records(path: Path):
    data = path.read_bytes()
    pos = 0
    while pos < len(data):
        tag = data[pos : pos + 1]
        (n,) = struct.unpack_from("<I", data, pos + 1)
        yield tag, data[pos + 5 : pos + 5 + n]
        pos += 5 + n


class Framer:
    """Split one direction's bytes into (seq, payload), joining 16 MiB splits."""

    def __init__(self):
        self.buf = b""
        self.partial = b""

    def feed(self, data: bytes):
        self.buf += data
        while len(self.buf) >= 4:
            n = int.from_bytes(self.buf[:3], "little")
            if len(self.buf) < 4 + n:
                return
            seq, body, self.buf = self.buf[3], self.buf[4 : 4 + n], self.buf[4 + n :]
            self.partial += body
            if n < 0xFFFFFF:
                payload, self.partial = self.partial, b""
                yield seq, payload


def save(out: Path, target: str, content: bytes, written: dict) -> None:
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha1(content).hexdigest()
    if not (d / name).exists():
        (d / name).write_bytes(content)
        written[target] = written.get(target, 0) + 1


def connection(path: Path, out: Path, written: dict) -> None:
    client, server = Framer(), Framer()
    stream = b""
    params = {}  # statement id -> parameter count
    long_data = {}  # statement id -> bitmask of parameters with long data
    pending_prepare = False
    handshake_seen = False
    for tag, data in records(path):
        if tag == b"C":
            stream += data
            for seq, p in client.feed(data):
                if seq == 1 and not handshake_seen:
                    handshake_seen = True
                    save(out, "handshake_response", p, written)
                if seq != 0 or not p:
                    continue
                cmd = p[0]
                if cmd in (COM_QUERY, COM_STMT_PREPARE):
                    sql = p[1:]
                    save(out, "lexer", sql, written)
                    text = sql.decode("utf-8", "replace")
                    if DML.match(text):
                        save(out, "rewrite", sql, written)
                    if SESSION_EXPR.match(text):
                        save(out, "sql_expr", sql, written)
                    pending_prepare = cmd == COM_STMT_PREPARE
                elif cmd == COM_STMT_SEND_LONG_DATA and len(p) >= 7:
                    stmt, param = struct.unpack_from("<IH", p, 1)
                    if param < 8:
                        long_data[stmt] = long_data.get(stmt, 0) | (1 << param)
                elif cmd == COM_STMT_EXECUTE and len(p) >= 5:
                    (stmt,) = struct.unpack_from("<I", p, 1)
                    if stmt in params:
                        save(out, "stmt_execute", struct.pack("<HB", params[stmt], long_data.pop(stmt, 0)) + p, written)
        else:
            for seq, p in server.feed(data):
                if pending_prepare and seq == 1:
                    pending_prepare = False
                    if p[:1] == b"\x00" and len(p) >= 9:
                        stmt, _cols, nparams = struct.unpack_from("<IHH", p, 1)
                        params[stmt] = nparams
    for pick in DECODER_PICKS:
        save(out, "packet_decoder", bytes([pick, len(stream) & 0xFF]) + stream[:STREAM_SEED_BYTES], written)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    rec, out = Path(sys.argv[1]), Path(sys.argv[2])
    written: dict = {}
    for path in sorted(rec.glob("*.rec")):
        connection(path, out, written)
    for target, n in sorted(written.items()):
        print(f"{target}: {n} seeds", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
