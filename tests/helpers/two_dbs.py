"""What most attacks in tests/security start from, written once: a victim
database holding a secret, the attacker's own database, and an account
granted ALL on its own database only (the `two_dbs_factory` fixture of
tests/conftest.py builds them; each test file adds what its attack needs).
"""

from __future__ import annotations

from dataclasses import dataclass

import pymysql

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


def build(srv, root, uniq, prefix: str, victim=(), home=()) -> TwoDbs:
    """`victim` statements run after `USE victim` and the secret table's
    creation (`secret (id INT PRIMARY KEY, s VARCHAR(20))` holding (1,
    'top')); `home` statements after `USE home`."""
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
    att = clients.connect(srv, user, "pw", database=h)
    return TwoDbs(srv, root, att, v, h, user)


def tear_down(d: TwoDbs) -> None:
    d.att.close()
    clients.query(d.root, f"DROP USER '{d.user}'@'%'")
    clients.query(d.root, f"DROP DATABASE {d.victim}")
    clients.query(d.root, f"DROP DATABASE {d.home}")
