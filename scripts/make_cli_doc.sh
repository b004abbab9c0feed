#!/usr/bin/env bash
# Regenerates the subcommand sections of Docs/CLI.md from `pixelflow COMMAND --help`
# (everything after the line "Each section is the command's `--help` output."); the prose
# above that line is kept. CLIConventionsTests fails when the page is stale.
#   bash scripts/make_cli_doc.sh [path/to/pixelflow]     (default: .build/debug/pixelflow)
set -euo pipefail
cd "$(dirname "$0")/.."
tool="${1:-.build/debug/pixelflow}"
[ -x "$tool" ] || { echo "build the tool first: swift build --product pixelflow" >&2; exit 1; }
marker="Each section is the command's \`--help\` output."
grep -qF "$marker" Docs/CLI.md || { echo "Docs/CLI.md has no line: $marker" >&2; exit 1; }
{
  sed "/^Each section is the command's \`--help\` output.\$/q" Docs/CLI.md
  for c in filters describe apply thumbnail info detect "detect qr" "detect rectangles" "detect faces" qr generate docs bench; do
    printf '\n### pixelflow %s\n\n```text\n' "$c"
    # bench appends the benchmark's own options after its help: keep the command's part.
    # shellcheck disable=SC2086  # "detect qr" is two arguments
    "$tool" $c --help | awk '/^The benchmark.s options/ { exit } { print }' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
    printf '```\n'
  done
} > Docs/CLI.md.tmp
mv Docs/CLI.md.tmp Docs/CLI.md
