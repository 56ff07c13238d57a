#!/usr/bin/env bash
# The whole test suite: installs what the tests need (Debian mariadb-client and
# sysbench, the pinned Python packages), builds the release binary, runs the
# Rust unit tests, then the integration tests that start the real `turnstile`
# binary and drive it with real clients (mysql CLI, PyMySQL, sysbench).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v mysql >/dev/null 2>&1 || need_apt+=(mariadb-client)
command -v sysbench >/dev/null 2>&1 || need_apt+=(sysbench)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
echo "== python packages"
python3 -m pip install -q --disable-pip-version-check -r tests/requirements.txt

echo "== build"
cargo build --release --locked -p turnstile
echo "== rust unit tests"
cargo test --release --locked --workspace 2>&1 | tee /tmp/turnstile-cargo-test.log | grep -E "^test result|FAILED|panicked|error" || true
if grep -qE "FAILED|error(\[|:)" /tmp/turnstile-cargo-test.log; then
  echo "rust unit tests failed"; exit 1
fi
# The whole integration suite runs once per scheduler.
for scheduler in one-thread-per-connection pool-of-threads; do
  echo "== integration tests, thread_handling=$scheduler (real binary, real clients)"
  TURNSTILE_THREAD_HANDLING=$scheduler TURNSTILE_REQUIRE_BIN=1 TURNSTILE_BIN="$PWD/target/release/turnstile" \
    python3 -m pytest tests -q -p no:cacheprovider "$@"
done
