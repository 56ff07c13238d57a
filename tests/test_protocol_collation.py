"""The collation a client names in its handshake (the 1-byte collation id of
HandshakeResponse41) and in COM_CHANGE_USER becomes the session's
character_set_client, character_set_connection, character_set_results and
collation_connection, as MariaDB 10.11 does (`thd_init_client_charset`): an
id MariaDB does not know means the server's defaults, one of the character
sets a client may not speak (ucs2, utf16, utf16le, utf32) is ERR 1231 before
authentication, and COM_RESET_CONNECTION goes back to the handshake's
collation. Each expected value was read from MariaDB 10.11 with the same
packets. go-sql-driver's `collation=` DSN option sends only this byte."""

import pytest

from helpers import rawproto
from helpers.server import ROOT_PASSWORD

QUERY = "SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection"

# id -> what MariaDB 10.11 reports after a handshake naming it.
NAMED = {
    8: ("latin1", "latin1", "latin1", "latin1_swedish_ci"),
    48: ("latin1", "latin1", "latin1", "latin1_general_ci"),
    63: ("binary", "binary", "binary", "binary"),
    224: ("utf8mb4", "utf8mb4", "utf8mb4", "utf8mb4_unicode_ci"),
    58: ("cp1257", "cp1257", "cp1257", "cp1257_bin"),
    33: ("utf8mb3", "utf8mb3", "utf8mb3", "utf8mb3_general_ci"),
    46: ("utf8mb4", "utf8mb4", "utf8mb4", "utf8mb4_bin"),
    45: ("utf8mb4", "utf8mb4", "utf8mb4", "utf8mb4_general_ci"),
}
# Turnstile's global defaults (MariaDB answers with its own: latin1 there).
DEFAULTS = ("utf8mb4", "utf8mb4", "utf8mb4", "utf8mb4_general_ci")


def login(server, charset):
    c = rawproto.RawConnection.tcp(server.port)
    c.handshake("root", ROOT_PASSWORD, charset=charset)
    return c


@pytest.mark.parametrize("cid", sorted(NAMED))
def test_handshake_collation_sets_the_session_character_sets(server, cid):
    with login(server, cid) as c:
        assert c.query(QUERY).rows[0] == NAMED[cid]


@pytest.mark.parametrize("cid", [0, 255, 250, 254])
def test_unknown_collation_id_means_the_server_defaults(server, cid):
    # 255 is MySQL 8's utf8mb4_0900_ai_ci, which MariaDB 10.11 does not know.
    with login(server, cid) as c:
        assert c.query(QUERY).rows[0] == DEFAULTS


@pytest.mark.parametrize("cid,charset", [(35, "ucs2"), (54, "utf16"), (56, "utf16le"), (60, "utf32"), (101, "utf16")])
@pytest.mark.parametrize("password", [ROOT_PASSWORD, "wrong"])
def test_collation_a_client_may_not_speak_is_1231_before_authentication(server, cid, charset, password):
    c = rawproto.RawConnection.tcp(server.port)
    with c, pytest.raises(rawproto.ServerError) as e:
        c.handshake("root", password, charset=cid)
    assert (e.value.code, e.value.sqlstate) == (1231, "42000")
    assert e.value.message == f"Variable 'character_set_client' can't be set to the value of '{charset}'"


def test_reset_connection_returns_to_the_handshake_collation(server):
    with login(server, 48) as c:
        c.query("SET NAMES utf8mb4")
        assert c.query(QUERY).rows[0] == DEFAULTS
        c.reset_connection()
        assert c.query(QUERY).rows[0] == NAMED[48]


def test_change_user_takes_its_collation(server):
    with login(server, 48) as c:
        c.change_user("root", ROOT_PASSWORD, charset=224)
        assert c.query(QUERY).rows[0] == NAMED[224]
        c.change_user("root", ROOT_PASSWORD, charset=0)
        assert c.query(QUERY).rows[0] == DEFAULTS


def test_change_user_to_a_refused_collation_resets_the_session(server):
    with login(server, 48) as c:
        c.query("SET @x = 5")
        with pytest.raises(rawproto.ServerError) as e:
            c.change_user("root", ROOT_PASSWORD, charset=35)
        assert e.value.code == 1231
        # As MariaDB: the connection and its user stay, the session is reset
        # to the server's character sets.
        assert c.query("SELECT @x, CURRENT_USER()").rows == [(None, "root@%")]
        assert c.query(QUERY).rows[0] == DEFAULTS


def test_latin1_client_gets_the_refusal_of_unconverted_text(sql_server):
    # Turnstile converts nothing: a client in latin1 (by its handshake, as by
    # SET NAMES) may send only ASCII text; ASCII works as before.
    with login(sql_server, 8) as c:
        assert c.query("SELECT 'abc'").rows == [("abc",)]
        with pytest.raises(rawproto.ServerError) as e:
            c.query("SELECT 'caf\xe9'".encode("latin1"))
        assert e.value.code == 1235
