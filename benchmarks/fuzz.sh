#!/usr/bin/env bash
# Runs every Fuzz target for longer than CI does (FUZZTIME, default
# 2000000 executions each; a count avoids Go 1.26 timed-run flakes). New
# crashers land in the package's testdata/fuzz and then run as regression
# tests in go test ./...; keep them there, next to the named seeds. The
# named seeds are regenerated from their generators with
#   go test ./tsfile -run Fuzz -args -write-fuzz-corpus
# (likewise ./encoding, ./bitmap, ./arrowconv). FUZZMATCH, FUZZPARALLEL
# and FUZZMINIMIZE are passed on to .ci/fuzz-smoke, e.g.
#   FUZZMATCH=Scanner FUZZPARALLEL=2 bash benchmarks/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-2000000x} exec bash .ci/fuzz-smoke
