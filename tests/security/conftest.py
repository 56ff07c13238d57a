"""What most attacks here start from, written once: a victim database holding a
secret, the attacker's own database, and an account granted ALL on its own
database only. Each test file adds what its attack needs (a view, an index,
a second account) through the factory's `victim` and `home` statements.
"""

from __future__ import annotations

from dataclasses import dataclass

import pymysql
import pytest

from helpers import clients


@dataclass
class TwoDbs:
    """The server, a root connection, the attacker's connection (its default
    database is `home`), the victim database, the attacker's database and
    the attacker's user name."""

    srv: object
    root: pymysql.connections.Connection
    att: pymysql.connections.Connection
    victim: str
    home: str
    user: str


@pytest.fixture
def two_dbs_factory(sql_server, uniq):
    """make(prefix, victim=[...], home=[...]) -> TwoDbs. `victim` statements
    run after `USE victim` and the secret table's creation (`secret (id INT
    PRIMARY KEY, s VARCHAR(20))` holding (1, 'top')); `home` statements after
    `USE home`. Everything is dropped at teardown."""
    made = []
    root = clients.root(sql_server)

    def make(prefix: str, victim: list[str] = (), home: list[str] = ()) -> TwoDbs:
        v, h, user = uniq(f"{prefix}vic"), uniq(f"{prefix}home"), uniq(f"{prefix}att")
        setup = [
            f"CREATE DATABASE {v}",
            f"CREATE DATABASE {h}",
            f"CREATE TABLE {v}.secret (id INT PRIMARY KEY, s VARCHAR(20))",
            f"INSERT INTO {v}.secret VALUES (1, 'top')",
            f"USE {v}",
            *victim,
            f"USE {h}",
            *home,
            f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
            f"GRANT ALL ON {h}.* TO '{user}'@'%'",
        ]
        for sql in setup:
            clients.query(root, sql)
        att = clients.connect(sql_server, user, "pw", database=h)
        made.append((att, v, h, user))
        return TwoDbs(sql_server, root, att, v, h, user)

    yield make
    for att, v, h, user in made:
        att.close()
        clients.query(root, f"DROP USER '{user}'@'%'")
        clients.query(root, f"DROP DATABASE {v}")
        clients.query(root, f"DROP DATABASE {h}")
    root.close()
