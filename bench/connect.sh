#!/usr/bin/env bash
# bench/connect.sh — the connection benchmark for the core-server issue, in ONE command.
#
# Why: Turnstile's promise is cheap connections. This script measures, on this
# machine and in the same run, what a short-lived connection (connect + auth +
# SELECT 1 + disconnect) costs
#   * Turnstile     (target/release/turnstile, blackhole engine), once with
#                   one-thread-per-connection ("turnstile") and once with
#                   pool-of-threads ("turnstile-pool"),
#   * MariaDB 10.11 (mariadbd, one-thread-per-connection, private datadir),
#   * floor         (crates/floor: canned replies, the machine's cost floor),
# driving each with sysbench 1.0.20 + bench/lua/connect_select1.lua over TCP
# (127.0.0.1) and the Unix socket, alternating servers, and also the RSS each
# server spends per idle authenticated connection. See bench/README.md.
#
# What it does:
#   1. installs what is missing (apt: mariadb-server mariadb-client sysbench;
#      pip: pymysql, cryptography) — idempotent, skipped when present;
#   2. builds crates/floor (and Turnstile if its binary is missing; a failed
#      Turnstile build is retried, then Turnstile is reported "not measured");
#   3. starts the three servers on private ports/sockets under a temp dir;
#   4. runs bench/lib/connect_bench.py (idle-RSS test, then the load runs),
#      which prints the table and writes bench/results/connect-<stamp>.{json,csv}
#      and bench/results/connect-latest.md;
#   5. stops everything it started and removes the temp dir (trap on exit).
#
# Usage: bash bench/connect.sh [--quick] [--runs N] [--duration S] [--threads N]
#          [--idle N] [--servers mariadb,turnstile,turnstile-pool,floor] [--transports tcp,unix]
#          [--rebuild] [--no-install] [--require-turnstile] [--keep-tmp]
#          [--turnstile-bin PATH] [--build-retries N] [--build-wait S]
#          [--mariadb-perf-schema] [--mariadb-opt=--name=value ...] [--results DIR]
# Exit status: 0 when every run succeeded, non-zero otherwise.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"

DURATION=20
RUNS=3
THREADS=100
IDLE=1000
SERVERS="mariadb,turnstile,turnstile-pool,floor"
TRANSPORTS="tcp,unix"
REBUILD=0
INSTALL=1
REQUIRE_TURNSTILE=0
KEEP_TMP=0
TURNSTILE_BIN="${TURNSTILE_BIN:-$ROOT/target/release/turnstile}"
FLOOR_BIN="$ROOT/target/release/floor"
BUILD_RETRIES=3
BUILD_WAIT=30
MARIADB_PORT=13306
TURNSTILE_PORT=13307
TURNSTILE_ADMIN_PORT=13317
FLOOR_PORT=13308
TURNSTILE_ROOT_PW="bench-root-pw"
RESULTS="$BENCH/results"
MARIADB_EXTRA=()  # extra mariadbd options (--mariadb-opt, --mariadb-perf-schema)

usage() { sed -n '2,/^# Exit status/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) DURATION=5 ;;
    --runs) RUNS="$2"; shift ;;
    --runs=*) RUNS="${1#*=}" ;;
    --duration) DURATION="$2"; shift ;;
    --duration=*) DURATION="${1#*=}" ;;
    --threads) THREADS="$2"; shift ;;
    --threads=*) THREADS="${1#*=}" ;;
    --idle) IDLE="$2"; shift ;;
    --idle=*) IDLE="${1#*=}" ;;
    --servers) SERVERS="$2"; shift ;;
    --servers=*) SERVERS="${1#*=}" ;;
    --transports) TRANSPORTS="$2"; shift ;;
    --transports=*) TRANSPORTS="${1#*=}" ;;
    --rebuild) REBUILD=1 ;;
    --no-install) INSTALL=0 ;;
    --require-turnstile) REQUIRE_TURNSTILE=1 ;;
    --keep-tmp) KEEP_TMP=1 ;;
    --turnstile-bin) TURNSTILE_BIN="$2"; shift ;;
    --turnstile-bin=*) TURNSTILE_BIN="${1#*=}" ;;
    --build-retries) BUILD_RETRIES="$2"; shift ;;
    --build-retries=*) BUILD_RETRIES="${1#*=}" ;;
    --build-wait) BUILD_WAIT="$2"; shift ;;
    --build-wait=*) BUILD_WAIT="${1#*=}" ;;
    --mariadb-perf-schema) MARIADB_EXTRA+=(--performance-schema=ON) ;;
    --mariadb-opt) MARIADB_EXTRA+=("$2"); shift ;;
    --mariadb-opt=*) MARIADB_EXTRA+=("${1#*=}") ;;
    --results) RESULTS="$2"; shift ;;
    --results=*) RESULTS="${1#*=}" ;;
    -h|--help) usage 0 ;;
    *) echo "connect.sh: unknown option $1" >&2; usage 2 ;;
  esac
  shift
done

log() { printf '[connect.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
want() { case ",$SERVERS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# ------------------------------------------------------------------ cleanup
TMP=""
PIDS=()          # every server process we started
DRIVER_PID=""    # the measuring python process while it runs
STAMP="$(date +%Y%m%d-%H%M%S)"
mkdir -p "$RESULTS"; RESULTS="$(cd "$RESULTS" && pwd)"
LOGDIR="$RESULTS/tmp/connect-$STAMP"   # bench/results/tmp/ is git-ignored

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local pid
  if [ -n "$DRIVER_PID" ]; then
    kill -TERM "$DRIVER_PID" 2>/dev/null || true
    wait "$DRIVER_PID" 2>/dev/null || true
  fi
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] || continue
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid did not stop on TERM; killing"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  if [ -n "$TMP" ] && [ -d "$TMP" ]; then
    mkdir -p "$LOGDIR"
    for f in "$TMP"/*.log "$TMP"/mariadb/*.log; do
      [ -f "$f" ] && cp "$f" "$LOGDIR/" 2>/dev/null || true
    done
    if [ "$KEEP_TMP" = 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------------ 1. install
ensure_deps() {
  local missing=()
  command -v mariadbd >/dev/null || missing+=(mariadb-server)
  command -v mariadb-install-db >/dev/null || missing+=(mariadb-server)
  command -v mysql >/dev/null || command -v mariadb >/dev/null || missing+=(mariadb-client)
  command -v mysqladmin >/dev/null || command -v mariadb-admin >/dev/null || missing+=(mariadb-client)
  command -v sysbench >/dev/null || missing+=(sysbench)
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$INSTALL" = 1 ] || die "missing: ${missing[*]} (and --no-install given)"
    log "installing ${missing[*]} (apt; waits up to 10 min for a dpkg lock held by another apt)"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2068
    apt-get -o DPkg::Lock::Timeout=600 install -y ${missing[@]} \
      || { apt-get -o DPkg::Lock::Timeout=600 update && apt-get -o DPkg::Lock::Timeout=600 install -y ${missing[@]}; } \
      || die "apt-get install ${missing[*]} failed"
  fi
  if ! python3 -c 'import pymysql' 2>/dev/null; then
    [ "$INSTALL" = 1 ] || die "python module pymysql missing (and --no-install given)"
    log "pip install pymysql"
    python3 -m pip install --quiet pymysql || die "pip install pymysql failed"
  fi
  # cryptography lets PyMySQL do caching_sha2_password full auth over plain TCP (RSA key exchange).
  if ! python3 -c 'import cryptography' 2>/dev/null && [ "$INSTALL" = 1 ]; then
    log "pip install cryptography"
    python3 -m pip install --quiet cryptography || log "warning: pip install cryptography failed (only needed for caching_sha2 full auth)"
  fi
  command -v cargo >/dev/null || die "cargo not found (needed to build crates/floor and Turnstile)"
}

MYSQL="$(command -v mysql || command -v mariadb || true)"
MYSQLADMIN="$(command -v mysqladmin || command -v mariadb-admin || true)"

# A port is free if nothing accepts on it; otherwise try the next ones.
free_port() {
  local p="$1" i
  for i in $(seq 0 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$((p + i))") 2>/dev/null; then echo $((p + i)); return; fi
  done
  die "no free port near $1"
}

# ------------------------------------------------------------------ 2. build
build_floor() {
  if [ "$REBUILD" = 1 ] || [ ! -x "$FLOOR_BIN" ] \
     || [ -n "$(find "$ROOT/crates/floor/src" "$ROOT/crates/floor/Cargo.toml" -newer "$FLOOR_BIN" 2>/dev/null | head -1)" ]; then
    log "building crates/floor"
    cargo build --release --manifest-path "$ROOT/crates/floor/Cargo.toml" --target-dir "$ROOT/target" \
      >"$TMP/build-floor.log" 2>&1 || { tail -20 "$TMP/build-floor.log" >&2; die "building crates/floor failed"; }
  fi
}

TURNSTILE_NOTE=""
build_turnstile() {
  if [ "$REBUILD" = 0 ] && [ -x "$TURNSTILE_BIN" ]; then
    if [ -n "$(find "$ROOT/crates" -path "$ROOT/crates/floor" -prune -o -newer "$TURNSTILE_BIN" \
              \( -name '*.rs' -o -name Cargo.toml \) -print 2>/dev/null | head -1)" ]; then
      log "warning: $TURNSTILE_BIN is older than sources under crates/ — pass --rebuild to rebuild it"
    fi
    return 0
  fi
  local i
  for i in $(seq 1 "$BUILD_RETRIES"); do
    log "building Turnstile (cargo build --release -p turnstile), attempt $i/$BUILD_RETRIES"
    if (cd "$ROOT" && cargo build --release -p turnstile) >"$TMP/build-turnstile.log" 2>&1; then
      [ -x "$TURNSTILE_BIN" ] && return 0
      TURNSTILE_NOTE="cargo build succeeded but $TURNSTILE_BIN is missing"
      return 1
    fi
    log "Turnstile build failed:"; grep -E '^(error|warning: unused)' "$TMP/build-turnstile.log" | head -5 >&2 || true
    TURNSTILE_NOTE="cargo build --release -p turnstile failed ($BUILD_RETRIES attempts); see build-turnstile.log"
    [ "$i" -lt "$BUILD_RETRIES" ] && { log "retrying in ${BUILD_WAIT}s (the tree may be mid-change)"; sleep "$BUILD_WAIT"; }
  done
  return 1
}

# ------------------------------------------------------------------ 3. servers
# wait_for_line FILE REGEX PID SECONDS — true once FILE has a line matching REGEX.
wait_for_line() {
  local file="$1" rx="$2" pid="$3" secs="$4" i
  for i in $(seq 1 $((secs * 10))); do
    grep -qE "$rx" "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 2
    sleep 0.1
  done
  return 1
}

# check_select1 HOSTARGS... — one SELECT 1 through the libmariadb client (as sysbench uses).
check_select1() {
  "$MYSQL" --no-defaults --connect-timeout=10 -N -B "$@" -e 'SELECT 1' 2>&1 | tail -1
}

MARIADB_PID=""; MARIADB_SOCK=""; MARIADB_NOTE=""
start_mariadb() {
  local d="$TMP/mariadb"
  mkdir -p "$d"
  MARIADB_PORT="$(free_port "$MARIADB_PORT")"
  MARIADB_SOCK="$d/mariadb.sock"
  log "initialising MariaDB datadir ($d/data)"
  mariadb-install-db --no-defaults --user=root --datadir="$d/data" \
    --auth-root-authentication-method=normal --skip-test-db >"$d/install.log" 2>&1 \
    || { MARIADB_NOTE="mariadb-install-db failed"; tail -5 "$d/install.log" >&2; return 1; }
  log "starting mariadbd on port $MARIADB_PORT"
  mariadbd --no-defaults --user=root --datadir="$d/data" \
    --port="$MARIADB_PORT" --bind-address=127.0.0.1 --socket="$MARIADB_SOCK" \
    --pid-file="$d/mariadb.pid" --log-error="$d/mariadb-error.log" --tmpdir="$d" \
    --thread-handling=one-thread-per-connection --performance-schema=OFF \
    --max-connections=2000 --thread-cache-size=200 --back-log=4096 \
    --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=128M \
    ${MARIADB_EXTRA[@]+"${MARIADB_EXTRA[@]}"} \
    >"$d/mariadb-stdout.log" 2>&1 &
  MARIADB_PID=$!
  PIDS+=("$MARIADB_PID")
  if ! wait_for_line "$d/mariadb-error.log" 'ready for connections' "$MARIADB_PID" 60; then
    MARIADB_NOTE="mariadbd did not become ready"; tail -10 "$d/mariadb-error.log" >&2 || true; return 1
  fi
  # The account the benchmark uses (no skip-grant-tables): bench/bench, all privileges.
  "$MYSQL" --no-defaults -uroot -S "$MARIADB_SOCK" -e "
    CREATE USER IF NOT EXISTS 'bench'@'%' IDENTIFIED BY 'bench';
    CREATE USER IF NOT EXISTS 'bench'@'localhost' IDENTIFIED BY 'bench';
    GRANT ALL PRIVILEGES ON *.* TO 'bench'@'%' WITH GRANT OPTION;
    GRANT ALL PRIVILEGES ON *.* TO 'bench'@'localhost' WITH GRANT OPTION;
    FLUSH PRIVILEGES;" || { MARIADB_NOTE="creating user bench failed"; return 1; }
  local a b
  a="$(check_select1 -h127.0.0.1 -P"$MARIADB_PORT" -ubench -pbench)"
  b="$(check_select1 -S "$MARIADB_SOCK" -ubench -pbench)"
  [ "$a" = 1 ] && [ "$b" = 1 ] || { MARIADB_NOTE="SELECT 1 as bench failed: tcp='$a' unix='$b'"; return 1; }
  log "MariaDB ready (pid $MARIADB_PID, $(mariadbd --version | awk '{print $3}'))"
}

TURNSTILE_PID=""; TURNSTILE_SOCK=""
TPOOL_PID=""; TPOOL_SOCK=""; TPOOL_PORT=13309; TPOOL_ADMIN_PORT=13319; TPOOL_NOTE=""
# start_turnstile [pool]: Turnstile with one-thread-per-connection (the
# "turnstile" server), or with pool-of-threads ("turnstile-pool"); the pool
# instance's pid/port/socket/note are copied into the TPOOL_* variables.
start_turnstile() {
  local mode="${1:-}" name=turnstile handling=one-thread-per-connection
  if [ "$mode" = pool ]; then
    name=turnstile-pool; handling=pool-of-threads
    local save=("$TURNSTILE_PID" "$TURNSTILE_PORT" "$TURNSTILE_ADMIN_PORT" "$TURNSTILE_SOCK" "$TURNSTILE_NOTE")
    TURNSTILE_PORT=$TPOOL_PORT; TURNSTILE_ADMIN_PORT=$TPOOL_ADMIN_PORT; TURNSTILE_NOTE=""
    local rc=0
    start_turnstile_as "$name" "$handling" || rc=$?
    TPOOL_PID="$TURNSTILE_PID"; TPOOL_PORT="$TURNSTILE_PORT"; TPOOL_SOCK="$TURNSTILE_SOCK"; TPOOL_NOTE="$TURNSTILE_NOTE"
    TURNSTILE_PID="${save[0]}"; TURNSTILE_PORT="${save[1]}"; TURNSTILE_ADMIN_PORT="${save[2]}"; TURNSTILE_SOCK="${save[3]}"; TURNSTILE_NOTE="${save[4]}"
    return $rc
  fi
  start_turnstile_as "$name" "$handling"
}

start_turnstile_as() {
  local name="$1" handling="$2"
  local d="$TMP/$name" line p s
  mkdir -p "$d/data"
  TURNSTILE_PORT="$(free_port "$TURNSTILE_PORT")"
  TURNSTILE_ADMIN_PORT="$(free_port "$TURNSTILE_ADMIN_PORT")"
  TURNSTILE_SOCK="$d/turnstile.sock"
  log "starting Turnstile ($handling) on port $TURNSTILE_PORT (admin $TURNSTILE_ADMIN_PORT)"
  "$TURNSTILE_BIN" --port "$TURNSTILE_PORT" --admin-port "$TURNSTILE_ADMIN_PORT" \
    --socket "$TURNSTILE_SOCK" --datadir "$d/data" --engine blackhole --thread-handling "$handling" \
    --max-connections 2000 --thread-cache-size 256 --root-password "$TURNSTILE_ROOT_PW" \
    >"$TMP/$name-stdout.log" 2>"$TMP/$name.log" &
  TURNSTILE_PID=$!
  PIDS+=("$TURNSTILE_PID")
  local rc=0
  wait_for_line "$TMP/$name.log" '^turnstile ready:' "$TURNSTILE_PID" 30 || rc=$?
  if [ "$rc" != 0 ]; then
    if [ "$rc" = 2 ]; then
      local st=0; wait "$TURNSTILE_PID" 2>/dev/null || st=$?
      TURNSTILE_NOTE="turnstile exited (status $st) without printing 'turnstile ready:'"
      if [ -s "$TMP/$name.log" ]; then TURNSTILE_NOTE="$TURNSTILE_NOTE; last stderr line: $(tail -1 "$TMP/$name.log" | cut -c1-200)"; fi
    else
      TURNSTILE_NOTE="turnstile printed no 'turnstile ready:' line within 30 s"
    fi
    tail -5 "$TMP/$name.log" >&2 || true
    return 1
  fi
  # Use what it says it listens on.
  line="$(grep -m1 -E '^turnstile ready:' "$TMP/$name.log")"
  p="$(sed -nE 's/.* port=([0-9]+).*/\1/p' <<<"$line")"; [ -n "$p" ] && TURNSTILE_PORT="$p"
  s="$(sed -nE 's/.* socket=([^ ]+).*/\1/p' <<<"$line")"; [ -n "$s" ] && TURNSTILE_SOCK="$s"
  local a b
  a="$(check_select1 -h127.0.0.1 -P"$TURNSTILE_PORT" -uroot -p"$TURNSTILE_ROOT_PW")"
  b="$(check_select1 -S "$TURNSTILE_SOCK" -uroot -p"$TURNSTILE_ROOT_PW")"
  if [ "$a" != 1 ] || [ "$b" != 1 ]; then
    TURNSTILE_NOTE="SELECT 1 as root failed: tcp='$a' unix='$b'"
    return 1
  fi
  log "Turnstile ($handling) ready (pid $TURNSTILE_PID)"
}

FLOOR_PID=""; FLOOR_SOCK=""; FLOOR_NOTE=""
start_floor() {
  FLOOR_PORT="$(free_port "$FLOOR_PORT")"
  FLOOR_SOCK="$TMP/floor.sock"
  log "starting floor on port $FLOOR_PORT"
  "$FLOOR_BIN" --port "$FLOOR_PORT" --socket "$FLOOR_SOCK" >"$TMP/floor-stdout.log" 2>"$TMP/floor.log" &
  FLOOR_PID=$!
  PIDS+=("$FLOOR_PID")
  wait_for_line "$TMP/floor.log" '^floor ready:' "$FLOOR_PID" 10 || { FLOOR_NOTE="floor did not start"; return 1; }
  local a b
  a="$(check_select1 -h127.0.0.1 -P"$FLOOR_PORT" -ubench -pbench)"
  b="$(check_select1 -S "$FLOOR_SOCK" -ubench -pbench)"
  [ "$a" = 1 ] && [ "$b" = 1 ] || { FLOOR_NOTE="SELECT 1 failed: tcp='$a' unix='$b'"; return 1; }
  log "floor ready (pid $FLOOR_PID)"
}

# ------------------------------------------------------------------ main
ensure_deps
MYSQL="$(command -v mysql || command -v mariadb)"
MYSQLADMIN="$(command -v mysqladmin || command -v mariadb-admin)"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 4096 ] || log "warning: open-files limit $(ulimit -n) is low for 1000 idle connections"

TMP="$(mktemp -d /tmp/turnstile-connect-bench.XXXXXX)"
mkdir -p "$RESULTS" "$LOGDIR"
log "temp dir $TMP; logs will be kept in ${LOGDIR#"$ROOT"/}"

M_OK=false; T_OK=false; P_OK=false; F_OK=false
if want floor; then build_floor; fi
if want turnstile-pool; then
  if build_turnstile; then
    start_turnstile pool && P_OK=true || true
  fi
  if [ "$P_OK" != true ]; then
    log "Turnstile pool-of-threads NOT measured: $TPOOL_NOTE"
    if [ -n "$TPOOL_PID" ]; then kill -TERM "$TPOOL_PID" 2>/dev/null || true; fi
  fi
fi
if want turnstile; then
  if build_turnstile; then
    start_turnstile && T_OK=true || true
  fi
  if [ "$T_OK" != true ]; then
    log "Turnstile NOT measured: $TURNSTILE_NOTE"
    [ "$REQUIRE_TURNSTILE" = 1 ] && die "--require-turnstile given"
    if [ -n "$TURNSTILE_PID" ]; then kill -TERM "$TURNSTILE_PID" 2>/dev/null || true; fi
  fi
fi
if want mariadb; then start_mariadb && M_OK=true || log "MariaDB NOT measured: $MARIADB_NOTE"; fi
if want floor; then start_floor && F_OK=true || log "floor NOT measured: $FLOOR_NOTE"; fi

CONFIG="$TMP/servers.json"
export M_OK T_OK P_OK F_OK TPOOL_PID TPOOL_PORT TPOOL_SOCK TPOOL_NOTE MARIADB_PID MARIADB_PORT MARIADB_SOCK MARIADB_NOTE \
  TURNSTILE_PID TURNSTILE_PORT TURNSTILE_SOCK TURNSTILE_NOTE TURNSTILE_ROOT_PW TURNSTILE_BIN \
  FLOOR_PID FLOOR_PORT FLOOR_SOCK FLOOR_NOTE SERVERS ROOT
MARIADB_EXTRA_OPTS="${MARIADB_EXTRA[*]:-}"; export MARIADB_EXTRA_OPTS
python3 - "$CONFIG" <<'PY'
import json, os, subprocess, sys, time
e = os.environ
def ver(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
    except Exception:
        return "?"
def git(*a):
    try:
        return subprocess.run(["git", "-C", e["ROOT"], *a], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:
        return ""
rev = git("rev-parse", "--short", "HEAD") or "no commit"
dirty = " (+ uncommitted changes)" if git("status", "--porcelain", "--", "crates", ":!crates/floor") else ""
tb = e.get("TURNSTILE_BIN", "")
servers = []
def add(name, ok, pid, port, sock, user, pw, note):
    if name not in e["SERVERS"].split(","):
        return
    servers.append({"name": name, "available": ok == "true", "pid": int(pid) if pid else None,
                    "host": "127.0.0.1", "port": int(port), "socket": sock, "user": user,
                    "password": pw, "note": note})
add("mariadb", e["M_OK"], e["MARIADB_PID"], e["MARIADB_PORT"], e["MARIADB_SOCK"], "bench", "bench", e["MARIADB_NOTE"])
add("turnstile", e["T_OK"], e["TURNSTILE_PID"], e["TURNSTILE_PORT"], e["TURNSTILE_SOCK"], "root",
    e["TURNSTILE_ROOT_PW"], e["TURNSTILE_NOTE"])
add("turnstile-pool", e["P_OK"], e["TPOOL_PID"], e["TPOOL_PORT"], e["TPOOL_SOCK"], "root",
    e["TURNSTILE_ROOT_PW"], e["TPOOL_NOTE"])
add("floor", e["F_OK"], e["FLOOR_PID"], e["FLOOR_PORT"], e["FLOOR_SOCK"], "bench", "bench", e["FLOOR_NOTE"])
uname = os.uname()
def sysctl(name):
    try:
        return " ".join(open("/proc/sys/" + name.replace(".", "/")).read().split())
    except OSError:
        return "?"
meta = {
    "machine": f"{os.cpu_count()} CPUs, {uname.sysname} {uname.release}, load avg at start "
               + " ".join(open("/proc/loadavg").read().split()[:3])
               + f"; tcp_tw_reuse={sysctl('net.ipv4.tcp_tw_reuse')}, "
               + f"ip_local_port_range={sysctl('net.ipv4.ip_local_port_range')}, somaxconn={sysctl('net.core.somaxconn')}",
    "mariadb_extra_opts": e.get("MARIADB_EXTRA_OPTS", ""),
    "versions": f"{ver(['mariadbd', '--version'])}; {ver(['sysbench', '--version'])}",
    "turnstile_rev": f"git {rev}{dirty}, binary {tb}" + (
        time.strftime(" built %Y-%m-%d %H:%M", time.localtime(os.path.getmtime(tb)))
        if tb and os.path.exists(tb) else " (missing)"),
}
json.dump({"servers": servers, "meta": meta}, open(sys.argv[1], "w"), indent=1)
PY

if [ "$M_OK" != true ] && [ "$T_OK" != true ] && [ "$F_OK" != true ]; then
  die "no server could be started"
fi

log "measuring: runs=$RUNS duration=${DURATION}s threads=$THREADS transports=$TRANSPORTS idle=$IDLE"
# Run in the background and `wait`, so INT/TERM reach our trap at once; the
# driver turns TERM into an exit that also kills a running sysbench.
set +e
python3 "$BENCH/lib/connect_bench.py" --config "$CONFIG" --lua "$BENCH/lua/connect_select1.lua" \
  --sysbench "$(command -v sysbench)" --duration "$DURATION" --threads "$THREADS" --runs "$RUNS" \
  --transports "$TRANSPORTS" --idle "$IDLE" --out "$RESULTS" --logdir "$LOGDIR" &
DRIVER_PID=$!
wait "$DRIVER_PID"
RC=$?
DRIVER_PID=""
set -e
if want turnstile && [ "$T_OK" != true ]; then log "note: Turnstile was not measured: $TURNSTILE_NOTE"; fi
exit "$RC"
