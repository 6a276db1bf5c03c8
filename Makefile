# The two commands of the README: `make dev` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
# `npm install` rather than `npm ci`: npm 11 leaves the other platforms' optional binaries (turbo's)
# out of the lock file, which `npm ci` then refuses; `npm install` still follows the lock.
NPM_INSTALL := npm install --no-audit --no-fund
TURBO := npx turbo
export TURBO_TELEMETRY_DISABLED := 1
export DO_NOT_TRACK := 1
# When this make started: `make test` reports the install and build it waited for (scripts/test-times.js).
STARTED_MS := $(shell date +%s%3N)
# Runs a step of `make test` and records its time for the closing report.
TIMED := scripts/timed.sh

.PHONY: help install build dev test lint typecheck clean bench chart-test apk android-test client-test prefetch-tools

help:
	@echo "make dev    install, build, start every service with a demo client, key and simulated phone"
	@echo "make test   install, build, and run every test (unit, integration, end to end)"
	@echo "make apk    build the phone app's signed APK (android-agent/android); prints its path last"
	@echo "make build | lint | typecheck | clean"

node_modules/.package-lock.json: package.json package-lock.json $(wildcard */package.json */*/package.json)
	$(NPM_INSTALL)
	@touch $@

install: node_modules/.package-lock.json

build: install
	$(TURBO) run build

dev: build
	node packages/stack/dist/cli.js dev

typecheck: install
	$(TURBO) run typecheck

lint: install
	$(TURBO) run lint
	npx prettier --check .

# The Go tools of the chart's tests (helm, promtool) take minutes to build with empty Go caches: they
# build in the background while the rest installs, builds and lints. A test that needs one meanwhile
# waits for it (scripts/ensure-*.sh build under a lock); a failure there is reported by that test.
prefetch-tools:
	@mkdir -p .tools && { scripts/ensure-helm.sh && scripts/ensure-promtool.sh; } >.tools/prefetch.log 2>&1 &

# Each step's time, each workspace's (turbo's run summary in .turbo/runs) and each test file's are
# printed above the closing line.
test: prefetch-tools build
	@rm -rf .jest-results .turbo/runs && mkdir -p .jest-results && echo "$(STARTED_MS) $$(date +%s%3N) install and build" > .jest-results/steps.log
	@$(TIMED) 'chromium check' scripts/ensure-chromium.sh
	$(TIMED) 'typecheck and lint' $(TURBO) run typecheck lint
	@$(TIMED) prettier npx prettier --check . >/dev/null || { npx prettier --list-different .; echo 'Prettier: the files above are not formatted; run npm run format'; exit 1; }
	@# A failing workspace must not stop the steps below: the closing summary names every failure.
	$(TIMED) 'turbo run test' $(TURBO) run test --concurrency=1 --continue --summarize || { mkdir -p .jest-results; echo '{"passed":0,"failed":0,"skipped":0,"failedStep":"turbo run test (a workspace failed; see its output above)"}' > .jest-results/turbo.json; }
	@# A chart-test that fails before its tests report (helm not installed, Go missing) still counts as a failure.
	@$(TIMED) chart-test $(MAKE) --no-print-directory chart-test || [ -f .jest-results/chart-k8s.json ] || echo '{"passed":0,"failed":1,"skipped":0}' > .jest-results/chart-k8s.json
	@$(TIMED) android-test $(MAKE) --no-print-directory android-test || [ -f .jest-results/android-junit.json ] || echo '{"passed":0,"failed":1,"skipped":0}' > .jest-results/android-junit.json
	@$(TIMED) client-test $(MAKE) --no-print-directory client-test || true
	@node scripts/test-summary.js

# The Helm chart: helm lint --strict, and every rendering decoded strictly into the Kubernetes API
# types with its probes, security contexts, network policies, HPA/PDB, secrets and schema asserted
# (charts/sms-gateway/test/k8s). Its totals join `make test`'s closing line.
chart-test:
	@set -o pipefail; HELM="$$(scripts/ensure-helm.sh)" && cd charts/sms-gateway/test/k8s && \
	  HELM="$$HELM" go test -json -count=1 ./... 2>&1 | node ../../../../scripts/go-test-summary.js chart-k8s

# The phone app (android-agent/android/README.md): a signed APK from Debian's Android tools, which
# scripts/ensure-android-tools.sh installs or fetches. A release key comes from SMSGW_APK_KEYSTORE,
# SMSGW_APK_KEYSTORE_PASSWORD, SMSGW_APK_KEY_ALIAS (and SMSGW_APK_KEY_PASSWORD); without them a
# development key is made once in android-agent/android/.keys/. The last line is the APK's path.
apk:
	@android-agent/android/build.sh

# The app's Android-free core on the JVM (JUnit); its totals join `make test`'s closing line. The
# APK's checks and the end-to-end test against the real device-hub are jest tests
# (android-agent/test/android-apk.test.ts, e2e/test/android-app.test.ts).
android-test:
	@set -o pipefail; android-agent/android/jvm.sh test 2>&1 | node scripts/junit-summary.js android-junit

# The Python and Go client libraries' unit tests (clients/python: standard library only; clients/go:
# the standard library and golang.org/x/crypto for scrypt, which `go test` fetches once); their totals join `make test`'s closing line, and a run that cannot
# report (python3 or go missing) counts as a failure. The TypeScript library's tests are a jest
# workspace (packages/client); the three libraries' end-to-end scenario is e2e/test/client-libraries.test.ts.
client-test:
	@set -o pipefail; status=0; \
	python3 clients/python/tests/run.py 2>&1 | node scripts/junit-summary.js python-client || status=1; \
	(cd clients/go && go test -json -count=1 ./... 2>&1 | node ../../scripts/go-test-summary.js go-client) || status=1; \
	exit $$status

# Throughput and latency of the send path against a bare Koa HTTPS hello-world (bench/README.md).
bench: build
	node bench/run.js

clean:
	rm -rf node_modules */node_modules */*/node_modules */*/dist */dist .turbo */.turbo */*/.turbo packages/proto/src/gen .stack .jest-results android-agent/android/build
