"""The client compatibility suite: every mainstream driver against the real binary.

One SQLite-engine server per module (the scheduler of this pass, from
TURNSTILE_THREAD_HANDLING); each client program in tests/clients/ gets a fresh
database and the two accounts, runs its checks and reports verdicts as JSON
lines (contract: tests/clients/README.md).  Every verdict must be `pass` or
`n/a`, except failures explained by a known server limitation listed in
clients/registry.py (KNOWN_GAPS), which the matrix shows as failures.  Results are written to $TURNSTILE_CLIENT_RESULTS/<scheduler>/ when
that is set; tests/clients/matrix.py builds docs/compatibility.md's matrix
from them.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from clients import harness
from clients.registry import CLIENTS, FEATURES, TOOLCHAIN_MISSING
from helpers import clients as sqlclients


@pytest.fixture(scope="module")
def matrix_server(sql_server):
    conn = sqlclients.root(sql_server)

    def query(sql):
        sqlclients.query(conn, sql)

    harness.prepare_accounts(query)
    yield sql_server, query
    conn.close()


def _save(run: harness.ClientRun) -> None:
    out = os.environ.get("TURNSTILE_CLIENT_RESULTS")
    if not out:
        return
    scheduler = os.environ.get("TURNSTILE_THREAD_HANDLING", "pool-of-threads")
    path = os.path.join(out, scheduler)
    os.makedirs(path, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "-", run.client.name.lower()).strip("-")
    with open(os.path.join(path, slug + ".json"), "w") as f:
        json.dump(dict(run.as_json(), scheduler=scheduler), f, indent=1)


@pytest.mark.parametrize("client", CLIENTS, ids=[c.name for c in CLIENTS])
def test_client(matrix_server, client):
    server, query = matrix_server
    env = harness.client_env(query, server, client)
    run = harness.run_client(client, env)
    if run.returncode == TOOLCHAIN_MISSING:
        msg = f"{client.name}: toolchain not installed ({run.stderr.strip()[-300:]}); run tests/clients/setup.sh"
        if os.environ.get("TURNSTILE_REQUIRE_CLIENTS") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    _save(run)
    context = f"\n--- {client.name} stderr (tail) ---\n{run.stderr[-3000:]}"
    assert run.returncode == 0, f"{client.name} exited with {run.returncode}; problems: {run.problems}{context}"
    assert not run.problems, f"{client.name}: {run.problems}{context}"
    assert run.version, f"{client.name} did not report its version{context}"
    assert not run.failures(), f"{client.name} failed checks:\n  " + "\n  ".join(run.failures()) + context
    for known in run.known_failures():
        print(f"{client.name}: known gap, {known}")
    # Every matrix column must get a verdict.
    missing = [f for f in FEATURES if f not in run.verdicts]
    assert not missing, f"{client.name} reported no verdict for {missing}{context}"
