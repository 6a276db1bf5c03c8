#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (never a downloaded browser). This
# installs it when it is missing, as root on Debian or Ubuntu; elsewhere it
# says what to do.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "[ensure-chromium] installing Debian's chromium for the browser tests"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null || {
    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
  }
  exit 0
fi
echo "[ensure-chromium] /usr/bin/chromium is missing: install Debian's 'chromium' package to run the browser tests" >&2
exit 1
