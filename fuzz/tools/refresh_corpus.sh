#!/usr/bin/env bash
# Rebuild the committed seed corpus (fuzz/corpus/<target>/) from fresh
# recordings of real clients: record.py drives the release binary
# (target/release/turnstile, or TURNSTILE_BIN) through a recording proxy,
# make_corpus.py splits the traffic into per-target seeds, and libFuzzer's
# -merge=1 keeps the seeds that add coverage. Needs the fuzz targets built
# (scripts/fuzz.sh --seconds 0 builds them). See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin_dir="${CARGO_TARGET_DIR:-$PWD/target}/fuzz/x86_64-unknown-linux-gnu/release"
tmp=$(mktemp -d /tmp/turnstile-seeds-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
python3 fuzz/tools/record.py "$tmp/rec"
python3 fuzz/tools/make_corpus.py "$tmp/rec" "$tmp/seeds"
for dir in "$tmp"/seeds/*/; do
  t=$(basename "$dir")
  [ -x "$bin_dir/$t" ] || { echo "not built: $bin_dir/$t" >&2; exit 1; }
  rm -rf "fuzz/corpus/$t"
  mkdir -p "fuzz/corpus/$t"
  nice -n 19 "$bin_dir/$t" -merge=1 -max_len=8192 "fuzz/corpus/$t" "$dir" >"$tmp/$t.merge.log" 2>&1 \
    || { tail -n 20 "$tmp/$t.merge.log"; exit 1; }
  echo "$t: $(ls "$dir" | wc -l) seeds recorded, $(ls "fuzz/corpus/$t" | wc -l) kept, $(du -sk "fuzz/corpus/$t" | cut -f1) KiB"
done
