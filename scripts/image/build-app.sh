#!/usr/bin/env bash
# Builds the application tree of the container image: every service, the libraries they load and
# the operator CLI, with production dependencies only.
#
#   scripts/image/build-app.sh <src> <out>
#
# <src> is a copy of the build context (the Dockerfile's COPY, or e2e/test/image-build.test.ts's
# copy); it is built in place and left dirty. <out> must not exist or be empty; it becomes the
# image's /app, run as `node services/<name>/dist/main.js` from <out>. The Dockerfile RUNs this
# script and the test runs it without Docker, so both exercise the very same steps.
# BUILD_APP_NPM_FLAGS adds flags to both `npm install`s (the test passes --prefer-offline).
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: $0 <src> <out>" >&2
  exit 2
fi
src="$(cd "$1" && pwd)"
out="$2"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "[build-app] $out is not empty" >&2
  exit 2
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 NPM_CONFIG_UPDATE_NOTIFIER=false
# NODE_ENV=production in the caller's environment would make the first install skip the compilers.
unset NODE_ENV
read -r -a extra_flags <<<"${BUILD_APP_NPM_FLAGS:-}"
# Lifecycle scripts stay off: nothing the platform uses needs one (native code such as argon2
# comes prebuilt as optional packages), and a build should not run code from the registry.
npm_install=(npm install --no-audit --no-fund --ignore-scripts "${extra_flags[@]}")

# What runs in the image, and what it loads at run time besides dist/ and node_modules.
workspaces=(packages/platform packages/proto packages/e2e-envelope packages/client packages/mcp tools/admin
  services/account services/message services/otp services/device-hub
  services/scheduler services/webhook services/gateway services/dashboard services/smpp)
runtime_dirs=(migrations public)

cd "$src"
log() { echo "[build-app] $*"; }

# The engines say npm 11; npm 10 (Node 20's own) reads the lock file but writes a different one.
wanted_npm="$(node -p 'require("./package.json").packageManager')"
if [ "$(npm --version | cut -d. -f1)" -lt 11 ]; then
  echo "[build-app] npm $(npm --version) is too old: install ${wanted_npm} first" >&2
  exit 1
fi
[ "npm@$(npm --version)" = "$wanted_npm" ] || log "warning: npm $(npm --version), the repository pins ${wanted_npm}"

# `npm install` rather than `npm ci` (see the Makefile): npm 11 leaves the other platforms'
# optional binaries (turbo's) out of the lock file, which `npm ci` then refuses. It still installs
# the locked versions. Workspaces that the build context leaves out (e2e, bench, the chart, the
# Android agent) are simply not installed.
log "installing the build's dependencies"
locked="$(mktemp)"
cp package-lock.json "$locked"
"${npm_install[@]}" --include=dev --loglevel=error
# Unlike `npm ci`, `npm install` quietly resolves again a range that the lock file no longer
# satisfies: refuse that, the image must hold the versions that were locked and tested.
node - "$locked" <<'JS'
const fs = require('node:fs');
const before = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).packages;
const after = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')).packages;
const moved = Object.keys(after).filter((k) => k in before && before[k].version !== after[k].version);
// Other platforms' optional binaries may be added (see above); anything else new was not locked.
const added = Object.keys(after).filter((k) => !(k in before) && !after[k].optional);
if (moved.length + added.length > 0) {
  console.error(`[build-app] package-lock.json is out of date (run npm install and commit it): ${[...moved, ...added].join(', ')}`);
  process.exit(1);
}
JS
rm -f "$locked"

log "building ${workspaces[*]}"
filters=()
for ws in "${workspaces[@]}"; do filters+=("--filter=./${ws}"); done
# dependsOn ^build also builds what they compile against (packages/stack, a devDependency).
npx --no-install turbo run build "${filters[@]}" --output-logs=errors-only --log-prefix=task

log "assembling ${out}"
# package.json files without devDependencies: npm must not look up a workspace that is not in the
# image (@smsgw/stack) in the registry, and scripts are of no use at run time.
node - "$out" "${workspaces[@]}" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [out, ...workspaces] = process.argv.slice(2);
const strip = (file, extra) => {
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  delete pkg.devDependencies;
  delete pkg.scripts;
  Object.assign(pkg, extra);
  return `${JSON.stringify(pkg, null, 2)}\n`;
};
fs.writeFileSync(path.join(out, 'package.json'), strip('package.json', { workspaces }));
for (const ws of workspaces) {
  fs.mkdirSync(path.join(out, ws), { recursive: true });
  fs.writeFileSync(path.join(out, ws, 'package.json'), strip(path.join(ws, 'package.json')));
}
JS
# The lock file makes the production install take the versions the build compiled against.
cp package-lock.json "$out/"
# The .proto files are loaded at run time (packages/proto resolves ../../../proto from its dist).
cp -R proto "$out/proto"
for ws in "${workspaces[@]}"; do
  # Type declarations and build info are for compilers; source maps stay for stack traces
  # (NODE_OPTIONS=--enable-source-maps).
  cp -R "$ws/dist" "$out/$ws/dist"
  find "$out/$ws/dist" -type f \( -name '*.d.ts' -o -name '*.tsbuildinfo' \) -delete
  for dir in "${runtime_dirs[@]}"; do
    if [ -d "$ws/$dir" ]; then cp -R "$ws/$dir" "$out/$ws/$dir"; fi
  done
done

log "installing production dependencies"
(cd "$out" && "${npm_install[@]}" --omit=dev --loglevel=error)

# Files of the dependencies that Node never loads: TypeScript sources and declarations (with the
# @types packages some libraries list as dependencies), source maps (a third of the tree,
# OpenTelemetry's mostly), docs, packages' own tests, and npm's lock files (no npm at run time;
# scanners read node_modules/*/package.json). Licences stay.
find "$out/node_modules" -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' \
  -o -iname 'CHANGELOG*' -o -iname 'HISTORY.md' -o -iname 'README*' \) -delete
find "$out/node_modules" -depth -type d -regextype posix-extended \
  \( -regex '.*/node_modules/@types' -o -regex '.*/node_modules/(@[^/]+/)?[^/]+/(test|tests|__tests__)' \) -exec rm -rf {} +
rm -f "$out/package-lock.json" "$out/node_modules/.package-lock.json"

packages="$(find "$out/node_modules" -type f -name package.json -regextype posix-extended \
  -regex '.*/node_modules/(@[^/]+/)?[^/]+/package.json' | wc -l)"
log "done: ${out} holds $(du -sh "$out" | cut -f1) and ${packages} packages"
