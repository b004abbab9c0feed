#!/usr/bin/env bash
# The project's test command (README): installs missing system packages, then builds and
# runs the whole test suite. CI runs exactly this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests
# Keep the benchmark working: its quickest mode, with its correctness checks (a few seconds).
bench="$(swift build --show-bin-path)/pixelflow-bench"
if ! "$bench" --smoke > .build/bench-smoke.txt 2>&1; then
  cat .build/bench-smoke.txt
  echo "pixelflow-bench --smoke failed" >&2
  exit 1
fi
echo "pixelflow-bench --smoke: ok ($(grep -c 'MPix/s' .build/bench-smoke.txt) measurements)"
swift test --skip-build --disable-swift-testing
