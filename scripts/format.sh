#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format and the rules in .swift-format.
#
#   bash scripts/format.sh          rewrite every Swift file in place
#   bash scripts/format.sh --lint   change nothing; print each difference and fail if any
#
# The test command runs the lint (scripts/test.sh), so format before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Sources Tests Benchmarks Examples Fuzz/Sources)
case "${1:-}" in
  --lint)
    out=$(swift format lint --recursive --parallel "${paths[@]}" 2>&1) || true
    if [[ -n "$out" ]]; then
      echo "$out" | head -40
      echo "swift format lint: $(echo "$out" | grep -c 'warning:') warnings; run bash scripts/format.sh" >&2
      exit 1
    fi ;;
  "") swift format format --in-place --recursive --parallel "${paths[@]}" ;;
  *) echo "scripts/format.sh: unknown argument '$1'; use --lint, or nothing" >&2; exit 2 ;;
esac
