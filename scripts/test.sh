#!/usr/bin/env bash
# The project's test command (README): installs missing system packages, then builds and
# runs the whole test suite. CI runs exactly this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests
swift test --skip-build --disable-swift-testing
