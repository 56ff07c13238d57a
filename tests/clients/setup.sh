#!/usr/bin/env bash
# Install and build every client of the compatibility suite: each directory's
# `setup` script (Debian packages, pip, Go modules, npm, Maven, cargo).  Build
# output goes to $TURNSTILE_CLIENT_BUILD (default ~/.cache/turnstile-clients)
# so repeated runs reuse it.  Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
export TURNSTILE_CLIENT_BUILD="${TURNSTILE_CLIENT_BUILD:-$HOME/.cache/turnstile-clients}"
mkdir -p "$TURNSTILE_CLIENT_BUILD"
status=0
for dir in */; do
  dir="${dir%/}"
  [ -x "$dir/setup" ] || continue
  echo "== client setup: $dir"
  start=$(date +%s)
  if ! "./$dir/setup"; then
    echo "client setup failed: $dir"; status=1
  fi
  echo "   ($dir: $(( $(date +%s) - start )) s)"
done
exit $status
