#!/usr/bin/env bash
# Builds and runs PixelFlow's libFuzzer targets (the package in Fuzz/, see Fuzz/README.md).
#
#   scripts/fuzz.sh build                    build every fuzzer (release, fuzzer + address sanitizer)
#   scripts/fuzz.sh replay [TARGET...]       replay each committed corpus once (-runs=0)
#   scripts/fuzz.sh run [SECONDS] [TARGET...]  fuzz each target SECONDS (default 20), one after another
#   scripts/fuzz.sh campaign [MINUTES] [TARGET...]  a long run: each target MINUTES (default and
#                                            minimum 10), two at a time, then the new inputs that
#                                            add coverage merged into Fuzz/corpus (libFuzzer's
#                                            -merge=1) and a table of figures per target written
#                                            to Fuzz/work/campaign.md (paste it into
#                                            Docs/Reliability.md, "Fuzzing campaigns")
#   scripts/fuzz.sh replay-plain             replay every corpus through an ordinary debug build
#                                            of the same entry points (no sanitizer; what CI runs)
#   scripts/fuzz.sh seeds                    regenerate the seed files (Fuzz/corpus/*/seed-*)
#
# New corpus entries go to Fuzz/work/TARGET/ (gitignored; copy the useful ones into
# Fuzz/corpus/TARGET/), crashes to Fuzz/crashes/TARGET-crash-* (with leak-, oom- and
# timeout- for the other kinds), logs to Fuzz/work/TARGET.log. Each run ends with one line of
# figures per target. FUZZ_JOBS=2 runs two targets at once (the most this 2-core machine takes).
set -euo pipefail
cd "$(dirname "$0")/.."

# The targets, named as in Fuzz/Package.swift and FuzzTarget.
TARGETS=(png jpeg pnm bmp roundtrip qr-matrix qr-pixels filter-graph cli-filter cascade-xml webp tiff heif gif)

SCRATCH=Fuzz/.build-fuzz
# DecodeOptions.default allows 100 megapixels: 800 MB as rgba16, and files up to 1 GiB.
# One allocation above 1100 MB can only come from a size the limits should have refused.
MALLOC_LIMIT_MB=${MALLOC_LIMIT_MB:-1100}
RSS_LIMIT_MB=${RSS_LIMIT_MB:-4096}          # address sanitizer shadow memory and quarantine
TIMEOUT_S=${TIMEOUT_S:-10}                  # one input slower than this is a bug report too
export SWIFT_BACKTRACE=enable=no            # let the sanitizer and libFuzzer report crashes
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
# Known leaks inside system libraries (each explained in the file).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan-suppressions.txt:print_suppressions=0}

# One product at a time: with the fuzzer sanitizer every executable is compiled as a library
# (libFuzzer supplies main), which the ordinary fuzz-replay and fuzz-seeds are not.
build() {
  for t in "${TARGETS[@]}"; do
    swift build -c release --package-path Fuzz --scratch-path "$SCRATCH" --product "fuzz-$t" \
      --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
  done
}

binary() { echo "$SCRATCH/release/fuzz-$1"; }

check_targets() {
  for t in "$@"; do
    [[ " ${TARGETS[*]} " == *" $t "* ]] || { echo "unknown target '$t'; targets: ${TARGETS[*]}" >&2; exit 2; }
  done
}

# Prints "target seconds executions exec/s corpus-files new-units crashes peak-rss-mb" from a log.
figures() {
  local t=$1 seconds=$2 log=$3
  local execs rate rss new corpus crashes
  # `|| true`: a fork-mode log (FUZZ_IGNORE_TIMEOUTS) has no final stat:: lines; its figures
  # come from the last "#N: ... exec/s: R ... oom/timeout/crash" status line instead.
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  new=$(grep -o 'stat::new_units_added: *[0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  if [[ -z "$execs" ]]; then
    local last
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<< "$last")
    rate=$(grep -oE 'exec/s: [0-9]+' <<< "$last" | awk '{print $2}' || true)
    # Fork mode merges new inputs into Fuzz/work/TARGET: count those written since the run
    # started (fuzz_one touches the marker). Its children's memory is not reported: n/a.
    if [[ -e "Fuzz/work/$t.start" ]]; then
      new=$(find "Fuzz/work/$t" -type f -newer "Fuzz/work/$t.start" | wc -l)
    fi
    rss="n/a (fork mode)"
  fi
  corpus=$(( $(find "Fuzz/corpus/$t" -type f | wc -l) + $(find "Fuzz/work/$t" -type f | wc -l) ))
  crashes=$(find Fuzz/crashes -name "$t-*" -type f | wc -l)
  printf '%-13s %6ss %12s execs %8s exec/s  corpus %6s  new %6s  crashes %s  peak %s%s\n' \
    "$t" "$seconds" "${execs:-?}" "${rate:-?}" "$corpus" "${new:-?}" "$crashes" "${rss:-?}" "$([[ $rss =~ ^[0-9]+$ ]] && echo ' MB')"
}

fuzz_one() {
  local t=$1 seconds=$2
  mkdir -p "Fuzz/work/$t" Fuzz/crashes
  local log="Fuzz/work/$t.log"
  touch "Fuzz/work/$t.start"
  # FUZZ_IGNORE_TIMEOUTS=1 (the CI step): the filter-graph target runs in fork mode, where a
  # slow input is logged and skipped instead of ending the run (one slow case is still open,
  # see Fuzz/open/); crashes, leaks and out-of-memory still fail.
  local extra=()
  if [[ "${FUZZ_IGNORE_TIMEOUTS:-0}" == 1 && "$t" == filter-graph ]]; then
    extra=(-fork=1 -ignore_timeouts=1 -ignore_crashes=0 -ignore_ooms=0)
  fi
  set +e
  nice -n 10 "$(binary "$t")" "Fuzz/work/$t" "Fuzz/corpus/$t" \
    -max_total_time="$seconds" -malloc_limit_mb="$MALLOC_LIMIT_MB" -rss_limit_mb="$RSS_LIMIT_MB" \
    -timeout="$TIMEOUT_S" -artifact_prefix="Fuzz/crashes/$t-" -print_final_stats=1 "${extra[@]}" > "$log" 2>&1
  local status=$?
  set -e
  figures "$t" "$seconds" "$log"
  if [[ $status -ne 0 ]]; then
    echo "$t: the fuzzer stopped with status $status; see $log and Fuzz/crashes/$t-*" >&2
    return 1
  fi
}

# One line of the campaign table for target $1 run $2 seconds: executions, rate, coverage at
# the start and at the end (libFuzzer's `cov:` edges and `ft:` features), coverage in the last
# tenth of the run (flat when equal to the end), corpus files added by the merge, crashes.
campaign_row() {
  local t=$1 seconds=$2 log="Fuzz/work/$1.log" added=$3
  local first last execs rate covA ftA covB ftB late crashes
  # Status lines: "#N<tab>INITED cov: C ft: F ..." (fork mode: "#N: cov: C ft: F ...").
  first=$(grep -E '^#[0-9]+:?[[:space:]].*cov: [0-9]+' "$log" | head -1 || true)
  last=$(grep -E '^#[0-9]+:?[[:space:]].*cov: [0-9]+' "$log" | tail -1 || true)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  [[ -n "$execs" ]] || execs=$(sed -E 's/^#([0-9]+).*/\1/' <<< "$last")
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  [[ -n "$rate" && "$rate" != 0 ]] || rate=$(( ${execs:-0} / (seconds > 0 ? seconds : 1) ))
  covA=$(grep -oE 'cov: [0-9]+' <<< "$first" | awk '{print $2}' || true)
  ftA=$(grep -oE 'ft: [0-9]+' <<< "$first" | awk '{print $2}' || true)
  covB=$(grep -oE 'cov: [0-9]+' <<< "$last" | awk '{print $2}' || true)
  ftB=$(grep -oE 'ft: [0-9]+' <<< "$last" | awk '{print $2}' || true)
  # Coverage when 90% of the executions had run: equal to the end means it has flattened.
  local mark=$(( ${execs:-0} * 9 / 10 ))
  late=$(awk -v m="$mark" 'match($0, /^#[0-9]+/) { n = substr($0, 2, RLENGTH - 1) + 0;
           if (n <= m && match($0, /cov: [0-9]+/)) c = substr($0, RSTART + 5, RLENGTH - 5) } END { print c }' "$log")
  crashes=$(find Fuzz/crashes -name "$t-*" -newer Fuzz/work/.campaign-start -type f | wc -l)
  printf '| %s | %s s | %s | %s | %s -> %s | %s -> %s | %s | %s | %s |\n' "$t" "$seconds" "${execs:-?}" \
    "${rate:-?}" "${covA:-?}" "${covB:-?}" "${ftA:-?}" "${ftB:-?}" "${late:-?}" "$added" "$crashes"
}

campaign() {
  local minutes=$1; shift
  local selected=("$@")
  local seconds=$(( minutes * 60 ))
  mkdir -p Fuzz/work Fuzz/crashes
  touch Fuzz/work/.campaign-start
  # Each target's log and work folder start empty, so the table shows this campaign only.
  for t in "${selected[@]}"; do rm -rf "Fuzz/work/$t" "Fuzz/work/$t.log"; done
  local failed=0
  for t in "${selected[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge ${FUZZ_JOBS:-2} ]]; do wait -n || failed=1; done
    fuzz_one "$t" "$seconds" &
  done
  while [[ $(jobs -rp | wc -l) -gt 0 ]]; do wait -n || failed=1; done
  local table=Fuzz/work/campaign.md
  {
    echo "Campaign of $(date -u '+%Y-%m-%d %H:%M UTC'), $minutes minutes a target, ${FUZZ_JOBS:-2} at a time,"
    echo "commit $(git rev-parse --short HEAD), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "| target | time | executions | exec/s | coverage (edges) | features | edges at 90% of the run | inputs merged into the corpus | crashes |"
    echo "|---|---|---|---|---|---|---|---|---|"
  } > "$table"
  for t in "${selected[@]}"; do
    local before after
    before=$(find "Fuzz/corpus/$t" -type f | wc -l)
    # Only the inputs that add coverage beyond the committed corpus are copied into it.
    "$(binary "$t")" -merge=1 -malloc_limit_mb="$MALLOC_LIMIT_MB" -rss_limit_mb="$RSS_LIMIT_MB" \
      -timeout="$TIMEOUT_S" "Fuzz/corpus/$t" "Fuzz/work/$t" > "Fuzz/work/$t.merge.log" 2>&1 \
      || { echo "$t: merging its new inputs failed; see Fuzz/work/$t.merge.log" >&2; failed=1; }
    after=$(find "Fuzz/corpus/$t" -type f | wc -l)
    campaign_row "$t" "$seconds" "$(( after - before ))" >> "$table"
  done
  cat "$table"
  if [[ $failed -ne 0 ]]; then
    echo "a target stopped early (a crash, leak, out-of-memory or timeout): see Fuzz/crashes/" >&2
  fi
  return $failed
}

command=${1:-}
shift || true
case "$command" in
  build)
    build
    ;;
  replay)
    selected=("$@"); [[ ${#selected[@]} -gt 0 ]] || selected=("${TARGETS[@]}")
    check_targets "${selected[@]}"
    build
    for t in "${selected[@]}"; do
      "$(binary "$t")" -runs=0 -malloc_limit_mb="$MALLOC_LIMIT_MB" -rss_limit_mb="$RSS_LIMIT_MB" \
        -timeout="$TIMEOUT_S" "Fuzz/corpus/$t" > "Fuzz/.replay-$t.log" 2>&1 \
        || { cat "Fuzz/.replay-$t.log"; echo "replay of $t failed" >&2; exit 1; }
      echo "$t: replayed $(find "Fuzz/corpus/$t" -type f | wc -l) files"
      rm -f "Fuzz/.replay-$t.log"
    done
    ;;
  run)
    seconds=20
    if [[ ${1:-} =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
    selected=("$@"); [[ ${#selected[@]} -gt 0 ]] || selected=("${TARGETS[@]}")
    check_targets "${selected[@]}"
    build
    failed=0
    if [[ ${FUZZ_JOBS:-1} -ge 2 ]]; then
      # Two at a time: start the next target when one of the two finishes.
      for t in "${selected[@]}"; do
        while [[ $(jobs -rp | wc -l) -ge 2 ]]; do wait -n || failed=1; done
        fuzz_one "$t" "$seconds" &
      done
      while [[ $(jobs -rp | wc -l) -gt 0 ]]; do wait -n || failed=1; done
    else
      for t in "${selected[@]}"; do fuzz_one "$t" "$seconds" || failed=1; done
    fi
    exit $failed
    ;;
  campaign)
    minutes=10
    if [[ ${1:-} =~ ^[0-9]+$ ]]; then minutes=$1; shift; fi
    if [[ $minutes -lt 10 && "${FUZZ_SHORT_CAMPAIGN:-0}" != 1 ]]; then
      echo "a campaign runs each target at least 10 minutes (FUZZ_SHORT_CAMPAIGN=1 allows less, for a try)" >&2
      exit 2
    fi
    selected=("$@"); [[ ${#selected[@]} -gt 0 ]] || selected=("${TARGETS[@]}")
    check_targets "${selected[@]}"
    build
    campaign "$minutes" "${selected[@]}"
    ;;
  replay-plain)
    swift build --package-path Fuzz --product fuzz-replay
    "$(swift build --package-path Fuzz --show-bin-path)/fuzz-replay" --all Fuzz/corpus
    ;;
  seeds)
    swift build --package-path Fuzz --product fuzz-seeds
    "$(swift build --package-path Fuzz --show-bin-path)/fuzz-seeds" Fuzz/corpus Tests/PixelFlowTests/Fixtures
    ;;
  *)
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    [[ -z "$command" || "$command" == help || "$command" == --help ]] || exit 2
    ;;
esac
