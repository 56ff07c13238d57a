#!/usr/bin/env bash
# Run the fuzz targets (fuzz/, cargo-fuzz + libFuzzer) for a bounded time each
# and fail on any crash, hang or memory blow-up. CI (scripts/test.sh) runs
#   bash scripts/fuzz.sh --seconds 60
# Usage: scripts/fuzz.sh [--seconds N] [TARGET...]   (default: every target;
# --seconds 0 only builds them)
# Installs what it needs: cargo-fuzz (pinned, with cargo install) on the nightly
# toolchain that the machine image carries. Targets run one at a time at
# nice 19, starting from the committed seeds in fuzz/corpus/<target>/; what
# they find goes to fuzz/work/<target>/ (the committed corpus stays as it is),
# crashing inputs to fuzz/artifacts/<target>/. Full libFuzzer logs go to
# fuzz/work/<target>.log; this prints one line per target. See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
ALL_TARGETS=(packet_decoder handshake_response stmt_execute lexer sql_expr rewrite ddl system_variable decimal routine account upstream_answer tls_stream full_auth digest)
RSS_LIMIT_MB=1024
# A hang is an input that keeps the target busy for 5 s of CPU (the harness
# measures it: fuzz/src/lib.rs); libFuzzer's wall-clock timeout is only the
# backstop, long enough that waiting for a core on a busy machine is no hang.
TIMEOUT_S=120

seconds=60
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: --seconds needs a whole number" >&2; exit 2 ;; esac

# Longest input per target: above the seeds that matter, small enough to stay fast.
max_len() {
  case "$1" in
    handshake_response) echo 2048 ;;
    stmt_execute) echo 4096 ;;
    *) echo 8192 ;;
  esac
}

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz.sh: no nightly toolchain (rustup toolchain list); cargo-fuzz needs one" >&2
  exit 1
fi
if [ "$(cargo +nightly fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
  echo "== fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install --quiet --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
fi

target_dir="${CARGO_TARGET_DIR:-$PWD/target}/fuzz"
mkdir -p fuzz/work
build_log=fuzz/work/build.log
start=$(date +%s)
# -s none: the code under test is safe Rust, and AddressSanitizer's larger
# stack frames would overflow the server-sized stack where the server does not.
if ! (cd fuzz && nice -n 19 cargo +nightly fuzz build -s none --target-dir "$target_dir") >"$build_log" 2>&1; then
  tail -n 30 "$build_log"
  echo "fuzz: build failed (full log: $build_log)"
  exit 1
fi
echo "== fuzz: built in $(( $(date +%s) - start )) s; ${seconds} s per target"
[ "$seconds" -gt 0 ] || exit 0
bin_dir="$target_dir/x86_64-unknown-linux-gnu/release"

failed=()
for t in "${targets[@]}"; do
  [ -x "$bin_dir/$t" ] || { echo "fuzz: no such target: $t" >&2; exit 2; }
  work="fuzz/work/$t"
  artifacts="fuzz/artifacts/$t"
  log="fuzz/work/$t.log"
  rm -rf "$work"
  mkdir -p "$work" "$artifacts" "fuzz/corpus/$t"
  rc=0
  nice -n 19 "$bin_dir/$t" "$work" "fuzz/corpus/$t" \
    -max_total_time="$seconds" -max_len="$(max_len "$t")" -rss_limit_mb="$RSS_LIMIT_MB" \
    -timeout="$TIMEOUT_S" -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $t: ok, ${execs:-?} runs (${rate:-?}/s), cov ${cov:-?}, corpus $(ls "$work" | wc -l) new"
    continue
  fi
  failed+=("$t")
  crash=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -n 1 | sed 's/Test unit written to //' || true)
  echo "fuzz $t: FAILED (exit $rc) after ${execs:-?} runs"
  { grep -E "panicked at|stack overflow|==turnstile-fuzz== hang|ERROR: libFuzzer|^thread '" "$log" | head -n 4 | sed 's/^/  /'; } || true
  { grep -A1 "panicked at" "$log" | sed -n '2p' | sed 's/^/  /'; } || true
  if [ -n "$crash" ] && [ -f "$crash" ]; then
    echo "  input: $crash ($(stat -c %s "$crash") bytes): $(python3 -c 'import sys; print(repr(open(sys.argv[1], "rb").read()[:160]))' "$crash")"
    # The whole input, so a failure in CI (whose checkout is gone) can be rebuilt:
    # base64 -d > crash.bin, then run the target on it.
    echo "  base64: $(base64 -w0 "$crash")"
    echo "  reproduce: $bin_dir/$t $crash"
  fi
  echo "  log: $log"
done
echo "== fuzz: $(( ${#targets[@]} - ${#failed[@]} )) targets ok, ${#failed[@]} failed; $(( $(date +%s) - start )) s in all"
[ ${#failed[@]} -eq 0 ]
