"""Byte-exact results over both protocols, on top of rawproto's connection.

rawproto decodes row values as UTF-8 (with replacement) and keeps only a
column's name and type; tests of binary data need the bytes exactly as sent
and the whole column definition (character set, flags, length). This module
adds, for one `RawConnection`:

* `query(sql)`: COM_QUERY, text result rows as bytes;
* `prepare(sql)`, `execute(stmt, params)`, `send_long_data(...)`, `close(stmt)`:
  COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / CLOSE, binary result rows
  decoded by column type (strings and blobs as bytes, integers as int);
* `execute_cursor(stmt)`, `fetch(stmt_id, n, cols)`, `reset(stmt)`: an execute
  that opens a cursor (CURSOR_TYPE_READ_ONLY), COM_STMT_FETCH, COM_STMT_RESET;
* `Col`: every field of a column definition.

Parameters are given as (MySQL type code, value): bytes for the string and
blob types, int for the integer types (`T_LONGLONG | UNSIGNED` for an
unsigned one), None for NULL. It speaks the classic
EOF framing (CLIENT_DEPRECATE_EOF is not requested), which MariaDB and
Turnstile both support, so the same calls run against either.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

from helpers import rawproto

COM_STMT_PREPARE = 0x16
COM_STMT_EXECUTE = 0x17
COM_STMT_SEND_LONG_DATA = 0x18
COM_STMT_CLOSE = 0x19
COM_STMT_RESET = 0x1A
COM_STMT_FETCH = 0x1C

CURSOR_TYPE_READ_ONLY = 1
SERVER_STATUS_CURSOR_EXISTS = 0x0040
SERVER_STATUS_LAST_ROW_SENT = 0x0080

# Column types (include/mysql_com.h)
T_TINY, T_SHORT, T_LONG, T_FLOAT, T_DOUBLE, T_NULL = 1, 2, 3, 4, 5, 6
T_TIMESTAMP, T_LONGLONG, T_INT24, T_DATE, T_TIME, T_DATETIME, T_YEAR = 7, 8, 9, 10, 11, 12, 13
T_BIT, T_NEWDECIMAL = 16, 246
T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_BLOB, T_VAR_STRING, T_STRING = 249, 250, 251, 252, 253, 254
STRING_TYPES = {T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_BLOB, T_VAR_STRING, T_STRING, T_NEWDECIMAL, 15, 245, 247, 248, T_BIT}

# Or'ed into a parameter's type: sent with the unsigned flag (LONGLONG only).
UNSIGNED = 0x8000

BINARY_FLAG = 128
BINARY_CHARSET = 63


@dataclass
class Col:
    name: bytes
    type: int
    charset: int
    length: int
    flags: int
    decimals: int
    org_name: bytes = b""
    table: bytes = b""

    @property
    def is_binary_string(self) -> bool:
        """A binary string column as MySQL describes one: charset 63 and BINARY."""
        return self.charset == BINARY_CHARSET and bool(self.flags & BINARY_FLAG) and self.type in STRING_TYPES


@dataclass
class Rows:
    cols: List[Col]
    rows: List[Tuple[Union[bytes, int, float, None], ...]]


@dataclass
class Cursor:
    """What COM_STMT_EXECUTE with a cursor answers: the columns, no rows."""

    cols: List[Col]
    status: int


@dataclass
class Fetched:
    rows: List[Tuple[Union[bytes, int, float, None], ...]]
    status: int


@dataclass
class Stmt:
    id: int
    nparams: int
    cols: List[Col]


def _col(payload: bytes) -> Col:
    r = rawproto.Reader(payload)
    r.lenenc_str()  # catalog
    r.lenenc_str()  # schema
    table = r.lenenc_str() or b""
    r.lenenc_str()  # org_table
    name = r.lenenc_str() or b""
    org_name = r.lenenc_str() or b""
    r.lenenc_int()
    charset = r.u16()
    length = r.u32()
    ctype = r.u8()
    flags = r.u16()
    decimals = r.u8()
    return Col(name, ctype, charset, length, flags, decimals, org_name, table)


def _is_eof(p: bytes) -> bool:
    return p[:1] == b"\xfe" and len(p) < 9


def _eof_status(p: bytes) -> int:
    """The status flags of a classic EOF packet (warnings, then status)."""
    return struct.unpack_from("<H", p, 3)[0]


class ByteClient:
    def __init__(self, conn: rawproto.RawConnection):
        self.c = conn

    def close_connection(self) -> None:
        self.c.close()

    def _columns(self, n: int) -> List[Col]:
        cols = [_col(self.c.read_packet()) for _ in range(n)]
        if n and not _is_eof(self.c.read_packet()):
            raise rawproto.ProtocolError("expected EOF after column definitions")
        return cols

    def _head(self) -> Union[rawproto.OkPacket, int]:
        pkt = self.c.read_packet()
        if pkt[:1] == b"\x00":
            return rawproto.parse_ok(pkt)
        if pkt[:1] == b"\xff":
            raise rawproto.parse_err(pkt)
        return rawproto.Reader(pkt).lenenc_int()

    def query(self, sql: Union[str, bytes]) -> Union[rawproto.OkPacket, Rows]:
        """COM_QUERY of one statement; text rows as bytes (None for NULL)."""
        self.c.command(rawproto.COM_QUERY, sql.encode() if isinstance(sql, str) else sql)
        return self._result(_text_row)

    def prepare(self, sql: Union[str, bytes]) -> Stmt:
        self.c.command(COM_STMT_PREPARE, sql.encode() if isinstance(sql, str) else sql)
        pkt = self.c.read_packet()
        if pkt[:1] == b"\xff":
            raise rawproto.parse_err(pkt)
        stmt_id, ncols, nparams = struct.unpack("<IHH", pkt[1:9])
        self._columns(nparams)
        cols = self._columns(ncols)
        return Stmt(stmt_id, nparams, cols)

    def send_long_data(self, stmt: Stmt, param: int, data: bytes) -> None:
        """COM_STMT_SEND_LONG_DATA (no reply)."""
        self.c.command(COM_STMT_SEND_LONG_DATA, struct.pack("<IH", stmt.id, param) + data)

    def close(self, stmt: Stmt) -> None:
        self.c.command(COM_STMT_CLOSE, struct.pack("<I", stmt.id))

    def reset(self, stmt: Stmt) -> rawproto.OkPacket:
        """COM_STMT_RESET (closes the statement's cursor)."""
        self.c.command(COM_STMT_RESET, struct.pack("<I", stmt.id))
        return self._head()

    def execute_cursor(self, stmt: Stmt, params: Sequence[Tuple[int, object]] = (), flags: int = CURSOR_TYPE_READ_ONLY) -> Union[rawproto.OkPacket, Cursor, Rows]:
        """COM_STMT_EXECUTE with cursor flags: a Cursor when the server opened
        one (the EOF after the columns says CURSOR_EXISTS), else what a plain
        execute answers."""
        self._send_execute(stmt, params, flags)
        head = self._head()
        if isinstance(head, rawproto.OkPacket):
            return head
        cols = [_col(self.c.read_packet()) for _ in range(head)]
        eof = self.c.read_packet()
        if not _is_eof(eof):
            raise rawproto.ProtocolError(f"expected EOF after column definitions, got {eof!r}")
        status = _eof_status(eof)
        if status & SERVER_STATUS_CURSOR_EXISTS:
            return Cursor(cols, status)
        rows = []
        while True:
            pkt = self.c.read_packet()
            if _is_eof(pkt):
                return Rows(cols, rows)
            if pkt[:1] == b"\xff":
                raise rawproto.parse_err(pkt)
            rows.append(_binary_row(pkt, cols))

    def fetch(self, stmt_id: int, n: int, cols: List[Col]) -> Fetched:
        """COM_STMT_FETCH of `n` rows of `stmt_id`'s cursor (columns `cols`)."""
        self.c.command(COM_STMT_FETCH, struct.pack("<II", stmt_id, n))
        rows = []
        while True:
            pkt = self.c.read_packet()
            if pkt[:1] == b"\xff":
                raise rawproto.parse_err(pkt)
            if _is_eof(pkt):
                return Fetched(rows, _eof_status(pkt))
            rows.append(_binary_row(pkt, cols))

    def execute(self, stmt: Stmt, params: Sequence[Tuple[int, object]] = ()) -> Union[rawproto.OkPacket, Rows]:
        """COM_STMT_EXECUTE with (type, value) parameters; binary rows decoded."""
        self._send_execute(stmt, params, 0)
        return self._result(_binary_row)

    def _send_execute(self, stmt: Stmt, params: Sequence[Tuple[int, object]], flags: int) -> None:
        assert len(params) == stmt.nparams, (len(params), stmt.nparams)
        payload = struct.pack("<IBI", stmt.id, flags, 1)
        if params:
            bitmap = bytearray((len(params) + 7) // 8)
            for i, (_, v) in enumerate(params):
                if v is None:
                    bitmap[i // 8] |= 1 << (i % 8)
            payload += bytes(bitmap) + b"\x01"
            payload += b"".join(struct.pack("<BB", t & 0xFF, 0x80 if t & UNSIGNED else 0) for t, _ in params)
            payload += b"".join(_encode_param(t, v) for t, v in params if v is not None)
        self.c.command(COM_STMT_EXECUTE, payload)

    def _result(self, decode) -> Union[rawproto.OkPacket, Rows]:
        """An OK, or a result set whose rows `decode(packet, columns)` reads."""
        head = self._head()
        if isinstance(head, rawproto.OkPacket):
            return head
        cols = self._columns(head)
        rows = []
        while True:
            pkt = self.c.read_packet()
            if _is_eof(pkt):
                return Rows(cols, rows)
            if pkt[:1] == b"\xff":
                raise rawproto.parse_err(pkt)
            rows.append(decode(pkt, cols))


def _encode_param(t: int, v: object) -> bytes:
    if t == T_LONGLONG | UNSIGNED:
        return struct.pack("<Q", v)
    if t in (T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_BLOB, T_VAR_STRING, T_STRING):
        assert isinstance(v, bytes)
        return rawproto.lenenc_int(len(v)) + v
    if t == T_LONGLONG:
        return struct.pack("<q", v)
    if t == T_LONG:
        return struct.pack("<i", v)
    if t == T_DOUBLE:
        return struct.pack("<d", v)
    raise ValueError(f"parameter type {t} not supported by this helper")


def _text_row(pkt: bytes, cols) -> tuple:
    r = rawproto.Reader(pkt)
    return tuple(r.lenenc_str() for _ in cols)


def _binary_row(pkt: bytes, cols: List[Col]) -> tuple:
    r = rawproto.Reader(pkt)
    assert r.u8() == 0
    nulls = r.take((len(cols) + 7 + 2) // 8)
    out: List[Optional[object]] = []
    for i, c in enumerate(cols):
        bit = i + 2
        if nulls[bit // 8] & (1 << (bit % 8)):
            out.append(None)
            continue
        unsigned = bool(c.flags & 32)
        if c.type in STRING_TYPES:
            out.append(r.lenenc_str())
        elif c.type == T_LONGLONG:
            out.append(struct.unpack("<Q" if unsigned else "<q", r.take(8))[0])
        elif c.type in (T_LONG, T_INT24):
            out.append(struct.unpack("<I" if unsigned else "<i", r.take(4))[0])
        elif c.type in (T_SHORT, T_YEAR):
            out.append(struct.unpack("<H" if unsigned else "<h", r.take(2))[0])
        elif c.type == T_TINY:
            out.append(struct.unpack("<B" if unsigned else "<b", r.take(1))[0])
        elif c.type == T_DOUBLE:
            out.append(struct.unpack("<d", r.take(8))[0])
        elif c.type == T_FLOAT:
            out.append(struct.unpack("<f", r.take(4))[0])
        elif c.type in (T_DATE, T_DATETIME, T_TIMESTAMP, T_TIME):
            out.append(r.take(r.u8()))
        elif c.type == T_NULL:
            out.append(None)
        else:
            raise rawproto.ProtocolError(f"column type {c.type} not supported by this helper")
    return tuple(out)


def connect(port: int, user: str, password: str, db: Optional[str] = None, host: str = "127.0.0.1") -> ByteClient:
    c = rawproto.RawConnection.tcp(port, host=host, timeout=60.0)
    try:
        c.handshake(user, password, db=db)
    except BaseException:
        c.close()
        raise
    return ByteClient(c)
