#!/usr/bin/env python3
"""paper_grid.py [--build DIR] [--out DIR] [--jobs J] [--scale F] [--only a,b] [--resume] —
the papers' whole experiment grid (the cells of `bench/run-experiment full`) run once through the
simulated network (`mpiexec --sim`, docs/simulation.md) at the papers' task counts, our SCTP with
10 streams and with 1 stream, the papers' settings (220 KB buffers, CRC32c off), 8 hosts with
1 Gbit/s NICs (rank i on host i mod 8), every rank's CPU time charged.

Grid (F = --scale multiplies task counts and round trips; the papers' own at F = 1):
  pingpong-size  000 Fig. 8: 1 KB-1 MB, no loss, 100 round trips
  pingpong-loss  000 Table 1: 0/1/2 % loss x 30 KB / 300 KB, 100 round trips
  bpfarm-lan     000 Figs. 10-12: 10,000 tasks, 0/1/2 % x 30 KB / 300 KB x Fanout 1 / 10, LAN
  bpfarm-wan     the same at 20 ms one way, 1/2 %, 30 KB, Fanout 1
  farm-12k       001 Tables 1-2: 5,000 tasks of 23.7 ms, 0/20/40/80 ms x 0/1/2 %, 12 KB, MAXREQS 3
  farm-128k      the same with 128 KB
  farm-k10       001 Table 3: k = 10 tasks per request, 12 KB

Writes OUT/grid.csv (one row per run, appended as they finish: --resume skips the cells it holds)
and OUT/grid.md (the table with the papers' numbers beside ours, docs/results.md).  The runs are
independent (virtual time does not depend on the host's load), so --jobs 2 runs two at once."""
import argparse, concurrent.futures as cf, csv, importlib.machinery, importlib.util, json, os, re
import subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOSTS = [f"h{i}" for i in range(8)]
FIELDS = ["experiment", "contender", "loss_pct", "delay_ms", "size", "fanout", "k", "tasks", "value",
          "unit", "virtual_s", "wall_s", "events", "packets", "lost", "rtt_ms", "model_s", "status"]


def paper_tables():
    """the papers' numbers, as bench/run-experiment holds them"""
    path = os.path.join(ROOT, "bench/run-experiment")
    loader = importlib.machinery.SourceFileLoader("run_experiment", path)
    spec = importlib.util.spec_from_loader("run_experiment", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def grid(scale):
    """(experiment, program, ranks, delay, loss, size, fanout, k, tasks, args) for every cell"""
    bpf, frm = max(20, round(10000 * scale)), max(14, round(5000 * scale))
    iters = max(10, round(100 * min(1.0, scale)))
    out = []
    for size in (1024, 4096, 16384, 22528, 32768, 65536, 262144, 1048576):
        out.append(("pingpong-size", "pingpong", 2, 0, 0, size, "", "", iters,
                    ["--sizes", str(size), "--iters", str(iters), "--warmup", "5", "--max-seconds", "1000"]))
    for loss in (0, 1, 2):
        for size in (30720, 307200):
            out.append(("pingpong-loss", "pingpong", 2, 0, loss, size, "", "", iters,
                        ["--sizes", str(size), "--iters", str(iters), "--warmup", "2", "--max-seconds", "1000"]))
    for loss in (0, 1, 2):
        for size in (30720, 307200):
            for fan in (1, 10):
                out.append(("bpfarm-lan", "bpfarm", 8, 0, loss, size, fan, "", bpf,
                            ["--tasks", str(bpf), "--size", str(size), "--fanout", str(fan), "--outstanding", "10",
                             "--work-ms", "0"]))
    for loss in (1, 2):
        out.append(("bpfarm-wan", "bpfarm", 8, 20, loss, 30720, 1, "", bpf,
                    ["--tasks", str(bpf), "--size", "30720", "--fanout", "1", "--outstanding", "10", "--work-ms", "0"]))
    for exp, size, k in (("farm-12k", 12288, 1), ("farm-128k", 131072, 1), ("farm-k10", 12288, 10)):
        for delay in (0, 20, 40, 80):
            for loss in (0, 1, 2):
                out.append((exp, "farm", 8, delay, loss, size, "", k, frm,
                            ["--tasks", str(frm), "--size", str(size), "--k", str(k), "--maxreqs", "3",
                             "--task-ms", "23.7"]))
    return out


def key(row):
    return (row["experiment"], row["contender"], str(row["loss_pct"]), str(row["delay_ms"]), str(row["size"]),
            str(row["fanout"]), str(row["k"]))


def run_cell(a, tmp, cell, cont):
    exp, prog, n, delay, loss, size, fan, k, tasks, args = cell
    tpath = os.path.join(tmp, f"d{delay}-l{loss}.json")
    env = dict(os.environ, SCTPMPI_SOCKBUF="225280", SCTPMPI_SCTP_CRC32C="0", SCTPMPI_SCTP_BACKEND="native",
               SCTPMPI_SCTP_STREAMS="1" if cont == "sctp1" else "10")
    cmd = [os.path.join(a.build, "tools/mpiexec/mpiexec"), "--sim", tpath, "-n", str(n), "--timeout",
           str(a.timeout), os.path.join(a.build, "bench/exp", prog)] + args
    t0 = time.time()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout + 60)
        out, err, rc = r.stdout, r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        out, err, rc = "", "timeout", -1
    wall = time.time() - t0
    row = dict(experiment=exp, contender=cont, loss_pct=loss, delay_ms=delay, size=size, fanout=fan, k=k,
               tasks=tasks, value="", unit="", virtual_s="", wall_s=f"{wall:.2f}", events="", packets="",
               lost="", rtt_ms="", model_s="", status="ok" if rc == 0 else f"failed ({rc})")
    for line in out.splitlines():
        f = line.split(",")
        if line.startswith("pingpong,"):
            row.update(value=f[4], unit="B/s")
        elif line.startswith("farm,"):
            row.update(value=f[8], unit="s", rtt_ms=f[9], model_s=f[11])
        elif line.startswith("bpfarm,"):
            row.update(value=f[8], unit="s")
    m = re.search(r"sim: virtual time ([0-9.]+) s, events (\d+), packets (\d+) \(dropped \d+, lost on links (\d+)\)",
                  err)
    if m:
        row.update(virtual_s=m.group(1), events=m.group(2), packets=m.group(3), lost=m.group(4))
    if rc != 0 or not row["value"]:
        row["status"] = f"failed ({rc}): " + err.strip().splitlines()[-1][:120] if err.strip() else f"failed ({rc})"
    return row


def fmt_val(row):
    if not row or not row.get("value"):
        return "—"
    v = float(row["value"])
    return f"{v / 1e6:.1f} MB/s" if row["unit"] == "B/s" else f"{v:.2f}"


def table(rows, meta):
    """Markdown: one line per cell, sctp10 and sctp1 beside the papers' numbers"""
    re_ = paper_tables()
    by = {key(r): r for r in rows}
    cells = []
    for r in rows:
        c = key(r)[:1] + key(r)[2:]
        if c not in cells:
            cells.append(c)
    lines = []
    titles = {"pingpong-size": "(a) 000 Fig. 8: ping-pong throughput by size, no loss, LAN (MB/s, 10^6 B/s)",
              "pingpong-loss": "(b) 000 Table 1: ping-pong throughput under loss, LAN (MB/s; the paper's in B/s)",
              "bpfarm-lan": "(c)+(d) 000 Figs. 10-12: Bulk Processor Farm, LAN (s)",
              "bpfarm-wan": "(c) the Bulk Processor Farm at 20 ms one way (s)",
              "farm-12k": "(e) 001 Tables 1-2: buffered farm, 12 KB (s)",
              "farm-128k": "(e) 001 Tables 1-2: buffered farm, 128 KB (s)",
              "farm-k10": "(d) 001 Table 3: buffered farm, k = 10 tasks per request, 12 KB (s)"}
    cur = None
    for c in cells:
        exp, loss, delay, size, fan, k = c
        if exp != cur:
            cur = exp
            lines += ["", f"#### {titles[exp]}", ""]
            if exp.startswith("farm"):
                lines += ["| loss % | delay ms | size | tasks | sctp10 | sctp1 | paper SCTP | paper TCP "
                          "| model (s) | RTT probe (ms) | sim wall (s) | virtual / wall |", "|" + "---|" * 12]
            else:
                lines += ["| loss % | delay ms | size | fanout | tasks / round trips | sctp10 | sctp1 | paper "
                          "| sim wall (s) | virtual / wall |", "|" + "---|" * 10]
        r10 = by.get((exp, "sctp10", loss, delay, size, fan, k))
        r1 = by.get((exp, "sctp1", loss, delay, size, fan, k))
        ref = r10 or r1
        wall = sum(float(r["wall_s"]) for r in (r10, r1) if r)
        virt = sum(float(r["virtual_s"]) for r in (r10, r1) if r and r["virtual_s"])
        sp = f"{virt / wall:.1f}" if wall else "—"
        li, d, s = int(float(loss)), int(float(delay)), int(size)
        if exp.startswith("farm"):
            if exp == "farm-k10":
                p = re_.PAPER_FARM_K10.get((li, d))
                ps, pt = (f"{p[1]} (10 str.) / {p[0]} (1 str.)", "") if p else ("", "")
            else:
                p = re_.PAPER_FARM.get((s, li, d))
                ps, pt = (str(p[0]), str(p[1])) if p else ("", "")
            lines.append(f"| {li} | {d} | {s} | {ref['tasks']} | {fmt_val(r10)} | {fmt_val(r1)} | {ps} | {pt} | "
                         f"{float(ref['model_s']):.2f} | {ref['rtt_ms']} | {wall:.1f} | {sp} |"
                         if ref and ref["model_s"] else
                         f"| {li} | {d} | {s} | {ref['tasks'] if ref else ''} | {fmt_val(r10)} | {fmt_val(r1)} | "
                         f"{ps} | {pt} | — | — | {wall:.1f} | {sp} |")
        else:
            paper = ""
            if exp == "pingpong-loss":
                p = re_.PAPER_PP.get((s, li))
                paper = f"SCTP {p[0]:,} / TCP {p[1]:,} B/s" if p else ""
            elif exp.startswith("bpfarm"):
                paper = re_.PAPER_BPF.get((s, int(fan)), "") if d == 0 and li > 0 else ""
            lines.append(f"| {li} | {d} | {s} | {fan or '—'} | {ref['tasks'] if ref else ''} | {fmt_val(r10)} | "
                         f"{fmt_val(r1)} | {paper} | {wall:.1f} | {sp} |")
    failed = [r for r in rows if r["status"] != "ok"]
    head = [f"Generated {meta['when']} by `{meta['cmd']}`: {len(rows)} runs ({len(failed)} failed), "
            f"wall time {meta['wall_min']:.1f} min, virtual time {meta['virtual_s']:.0f} s in all; "
            f"load average at the start / end {meta['load0']} / {meta['load1']}; git HEAD `{meta['head']}`."]
    for r in failed:
        head.append(f"- failed: {r['experiment']} {r['contender']} loss {r['loss_pct']} delay {r['delay_ms']} "
                    f"size {r['size']}: {r['status']}")
    return "\n".join(head + lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results/sim-grid"))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default=None, help="experiments to run (comma-separated), default all")
    ap.add_argument("--contenders", default="sctp10,sctp1")
    ap.add_argument("--timeout", type=int, default=3600, help="per run, seconds of wall time")
    ap.add_argument("--resume", action="store_true", help="keep OUT/grid.csv's rows, run only the missing cells")
    ap.add_argument("--table-only", action="store_true", help="rewrite OUT/grid.md from OUT/grid.csv")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    csv_path, md_path = os.path.join(a.out, "grid.csv"), os.path.join(a.out, "grid.md")
    rows = []
    if (a.resume or a.table_only) and os.path.exists(csv_path):
        rows = [r for r in csv.DictReader(open(csv_path))]
    load0 = open("/proc/loadavg").read().split()[0]
    t0 = time.time()
    if not a.table_only:
        done = {key(r) for r in rows if r["status"] == "ok"}
        rows = [r for r in rows if r["status"] == "ok"]
        tmp = tempfile.mkdtemp(prefix="sim-grid-")
        for d in (0, 20, 40, 80):
            for l in (0, 1, 2):
                json.dump({"hosts": HOSTS, "rails": 1, "mtu": 1500, "seed": 1,
                           "defaults": {"delay_ms": d, "loss": l / 100.0}, "nic": {"rate_mbit": 1000}},
                          open(os.path.join(tmp, f"d{d}-l{l}.json"), "w"))
        only = set(a.only.split(",")) if a.only else None
        todo = []
        for cell in grid(a.scale):
            if only and cell[0] not in only:
                continue
            for cont in a.contenders.split(","):
                probe = dict(experiment=cell[0], contender=cont, loss_pct=cell[4], delay_ms=cell[3], size=cell[5],
                             fanout=cell[6], k=cell[7])
                if key(probe) not in done:
                    todo.append((cell, cont))
        print(f"{len(todo)} runs, {a.jobs} at a time", file=sys.stderr, flush=True)
        new = not os.path.exists(csv_path) or not a.resume
        f = open(csv_path, "w" if new else "a", newline="")
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
            for r in rows:
                w.writerow(r)
        lock = threading.Lock()

        def one(item):
            r = run_cell(a, tmp, *item)
            with lock:
                w.writerow(r)
                f.flush()
                rows.append(r)
                print(f"{time.strftime('%H:%M:%S')} {r['experiment']} {r['contender']} loss {r['loss_pct']} delay "
                      f"{r['delay_ms']} size {r['size']} fanout {r['fanout']} k {r['k']}: {r['value']} {r['unit']} "
                      f"virtual {r['virtual_s']} s wall {r['wall_s']} s {r['status']}", file=sys.stderr, flush=True)

        with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            list(ex.map(one, todo))
        f.close()
    order = {key(dict(experiment=c[0], contender=cont, loss_pct=c[4], delay_ms=c[3], size=c[5], fanout=c[6],
                      k=c[7])): i for i, (c, cont) in enumerate((c, cont) for c in grid(a.scale)
                                                                    for cont in ("sctp10", "sctp1"))}
    rows.sort(key=lambda r: order.get(key(r), 1 << 30))
    meta = dict(when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                cmd="bench/sim/paper_grid.py " + " ".join(sys.argv[1:]),
                wall_min=sum(float(r["wall_s"]) for r in rows) / 60 if a.table_only else (time.time() - t0) / 60,
                virtual_s=sum(float(r["virtual_s"] or 0) for r in rows), load0=load0,
                load1=open("/proc/loadavg").read().split()[0],
                head=subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip())
    if a.table_only:
        meta["wall_min"] = sum(float(r["wall_s"]) for r in rows) / 60
        meta["cmd"] += " (wall time: the sum of the runs')"
    open(md_path, "w").write(table(rows, meta))
    print(md_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
