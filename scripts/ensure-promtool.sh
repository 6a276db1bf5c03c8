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
echo "[ensure-promtool] building promtool (once; about a minute and a half)" >&2
mkdir -p "$ROOT/.tools/bin"
# remove_all_sd leaves out the service discovery plugins (AWS, Azure, GCE, ...): the tests only
# check and unit-test rules, and the build takes about half the CPU without them.
(cd "$ROOT/scripts/promtool" && GOFLAGS=-mod=mod go build -tags remove_all_sd -o "$BIN" github.com/prometheus/prometheus/cmd/promtool) >&2
echo "$BIN"
