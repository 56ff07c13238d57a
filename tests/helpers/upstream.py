"""Turnstile's upstream engine in front of a private MariaDB 10.11.

`Backend` starts a MariaDB (helpers/mariadb.py: its own data directory,
port and socket, in its own session) with the accounts the upstream tests
use:

* root@% and root@localhost with ROOT_PASSWORD (the other root rows are
  dropped, so a login from Turnstile's address matches root@%), so the
  suite's `clients.root(server)` works through Turnstile unchanged;
* the monitor account `ts_monitor` (SELECT on mysql.user, CONNECTION ADMIN);
* `app` (ALL on `shop`, SELECT on `other`), as an application would have.

`start_turnstile(backend, *extra)` starts the real binary with
`--engine upstream` pointed at it.
"""

from __future__ import annotations

import pymysql

from helpers import mariadb
from helpers.server import ROOT_PASSWORD, TurnstileServer

MONITOR = ("ts_monitor", "Mon-pw-7")
APP = ("app", "App-pw-9")


class Backend(mariadb.MariaDB):
    def __init__(self, extra_args=()):
        # A test backend: commits are not flushed to disk (the suites run
        # thousands of DDL statements through it; durability is not what
        # they test).
        super().__init__(extra_args=["--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--sync-binlog=0", *extra_args])

    def start(self):
        super().start()
        c = pymysql.connect(unix_socket=self.socket, user="root", autocommit=True)
        with c.cursor() as cur:
            for q in [
                f"CREATE USER 'root'@'%' IDENTIFIED BY '{ROOT_PASSWORD}'",
                "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION",
                f"ALTER USER 'root'@'localhost' IDENTIFIED BY '{ROOT_PASSWORD}'",
                f"CREATE USER '{MONITOR[0]}'@'%' IDENTIFIED BY '{MONITOR[1]}'",
                f"GRANT SELECT ON mysql.user TO '{MONITOR[0]}'@'%'",
                f"GRANT CONNECTION ADMIN ON *.* TO '{MONITOR[0]}'@'%'",
                "CREATE DATABASE shop",
                "CREATE DATABASE other",
                "CREATE TABLE other.secret (s VARCHAR(20))",
                "INSERT INTO other.secret VALUES ('hidden')",
                f"CREATE USER '{APP[0]}'@'%' IDENTIFIED BY '{APP[1]}'",
                f"GRANT ALL ON shop.* TO '{APP[0]}'@'%'",
                f"GRANT SELECT ON other.* TO '{APP[0]}'@'%'",
            ]:
                cur.execute(q)
            cur.execute("SELECT user, host FROM mysql.user WHERE user = 'root' AND host NOT IN ('%', 'localhost')")
            for user, host in cur.fetchall():
                cur.execute(f"DROP USER '{user}'@'{host}'")
        c.close()
        return self

    def admin(self, **kwargs):
        """A root connection to the backend itself (its Unix socket)."""
        return pymysql.connect(unix_socket=self.socket, user="root", password=ROOT_PASSWORD, autocommit=True, **kwargs)

    def status(self, name: str) -> int:
        return self.statuses(name)[0]

    def statuses(self, *names: str):
        """Global status values, read over one connection of its own."""
        c = self.admin()
        try:
            with c.cursor() as cur:
                out = []
                for name in names:
                    cur.execute("SHOW GLOBAL STATUS LIKE %s", (name,))
                    out.append(int(cur.fetchone()[1]))
                return tuple(out)
        finally:
            c.close()


def turnstile_args(backend: Backend, *extra: str):
    return ["--upstream-servers", f"127.0.0.1:{backend.port}", "--upstream-user", MONITOR[0], "--upstream-password", MONITOR[1], *extra]


def start_turnstile(backend: Backend, *extra: str) -> TurnstileServer:
    srv = TurnstileServer(extra_args=turnstile_args(backend, *extra), engine="upstream", root_password=None)
    return srv.start()


def status(conn, name: str) -> str:
    """One SHOW STATUS value through Turnstile (its Upstream_* rows are added to the backend's)."""
    with conn.cursor() as cur:
        cur.execute("SHOW STATUS LIKE %s", (name,))
        row = cur.fetchone()
    return row[1] if row else None
