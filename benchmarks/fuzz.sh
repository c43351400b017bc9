#!/usr/bin/env bash
# Runs every Fuzz target for longer than CI does (FUZZTIME, default 60s
# each). New crashers land in the package's testdata/fuzz and then run as
# regression tests in go test ./...
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-60s} exec bash .ci/fuzz-smoke
