#!/usr/bin/env bash
# bench/sql.sh — the SQL-engine benchmark (embedded SQLite engine vs MariaDB), in ONE command.
#
# Why: the embedded-engine issue sets its targets relative to MariaDB 10.11
# (InnoDB, thread_handling=one-thread-per-connection) on this machine. This
# script starts both servers with private data directories, prepares sbtest1
# (100,000 rows) on each and runs, alternating servers run by run:
#   oltp_point_select, oltp_read_only, oltp_read_write at 16 and 100 threads (and
#   oltp_read_write with both servers at READ COMMITTED)
#   (sysbench 1.0.20, --db-ps-mode=auto), and connect + one point select on
#   sbtest1 + disconnect at 100 threads (bench/lua/connect_point_select.lua);
# reporting QPS/TPS and the server's CPU time per query (per connection for
# the connect run) from /proc/PID/stat, median and [min-max] of the runs.
# The point select and connect rows are also run against crates/floor, a
# canned-reply server that does no SQL work (same client, same protocol
# round trips): its CPU per query is what loopback TCP and the protocol cost
# on this machine, so the report shows how much of each server's cost is
# above that floor.
# Both servers are durable at commit (InnoDB innodb_flush_log_at_trx_commit=1,
# Turnstile --sqlite-durability=full) and use utf8mb4_general_ci.
#
# Usage: bash bench/sql.sh [--runs N] [--duration S] [--threads "16,100"]
#          [--table-size N] [--turnstile-bin PATH] [--keep-tmp]
#          [--thread-handling one-thread-per-connection|pool-of-threads]
#   --thread-handling  Turnstile's scheduler (default: its default, pool-of-threads)
# Output: the table on stdout, bench/results/sql-<stamp>.md and .json.
# Exit status: 0 when every run succeeded.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
RUNS=3
DURATION=10
THREADS="16,100"
TABLE_SIZE=100000
TURNSTILE_BIN="${TURNSTILE_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/turnstile}"
KEEP_TMP=0
THREAD_HANDLING=pool-of-threads
MARIADB_PORT=13406
TURNSTILE_PORT=13407
FLOOR_PORT=13408
FLOOR_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/floor"

while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift ;;
    --duration) DURATION="$2"; shift ;;
    --threads) THREADS="$2"; shift ;;
    --table-size) TABLE_SIZE="$2"; shift ;;
    --turnstile-bin) TURNSTILE_BIN="$2"; shift ;;
    --keep-tmp) KEEP_TMP=1 ;;
    --thread-handling) THREAD_HANDLING="$2"; shift ;;
    -h|--help) sed -n '2,/^# Exit status/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sql.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '[sql.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for c in sysbench mariadbd mariadb-install-db python3 cargo; do
  command -v "$c" >/dev/null || die "$c not found (apt-get install mariadb-server mariadb-client sysbench)"
done
MYSQL="$(command -v mysql || command -v mariadb)"
[ -x "$TURNSTILE_BIN" ] || die "turnstile binary not found at $TURNSTILE_BIN (cargo build --release -p turnstile)"

TMP="$(mktemp -d /tmp/ts-sqlbench-XXXXXX)"
PIDS=()
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] || continue
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$KEEP_TMP" = 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
  local p="$1"
  while (echo >/dev/tcp/127.0.0.1/"$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

wait_for_line() { # file pattern pid seconds
  local i
  for i in $(seq 1 $(($4 * 10))); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# ---------------------------------------------------------------- MariaDB
d="$TMP/mariadb"; mkdir -p "$d"
MARIADB_PORT="$(free_port "$MARIADB_PORT")"
log "initialising MariaDB datadir"
mariadb-install-db --no-defaults --user=root --datadir="$d/data" \
  --auth-root-authentication-method=normal --skip-test-db >"$d/install.log" 2>&1 || die "mariadb-install-db failed"
mariadbd --no-defaults --user=root --datadir="$d/data" \
  --port="$MARIADB_PORT" --bind-address=127.0.0.1 --socket="$d/mariadb.sock" \
  --pid-file="$d/mariadb.pid" --log-error="$d/error.log" --tmpdir="$d" \
  --thread-handling=one-thread-per-connection --performance-schema=OFF \
  --max-connections=2000 --thread-cache-size=200 --back-log=4096 \
  --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=256M \
  --innodb-flush-log-at-trx-commit=1 \
  --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
  >"$d/stdout.log" 2>&1 &
MARIADB_PID=$!; PIDS+=("$MARIADB_PID")
wait_for_line "$d/error.log" 'ready for connections' "$MARIADB_PID" 60 || die "mariadbd did not start: $(tail -5 "$d/error.log")"
"$MYSQL" --no-defaults -uroot -S "$d/mariadb.sock" -e "
  CREATE USER 'bench'@'%' IDENTIFIED BY 'bench'; GRANT ALL ON *.* TO 'bench'@'%';
  CREATE DATABASE sbtest; FLUSH PRIVILEGES;" || die "MariaDB setup failed"
log "MariaDB ready: pid $MARIADB_PID port $MARIADB_PORT ($(mariadbd --version | awk '{print $3}'))"

# ---------------------------------------------------------------- Turnstile
t="$TMP/turnstile"; mkdir -p "$t"
TURNSTILE_PORT="$(free_port "$TURNSTILE_PORT")"
"$TURNSTILE_BIN" --engine sqlite --sqlite-durability full --port "$TURNSTILE_PORT" --admin-port 0 \
  --socket "$t/t.sock" --datadir "$t/data" --root-password bench --max-connections 2000 \
  --thread-handling "$THREAD_HANDLING" --log-level warn >"$t/stdout.log" 2>"$t/stderr.log" &
TURNSTILE_PID=$!; PIDS+=("$TURNSTILE_PID")
wait_for_line "$t/stderr.log" 'turnstile ready' "$TURNSTILE_PID" 30 || die "turnstile did not start: $(tail -5 "$t/stderr.log")"
"$MYSQL" --no-defaults -uroot -pbench -h127.0.0.1 -P"$TURNSTILE_PORT" -e "CREATE DATABASE sbtest" || die "Turnstile setup failed"
log "Turnstile ready: pid $TURNSTILE_PID port $TURNSTILE_PORT ($TURNSTILE_BIN)"

# ---------------------------------------------------------------- floor (canned replies)
log "building crates/floor"
cargo build --release --manifest-path "$ROOT/crates/floor/Cargo.toml" --target-dir "${CARGO_TARGET_DIR:-$ROOT/target}" \
  >"$TMP/build-floor.log" 2>&1 || die "building crates/floor failed: $(tail -5 "$TMP/build-floor.log")"
FLOOR_PORT="$(free_port "$FLOOR_PORT")"
"$FLOOR_BIN" --port "$FLOOR_PORT" >"$TMP/floor-stdout.log" 2>"$TMP/floor.log" &
FLOOR_PID=$!; PIDS+=("$FLOOR_PID")
wait_for_line "$TMP/floor.log" '^floor ready:' "$FLOOR_PID" 10 || die "floor did not start: $(tail -5 "$TMP/floor.log")"

mkdir -p "$BENCH/results"
STAMP="$(date +%Y%m%d-%H%M%S)"
SERVERS="[{\"name\":\"turnstile\",\"pid\":$TURNSTILE_PID,\"port\":$TURNSTILE_PORT,\"user\":\"root\",\"password\":\"bench\"},
          {\"name\":\"mariadb\",\"pid\":$MARIADB_PID,\"port\":$MARIADB_PORT,\"user\":\"bench\",\"password\":\"bench\"},
          {\"name\":\"floor\",\"pid\":$FLOOR_PID,\"port\":$FLOOR_PORT,\"user\":\"bench\",\"password\":\"bench\",\"canned\":true}]"
python3 "$BENCH/lib/sql_bench.py" --servers "$SERVERS" --runs "$RUNS" --duration "$DURATION" \
  --threads "$THREADS" --table-size "$TABLE_SIZE" --out "$BENCH/results/sql-$STAMP" \
  --command "bash bench/sql.sh --runs $RUNS --duration $DURATION --threads $THREADS --table-size $TABLE_SIZE --thread-handling $THREAD_HANDLING"
