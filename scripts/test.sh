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
# Fuzzing (Docs/Reliability.md): build the sanitized fuzzers (release, fuzzer + address; about
# 3.5 minutes from scratch on 2 cores), replay every committed corpus, then fuzz each target
# for 20 seconds, two at a time. PIXELFLOW_FUZZ_SECONDS=0 only replays; PIXELFLOW_SKIP_FUZZ=1
# skips both.
if [[ "${PIXELFLOW_SKIP_FUZZ:-0}" != 1 ]]; then
  bash scripts/fuzz.sh replay
  seconds=${PIXELFLOW_FUZZ_SECONDS:-20}
  if [[ "$seconds" -gt 0 ]]; then FUZZ_JOBS=2 FUZZ_IGNORE_TIMEOUTS=1 bash scripts/fuzz.sh run "$seconds"; fi
fi
