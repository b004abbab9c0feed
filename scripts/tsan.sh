#!/usr/bin/env bash
# The thread sanitizer (Docs/Reliability.md, "Sanitizers").
#
#   bash scripts/tsan.sh lane   the tests that exercise concurrency (thread safety,
#                               cancellation and progress, determinism across threads, the
#                               memory budget, batch CLI, parallel detectors, encoders and
#                               JPEG decoder, streaming), then the canary; about 5 minutes on 2 cores with
#                               the build. The test command runs it.
#   bash scripts/tsan.sh full   the whole suite (30 minutes or more on 2 cores), then the canary.
#
# Fails on any ThreadSanitizer report, on any failing test, and when the canary (a deliberate
# race, ThreadSafetyTests.testRacyCanary) is NOT reported: a sanitizer that reports nothing
# must be shown to be live. Builds into .build-tsan; logs go to .build-tsan/tsan-*.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-lane}"
lane='ThreadSafetyTests|CancellationTests|DetectorCancellationTests|MemoryBudgetTests|DeterminismTests'
lane+='|StreamingRenderTests|StreamingDefaultTests|PNGStreamingTests|TIFFStreamingTests|PNMAndBMPStreamingTests'
lane+='|CLIConventionsTests|CLITests.testBatch|FormatCLITests.testBatch|DetectorProtocolTests|FaceCascadeLoadingTests'
lane+='|ColorManagementTests|FaceDetectorTests.testResultsDoNotDependOnTheThreadCount'
lane+='|RectangleDetectorTests.testResultsDoNotDependOnTheThreadCount'
lane+='|PNGEncoderTests.testBytesAreTheSameForEveryThreadCount|JPEGRawDecodeTests'
case "$mode" in
  lane) filter=(--filter "$lane") ;;
  full) filter=() ;;
  *) echo "scripts/tsan.sh: unknown mode '$mode'; use lane or full" >&2; exit 2 ;;
esac

swift build --build-tests --sanitize=thread --scratch-path .build-tsan
log=".build-tsan/tsan-$mode.txt"
set +e
swift test --skip-build --sanitize=thread --scratch-path .build-tsan --disable-swift-testing \
    "${filter[@]}" > "$log" 2>&1
status=$?
set -e
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
passed=$(grep -cE "^Test Case '.*' passed \(" "$log" || true)
failed=$(grep -cE "^Test Case '.*' failed \(" "$log" || true)
echo "thread sanitizer, $mode: $passed passed, $failed failed, $reports report(s) (log: $log)"
if [[ $reports -ne 0 ]]; then
  grep -A12 "WARNING: ThreadSanitizer" "$log" | head -60
  echo "the thread sanitizer reported $reports race(s)" >&2
  exit 1
fi
if [[ $status -ne 0 || $failed -ne 0 ]]; then
  grep -E "error: |^Test Case '.*' failed \(" "$log" | head -20
  echo "tests failed under the thread sanitizer (exit status $status)" >&2
  exit 1
fi
if [[ $passed -eq 0 ]]; then
  echo "no test ran under the thread sanitizer: the lane's filter matches nothing" >&2
  exit 1
fi

canary=".build-tsan/tsan-canary.txt"
set +e
PIXELFLOW_TSAN_CANARY=1 swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    --disable-swift-testing --filter ThreadSafetyTests.testRacyCanary > "$canary" 2>&1
set -e
if ! grep -q "WARNING: ThreadSanitizer" "$canary"; then
  echo "the canary's deliberate race was not reported: the sanitizer is not live (log: $canary)" >&2
  exit 1
fi
echo "thread sanitizer canary: reported, as it must be"
