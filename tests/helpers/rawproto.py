"""A deliberately small MySQL client/server protocol implementation.

PyMySQL has no API for COM_CHANGE_USER, COM_RESET_CONNECTION or for sending
arbitrary bytes, so the tests that need those speak the protocol directly
through this module.  It implements:

* reading/writing packets (including the 0xffffff continuation rule),
* parsing the initial handshake (protocol 10),
* HandshakeResponse41 with mysql_native_password and caching_sha2_password
  (fast path, full path over the unix socket in clear text, full path over
  TCP with the server's RSA public key), including AuthSwitchRequest,
* COM_QUERY with text result sets (classic EOF framing; CLIENT_DEPRECATE_EOF
  is never requested), multi-result sets,
* COM_PING, COM_QUIT, COM_INIT_DB, COM_STATISTICS, COM_RESET_CONNECTION,
  COM_CHANGE_USER and arbitrary command bytes.

Every socket operation has a timeout, so a misbehaving server cannot hang
the test-suite.
"""

from __future__ import annotations

import hashlib
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

# Capability flags
CLIENT_LONG_PASSWORD = 0x00000001
CLIENT_FOUND_ROWS = 0x00000002
CLIENT_LONG_FLAG = 0x00000004
CLIENT_CONNECT_WITH_DB = 0x00000008
CLIENT_PROTOCOL_41 = 0x00000200
CLIENT_INTERACTIVE = 0x00000400
CLIENT_SSL = 0x00000800
CLIENT_TRANSACTIONS = 0x00002000
CLIENT_SECURE_CONNECTION = 0x00008000
CLIENT_MULTI_STATEMENTS = 0x00010000
CLIENT_MULTI_RESULTS = 0x00020000
CLIENT_PLUGIN_AUTH = 0x00080000
CLIENT_CONNECT_ATTRS = 0x00100000
CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 0x00200000
CLIENT_DEPRECATE_EOF = 0x01000000

SERVER_MORE_RESULTS_EXISTS = 0x0008

COM_QUIT = 0x01
COM_INIT_DB = 0x02
COM_QUERY = 0x03
COM_STATISTICS = 0x09
COM_PING = 0x0E
COM_CHANGE_USER = 0x11
COM_RESET_CONNECTION = 0x1F

DEFAULT_CHARSET = 45  # utf8mb4_general_ci

DEFAULT_CAPS = (
    CLIENT_LONG_PASSWORD
    | CLIENT_FOUND_ROWS
    | CLIENT_LONG_FLAG
    | CLIENT_PROTOCOL_41
    | CLIENT_TRANSACTIONS
    | CLIENT_SECURE_CONNECTION
    | CLIENT_MULTI_RESULTS
    | CLIENT_PLUGIN_AUTH
)


class ProtocolError(Exception):
    """The peer sent something this client cannot make sense of."""


class ConnectionClosed(Exception):
    """The server closed the connection (EOF or reset)."""


class ServerError(Exception):
    """An ERR packet from the server."""

    def __init__(self, code: int, sqlstate: Optional[str], message: str):
        super().__init__(f"({code}, {sqlstate!r}) {message}")
        self.code = code
        self.sqlstate = sqlstate
        self.message = message


def native_password_scramble(password: Union[str, bytes], nonce: bytes) -> bytes:
    """SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw)))."""
    if isinstance(password, str):
        password = password.encode()
    if not password:
        return b""
    stage1 = hashlib.sha1(password).digest()
    stage2 = hashlib.sha1(stage1).digest()
    mix = hashlib.sha1(nonce[:20] + stage2).digest()
    return bytes(a ^ b for a, b in zip(stage1, mix))


def caching_sha2_scramble(password: Union[str, bytes], nonce: bytes) -> bytes:
    """SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce)."""
    if isinstance(password, str):
        password = password.encode()
    if not password:
        return b""
    p1 = hashlib.sha256(password).digest()
    p2 = hashlib.sha256(p1).digest()
    p3 = hashlib.sha256(p2 + nonce[:20]).digest()
    return bytes(a ^ b for a, b in zip(p1, p3))


def rsa_encrypt_password(password: bytes, nonce: bytes, pem: bytes) -> bytes:
    """caching_sha2_password full authentication over an insecure channel."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    plain = password + b"\0"
    nonce = nonce[:20]
    xored = bytes(plain[i] ^ nonce[i % len(nonce)] for i in range(len(plain)))
    key = serialization.load_pem_public_key(pem)
    return key.encrypt(
        xored,
        padding.OAEP(
            mgf=padding.MGF1(algorithm=hashes.SHA1()),
            algorithm=hashes.SHA1(),
            label=None,
        ),
    )


def lenenc_int(n: int) -> bytes:
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3]
    return b"\xfe" + struct.pack("<Q", n)


class Reader:
    """Cursor over a packet payload."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def u8(self) -> int:
        v = self.data[self.pos]
        self.pos += 1
        return v

    def u16(self) -> int:
        (v,) = struct.unpack_from("<H", self.data, self.pos)
        self.pos += 2
        return v

    def u24(self) -> int:
        v = int.from_bytes(self.data[self.pos : self.pos + 3], "little")
        self.pos += 3
        return v

    def u32(self) -> int:
        (v,) = struct.unpack_from("<I", self.data, self.pos)
        self.pos += 4
        return v

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ProtocolError(f"short packet: need {n} bytes at {self.pos}: {self.data!r}")
        v = self.data[self.pos : self.pos + n]
        self.pos += n
        return v

    def rest(self) -> bytes:
        v = self.data[self.pos :]
        self.pos = len(self.data)
        return v

    def nul_str(self) -> bytes:
        end = self.data.index(b"\0", self.pos)
        v = self.data[self.pos : end]
        self.pos = end + 1
        return v

    def lenenc_int(self) -> Optional[int]:
        first = self.u8()
        if first < 0xFB:
            return first
        if first == 0xFB:
            return None
        if first == 0xFC:
            return self.u16()
        if first == 0xFD:
            return self.u24()
        if first == 0xFE:
            (v,) = struct.unpack_from("<Q", self.data, self.pos)
            self.pos += 8
            return v
        raise ProtocolError(f"bad length-encoded integer prefix 0x{first:02x}")

    def lenenc_str(self) -> Optional[bytes]:
        n = self.lenenc_int()
        if n is None:
            return None
        return self.take(n)


def parse_err(payload: bytes) -> ServerError:
    r = Reader(payload)
    if r.u8() != 0xFF:
        raise ProtocolError(f"not an ERR packet: {payload!r}")
    code = r.u16()
    sqlstate = None
    if r.remaining() and r.data[r.pos : r.pos + 1] == b"#":
        r.take(1)
        sqlstate = r.take(5).decode("ascii", "replace")
    return ServerError(code, sqlstate, r.rest().decode("utf-8", "replace"))


@dataclass
class OkPacket:
    affected_rows: int
    last_insert_id: int
    status: int
    warnings: int
    info: bytes = b""


def parse_ok(payload: bytes) -> OkPacket:
    r = Reader(payload)
    header = r.u8()
    if header not in (0x00, 0xFE):
        raise ProtocolError(f"not an OK packet: {payload!r}")
    affected = r.lenenc_int() or 0
    last_id = r.lenenc_int() or 0
    status = r.u16() if r.remaining() >= 2 else 0
    warnings = r.u16() if r.remaining() >= 2 else 0
    return OkPacket(affected, last_id, status, warnings, r.rest())


@dataclass
class Column:
    name: str
    type: int
    schema: str = ""
    table: str = ""


@dataclass
class ResultSet:
    columns: List[Column]
    rows: List[Tuple[Optional[str], ...]]
    status: int = 0

    @property
    def names(self) -> List[str]:
        return [c.name for c in self.columns]


@dataclass
class Greeting:
    protocol_version: int
    server_version: str
    connection_id: int
    nonce: bytes
    capabilities: int
    charset: int
    status: int
    auth_plugin: str
    raw: bytes = field(repr=False, default=b"")


def parse_greeting(payload: bytes) -> Greeting:
    if payload[:1] == b"\xff":
        raise parse_err(payload)
    r = Reader(payload)
    proto = r.u8()
    if proto != 10:
        raise ProtocolError(f"unexpected protocol version {proto}: {payload[:64]!r}")
    version = r.nul_str().decode("utf-8", "replace")
    conn_id = r.u32()
    nonce1 = r.take(8)
    r.take(1)  # filler
    caps = r.u16()
    charset = status = 0
    plugin = "mysql_native_password"
    nonce2 = b""
    if r.remaining():
        charset = r.u8()
        status = r.u16()
        caps |= r.u16() << 16
        auth_len = r.u8()
        r.take(10)
        if caps & CLIENT_SECURE_CONNECTION:
            n = max(13, auth_len - 8)
            nonce2 = r.take(n)
            if nonce2.endswith(b"\0"):
                nonce2 = nonce2[:-1]
        if caps & CLIENT_PLUGIN_AUTH and r.remaining():
            rest = r.rest()
            plugin = rest.split(b"\0", 1)[0].decode()
    return Greeting(proto, version, conn_id, nonce1 + nonce2, caps, charset, status, plugin, payload)


class RawConnection:
    """One client connection speaking the MySQL protocol by hand."""

    def __init__(self, sock: socket.socket, is_unix: bool, timeout: float = 10.0):
        self.sock = sock
        self.is_unix = is_unix
        # TLS is on (start_tls): caching_sha2_password's full authentication sends the password in the clear.
        self.secure = False
        # caching_sha2_password's answers during the login: "fast" (0x03), "full" (0x04).
        self.auth_path: List[str] = []
        self.sock.settimeout(timeout)
        self.seq = 0
        self.greeting: Optional[Greeting] = None
        self.client_caps = 0
        self._buf = b""

    # ---- construction -------------------------------------------------
    @classmethod
    def tcp(cls, port: int, host: str = "127.0.0.1", timeout: float = 10.0) -> "RawConnection":
        s = socket.create_connection((host, port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(s, False, timeout)

    @classmethod
    def unix(cls, path: str, timeout: float = 10.0) -> "RawConnection":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(path)
        return cls(s, True, timeout)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> "RawConnection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- framing --------------------------------------------------------
    def _recv_exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            try:
                chunk = self.sock.recv(max(65536, n - len(self._buf)))
            except (ConnectionResetError, BrokenPipeError) as e:
                raise ConnectionClosed(f"connection reset: {e}") from e
            if not chunk:
                raise ConnectionClosed("server closed the connection")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def read_packet(self) -> bytes:
        payload = b""
        while True:
            header = self._recv_exact(4)
            length = int.from_bytes(header[:3], "little")
            seq = header[3]
            if seq != self.seq:
                raise ProtocolError(f"sequence id {seq}, expected {self.seq}")
            self.seq = (seq + 1) & 0xFF
            payload += self._recv_exact(length)
            if length < 0xFFFFFF:
                return payload

    def write_packet(self, payload: bytes) -> None:
        out = b""
        while True:
            chunk, payload = payload[:0xFFFFFF], payload[0xFFFFFF:]
            out += len(chunk).to_bytes(3, "little") + bytes([self.seq]) + chunk
            self.seq = (self.seq + 1) & 0xFF
            if len(chunk) < 0xFFFFFF:
                break
        self.sock.sendall(out)

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    # ---- TLS --------------------------------------------------------------
    def ssl_request(self, charset: int = DEFAULT_CHARSET) -> bytes:
        """The 32-byte SSLRequest payload (the greeting is read first)."""
        if self.greeting is None:
            self.read_greeting()
        caps = (DEFAULT_CAPS & self.greeting.capabilities) | CLIENT_SSL | CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION
        return struct.pack("<IIB", caps, 16 * 1024 * 1024, charset) + b"\0" * 23

    def start_tls(self, context, server_hostname: Optional[str] = None, session=None, in_one_write: bool = False):
        """Send an SSLRequest and make the socket TLS (then `handshake(...,
        extra_caps=CLIENT_SSL)` logs in inside it). `in_one_write`: the
        SSLRequest and the ClientHello leave in one write, so the server
        reads both at once. Returns the TLS object (`.version()`, `.session`)."""
        payload = self.ssl_request()
        self.secure = True
        if not in_one_write:
            self.write_packet(payload)
            self.sock = context.wrap_socket(self.sock, server_hostname=server_hostname, session=session)
            return self.sock
        import ssl

        header = len(payload).to_bytes(3, "little") + bytes([self.seq])
        self.seq = (self.seq + 1) & 0xFF
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        bio = _BioSocket(self.sock, context.wrap_bio(incoming, outgoing, server_hostname=server_hostname, session=session), incoming, outgoing)
        bio.handshake(first=header + payload)
        self.sock = bio
        return bio.tls

    def wait_closed(self, timeout: float) -> Tuple[bool, List[bytes]]:
        """Read until the server closes the connection or `timeout` passes.

        Returns (closed, packets) where packets are the complete payloads the
        server sent in the meantime (e.g. an ERR packet before closing).  No
        sequence checking is done here.
        """
        deadline = time.monotonic() + timeout
        data = self._buf
        self._buf = b""
        closed = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(min(left, 1.0))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except (ConnectionResetError, BrokenPipeError):
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
        packets = []
        while len(data) >= 4:
            length = int.from_bytes(data[:3], "little")
            if len(data) < 4 + length:
                break
            packets.append(data[4 : 4 + length])
            data = data[4 + length :]
        return closed, packets

    # ---- handshake --------------------------------------------------------
    def read_greeting(self) -> Greeting:
        self.seq = 0
        self.greeting = parse_greeting(self.read_packet())
        return self.greeting

    def _auth_data(self, plugin: str, password: bytes, nonce: bytes) -> bytes:
        if plugin == "mysql_native_password":
            return native_password_scramble(password, nonce)
        if plugin == "caching_sha2_password":
            return caching_sha2_scramble(password, nonce)
        if plugin == "mysql_clear_password":
            return password + b"\0"
        raise ProtocolError(f"unsupported auth plugin {plugin!r}")

    def _auth_loop(self, plugin: str, password: bytes, nonce: bytes) -> OkPacket:
        """Handle everything after the client's first auth packet."""
        while True:
            pkt = self.read_packet()
            head = pkt[:1]
            if head == b"\x00":
                return parse_ok(pkt)
            if head == b"\xff":
                raise parse_err(pkt)
            if head == b"\xfe":  # AuthSwitchRequest
                r = Reader(pkt)
                r.u8()
                plugin = r.nul_str().decode()
                data = r.rest()
                if data.endswith(b"\0"):
                    data = data[:-1]
                nonce = data
                self.write_packet(self._auth_data(plugin, password, nonce))
                continue
            if head == b"\x01":  # AuthMoreData
                if plugin != "caching_sha2_password":
                    raise ProtocolError(f"AuthMoreData for plugin {plugin}: {pkt!r}")
                if pkt[1:2] == b"\x03":  # fast auth success, OK follows
                    self.auth_path.append("fast")
                    continue
                if pkt[1:2] == b"\x04":  # full authentication required
                    self.auth_path.append("full")
                    if self.is_unix or self.secure:
                        # In the clear inside a secure channel, as MySQL's clients send it.
                        self.write_packet(password + b"\0")
                    else:
                        self.write_packet(b"\x02")  # request public key
                        key_pkt = self.read_packet()
                        if key_pkt[:1] == b"\xff":
                            raise parse_err(key_pkt)
                        if key_pkt[:1] != b"\x01":
                            raise ProtocolError(f"expected public key, got {key_pkt[:40]!r}")
                        self.write_packet(rsa_encrypt_password(password, nonce, key_pkt[1:]))
                    continue
                raise ProtocolError(f"unexpected AuthMoreData {pkt!r}")
            raise ProtocolError(f"unexpected packet during authentication: {pkt[:64]!r}")

    def handshake(
        self,
        user: str,
        password: Union[str, bytes] = b"",
        db: Optional[str] = None,
        plugin: Optional[str] = None,
        extra_caps: int = 0,
        charset: int = DEFAULT_CHARSET,
    ) -> OkPacket:
        """Read the greeting (if not read yet) and authenticate."""
        if isinstance(password, str):
            password = password.encode()
        if self.greeting is None:
            self.read_greeting()
        g = self.greeting
        plugin = plugin or g.auth_plugin or "mysql_native_password"
        caps = DEFAULT_CAPS | extra_caps
        if db is not None:
            caps |= CLIENT_CONNECT_WITH_DB
        caps &= g.capabilities | CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS | CLIENT_INTERACTIVE
        caps |= CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION
        self.client_caps = caps
        auth = self._auth_data(plugin, password, g.nonce)
        payload = struct.pack("<IIB", caps, 16 * 1024 * 1024, charset) + b"\0" * 23
        payload += user.encode() + b"\0"
        payload += bytes([len(auth)]) + auth
        if caps & CLIENT_CONNECT_WITH_DB:
            payload += (db or "").encode() + b"\0"
        if caps & CLIENT_PLUGIN_AUTH:
            payload += plugin.encode() + b"\0"
        self.write_packet(payload)
        return self._auth_loop(plugin, password, g.nonce)

    # ---- commands ---------------------------------------------------------
    def command(self, cmd: int, arg: bytes = b"") -> None:
        self.seq = 0
        self.write_packet(bytes([cmd]) + arg)

    def _read_column(self) -> Column:
        r = Reader(self.read_packet())
        r.lenenc_str()  # catalog
        schema = r.lenenc_str() or b""
        table = r.lenenc_str() or b""
        r.lenenc_str()  # org_table
        name = r.lenenc_str() or b""
        r.lenenc_str()  # org_name
        r.lenenc_int()  # length of fixed fields
        r.u16()  # charset
        r.u32()  # column length
        ctype = r.u8()
        return Column(name.decode("utf-8", "replace"), ctype, schema.decode(), table.decode())

    def read_result(self) -> Union[OkPacket, ResultSet]:
        pkt = self.read_packet()
        head = pkt[:1]
        if head == b"\x00":
            return parse_ok(pkt)
        if head == b"\xff":
            raise parse_err(pkt)
        if head == b"\xfb":
            raise ProtocolError("LOCAL INFILE request not supported by this helper")
        ncols = Reader(pkt).lenenc_int()
        columns = [self._read_column() for _ in range(ncols)]
        eof = self.read_packet()
        if not (eof[:1] == b"\xfe" and len(eof) < 9):
            raise ProtocolError(f"expected EOF after column definitions, got {eof!r}")
        rows = []
        while True:
            pkt = self.read_packet()
            if pkt[:1] == b"\xfe" and len(pkt) < 9:
                r = Reader(pkt)
                r.u8()
                r.u16()  # warnings
                status = r.u16() if r.remaining() >= 2 else 0
                return ResultSet(columns, rows, status)
            if pkt[:1] == b"\xff":
                raise parse_err(pkt)
            r = Reader(pkt)
            row = []
            for _ in range(ncols):
                v = r.lenenc_str()
                row.append(None if v is None else v.decode("utf-8", "replace"))
            rows.append(tuple(row))

    def query_all(self, sql: Union[str, bytes]) -> List[Union[OkPacket, ResultSet]]:
        """Send COM_QUERY and read every result (multi-statement aware)."""
        if isinstance(sql, str):
            sql = sql.encode()
        self.command(COM_QUERY, sql)
        results = []
        while True:
            res = self.read_result()
            results.append(res)
            if not (res.status & SERVER_MORE_RESULTS_EXISTS):
                return results

    def query(self, sql: Union[str, bytes]) -> Union[OkPacket, ResultSet]:
        results = self.query_all(sql)
        assert len(results) == 1, results
        return results[0]

    def scalar(self, sql: str) -> Optional[str]:
        rs = self.query(sql)
        assert isinstance(rs, ResultSet), rs
        assert len(rs.rows) == 1, rs.rows
        return rs.rows[0][0]

    def simple_command(self, cmd: int, arg: bytes = b"") -> OkPacket:
        self.command(cmd, arg)
        pkt = self.read_packet()
        if pkt[:1] == b"\xff":
            raise parse_err(pkt)
        return parse_ok(pkt)

    def ping(self) -> OkPacket:
        return self.simple_command(COM_PING)

    def init_db(self, db: str) -> OkPacket:
        return self.simple_command(COM_INIT_DB, db.encode())

    def reset_connection(self) -> OkPacket:
        return self.simple_command(COM_RESET_CONNECTION)

    def statistics(self) -> str:
        self.command(COM_STATISTICS)
        pkt = self.read_packet()
        if pkt[:1] == b"\xff":
            raise parse_err(pkt)
        return pkt.decode("utf-8", "replace")

    def quit(self) -> None:
        try:
            self.command(COM_QUIT)
        except OSError:
            pass
        self.close()

    def change_user(
        self,
        user: str,
        password: Union[str, bytes] = b"",
        db: Optional[str] = None,
        plugin: str = "mysql_native_password",
        charset: int = DEFAULT_CHARSET,
    ) -> OkPacket:
        """COM_CHANGE_USER, scrambling with the nonce from the initial greeting."""
        if isinstance(password, str):
            password = password.encode()
        assert self.greeting is not None, "handshake first"
        nonce = self.greeting.nonce
        auth = self._auth_data(plugin, password, nonce)
        arg = user.encode() + b"\0" + bytes([len(auth)]) + auth + (db or "").encode() + b"\0"
        arg += struct.pack("<H", charset)
        if self.client_caps & CLIENT_PLUGIN_AUTH:
            arg += plugin.encode() + b"\0"
        self.command(COM_CHANGE_USER, arg)
        return self._auth_loop(plugin, password, nonce)


class _BioSocket:
    """A TLS session over a plain socket through memory BIOs, so that what
    the client writes first can share a write with the SSLRequest. Offers
    the socket methods RawConnection uses."""

    def __init__(self, sock, tls, incoming, outgoing):
        self.raw, self.tls, self._in, self._out = sock, tls, incoming, outgoing

    def handshake(self, first: bytes) -> None:
        import ssl

        try:
            self.tls.do_handshake()
        except ssl.SSLWantReadError:
            pass
        self.raw.sendall(first + self._out.read())
        while True:
            try:
                self.tls.do_handshake()
                self.raw.sendall(self._out.read())
                return
            except ssl.SSLWantReadError:
                self.raw.sendall(self._out.read())
                chunk = self.raw.recv(65536)
                if not chunk:
                    raise ConnectionClosed("server closed the connection during the TLS handshake")
                self._in.write(chunk)

    def settimeout(self, t) -> None:
        self.raw.settimeout(t)

    def sendall(self, data: bytes) -> None:
        self.tls.write(data)
        self.raw.sendall(self._out.read())

    def recv(self, n: int) -> bytes:
        import ssl

        while True:
            try:
                return self.tls.read(n)
            except ssl.SSLWantReadError:
                chunk = self.raw.recv(65536)
                if not chunk:
                    return b""
                self._in.write(chunk)
            except ssl.SSLZeroReturnError:
                return b""

    def close(self) -> None:
        self.raw.close()


def connect(
    server,
    user: str,
    password: Union[str, bytes] = b"",
    db: Optional[str] = None,
    transport: str = "tcp",
    port: Optional[int] = None,
    plugin: Optional[str] = None,
    extra_caps: int = 0,
    timeout: float = 10.0,
) -> RawConnection:
    """Open and authenticate a RawConnection to a running TurnstileServer."""
    if transport == "tcp":
        c = RawConnection.tcp(port or server.port, timeout=timeout)
    elif transport == "socket":
        c = RawConnection.unix(server.socket, timeout=timeout)
    else:
        raise ValueError(transport)
    try:
        c.handshake(user, password, db=db, plugin=plugin, extra_caps=extra_caps)
    except BaseException:
        c.close()
        raise
    return c


def rows(result: Union[OkPacket, ResultSet]) -> Sequence[Tuple[Optional[str], ...]]:
    assert isinstance(result, ResultSet), f"expected a result set, got {result!r}"
    return result.rows
