"""The Prometheus endpoint (issue #26, item 1) against the real binary: the
exposition parsed by the official Python client's strict OpenMetrics parser,
the figures moving with what clients do, and the endpoint's own limits (a
silent client, a huge request head, other paths and methods)."""

import socket
import time
import urllib.error
import urllib.request

import pymysql
import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from helpers import clients


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        assert r.headers["Content-Type"].startswith("application/openmetrics-text")
        return r.read().decode()


def samples(text):
    """{(name, frozenset(labels)): value}, through the strict parser."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(m, name, **labels):
    return m[(name, frozenset(labels.items()))]


@pytest.fixture
def metered(server_factory):
    port = free_port()
    srv = server_factory("--metrics-port", str(port), engine="sqlite")
    return srv, port


def test_the_exposition_parses_and_follows_what_clients_do(metered):
    srv, port = metered
    before = samples(scrape(port))
    conn = clients.root(srv)
    local = clients.root(srv, transport="socket")
    clients.query(conn, "SELECT 1")
    assert clients.error(conn, "SELECT nosuch")[0] == 1054
    assert clients.error(local, "SELEC")[0] == 1064
    after = samples(scrape(port))
    grew = lambda name, **l: value(after, name, **l) - value(before, name, **l)  # noqa: E731
    assert grew("turnstile_connections_accepted_total", listener="tcp") == 1
    assert grew("turnstile_connections_accepted_total", listener="socket") == 1
    assert grew("turnstile_statements_total", command="query", outcome="error") == 2
    assert grew("turnstile_statements_total", command="query", outcome="ok") >= 1
    assert value(after, "turnstile_statement_errors_total", code="1054") == 1
    assert value(after, "turnstile_statement_errors_total", code="1064") == 1
    assert grew("turnstile_connect_duration_seconds_count") == 2
    assert value(after, "turnstile_connect_duration_seconds_bucket", le="+Inf") == value(after, "turnstile_connect_duration_seconds_count")
    assert value(after, "turnstile_statement_duration_seconds_count") >= 3
    assert 0 < value(after, "turnstile_statement_duration_seconds_sum") < 10
    assert value(after, "turnstile_connections") == 2
    assert grew("turnstile_network_received_bytes_total") > 0 and grew("turnstile_network_sent_bytes_total") > 0
    assert value(after, "turnstile_tls_handshakes_total") >= 1
    # Pool workers under pool-of-threads, threads created under thread-per-connection.
    assert value(after, "turnstile_pool_threads") + value(after, "turnstile_threads_created_total") >= 1
    # Buckets are cumulative and end at the count.
    buckets = sorted((float(dict(k[1])["le"]), v) for k, v in after.items() if k[0] == "turnstile_statement_duration_seconds_bucket")
    assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])) and buckets[-1][0] == float("inf")


def test_refused_connections_are_counted_by_listener(metered):
    srv, port = metered
    root = clients.root(srv)
    clients.query(root, "CREATE USER plain IDENTIFIED BY 'pw'")
    clients.query(root, "SET GLOBAL max_connections = 1")
    refused = 0
    for _ in range(3):
        try:
            clients.connect(srv, user="plain", password="pw")
        except pymysql.err.OperationalError as e:
            assert e.args[0] == 1040
            refused += 1
    assert refused == 3
    m = samples(scrape(port))
    assert value(m, "turnstile_connections_refused_total", listener="tcp") == 3
    assert value(m, "turnstile_connections_aborted_total", stage="login") >= 3


def test_the_endpoint_refuses_what_it_does_not_serve_and_outlives_bad_clients(metered):
    srv, port = metered
    for path, code in (("/", 404), ("/metrics/../x", 404), ("/metricsx", 404)):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10)
        assert e.value.code == code
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 405
    # A request head past 8 KiB: 431, and the connection is closed.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\n" + b"X-Pad: " + b"a" * 20000 + b"\r\n\r\n")
        assert s.recv(64).startswith(b"HTTP/1.1 431")
    # A client that connects and sends nothing holds the endpoint 5 s at most.
    silent = socket.create_connection(("127.0.0.1", port), timeout=10)
    start = time.monotonic()
    assert "turnstile_uptime_seconds" in scrape(port)
    assert time.monotonic() - start < 8
    silent.close()
    # A client sending a byte a second holds it 5 s in all, not 5 s a byte.
    import threading
    drip = socket.create_connection(("127.0.0.1", port), timeout=30)
    stop = threading.Event()

    def dribble():
        try:
            while not stop.wait(1):
                drip.sendall(b"G")
        except OSError:
            pass

    threading.Thread(target=dribble, daemon=True).start()
    time.sleep(0.2)
    start = time.monotonic()
    assert "turnstile_uptime_seconds" in scrape(port)
    assert time.monotonic() - start < 8
    stop.set()
    drip.close()
    # Garbage instead of HTTP.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"\x00\xff\r\n\r\n")
        assert s.recv(64).startswith(b"HTTP/1.1 404")
    assert srv.is_running() and clients.scalar(clients.root(srv), "SELECT 1") == 1


def test_a_metrics_port_in_use_stops_the_start_with_a_clear_message(server_factory):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        srv = server_factory.new("--metrics-port", str(port), engine="sqlite")
        with pytest.raises(Exception):
            srv.start()
    assert f"metrics endpoint 127.0.0.1:{port}" in open(srv.log_path).read()
