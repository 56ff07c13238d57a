"""The mysql command-line client (Debian's mariadb-client) against turnstile:
`-e` one-shot statements over TCP and the socket, the `status` command (which
also uses COM_STATISTICS), a batch session fed through stdin (`use db`,
`show tables`), a real interactive session on a pseudo-terminal (banner,
prompt, `use`, `quit`), and error reporting with SQLSTATEs."""

import re

import pytest

from helpers import clients
from helpers.pty_session import PtySession

pytestmark = pytest.mark.skipif(not clients.mysql_cli(), reason="mysql client not installed")


@pytest.fixture(scope="module")
def cli_db(server):
    conn = clients.root(server)
    clients.query(conn, "CREATE DATABASE IF NOT EXISTS cli_db")
    clients.query(conn, "CREATE TABLE IF NOT EXISTS cli_db.t1 (id INT PRIMARY KEY, v VARCHAR(20))")
    conn.close()
    return "cli_db"


@pytest.mark.parametrize("transport", ["tcp", "socket", "admin"])
def test_version_comment(server, transport):
    res = clients.run_cli(server, "select @@version_comment limit 1", transport=transport)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "@@version_comment"
    assert len(lines) == 2


def test_execute_several_statements(server):
    res = clients.run_cli(
        server,
        "select 1+2; select concat('a','b') as ab; select @@session.autocommit",
        extra=["--batch", "--skip-column-names"],
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["3", "ab", "1"]


@pytest.mark.parametrize("transport", ["tcp", "socket"])
def test_status_command(server, transport):
    res = clients.run_cli(server, "status", transport=transport)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    conn_id = re.search(r"^Connection id:\s+(\d+)$", out, re.M)
    assert conn_id and int(conn_id.group(1)) > 0, out
    assert re.search(r"^Current user:\s+root@\S+$", out, re.M), out
    assert re.search(r"^Server version:\s+\S+", out, re.M), out
    assert re.search(r"^Protocol version:\s+10$", out, re.M), out
    assert re.search(r"^Uptime:\s+\d+", out, re.M), out
    assert re.search(r"^Threads: \d+\s+Questions: \d+", out, re.M), out
    if transport == "tcp":
        assert re.search(r"^Connection:\s+127\.0\.0\.1 via TCP/IP$", out, re.M), out
        assert re.search(rf"^TCP port:\s+{server.port}$", out, re.M), out
    else:
        assert re.search(r"^Connection:\s+Localhost via UNIX socket$", out, re.M), out
        assert re.search(rf"^UNIX socket:\s+{re.escape(server.socket)}$", out, re.M), out
    assert "ERROR" not in res.stderr


def test_batch_session_via_stdin(server, cli_db):
    script = (
        f"use {cli_db}\n"
        "show tables;\n"
        "select database();\n"
        "select 1+2 as three;\n"
        "set @v = 'x';\n"
        "select @v;\n"
    )
    res = clients.run_cli(server, stdin=script)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    # SHOW TABLES may list t1 (if the engine keeps definitions) or nothing.
    if lines and lines[0] == f"Tables_in_{cli_db}":
        lines = lines[1:]
        if lines and lines[0] == "t1":
            lines = lines[1:]
    assert lines == ["database()", cli_db, "three", "3", "@v", "x"], res.stdout


def test_interactive_session_on_pty(server, cli_db):
    p = PtySession(clients.cli_args(server), env={"TERM": "dumb", "HOME": "/tmp", "PATH": "/usr/bin:/bin"})
    try:
        m = p.expect(r"Your \w+ connection id is (\d+)")
        assert int(m.group(1)) > 0
        p.expect(r"Server version: \S+")
        p.expect(r"\[\(none\)\]> ")
        p.sendline(f"use {cli_db}")
        p.expect(r"Database changed")
        p.expect(rf"\[{cli_db}\]> ")
        p.sendline("show tables;")
        p.expect(r"(Empty set|rows? in set)")
        p.expect(rf"\[{cli_db}\]> ")
        p.sendline("select 40+2 as answer;")
        p.expect(r"\|\s+42\s+\|")
        p.expect(r"1 row in set")
        p.expect(rf"\[{cli_db}\]> ")
        p.sendline("select no_such_function_x();")
        p.expect(r"ERROR \d+ \(\w{5}\)")
        p.expect(rf"\[{cli_db}\]> ")
        p.sendline("quit")
        p.expect(r"Bye")
        assert p.wait() == 0
    finally:
        p.close()


def test_cli_unknown_database(server):
    res = clients.run_cli(server, "select 1", database="no_such_db_cli")
    assert res.returncode == 1
    assert "ERROR 1049 (42000): Unknown database 'no_such_db_cli'" in res.stderr, res.stderr


def test_cli_unknown_database_via_use(server):
    res = clients.run_cli(server, stdin="use no_such_db_cli2\nselect 1;\n")
    assert res.returncode == 1
    assert "ERROR 1049 (42000)" in res.stderr, res.stderr


def test_cli_unknown_variable(server):
    res = clients.run_cli(server, "select @@no_such_var_cli")
    assert res.returncode == 1
    assert re.search(r"ERROR 1193 \(HY000\)( at line \d+)?: Unknown system variable 'no_such_var_cli'", res.stderr), res.stderr
