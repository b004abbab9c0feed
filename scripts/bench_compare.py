#!/usr/bin/env python3
"""Joins PixelFlow's benchmark with the peers' (OpenCV, libvips, Halide, numpy, Pillow) and
writes Docs/Performance.md with an SVG bar chart. Run through scripts/bench-compare.sh.

    python3 scripts/bench_compare.py inputs --size 3840x2160 --out .build-compare
    python3 scripts/bench_compare.py report --peers peers.json --ours pixelflow-default.json \
        --native pixelflow-native.json --task task.json --md Docs/Performance.md --svg Docs/performance.svg

Only the standard library is used (numpy and Pillow for `inputs`, which writes the peers'
own test images so both sides measure the same pixels).
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "peers"))
PEER_ORDER = ["opencv", "vips", "halide", "numpy", "pillow"]


# ---------------------------------------------------------------------------
# inputs: the peers' images, written as files for pixelflow-bench
# ---------------------------------------------------------------------------
def cmd_inputs(args):
    sys.path.insert(0, PEERS_DIR)
    import bench_peers
    import numpy as np  # noqa: F401
    from PIL import Image
    w, h = [int(v) for v in args.size.split("x")]
    os.makedirs(args.out, exist_ok=True)
    a, b = bench_peers.make_images(w, h)
    # Exactly the peers' encodings (build_inputs): Pillow PNG level 6, JPEG q90 4:2:0 of RGB.
    Image.fromarray(a).save(os.path.join(args.out, "A.png"), "PNG", compress_level=bench_peers.PNG_LEVEL)
    Image.fromarray(b).save(os.path.join(args.out, "B.png"), "PNG", compress_level=bench_peers.PNG_LEVEL)
    Image.fromarray(np.ascontiguousarray(a[..., :3])).save(os.path.join(args.out, "A.jpg"), "JPEG",
                                                           quality=bench_peers.JPEG_QUALITY, subsampling=2)
    print(f"wrote A.png, B.png, A.jpg ({w}x{h}) in {args.out}")


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------
def cpu_facts():
    model, flags = "unknown", set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and model == "unknown":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1048576:.1f} GiB"
    except OSError:
        pass
    return dict(model=model, cores=os.cpu_count(), memory=mem, kernel=platform.release(),
                avx2="avx2" in flags, fma="fma" in flags, avx512f="avx512f" in flags)


def fmt(v, digits=3):
    if v is None:
        return ""
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def fmt_ratio(r):
    if r is None:
        return ""
    s = f"{r:.2f}"
    return f"**{s}**" if r >= 1 else s


def index(results, peer=None):
    d = {}
    for r in results:
        if peer and r.get("peer") != peer:
            continue
        d[(r["variant"], r["threads"])] = r
    return d


def svg_chart(rows, path, title):
    """Horizontal bars of ratio (PixelFlow / fastest peer), log scale, one group per op."""
    rows = [r for r in rows if r["ratio"] is not None]
    lo, hi = 1 / 16, 16
    left, width, bar, gap = 210, 460, 7, 6
    group = 2 * bar + gap
    top = 48
    height = top + len(rows) * group + 40
    total_w = left + width + 90

    def x_of(v):
        v = min(max(v, lo), hi)
        return left + (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo)) * width

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{height}" '
           f'viewBox="0 0 {total_w} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{total_w}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="16" font-size="13" font-weight="bold">{title}</text>',
           f'<rect x="{left}" y="24" width="10" height="8" fill="#3b7dd8"/>'
           f'<text x="{left + 14}" y="32">default build</text>',
           f'<rect x="{left + 110}" y="24" width="10" height="8" fill="#e08a2c"/>'
           f'<text x="{left + 124}" y="32">-target-cpu native (AVX2, FMA)</text>']
    for k in range(-4, 5):
        v = 2.0 ** k
        x = x_of(v)
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 30}" '
                   f'stroke="{"#222" if k == 0 else "#ddd"}" stroke-width="{1.5 if k == 0 else 1}"/>')
        label = f"{v:g}" if v >= 1 else f"1/{int(1 / v)}"
        out.append(f'<text x="{x:.1f}" y="{height - 16}" text-anchor="middle">{label}</text>')
    out.append(f'<text x="{left + width / 2}" y="{height - 3}" text-anchor="middle">'
               f'PixelFlow MPix/s / fastest peer at the same dtype and threads (log scale; right of 1 = faster)</text>')
    x1 = x_of(1)
    for i, r in enumerate(rows):
        y = top + i * group
        out.append(f'<text x="{left - 6}" y="{y + bar + 3}" text-anchor="end">{r["label"]}</text>')
        for j, (key, color) in enumerate((("ratio", "#3b7dd8"), ("ratio_native", "#e08a2c"))):
            v = r.get(key)
            if v is None:
                continue
            xv = x_of(v)
            xa, xb = min(x1, xv), max(x1, xv)
            out.append(f'<rect x="{xa:.1f}" y="{y + j * bar}" width="{max(xb - xa, 1):.1f}" height="{bar - 1}" fill="{color}"/>')
            if j == 0:
                out.append(f'<text x="{left + width + 6}" y="{y + bar + 3}">{v:.2f}</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def cmd_report(args):
    peers = json.load(open(args.peers)) if args.peers and os.path.exists(args.peers) else None
    ours = json.load(open(args.ours))
    native = json.load(open(args.native)) if args.native and os.path.exists(args.native) else None
    task = json.load(open(args.task)) if args.task and os.path.exists(args.task) else None
    cpu = cpu_facts()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    peer_results = peers["results"] if peers else []
    declared = {}
    if peers:
        for r in peer_results:
            declared[r["variant"]] = r.get("declared_dtype", r["dtype"])
    ours_peer = [r for r in ours["results"] if r.get("section") == "peer"]
    o_idx = index(ours_peer)
    n_idx = index([r for r in native["results"] if r.get("section") == "peer"]) if native else {}
    p_idx = {}
    for r in peer_results:
        p_idx.setdefault((r["variant"], r["threads"]), {})[r["peer"]] = r
    present_peers = [p for p in PEER_ORDER if any(r["peer"] == p for r in peer_results)]
    threads = sorted({r["threads"] for r in ours_peer})
    variants = []
    for r in ours_peer:
        if r["variant"] not in variants:
            variants.append(r["variant"])

    def fastest(variant, t):
        """Fastest peer at the declared dtype; single-threaded peers count at every thread count."""
        best = None
        dd = declared.get(variant)
        for tt in sorted({t, 1}):
            for p, r in p_idx.get((variant, tt), {}).items():
                if tt != t and p not in ("numpy", "pillow"):
                    continue
                if r["dtype"] != dd:
                    continue
                if best is None or r["mpix_s_median"] > best[1]:
                    best = (p, r["mpix_s_median"])
        return best

    def peer_cell(variant, p, t):
        r = p_idx.get((variant, t), {}).get(p)
        tag = ""
        if r is None and t != 1 and p in ("numpy", "pillow"):
            r = p_idx.get((variant, 1), {}).get(p)
            tag = " (1t)"
        if r is None:
            return ""
        if r["dtype"] != declared.get(variant):
            tag += f" ({r['dtype']})"
        return fmt(r["mpix_s_median"]) + tag

    chart_rows, table_rows, below = [], {}, []
    for t in threads:
        rows = []
        for v in variants:
            o = o_idx.get((v, t))
            if o is None:
                continue
            n = n_idx.get((v, t))
            f = fastest(v, t)
            ratio = o["mpix_s_median"] / f[1] if f else None
            ratio_n = n["mpix_s_median"] / f[1] if (f and n) else None
            rows.append(dict(variant=v, dtype=o["dtype"], ours=o, native=n, fastest=f, ratio=ratio, ratio_native=ratio_n))
            if t == max(threads):
                chart_rows.append(dict(label=f"{v}", ratio=ratio, ratio_native=ratio_n))
            if ratio is not None and ratio < 1:
                below.append((v, t, ratio, f[0]))
        table_rows[t] = rows

    md = []
    quick = ours.get("width", 0) < 3840
    md.append("# Performance")
    md.append("")
    md.append("<!-- Generated by scripts/bench-compare.sh (scripts/bench_compare.py); edit Benchmarks/performance-notes.md "
              "for the hand-written analysis, not this file. -->")
    md.append("")
    md.append(f"PixelFlow against OpenCV, libvips, Halide, numpy and Pillow doing the same work on the same machine, "
              f"in one run of `scripts/bench-compare.sh{' --quick' if quick else ''}`.")
    md.append("")
    md.append("## Machine and run")
    md.append("")
    md.append(f"* Date: {now}; image {ours.get('width')}x{ours.get('height')}"
              + (" (**--quick**: 1920x1080 figures are partly cache-resident and not comparable with full-size ones)" if quick else ""))
    md.append(f"* CPU: {cpu['model']}, {cpu['cores']} cores; memory {cpu['memory']}; Linux {cpu['kernel']}; "
              f"AVX2 {'yes' if cpu['avx2'] else 'no'}, FMA {'yes' if cpu['fma'] else 'no'}, AVX-512 {'yes' if cpu['avx512f'] else 'no'}")
    if peers:
        vers = peers.get("versions", {})
        md.append("* Peers: " + "; ".join(f"{k} {v}" for k, v in vers.items()))
        loads = [r.get("foreign_load") for r in peer_results if r.get("foreign_load") is not None]
        if loads:
            md.append(f"* Other processes' CPU load during the peer run (fraction of all cores, from /proc/stat): "
                      f"median {statistics.median(loads):.2f}, max {max(loads):.2f}. The machine is shared: "
                      "differences below about 30% are within run-to-run noise (../shared/peers/baseline.md measured a "
                      "median spread of 15% between identical runs).")
    try:
        import subprocess
        rev = os.environ.get("PIXELFLOW_COMMIT", "HEAD")  # the commit measured, when not the work tree's
        commit = subprocess.run(["git", "-C", os.path.join(HERE, ".."), "log", "-1", "--format=%h %s", rev],
                                capture_output=True, text=True).stdout.strip()
        if commit:
            md.append(f"* Library: commit `{commit}`" + (f" ({args.library_note})" if args.library_note else ""))
    except OSError:
        pass
    md.append(f"* PixelFlow: `pixelflow-bench` release build, median of at least {ours.get('runs', 7)} timed runs after "
              f"warm-up (more for fast ops, until 0.5 s), destination buffers allocated once; the peers time the same "
              f"way (bench_peers.py). MPix/s counts output pixels.")
    md.append("")
    md.append("## How to reproduce")
    md.append("")
    md.append("```sh")
    md.append("scripts/bench-compare.sh            # full size (3840x2160): about 30 minutes on 2 cores")
    md.append("scripts/bench-compare.sh --quick    # 1920x1080: about 10 minutes")
    md.append("swift run -c release pixelflow-bench --ops gaussian,chain5   # PixelFlow alone, some ops")
    md.append("```")
    md.append("")
    md.append("The script installs the peers (`pip install -r ../shared/peers/requirements.txt`) when they are "
              "missing, builds `pixelflow-bench` twice (default, and `-Xswiftc -target-cpu -Xswiftc native` into "
              "`.build-bench-native`), writes the peers' own test images (`.build-compare/A.png`, `B.png`, `A.jpg`), "
              "runs `bench_peers.py` on the implemented ops, then both PixelFlow builds, the vips-bench task, and "
              "this page. Raw JSON is left in `.build-compare/`.")
    md.append("")

    # Summary
    md.append("## Summary")
    md.append("")
    for t in threads:
        rs = [r["ratio"] for r in table_rows[t] if r["ratio"]]
        rn = [r["ratio_native"] for r in table_rows[t] if r["ratio_native"]]
        if rs:
            gm = math.exp(statistics.mean(math.log(x) for x in rs))
            line = (f"* {t} thread{'s' if t > 1 else ''}: PixelFlow is at least as fast as the fastest peer on "
                    f"{sum(1 for x in rs if x >= 1)} of {len(rs)} ops; geometric mean of the ratios {gm:.2f}")
            if rn:
                gmn = math.exp(statistics.mean(math.log(x) for x in rn))
                line += f" (native build: {sum(1 for x in rn if x >= 1)} of {len(rn)}, geometric mean {gmn:.2f})"
            md.append(line + ".")
    md.append("")
    md.append(f"![ratio to the fastest peer, {max(threads)} threads](performance.svg)")
    md.append("")

    # Main tables
    for t in threads:
        md.append(f"## Peer table, {t} thread{'s' if t > 1 else ''} (median MPix/s)")
        md.append("")
        md.append("`ratio` = PixelFlow (default build) / fastest peer at the same dtype and thread count "
                  "(single-threaded peers, numpy and Pillow, count with their 1-thread figure); **bold** = PixelFlow is "
                  "faster. A dtype in brackets after a peer's figure means it did another dtype and is not counted. "
                  "`roofline` = share of the memcpy bound measured in the same run (f32 ops; reading 16 and writing 16 "
                  "bytes a pixel). `check` = max abs difference (0..1 units) of a 64x64 crop from a scalar "
                  "computation of the definition.")
        md.append("")
        head = ["op", "dtype", "PixelFlow", "native"] + present_peers + ["fastest", "ratio", "ratio native", "roofline", "check"]
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + "---|" * len(head))
        for r in table_rows[t]:
            o, n, f = r["ours"], r["native"], r["fastest"]
            note = " (1t codec)" if o.get("same_as_threads") else ""
            cells = [r["variant"], o["dtype"], fmt(o["mpix_s_median"]) + note, fmt(n["mpix_s_median"]) if n else ""]
            cells += [peer_cell(r["variant"], p, t) for p in present_peers]
            cells += [f"{f[0]} {fmt(f[1])}" if f else "", fmt_ratio(r["ratio"]), fmt_ratio(r["ratio_native"]),
                      f"{o['roofline_fraction'] * 100:.0f}%" if o.get("roofline_fraction") else "",
                      f"{o['check_max_abs']:.1e}" if o.get("check_max_abs") is not None else "-"]
            md.append("| " + " | ".join(cells) + " |")
        for n in ours.get("not_implemented", []):
            md.append(f"| {n['variant']} | {n['dtype']} | not yet implemented | | " + " | ".join("" for _ in present_peers)
                      + f" | | | | | {n['missing']} |")
        md.append("")
    if ours.get("not_implemented"):
        md.append("The ops marked *not yet implemented* are not run against the peers by the compare script; "
                  "the peers' figures for them are in `../shared/peers/baseline.md`.")
        md.append("")

    # Below 1
    md.append("## Where PixelFlow is slower than the fastest peer")
    md.append("")
    if below:
        md.append("| op | threads | ratio | fastest peer |")
        md.append("|---|---|---|---|")
        for v, t, ratio, p in below:
            md.append(f"| {v} | {t} | {ratio:.2f} | {p} |")
    else:
        md.append("None in this run.")
    md.append("")
    notes = os.path.join(HERE, "..", "Benchmarks", "performance-notes.md")
    if os.path.exists(notes):
        md.append(open(notes).read().strip())
        md.append("")

    # Roofline
    md.append("## Memory roofline (measured in the same run)")
    md.append("")
    md.append("| probe | 1 thread | all threads |")
    md.append("|---|---|---|")
    rc = ours.get("roofline_copy_gb_s", {})
    rm = ours.get("roofline_mpix_s_f32", {})
    ts = sorted(rc, key=int)
    if ts:
        md.append(f"| PixelFlow memcpy (256 MiB), GB/s | {rc[ts[0]]:.1f} | {rc[ts[-1]]:.1f} |")
        md.append(f"| = f32 RGBA MPix/s bound (16 B read + 16 B written) | {rm[ts[0]]:.0f} | {rm[ts[-1]]:.0f} |")
    if native and native.get("roofline_copy_gb_s"):
        nc = native["roofline_copy_gb_s"]
        nts = sorted(nc, key=int)
        md.append(f"| memcpy during the native build's run, GB/s | {nc[nts[0]]:.1f} | {nc[nts[-1]]:.1f} |")
    if peers and peers.get("roofline"):
        rf = peers["roofline"]
        try:
            dram = rf.get("dram", rf)
            for k in ("copy", "memcpy", "copy_nt"):
                e = dram.get(k) if isinstance(dram, dict) else None
                if isinstance(e, dict):
                    g1 = e.get("1", e.get(1, {}))
                    g2 = e.get("2", e.get(2, {}))
                    b1 = g1.get("best_gb_s") if isinstance(g1, dict) else None
                    b2 = g2.get("best_gb_s") if isinstance(g2, dict) else None
                    if b1:
                        md.append(f"| peers' stream.c {k} (best), GB/s | {b1:.1f} | {b2 or 0:.1f} |")
        except Exception:
            pass
    md.append("")
    md.append("The roofline column of the peer tables divides each f32 op's median by the memcpy bound of its "
              "thread count: a pass that reads and writes 16 bytes a pixel cannot beat it (resampling ops write "
              "fewer pixels than they read, so theirs is only indicative).")
    md.append("")

    # AVX2
    if native:
        md.append("## Default build against `-target-cpu native` (AVX2, FMA)")
        md.append("")
        md.append("The default build targets baseline x86-64 (SSE2). Ops whose median gained or lost more than 15% "
                  "with `-Xswiftc -target-cpu -Xswiftc native`, at each thread count:")
        md.append("")
        md.append("| op | threads | default MPix/s | native MPix/s | native / default |")
        md.append("|---|---|---|---|---|")
        gained = 0
        for t in threads:
            for v in variants:
                o, n = o_idx.get((v, t)), n_idx.get((v, t))
                if not (o and n) or o.get("same_as_threads"):
                    continue
                g = n["mpix_s_median"] / o["mpix_s_median"]
                if g > 1.15 or g < 1 / 1.15:
                    gained += 1
                    md.append(f"| {v} | {t} | {fmt(o['mpix_s_median'])} | {fmt(n['mpix_s_median'])} | "
                              f"{'**' if g > 1 else ''}{g:.2f}{'**' if g > 1 else ''} |")
        if not gained:
            md.append("| (none) | | | | |")
        md.append("")

    # Fusion
    eng = index([r for r in ours["results"] if r.get("section") == "engine"])
    if eng:
        md.append("## Fused chains: optimized against unoptimized")
        md.append("")
        md.append("chain5 = invert, color controls, gamma 0.75, sepia matrix, exposure +0.5 on straight f32 (the peer "
                  "op). Optimized: the optimizer folds the matrices and the chain runs as one pass; unoptimized "
                  "(`RenderContext(optimizes: false)`): every node is its own full pass, as a naive engine would.")
        md.append("")
        md.append("| case | threads | optimized ms | unoptimized ms | speed-up | optimized / one color matrix |")
        md.append("|---|---|---|---|---|---|")
        for t in sorted({k[1] for k in eng}):
            on, off, one = eng.get(("chain5_f32_optimized", t)), eng.get(("chain5_f32_unoptimized", t)), eng.get(("color_matrix_straight", t))
            if on and off:
                md.append(f"| chain5 f32 | {t} | {on['median_ms']:.1f} | {off['median_ms']:.1f} | "
                          f"{off['median_ms'] / on['median_ms']:.1f}x | {on['median_ms'] / one['median_ms']:.2f} |" if one else "|")
            ac, acoff, single = eng.get(("affine_chain3", t)), eng.get(("affine_chain3_unoptimized", t)), eng.get(("affine_single", t))
            if ac and acoff:
                md.append(f"| 3 affine warps | {t} | {ac['median_ms']:.1f} | {acoff['median_ms']:.1f} | "
                          f"{acoff['median_ms'] / ac['median_ms']:.1f}x | {ac['median_ms'] / single['median_ms']:.2f} (vs one warp) |" if single else "|")
        md.append("")

    # Peak RSS
    rss = [r for r in ours_peer if r.get("peak_rss_mb") and r["threads"] == max(threads)]
    if rss:
        md.append(f"## Peak resident memory per op ({max(threads)} threads, one child process per op)")
        md.append("")
        md.append("Each op runs twice in its own process after its inputs are built; the peak resident set "
                  "(VmHWM) is reset first (`/proc/self/clear_refs`), so `op's own` is what the op itself added: "
                  "its destination buffer plus the engine's scratch (tiles, materialized passes).")
        md.append("")
        md.append("| op | peak MiB | inputs MiB | op's own MiB | output MiB |")
        md.append("|---|---|---|---|---|")
        for r in rss:
            bpp = 16 if ((r["dtype"].startswith("f32") and r["variant"] != "f32_to_u8") or r["variant"] == "u8_to_f32") else 4
            if r["variant"] == "grayscale":
                bpp = 1
            if r["variant"] in ("png_encode", "jpeg_encode"):
                outmb = None
            else:
                outmb = r["out_pixels"] * bpp / 1048576
            md.append(f"| {r['variant']} | {r['peak_rss_mb']:.0f} | {r['rss_before_mb']:.0f} | "
                      f"{r['peak_rss_mb'] - r['rss_before_mb']:.0f} | {fmt(outmb) if outmb else ''} |")
        md.append("")

    # vips task
    if task:
        md.append("## libvips' benchmark task")
        md.append("")
        md.append("The task libvips publishes its speed and memory comparison with: load a 5000x5000 RGB JPEG, crop "
                  "100 pixels off every edge, shrink by 10% (bilinear), sharpen with the 3x3 mask "
                  "[-1 -1 -1; -1 16 -1; -1 -1 -1] / 8, save as JPEG quality 90. Each implementation ran "
                  f"{task['results'][0]['runs'] if task['results'] else 0} times, each in its own child process "
                  "(`scripts/bench_vips_task.py`); process time includes start-up (the Python interpreter and the "
                  "library import for the peers), task time is load to saved file inside the process; peak RSS is "
                  "the child's own VmHWM (ru_maxrss would also count the forked copy of the Python driver). PixelFlow and the peers use all cores (Pillow is single-threaded).")
        md.append("")
        md.append("| implementation | process ms (median) | process ms (min) | task ms (median) | peak RSS MiB | output |")
        md.append("|---|---|---|---|---|---|")
        for r in task["results"]:
            md.append(f"| {r['peer']} | {r['wall_ms_median']:.0f} | {r['wall_ms_min']:.0f} | "
                      f"{fmt(r['task_ms_median'])} | {r['peak_rss_mb']:.0f} | {r['out_size'][0]}x{r['out_size'][1]} |")
        md.append("")

    # Huge images (scripts/bench_huge.py)
    if getattr(args, "huge", None) and os.path.exists(args.huge):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench_huge
        md += bench_huge.markdown_section(json.load(open(args.huge)))

    # QR codes (scripts/bench_qr.py)
    if getattr(args, "qr", None) and os.path.exists(args.qr):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench_qr
        md += bench_qr.markdown_section(json.load(open(args.qr)))

    # Registry
    reg = [r for r in ours["results"] if r.get("section") == "registry"]
    if reg:
        md.append("## Every registered filter at its defaults (PixelFlow only)")
        md.append("")
        md.append("Default `RenderContext` (linear light, premultiplied), the whole image; `rgba8` = sRGB 8-bit in and "
                  "out, `rgbaF32` = linear premultiplied float in and out. Median MPix/s.")
        md.append("")
        rts = sorted({r["threads"] for r in reg})
        dts = []
        for r in reg:
            if r["dtype"] not in dts:
                dts.append(r["dtype"])
        head = ["filter"] + [f"{d.split('->')[0]} {t}t" for d in dts for t in rts]
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + "---|" * len(head))
        ridx = {(r["op"], r["dtype"], r["threads"]): r for r in reg}
        names = []
        for r in reg:
            if r["op"] not in names:
                names.append(r["op"])
        for nme in names:
            cells = [nme] + [fmt(ridx[(nme, d, t)]["mpix_s_median"]) if (nme, d, t) in ridx else "" for d in dts for t in rts]
            md.append("| " + " | ".join(cells) + " |")
        md.append("")

    md.append("## What exactly is measured")
    md.append("")
    md.append("The op definitions are the `OPS` table of `../shared/peers/bench_peers.py` (`--list` prints them). "
              "PixelFlow does the same work through its public API (`Benchmarks/pixelflow-bench/PeerOps.swift`):")
    md.append("")
    md.append("* f32 ops render with `RenderContext(colorManagement: .none)`, so the stored values are used (as the "
              "peers do), into a destination buffer allocated once, with `render(_:rect:to:)`.")
    md.append("* Point color ops (invert, color matrix, color controls, gamma, chain5) read and write straight-alpha "
              "f32 buffers: their definitions are on straight RGBA with `a = a`.")
    md.append("* Ops defined on all four channels (blurs, 3x3 convolution, resampling, rotation, the u8/f32 "
              "conversions, grayscale) read and write buffers tagged `.premultiplied`, so the engine uses the stored "
              "channels as they are, which is the peers' work (a straight-tagged buffer would be premultiplied and "
              "unpremultiplied around the filter, Core Image's semantics, which is more work and a different result).")
    md.append("* Clamped edges: `clampedToExtent()` then a crop back; Lanczos half-size clamps the same way "
              "(crop 6 pixels outside the clamped image, then `lanczosScaled(scale: 0.5)`): 12 taps per axis, as "
              "defined. rotate15 is `cv2.getRotationMatrix2D(((W-1)/2, (H-1)/2), 15, 1)` moved to pixel-centre "
              "coordinates; outside is transparent.")
    md.append("* grayscale renders an rgba8 image into a `gray8` buffer (Rec.709 luma of the stored values, rounded).")
    md.append("* Codecs: `PixelBuffer.encoded(as:quality:options:)` (PNG level 6; JPEG quality 90, baseline 4:2:0) and "
              "`PixelBuffer(encoded:)` of the peers' own Pillow files. PNG encoding deflates chunks of rows on "
              "`EncodeOptions.threadCount` threads (the same bytes for every count); the decoders and the JPEG "
              "encoder are single-threaded, so their all-threads row repeats the 1-thread figure. JPEG decodes "
              "into rgba8 (there is no 3-channel format).")
    md.append("* Every op's output is checked on a 64x64 crop (left edge, mid-height) against a double-precision "
              "scalar computation of the definition (`check_max_abs` in the JSON); `pixelflow-bench --smoke` fails "
              "when a check is above its tolerance.")
    md.append("")
    md += kept_sections(args.md, md)
    open(args.md, "w").write("\n".join(md) + "\n")
    svg_chart(chart_rows, args.svg, f"PixelFlow / fastest peer, {max(threads)} threads, {ours.get('width')}x{ours.get('height')}")
    print(f"wrote {args.md} and {args.svg}")


def kept_sections(path, new_lines):
    """Sections of the existing page that this report does not write (the face and rectangle
    detection figures, from their own benchmark tasks): kept, after the new report. A section
    is a "## " heading and the lines up to the next one; the report's own headings, and the
    hand-written engine notes of an earlier run (any "## Engine figures ..." heading: the notes
    carry the current one), are replaced."""
    if not os.path.exists(path):
        return []
    # Entries of new_lines may hold several lines (the hand-written notes are one entry).
    generated = {l for l in "\n".join(new_lines).split("\n") if l.startswith("## ")}
    kept, current, seen = [], None, set(generated)
    for line in open(path).read().split("\n"):
        if line.startswith("## "):
            # A section is kept once, and never when the new report or notes have it.
            keep = line not in seen and not line.startswith("## Engine figures")
            seen.add(line)
            current = [] if keep else None
            if keep:
                kept.append(current)
        if current is not None:
            current.append(line)
    out = []
    for section in kept:
        while section and section[-1] == "":
            section.pop()
        out += section + [""]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("inputs", help="write the peers' test images (A.png, B.png, A.jpg)")
    a.add_argument("--size", default="3840x2160")
    a.add_argument("--out", default=".build-compare")
    r = sub.add_parser("report", help="join the JSON files and write the page")
    r.add_argument("--peers")
    r.add_argument("--ours", required=True)
    r.add_argument("--native")
    r.add_argument("--task")
    r.add_argument("--qr", help="the JSON written by scripts/bench_qr.py")
    r.add_argument("--huge", help="the JSON written by scripts/bench_huge.py")
    r.add_argument("--md", default="Docs/Performance.md")
    r.add_argument("--svg", default="Docs/performance.svg")
    r.add_argument("--library-note", default=os.environ.get("PIXELFLOW_LIBRARY_NOTE", ""))
    args = ap.parse_args()
    {"inputs": cmd_inputs, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    main()
