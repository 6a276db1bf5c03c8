#!/usr/bin/env bash
# promtool checks and unit-tests the chart's alert rules. It is built from the Go module proxy
# at the version pinned in scripts/promtool/go.mod (go.sum pins every module), into
# .tools/bin/promtool, when it is missing. Prints the path of the promtool to use.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.tools/bin/promtool"
# One build at a time (see ensure-helm.sh).
mkdir -p "$ROOT/.tools"
exec 9>"$ROOT/.tools/promtool.lock"
flock 9
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
if ! command -v go >/dev/null; then
  echo "[ensure-promtool] Go is needed to build promtool (go install is what the project uses)" >&2
  exit 1
fi
echo "[ensure-promtool] building promtool (once; about two minutes)" >&2
mkdir -p "$ROOT/.tools/bin"
(cd "$ROOT/scripts/promtool" && GOFLAGS=-mod=mod go build -o "$BIN" github.com/prometheus/prometheus/cmd/promtool) >&2
echo "$BIN"
