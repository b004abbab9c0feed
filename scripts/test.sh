#!/usr/bin/env bash
# The project's test command (README): installs missing system packages, then builds and
# runs the whole test suite. CI runs exactly this through .ci/run.
#
#   bash scripts/test.sh            everything: tests, benchmark smoke run, the thread
#                                   sanitizer lane, fuzzing
#   bash scripts/test.sh --quick    the XCTest suite only (no benchmark smoke run, no
#                                   sanitizer lane, no fuzz build, replay or run): for a
#                                   check while working
#
# XCTest's per-test lines go to .build/test-output.txt; the console shows the failures and
# the suite's totals (PIXELFLOW_TEST_VERBOSE=1 shows every line). The last line is always
# `N passed, N failed, N skipped` for the XCTest suite, with the stage that failed, if any;
# the exit status is non-zero when anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/test.sh: unknown argument '$arg'; use --quick, or nothing" >&2; exit 2 ;;
  esac
done

start=$SECONDS
summary=""      # `N passed, N failed, N skipped`, once the suite has run
stage="setup"   # what is running, named in the last line when it fails
finish() {
  local status=$?
  # No errexit here: a failing test inside this trap would end it early and turn a passing
  # run's exit status into 1.
  set +e
  local line="${summary:-tests not run}"
  local elapsed=$((SECONDS - start))
  local mode=""
  if [[ $quick == 1 ]]; then mode=", --quick: no benchmark smoke run, no sanitizer lane, no fuzzing"; fi
  if [[ $status -ne 0 ]]; then
    line+="; FAILED: $stage (exit status $status)"
  fi
  line+=" ($((elapsed / 60)) min $((elapsed % 60)) s$mode)"
  echo "$line"
  exit "$status"
}
trap finish EXIT

bash scripts/setup.sh
# The code's layout follows .swift-format: a lint with any warning fails (about 2 s; fix with
# `swift format format --in-place --recursive --parallel Sources Tests Benchmarks Examples Fuzz/Sources`).
stage="format (swift format lint)"
bash scripts/format.sh --lint || exit 1
stage="build"
swift build --build-tests
# The public API against the last release: breaking changes must be announced in the
# CHANGELOG, new public symbols documented (Docs/API/README.md; about 10 s).
stage="API check"
python3 scripts/api.py check | grep -v "^  added:" || exit 1
# The API reference builds with DocC with no warning (Docs/API/README.md; a few seconds, the
# symbol graph being the one the API check just dumped).
stage="API reference (scripts/docs.sh)"
bash scripts/docs.sh || exit 1
if [[ $quick != 1 ]]; then
  # Keep the benchmark working: its quickest mode, with its correctness checks (a few seconds).
  stage="pixelflow-bench --smoke"
  bench="$(swift build --show-bin-path)/pixelflow-bench"
  if ! "$bench" --smoke > .build/bench-smoke.txt 2>&1; then
    cat .build/bench-smoke.txt
    echo "pixelflow-bench --smoke failed" >&2
    exit 1
  fi
  echo "pixelflow-bench --smoke: ok ($(grep -c 'MPix/s' .build/bench-smoke.txt) measurements)"
fi

stage="swift test"
log=.build/test-output.txt
: > "$log"
set +e
if [[ "${PIXELFLOW_TEST_VERBOSE:-0}" == 1 ]]; then
  swift test --skip-build --disable-swift-testing 2>&1 | tee "$log"
  test_status=${PIPESTATUS[0]}
else
  # Failures and their messages as they happen; everything else stays in the log.
  swift test --skip-build --disable-swift-testing > "$log" 2>&1 &
  test_pid=$!
  tail -n +1 -f --pid=$test_pid "$log" | grep --line-buffered -E "error: |^Test Case '.*' failed \(|Fatal error"
  wait $test_pid
  test_status=$?
  grep -E "Executed [0-9]+ tests?, with" "$log" | tail -n 1
fi
set -e
passed=$(grep -cE "^Test Case '.*' passed \(" "$log" || true)
failed=$(grep -cE "^Test Case '.*' failed \(" "$log" || true)
skipped=$(grep -cE "^Test Case '.*' skipped \(" "$log" || true)
summary="$passed passed, $failed failed, $skipped skipped"
if [[ $test_status -ne 0 ]]; then
  if [[ $failed -eq 0 ]]; then
    # The test process itself failed (a crash, a signal): show where it stopped.
    echo "--- the last lines of $log:"
    tail -n 40 "$log"
  fi
  echo "the full XCTest output is in $log" >&2
  exit "$test_status"
fi
if [[ $failed -ne 0 ]]; then exit 1; fi

# The thread sanitizer on the tests that exercise concurrency, then its canary (about 5
# minutes on 2 cores with the build; Docs/Reliability.md, "Sanitizers"). Fails on any report.
# PIXELFLOW_SKIP_TSAN=1 skips it (as --quick does).
if [[ $quick != 1 && "${PIXELFLOW_SKIP_TSAN:-0}" != 1 ]]; then
  stage="thread sanitizer lane"
  bash scripts/tsan.sh lane
fi

# Fuzzing (Docs/Reliability.md): build the sanitized fuzzers (release, fuzzer + address; about
# 3.5 minutes from scratch on 2 cores), replay every committed corpus, then fuzz each target
# for 20 seconds, two at a time. PIXELFLOW_FUZZ_SECONDS=0 only replays; PIXELFLOW_SKIP_FUZZ=1
# skips both (as --quick does).
if [[ $quick != 1 && "${PIXELFLOW_SKIP_FUZZ:-0}" != 1 ]]; then
  stage="fuzz replay"
  bash scripts/fuzz.sh replay
  seconds=${PIXELFLOW_FUZZ_SECONDS:-20}
  if [[ "$seconds" -gt 0 ]]; then
    stage="fuzz run"
    FUZZ_JOBS=2 FUZZ_IGNORE_TIMEOUTS=1 bash scripts/fuzz.sh run "$seconds"
  fi
fi
stage="done"
