#!/usr/bin/env bash
# Does the thread sanitizer misread Synchronization.Mutex on Linux? Builds three tiny programs
# with -sanitize=thread and counts the reports of each:
#   mutex.swift    8 iterations of concurrentPerform add to a counter inside Mutex.withLock (the state in the Mutex,
#                  and a class field guarded by a Mutex<Void>): correct sums, yet reported;
#   pthread.swift  the same guarded by a pthread_mutex_t (PixelFlow's `Locked`): no report;
#   canary.swift   the same with no lock at all: a real race, which must be reported.
# Usage: bash scripts/tsan-mutex/run.sh   (about 30 s; writes to a temporary folder)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for name in mutex pthread canary; do
    swiftc -Onone -sanitize=thread "$here/$name.swift" -o "$work/$name"
    set +e
    "$work/$name" >"$work/$name.out" 2>&1
    status=$?
    set -e
    reports=$(grep -c 'WARNING: ThreadSanitizer' "$work/$name.out" || true)
    sums=$(grep -E '^[a-z-]+: [0-9]+$' "$work/$name.out" | tr '\n' ' ')
    echo "$name: exit $status, $reports sanitizer report(s); $sums"
done
