#!/usr/bin/env bash
# Builds PixelFlow's API reference (Docs/API/README.md, "The reference") with the
# toolchain's own DocC, with no package plugin:
#
#   bash scripts/docs.sh        symbol graph, then `docc convert` into .build/docs, a static
#                               site (open .build/docs/documentation/pixelflow/index.html
#                               through any static web server, e.g.
#                               `python3 -m http.server -d .build/docs`, then
#                               http://localhost:8000/documentation/pixelflow/)
#
# The symbol graph comes from `swift package dump-symbol-graph --minimum-access-level public`
# (it builds the package first), the library's modules merged into one by `scripts/api.py
# graphs`; the articles from Sources/PixelFlow/PixelFlow.docc.
# DocC's warnings (unresolved links, undocumented parameters of a documented function,
# ...) are printed and make the script fail (exit 1). DOCC overrides the docc binary;
# PIXELFLOW_DOCS_BASE_PATH sets --hosting-base-path for a site not served from its root.
set -euo pipefail
cd "$(dirname "$0")/.."

docc="${DOCC:-}"
if [[ -z "$docc" ]]; then
  # The docc next to the swift in use: the toolchain's own.
  swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
  docc="$swift_bin/docc"
  [[ -x "$docc" ]] || docc="$(command -v docc || true)"
fi
if [[ -z "$docc" || ! -x "$docc" ]]; then
  echo "scripts/docs.sh: no docc next to swift ($swift_bin); set DOCC=/path/to/docc" >&2
  exit 1
fi

started=$(date +%s)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# The library's modules (PixelFlowCore, ..., PixelFlow: scripts/api.py's MODULES) merged into
# one graph of the module PixelFlow, which re-exports the others: a user imports PixelFlow
# only, so the reference documents every public type under it, wherever it is declared. The
# merge keeps the extensions of one library module by another as plain members. The dump
# behind it also writes the C shims', the CLI's and the examples' graphs, which are left out.
graphs=.build/docs-symbol-graphs
rm -rf "$graphs" .build/docs
if ! python3 scripts/api.py graphs "$graphs" >"$log" 2>&1; then
  tail -40 "$log" >&2
  echo "scripts/docs.sh: could not dump and merge the library's symbol graphs (scripts/api.py graphs)" >&2
  exit 1
fi

extra=()
if [[ -n "${PIXELFLOW_DOCS_BASE_PATH:-}" ]]; then extra+=(--hosting-base-path "$PIXELFLOW_DOCS_BASE_PATH"); fi
"$docc" convert Sources/PixelFlow/PixelFlow.docc \
  --additional-symbol-graph-dir "$graphs" \
  --output-path .build/docs \
  --transform-for-static-hosting \
  --fallback-display-name PixelFlow \
  --fallback-bundle-identifier org.pixelflow.PixelFlow \
  --fallback-default-module-kind "Framework" \
  "${extra[@]}" >"$log" 2>&1 || { cat "$log" >&2; echo "scripts/docs.sh: docc convert failed" >&2; exit 1; }

warnings=$(grep -c -E '^(warning|error):' "$log" || true)
if [[ "$warnings" != 0 ]]; then
  cat "$log" >&2
  echo "scripts/docs.sh: docc reported $warnings warning(s) or error(s); fix them (see above)" >&2
  exit 1
fi
pages=$(find .build/docs/data/documentation -name '*.json' | wc -l)
echo "scripts/docs.sh: .build/docs: $pages pages, 0 warnings, $(( $(date +%s) - started )) s"
echo "  serve it with: python3 -m http.server -d .build/docs  (then /documentation/pixelflow/)"
