#!/usr/bin/env bash
# Runs one step of `make test` and records how long it took in .jest-results/steps.log, for the
# closing report of scripts/test-summary.js (scripts/test-times.js); exits with the step's status.
# Usage: scripts/timed.sh <name> <command> [args...]
name=$1
shift
start=$(date +%s%3N)
"$@"
status=$?
mkdir -p .jest-results
echo "$start $(date +%s%3N) $name" >>.jest-results/steps.log
exit $status
