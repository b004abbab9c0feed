#!/usr/bin/env python3
"""PixelFlow's public API, checked against the last release (Docs/API/README.md).

    python3 scripts/api.py list [FILE]   the public API of the PixelFlow module, one line a
                                         symbol, from `swift package dump-symbol-graph`
                                         (builds first); to standard output or FILE
    python3 scripts/api.py check         fails (exit 1) on a breaking change the CHANGELOG does
                                         not announce, or on a public symbol without a doc
                                         comment that Docs/API/undocumented.txt does not list
    python3 scripts/api.py release       after a release: the baseline becomes today's API and
                                         the list of undocumented symbols today's
    python3 scripts/api.py graphs DIR    the library's symbol graphs merged into one module,
                                         PixelFlow, written to DIR for DocC (scripts/docs.sh)

The library is several targets (MODULES, Docs/Architecture.md "Layers") that PixelFlow
re-exports; their symbol graphs are read as one API, so a type that moves between them keeps
its line (`PixelBuffer.width | ...`): only its path counts, never its module.

A line is `PATH | KIND | DECLARATION`: the symbol's path (`Image.cropped(to:)`), its kind
(`method`, `property`, ...) and its declaration as the compiler prints it. A baseline line that
is gone or whose declaration changed is a breaking change; it is announced when its path
appears in the CHANGELOG's [Unreleased] section (under Changed or Removed, as the file's
header asks). New lines are additions: fine, and listed.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "Docs", "API", "baseline.txt")
UNDOCUMENTED = os.path.join(ROOT, "Docs", "API", "undocumented.txt")
CHANGELOG = os.path.join(ROOT, "CHANGELOG.md")
# The library's targets, lowest layer first; PixelFlow, the product, re-exports the others.
MODULES = ["PixelFlowCore", "PixelFlowKernels", "PixelFlowGraph", "PixelFlowEngine", "PixelFlow"]
MODULE = MODULES[-1]


def graph_files():
    """{file name: path} of the library's symbol graphs, from a fresh symbol graph dump: each
    module's own graph, and its extensions of Swift's types and of the other library modules'
    (PixelFlow@PixelFlowCore.symbols.json: PixelFlow's members of PixelBuffer, ...)."""
    import time
    started = time.time()
    out = subprocess.run(["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"],
                         cwd=ROOT, capture_output=True, text=True)
    m = re.search(r"Files written to (\S+)", out.stdout + out.stderr)
    folder = m.group(1) if m else None
    files = {}
    for module in MODULES:
        path = os.path.join(folder, module + ".symbols.json") if folder else None
        # The dump also tries the test modules, which fail when the tests are not built: only
        # the library modules' graphs, written by this run, matter.
        if not path or not os.path.exists(path) or os.path.getmtime(path) < started - 1:
            sys.stderr.write(out.stdout[-4000:] + out.stderr[-4000:])
            sys.exit(f"scripts/api.py: swift package dump-symbol-graph did not write the {module} module's graph")
        files[module + ".symbols.json"] = path
        for extended in ["Swift"] + MODULES:
            name = f"{module}@{extended}.symbols.json"
            if os.path.exists(os.path.join(folder, name)):
                files[name] = os.path.join(folder, name)
    return files


def symbol_graph():
    """The library's symbols (public and open) and relationships, all modules as one."""
    symbols, relationships = [], []
    # Extensions of other modules' types (PixelFlow@Swift.symbols.json) are API too.
    for path in graph_files().values():
        graph = json.load(open(path))
        symbols += graph["symbols"]
        relationships += graph["relationships"]
    return symbols, relationships


def write_merged_graphs(folder):
    """The library's graphs as the one module PixelFlow, for DocC: PixelFlow.symbols.json holds
    every module's symbols and their extensions of one another (relationships name symbols by
    their precise identifiers, which keep working), PixelFlow@Swift.symbols.json every module's
    extensions of Swift's types. DocC then documents a moved type under PixelFlow, as before."""
    merged = {}
    for name, path in graph_files().items():
        graph = json.load(open(path))
        out = "PixelFlow@Swift.symbols.json" if name.endswith("@Swift.symbols.json") else MODULE + ".symbols.json"
        if out not in merged:
            merged[out] = graph
            merged[out]["module"]["name"] = MODULE
        else:
            merged[out]["symbols"] += graph["symbols"]
            merged[out]["relationships"] += graph["relationships"]
    os.makedirs(folder, exist_ok=True)
    for out, graph in merged.items():
        json.dump(graph, open(os.path.join(folder, out), "w"))
    print(f"scripts/api.py: {', '.join(sorted(merged))} ({' + '.join(MODULES)}) in {folder}")


def synthesized(symbol):
    """Members the compiler writes (Hashable's hashValue, hash(into:), ...) have no location."""
    return "location" not in symbol


def line(symbol):
    path = ".".join(symbol["pathComponents"])
    kind = symbol["kind"]["identifier"].removeprefix("swift.")
    declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
    declaration = re.sub(r"\s+", " ", declaration).strip()
    return f"{path} | {kind} | {declaration}"


def current():
    """(sorted API lines, sorted lines of symbols without a doc comment)."""
    api, undocumented = set(), set()
    symbols, relationships = symbol_graph()
    paths = {}
    for s in symbols:
        if s.get("accessLevel") not in ("public", "open"):
            continue
        paths[s["identifier"]["precise"]] = ".".join(s["pathComponents"])
        api.add(line(s))
        if not synthesized(s) and not s.get("docComment", {}).get("lines"):
            undocumented.add(line(s))
    # A type's conformances are API too (dropping Sendable or Hashable breaks callers).
    for r in relationships:
        if r["kind"] == "conformsTo" and r["source"] in paths:
            target = r.get("targetFallback") or paths.get(r["target"]) or r["target"]
            api.add(f"{paths[r['source']]} | conformsTo | {target.split('.')[-1] if '.' in target else target}")
    return sorted(api), sorted(undocumented)


def read_lines(path):
    if not os.path.exists(path):
        return []
    return [l.rstrip("\n") for l in open(path) if l.strip() and not l.startswith("#")]


def write_lines(path, header, lines):
    with open(path, "w") as f:
        f.write(header)
        for l in lines:
            f.write(l + "\n")


def unreleased_text():
    text = open(CHANGELOG).read()
    m = re.search(r"^## \[Unreleased\](.*?)(?=^## \[)", text, flags=re.S | re.M)
    return m.group(1) if m else ""


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    if command == "list":
        api, _ = current()
        text = "".join(l + "\n" for l in api)
        if len(sys.argv) > 2:
            open(sys.argv[2], "w").write(text)
        else:
            sys.stdout.write(text)
        return 0
    if command == "release":
        api, undocumented = current()
        write_lines(BASELINE, "# The public API of the last release (scripts/api.py release): PATH | KIND | DECLARATION\n", api)
        write_lines(UNDOCUMENTED, "# Public symbols of the last release without a doc comment (scripts/api.py); "
                    "document them and remove their lines. No new line may be added.\n", undocumented)
        print(f"baseline: {len(api)} symbols, {len(undocumented)} without a doc comment")
        return 0
    if command == "graphs" and len(sys.argv) > 2:
        write_merged_graphs(sys.argv[2])
        return 0
    if command != "check":
        sys.exit(__doc__)
    api, undocumented = current()
    baseline = read_lines(BASELINE)
    if not baseline:
        sys.exit(f"scripts/api.py: no baseline at {BASELINE}; run `python3 scripts/api.py release` at a release")
    now, before = set(api), set(baseline)
    gone = sorted(before - now)
    added = sorted(now - before)
    notes = unreleased_text()
    unannounced = [l for l in gone if l.split(" | ")[0] not in notes]
    allowed_undocumented = set(read_lines(UNDOCUMENTED))
    new_undocumented = [l for l in undocumented if l not in allowed_undocumented]
    print(f"public API: {len(api)} symbols; against the baseline: {len(added)} added, {len(gone)} removed "
          f"or changed ({len(gone) - len(unannounced)} announced in the CHANGELOG); "
          f"{len(undocumented)} without a doc comment ({len(new_undocumented)} new)")
    for l in added:
        print("  added:    " + l)
    failed = False
    if unannounced:
        failed = True
        print("breaking changes that CHANGELOG.md's [Unreleased] section does not name "
              "(name each path under Changed or Removed, or keep the old API):")
        for l in unannounced:
            print("  REMOVED OR CHANGED: " + l)
    if new_undocumented:
        failed = True
        print("public symbols without a doc comment (add one):")
        for l in new_undocumented:
            print("  UNDOCUMENTED: " + l)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
