#!/usr/bin/env bash
# helm lints and renders the chart in `make chart-test`. It is installed with `go install` at the
# version pinned here, into .tools/bin/helm, when it is missing. Prints the path of the helm to use.
set -euo pipefail
HELM_VERSION=v3.22.0
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.tools/bin/helm"
# One build at a time: `make test` starts one in the background early, and a test that asks
# meanwhile waits for it here instead of building the same binary beside it.
mkdir -p "$ROOT/.tools"
exec 9>"$ROOT/.tools/helm.lock"
flock 9
if [ -x "$BIN" ] && go version -m "$BIN" 2>/dev/null | grep -Eq "^\s+mod\s+helm.sh/helm/v3\s+$HELM_VERSION\s"; then
  echo "$BIN"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "[ensure-helm] Go is needed to install helm (go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION)" >&2
  exit 1
fi
echo "[ensure-helm] installing helm $HELM_VERSION with go install (once; about two minutes)" >&2
mkdir -p "$ROOT/.tools/bin"
GOBIN="$ROOT/.tools/bin" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
echo "$BIN"
