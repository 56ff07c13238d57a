#!/usr/bin/env bash
# The whole test suite: installs what the tests need (Debian mariadb-client,
# mariadb-server for the dump round trips of tests/test_dump.py, and
# sysbench, the pinned Python packages, and the toolchains of the client
# compatibility suite: PHP, Go modules, npm, Maven, cargo), builds the release
# binary, runs the Rust unit tests, the fuzz targets for 60 s each
# (scripts/fuzz.sh, docs/fuzzing.md), then the integration tests that start the
# real `turnstile` binary and drive it with real clients (mysql CLI, PyMySQL,
# sysbench, and tests/clients/: PHP, Python, Go, Node, Java and Rust drivers),
# once per scheduler, then two drivers' own test suites against Turnstile beside
# a private MariaDB 10.11 (tests/outside/: PyMySQL's, go-sql-driver/mysql's
# `go test`) and the differential runner over MariaDB's own mysql-test files
# (Debian mariadb-test), and regenerates the client matrix in docs/compatibility.md.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v mysql >/dev/null 2>&1 || need_apt+=(mariadb-client)
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need_apt+=(mariadb-server)
[ -d /usr/share/mysql/mysql-test/main ] || need_apt+=(mariadb-test)
command -v sysbench >/dev/null 2>&1 || need_apt+=(sysbench)
# The go-sql-driver/mysql suite gives its MariaDB a throwaway certificate.
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
# tests/test_mysqld_exporter.py scrapes Turnstile with Prometheus's exporter;
# tests/test_packaging.py verifies the systemd unit.
command -v prometheus-mysqld-exporter >/dev/null 2>&1 || need_apt+=(prometheus-mysqld-exporter)
command -v systemd-analyze >/dev/null 2>&1 || need_apt+=(systemd)
# tests/test_query_logs.py reads the slow log with pt-query-digest, and
# tests/test_packaging.py rotates the logs with logrotate.
command -v pt-query-digest >/dev/null 2>&1 || need_apt+=(percona-toolkit)
command -v logrotate >/dev/null 2>&1 || [ -x /usr/sbin/logrotate ] || need_apt+=(logrotate)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
echo "== python packages"
python3 -m pip install -q --disable-pip-version-check -r tests/requirements.txt

echo "== client compatibility suite: toolchains and builds (tests/clients/setup.sh)"
bash tests/clients/setup.sh

echo "== build"
cargo build --release --locked -p turnstile
echo "== style (cargo fmt --check, cargo clippy -D warnings)"
cargo fmt --all --check
cargo clippy --release --locked --workspace --all-targets --quiet -- -D warnings
echo "== rust unit tests"
cargo test --release --locked --workspace 2>&1 | tee /tmp/turnstile-cargo-test.log | grep -E "^test result|FAILED|panicked|error" || true
if grep -qE "FAILED|error(\[|:)" /tmp/turnstile-cargo-test.log; then
  echo "rust unit tests failed"; exit 1
fi
echo "== unit and in-memory tests again with debug assertions and overflow checks on (invariants are debug_assert!; a release build wraps silently)"
cargo test --locked --workspace --exclude turnstile-loadgen --exclude turnstile-floor 2>&1 | tee /tmp/turnstile-cargo-test-debug.log | grep -E "^test result|FAILED|panicked|error" || true
if grep -qE "FAILED|error(\[|:)" /tmp/turnstile-cargo-test-debug.log; then
  echo "debug-assertion tests failed"; exit 1
fi
echo "== fuzz targets, 60 s each (scripts/fuzz.sh)"
bash scripts/fuzz.sh --seconds 60
# The whole integration suite runs once per scheduler; both runs are attempted
# before the verdict so the client matrix covers both.
results="$(mktemp -d /tmp/turnstile-clients-XXXXXX)"
status=0
for scheduler in one-thread-per-connection pool-of-threads; do
  echo "== integration tests, thread_handling=$scheduler (real binary, real clients)"
  TURNSTILE_THREAD_HANDLING=$scheduler TURNSTILE_REQUIRE_BIN=1 TURNSTILE_REQUIRE_CLIENTS=1 \
    TURNSTILE_CLIENT_RESULTS="$results" TURNSTILE_BIN="$PWD/target/release/turnstile" \
    python3 -m pytest tests -q -p no:cacheprovider "$@" || status=1
done
# Each runs the driver's suite against Turnstile (default scheduler) and a
# MariaDB it starts, and fails on a test MariaDB passes that Turnstile fails
# without a reason in tests/outside/*_known.txt (docs/compatibility.md).
echo "== outside conformance suites: PyMySQL's and go-sql-driver/mysql's own tests"
TURNSTILE_BIN="$PWD/target/release/turnstile" python3 tests/outside/pymysql_suite.py || status=1
TURNSTILE_BIN="$PWD/target/release/turnstile" python3 tests/outside/go_mysql_suite.py || status=1
# Turnstile's own SQL and session suites and the client matrix through the
# upstream engine in front of a private MariaDB (its answers are the
# expected ones); fails on a failure not in tests/outside/upstream_known.txt.
echo "== upstream engine: the SQL and session suites and the client matrix through it, against MariaDB"
TURNSTILE_BIN="$PWD/target/release/turnstile" TURNSTILE_REQUIRE_CLIENTS=1 python3 tests/outside/upstream_suites.py || status=1
# Statements of MariaDB's own test files (tests/outside/mtr_files.txt) replayed
# against both servers; fails when a file agrees on fewer than its floor.
echo "== differential runner: MariaDB's mysql-test files, Turnstile beside MariaDB"
TURNSTILE_BIN="$PWD/target/release/turnstile" python3 tests/outside/mtr_diff.py || status=1
echo "== client matrix"
python3 tests/clients/matrix.py "$results" || status=1
rm -rf "$results"
exit $status
