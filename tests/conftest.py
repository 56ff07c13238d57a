"""Shared fixtures for the Turnstile integration suite.

* `server`          - one turnstile per test module (default flags plus
                      --max-connections 100), root password ROOT_PASSWORD.
* `server_factory`  - function-scoped: `server_factory("--wait-timeout", "2")`
                      starts a server with extra flags; all are stopped
                      (SIGTERM, then SIGKILL after 10 s) at teardown.
* `root_conn`       - a PyMySQL root connection to `server`.
* `sql_server`      - one turnstile per test module on the sqlite engine (the
                      `server` fixture keeps --engine blackhole).
* `sql_conn`        - a PyMySQL root connection to `sql_server`.
* `uniq`            - unique identifiers for users / databases.
* `scratch_db`      - (root connection using a fresh database, its name).
* `two_dbs_factory` - a victim database, the attacker's own and an account
                      granted only that (helpers/two_dbs.py; tests/security).

The binary is target/release/turnstile (override with TURNSTILE_BIN).  If it
does not exist every test is skipped, unless TURNSTILE_REQUIRE_BIN=1, in
which case they fail.  On a failure the tail of each running server's stderr
is attached to the report.
"""

from __future__ import annotations

import itertools
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from helpers import clients  # noqa: E402
from helpers.server import ACTIVE, ROOT_PASSWORD, ServerStartError, TurnstileServer, binary_path  # noqa: E402

DEFAULT_MAX_CONNECTIONS = 100

# TURNSTILE_UPSTREAM=1: `server` and `sql_server` are Turnstile's upstream
# engine in front of a private MariaDB 10.11 (helpers/upstream.py), so the
# SQL and session suites run against MariaDB through Turnstile
# (tests/outside/upstream_suites.py).
UPSTREAM = os.environ.get("TURNSTILE_UPSTREAM") == "1"


@pytest.fixture(scope="session")
def turnstile_bin():
    path = binary_path()
    if not path.exists():
        msg = f"turnstile binary not found at {path} (cargo build --release -p turnstile, or set TURNSTILE_BIN)"
        if os.environ.get("TURNSTILE_REQUIRE_BIN") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


def _start(extra=(), **kwargs) -> TurnstileServer:
    srv = TurnstileServer(extra_args=extra, **kwargs)
    try:
        return srv.start()
    except ServerStartError:
        srv.cleanup()
        raise


@pytest.fixture(scope="module")
def server(turnstile_bin, request):
    if UPSTREAM:
        from helpers import upstream

        srv = upstream.start_turnstile(request.getfixturevalue("upstream_backend"), "--max-connections", str(DEFAULT_MAX_CONNECTIONS))
    else:
        srv = _start(["--max-connections", str(DEFAULT_MAX_CONNECTIONS)])
    yield srv
    srv.stop()
    srv.cleanup()


@pytest.fixture(scope="module")
def sql_server(turnstile_bin, request):
    if UPSTREAM:
        from helpers import upstream

        backend = request.getfixturevalue("upstream_backend")
        srv = upstream.start_turnstile(backend, "--max-connections", str(DEFAULT_MAX_CONNECTIONS))
    else:
        srv = _start(["--max-connections", str(DEFAULT_MAX_CONNECTIONS)], engine="sqlite")
    yield srv
    srv.stop()
    srv.cleanup()


@pytest.fixture
def sql_conn(sql_server):
    conn = clients.root(sql_server)
    yield conn
    try:
        conn.close()
    except Exception:
        pass


class ServerFactory:
    def __init__(self):
        self.servers = []

    def __call__(self, *extra, **kwargs) -> TurnstileServer:
        srv = _start(list(extra), **kwargs)
        self.servers.append(srv)
        return srv

    def new(self, *extra, **kwargs) -> TurnstileServer:
        """Create (but do not start) a server, e.g. to inspect returncodes."""
        srv = TurnstileServer(extra_args=list(extra), **kwargs)
        self.servers.append(srv)
        return srv

    def close(self):
        for srv in self.servers:
            srv.stop()
        for srv in self.servers:
            srv.cleanup()


@pytest.fixture
def server_factory(turnstile_bin):
    factory = ServerFactory()
    yield factory
    factory.close()


@pytest.fixture
def root_conn(server):
    conn = clients.root(server)
    yield conn
    try:
        conn.close()
    except Exception:
        pass


_counter = itertools.count(1)


@pytest.fixture
def uniq():
    """uniq('u') -> 'u_<pid>_<n>' : names that never collide within a run."""

    def make(prefix: str) -> str:
        return f"{prefix}_{os.getpid() % 10000}_{next(_counter)}"

    return make


@pytest.fixture
def db_with_t(sql_conn, uniq):
    """A fresh database made current on `sql_conn`, holding table t (a INT)
    with one row, 7; its name. Dropped after."""
    name = uniq("dbt")
    clients.query(sql_conn, f"CREATE DATABASE {name}")
    clients.query(sql_conn, f"USE {name}")
    clients.query(sql_conn, "CREATE TABLE t (a INT)")
    clients.query(sql_conn, "INSERT INTO t VALUES (7)")
    yield name
    clients.query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


@pytest.fixture
def scratch_db(sql_server, uniq):
    """(root connection using a fresh database, its name) on `sql_server`; dropped after."""
    name = uniq("db")
    conn = clients.root(sql_server)
    clients.query(conn, f"CREATE DATABASE {name}")
    clients.query(conn, f"USE {name}")
    yield conn, name
    clients.query(conn, f"DROP DATABASE IF EXISTS {name}")
    conn.close()


@pytest.fixture
def two_dbs_factory(sql_server, uniq):
    """make(prefix, victim=[...], home=[...]) -> helpers.two_dbs.TwoDbs: a
    victim database with a secret, the attacker's database and an account
    granted only that (tests/security); dropped at teardown."""
    from helpers import two_dbs

    root = clients.root(sql_server)
    made = []

    def make(prefix: str, victim=(), home=()):
        d = two_dbs.build(sql_server, root, uniq, prefix, victim, home)
        made.append(d)
        return d

    yield make
    for d in made:
        two_dbs.tear_down(d)
    root.close()


@pytest.fixture
def root_password():
    return ROOT_PASSWORD


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and ACTIVE:
        for srv in list(ACTIVE):
            report.sections.append((f"turnstile stderr tail ({srv!r})", srv.log_tail(60)))


@pytest.fixture(scope="session")
def upstream_backend():
    """A private MariaDB 10.11 with the upstream tests' accounts
    (helpers/upstream.py), shared by every upstream test module."""
    from helpers import mariadb, upstream

    if mariadb.MARIADBD is None:
        if os.environ.get("TURNSTILE_REQUIRE_BIN") == "1":
            pytest.fail("the upstream engine tests need mariadbd (Debian mariadb-server)")
        pytest.skip("mariadbd not installed")
    backend = upstream.Backend().start()
    yield backend
    backend.stop()
