#!/usr/bin/env python3
"""Compares two files written by `pixelflow-bench --filter-hashes FILE` and lists every
output whose pixels differ, one line per (filter, image, format, threads).

    swift run -c release --scratch-path .build-bench pixelflow-bench --filter-hashes after.json
    python3 scripts/compare_filter_hashes.py Benchmarks/engine-hashes-baseline.json after.json

Also lists outputs present in only one file, and, for each file, the filters whose 1- and
2-thread hashes differ (the engine promises bit-identical output across thread counts).
Exits 0 when nothing differs, 1 when something does, 2 on bad input. Standard library only.
"""
import argparse
import json
import sys


def load(path):
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare_filter_hashes: cannot read {path}: {e}")
    if report.get("tool") != "pixelflow-bench --filter-hashes":
        print(f"compare_filter_hashes: {path} is not a --filter-hashes file", file=sys.stderr)
        sys.exit(2)
    table = {}
    for h in report["hashes"]:
        table[(h["filter"], h["image"], h["format"], h["threads"])] = h
    return report, table


def thread_mismatches(table):
    """(filter, image, format) whose hashes differ between thread counts."""
    groups = {}
    for (name, image, fmt, threads), h in table.items():
        groups.setdefault((name, image, fmt), {})[threads] = h["hash"]
    return sorted((k, v) for k, v in groups.items() if len(set(v.values())) > 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args()
    before_report, before = load(args.before)
    after_report, after = load(args.after)

    status = 0
    changed = sorted(k for k in before.keys() & after.keys() if before[k]["hash"] != after[k]["hash"])
    for name, image, fmt, threads in changed:
        b, a = before[(name, image, fmt, threads)], after[(name, image, fmt, threads)]
        extra = "" if b["rect"] == a["rect"] else f" (rect {b['rect']} -> {a['rect']})"
        print(f"changed  {name:34} {image:12} {fmt:8} threads {threads}: {b['hash']} -> {a['hash']}{extra}")
    for k in sorted(before.keys() - after.keys()):
        print(f"missing  {k[0]:34} {k[1]:12} {k[2]:8} threads {k[3]}: only in {args.before}")
    for k in sorted(after.keys() - before.keys()):
        print(f"new      {k[0]:34} {k[1]:12} {k[2]:8} threads {k[3]}: only in {args.after}")
    if changed or before.keys() != after.keys():
        status = 1
    for path, table in ((args.before, before), (args.after, after)):
        for (name, image, fmt), hashes in thread_mismatches(table):
            status = 1
            detail = ", ".join(f"{t}: {h}" for t, h in sorted(hashes.items()))
            print(f"threads  {name:34} {image:12} {fmt:8} differ in {path}: {detail}")
    filters = {k[0] for k in after}
    print(f"{len(changed)} of {len(before.keys() & after.keys())} outputs changed "
          f"({len({k[0] for k in changed})} of {len(filters)} filters); "
          f"{len(before.keys() ^ after.keys())} present in one file only")
    return status


if __name__ == "__main__":
    sys.exit(main())
