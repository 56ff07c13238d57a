"""The client programs of the compatibility suite and how to run them.

Every client lives in its own directory under tests/clients/ with two
executables: `setup` (install the toolchain and build; idempotent, run by
tests/clients/setup.sh) and `run [ARGS]` (the test program; the contract is in
tests/clients/README.md).  `run` exits with 77 when its toolchain is not
installed, which the pytest driver turns into a skip (a failure when
TURNSTILE_REQUIRE_CLIENTS=1, as in CI).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Tuple

CLIENTS_DIR = Path(__file__).resolve().parent

# The matrix columns, in order (see README.md).
FEATURES: Tuple[str, ...] = (
    "connect_native",
    "connect_sha2",
    "connect_tls",
    "types_integer",
    "types_decimal",
    "types_float",
    "types_string",
    "types_blob",
    "types_temporal",
    "types_null",
    "prepared",
    "tx_rollback",
    "tx_commit",
    "duplicate_key",
    "last_insert_id",
    "affected_rows",
    "multi_results",
    "pool_reuse",
)

# Known server limitations, each stated in docs/compatibility.md: a failing
# verdict whose detail contains the marker is reported (the matrix shows it as
# ✗ with its note) but does not fail the test run. Nothing else may fail.
KNOWN_GAPS: Tuple[Tuple[str, str], ...] = (
    (
        "row of BIGINT UNSIGNED max 18446744073709551615: com.mysql.cj.jdbc.exceptions.MysqlDataTruncation: Data truncation: Out of range value for column 'bu'",
        "MySQL Connector/J sends a BigInteger parameter as a signed LONGLONG (18446744073709551615 as -1), which MariaDB 10.11 refuses with the same 1264",
    ),
)

TOOLCHAIN_MISSING = 77
RUN_TIMEOUT = 120.0


@dataclass(frozen=True)
class Client:
    name: str          # matrix row and pytest id
    ecosystem: str     # grouping in the matrix
    directory: str     # under tests/clients/
    args: Tuple[str, ...] = ()

    def argv(self) -> List[str]:
        return [str(CLIENTS_DIR / self.directory / "run"), *self.args]


CLIENTS: Tuple[Client, ...] = (
    Client("mysql CLI", "C (MariaDB)", "cli"),
    Client("PHP mysqli", "PHP", "php", ("mysqli",)),
    Client("PHP PDO_mysql", "PHP", "php", ("pdo",)),
    Client("PyMySQL", "Python", "python", ("pymysql",)),
    Client("mysqlclient", "Python", "python", ("mysqlclient",)),
    Client("mysql-connector-python", "Python", "python", ("connector",)),
    Client("SQLAlchemy (PyMySQL)", "Python", "python", ("sqlalchemy",)),
    Client("go-sql-driver/mysql", "Go", "go"),
    Client("mysql2", "Node.js", "node"),
    Client("MySQL Connector/J", "Java", "java", ("mysql",)),
    Client("MariaDB Connector/J", "Java", "java", ("mariadb",)),
    Client("mysql_async", "Rust", "rust"),
)
