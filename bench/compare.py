#!/usr/bin/env python3
"""compare.py - the comparison driver of the benchmarks: sctpmpi (TCP, both SCTP backends) beside
Open MPI and MPICH.  `compare.py [options]` runs pingpong and bw (bench/p2p) in one invocation, on
loopback and/or on a 2-host netlab network (the point-to-point table of docs/benchmarks.md);
`compare.py coll [options]` runs the collective latency benchmark (bench/coll/coll_lat.c, see
COLL_DOC below and `compare.py coll --help`), also before/after two builds of ours (--base).

Orchestration only: builds the Open MPI / MPICH binaries of bench/p2p/{pingpong,bw}.c into a
scratch directory, then for every setting (loopback; with --netlab RATE,LOSS[,LOSS...] one netlab
network whose loss is set per setting) runs every contender R times (interleaved: each repetition
runs every contender once, so slow drifts in machine load hit all of them alike), each run under a
timeout, and prints per setting a markdown table of medians with ratios, CPU seconds per GB moved
(user+system of both ranks over bw's timed loop, measured by bw itself) and the targets below (LOOPBACK_TARGETS, netlab: kernel TCP's throughput).
Loopback ratios are against Open MPI's TCP BTL; netlab ratios against both users of kernel TCP
(Open MPI's TCP BTL and our TCP transport), with per-run counters (compare_netlab.py).

A run that times out is recorded as a hang. If it had already printed all of its results
(MPICH 4.0.2 + UCX 1.13.1 is known to hang in MPI_Finalize about one run in three), its numbers
are used and the hang is counted in the "runs" column; it is never silently dropped.

Usage: compare.py [--build DIR] [-r R] [--timeout S] [--out FILE.md] [--scratch DIR]
                  [--only tcp,sctp,usctp,ompi,mpich] [--netlab RATE_MBIT,LOSS_PCT[,...]]
                  [--loopback] [--tcp-cc CC] [--pp-sizes LIST] [--bw-sizes LIST] [--quick]
                  [--load N]
"""
import argparse
import datetime
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_netlab  # noqa: E402  (the netlab settings; imports bench/run-experiment)
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"]
# per setting kind: default sizes and program arguments (loopback: the programs' defaults)
LOOPBACK_SIZES = ("0,16384", "65536,1048576")
NETLAB_SIZES = ("0", "65536,1048576,4194304")
# netlab: a lost packet costs a retransmission timeout, so fewer round trips; a 16-message window
# of 4 MiB is 64 MiB (~0.55 s at 1 Gbit/s), 4 timed windows per size
NETLAB_PP_ARGS = ["--iters", "1000", "--skip", "50", "--iters-large", "200", "--skip-large", "10"]
NETLAB_BW_ARGS = ["--window", "16", "--iters", "20", "--skip", "2", "--iters-large", "4", "--skip-large", "1"]
QUICK_PP_ARGS = ["--iters", "20", "--skip", "2", "--iters-large", "5", "--skip-large", "1"]
QUICK_BW_ARGS = ["--window", "4", "--iters", "3", "--skip", "1", "--iters-large", "2", "--skip-large", "1"]
# the targets: loopback: against Open MPI's TCP BTL; netlab: throughput against kernel TCP,
# i.e. both Open MPI's TCP BTL and our TCP transport (the target is stated for 1% loss)
LOOPBACK_TARGETS = [  # (column key, test, text)
    (("pingpong", 0), lambda r: r <= 1.2, "0 B latency <= 1.2x Open MPI's"),
    (("bw", 1048576), lambda r: r >= 1.0, "1 MiB bandwidth >= 1.0x Open MPI's"),
]
OURS = ("tcp", "sctp", "usctp")


def size_label(n):
    return f"{n // 1048576} MiB" if n >= 1048576 and n % 1048576 == 0 else \
        f"{n // 1024} KiB" if n >= 1024 and n % 1024 == 0 else f"{n} B"


def columns_for(pp_sizes, bw_sizes):
    """[(key, header, kind)] for the sizes of one setting."""
    cols = [(("pingpong", int(s)), f"{size_label(int(s))} lat µs", "lat") for s in pp_sizes.split(",") if s]
    cols += [(("bw", int(s)), f"{size_label(int(s))} bw MB/s", "bw") for s in bw_sizes.split(",") if s]
    return cols


def sh(cmd, env=None):
    return " ".join(shlex.quote(c) for c in cmd) if not env else \
        " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + sh(cmd)


def capture(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


class Contender:
    """One MPI implementation / transport: how it is launched on loopback and where its programs are."""

    def __init__(self, key, label, launcher, env, bindir, suffix=""):
        self.key, self.label, self.launcher, self.env = key, label, launcher, env
        self.bindir, self.suffix = bindir, suffix
        self.note = ""      # why it is skipped in every setting (build failed, not built)
        self.skipped = False

    def prog(self, bench):
        return os.path.join(self.bindir, bench + self.suffix)


class LoopbackSetting:
    """Both ranks on this host, over lo."""

    kind = "loopback"
    name = "loopback"
    label = "loopback, 2 ranks on this host"

    def __init__(self, pp_sizes, bw_sizes, pp_args, bw_args):
        self.pp_sizes, self.bw_sizes, self.pp_args, self.bw_args = pp_sizes, bw_sizes, pp_args, bw_args

    def begin(self):
        pass

    def command(self, contender, bench, build):
        sizes = self.pp_sizes if bench == "pingpong" else self.bw_sizes
        extra = self.pp_args if bench == "pingpong" else self.bw_args
        return contender.launcher + [contender.prog(bench), "--sizes", sizes, "--csv"] + extra, dict(contender.env)

    def before_run(self):
        return None

    def after_run(self, before, stderr_text, tag):
        return None


def descendants(pid):
    """All live descendants of pid (from /proc), so a hung launcher's ranks can be ended by id."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def run_once(cmd, env, timeout, done=None, grace=10.0):
    """Returns (status, stdout, stderr, seconds). status: ok, timeout, or rc=N.

    done(stdout_so_far) -> bool says the program has printed everything it will; from then on the
    run gets only `grace` more seconds to exit (a hang in MPI_Finalize then costs 10 s, not the
    whole timeout)."""
    full_env = dict(os.environ)
    full_env.update(env)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=full_env, start_new_session=True)
    bufs = {"out": [], "err": []}

    def pump(stream, key):
        for line in stream:
            bufs[key].append(line)

    threads = [threading.Thread(target=pump, args=(p.stdout, "out"), daemon=True),
               threading.Thread(target=pump, args=(p.stderr, "err"), daemon=True)]
    for t in threads:
        t.start()
    deadline = t0 + timeout
    status = None
    while status is None:
        try:
            p.wait(timeout=0.2)
            status = "ok" if p.returncode == 0 else f"rc={p.returncode}"
            break
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if done is not None and deadline > now + grace and done("".join(bufs["out"])):
            deadline = now + grace
        if now >= deadline:
            victims = descendants(p.pid)
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except OSError:
                    pass
                for v in victims:
                    try:
                        os.kill(v, sig)
                    except OSError:
                        pass
                try:
                    p.wait(timeout=3)
                    break
                except subprocess.TimeoutExpired:
                    continue
            status = "timeout"
    for t in threads:
        t.join(timeout=5)
    return status, "".join(bufs["out"]), "".join(bufs["err"]), time.monotonic() - t0


def parse_csv(bench, text):
    """{(bench, size): value} and {(bench, size): cpu s/GB} from our CSV rows."""
    vals, cpu = {}, {}
    for line in text.splitlines():
        f = line.strip().split(",")
        if not f or f[0] != bench:
            continue
        try:
            vals[(bench, int(f[1]))] = float(f[3] if bench == "pingpong" else f[4])
            if bench == "bw" and len(f) > 5:
                cpu[(bench, int(f[1]))] = float(f[5])
        except (IndexError, ValueError):
            pass
    return vals, cpu


def build_others(scratch, contenders, log):
    """Compile pingpong/bw with mpicc.openmpi and mpicc.mpich into scratch."""
    for c in contenders:
        if c.key not in ("ompi", "mpich"):
            continue
        cc = "mpicc.openmpi" if c.key == "ompi" else "mpicc.mpich"
        for bench in ("pingpong", "bw"):
            cmd = [cc] + CFLAGS + ["-o", c.prog(bench), os.path.join(HERE, "p2p", bench + ".c")]
            log.append(sh(cmd))
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                c.skipped = True
                c.note = f"build failed: {cc}: {r.stderr.strip()[:300]}"


def ratio(r):
    """A ratio for the tables: two decimals, three below 0.1 (so a tiny ratio never prints 0.00x)."""
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.3f}x"


def fmt(v, kind):
    return "-" if v is None else (f"{v:.2f}" if kind == "lat" else f"{v:.0f}")


class Store:
    """Everything measured, per (setting name, contender key)."""

    def __init__(self):
        self.by_rep = {}    # (setting, contender) -> {column: {rep: value}}
        self.cpu = {}       # (setting, contender) -> {bw column: {rep: cpu s/GB}}
        self.runs = {}      # (setting, contender) -> [(bench, status)]
        self.counters = {}  # (setting, contender, bench) -> [dict per run]
        self.notes = {}     # (setting, contender) -> why it was skipped there
        self.loads = {}     # setting -> [1-min load at the start of each repetition]

    def vals(self, s, c, col):
        return list(self.by_rep.get((s, c), {}).get(col, {}).values())

    def median(self, s, c, col):
        v = self.vals(s, c, col)
        return statistics.median(v) if v else None

    def cpu_median(self, s, c, col):
        v = list(self.cpu.get((s, c), {}).get(col, {}).values())
        return statistics.median(v) if v else None

    def paired(self, s, c, ref, col):
        """Median over repetitions of contender / ref within the same repetition, and n."""
        mine = self.by_rep.get((s, c), {}).get(col, {})
        theirs = self.by_rep.get((s, ref), {}).get(col, {})
        rs = [v / theirs[r] for r, v in mine.items() if theirs.get(r)]
        return (statistics.median(rs), len(rs)) if rs else (None, 0)


def measure(settings, contenders, a, build, store):
    """Run everything: per setting, R repetitions, each running every contender's pingpong and bw."""
    for st in settings:
        st.begin()
        cols = columns_for(st.pp_sizes, st.bw_sizes)
        skipped = {c.key: c.skipped for c in contenders}
        for c in contenders:
            if c.skipped:
                store.notes[(st.name, c.key)] = c.note
        store.loads[st.name] = []
        for rep in range(a.repeat):
            store.loads[st.name].append(os.getloadavg()[0])
            for c in contenders:
                for bench in ("pingpong", "bw"):
                    if skipped[c.key]:
                        break
                    keys = [k for k, _, _ in cols if k[0] == bench]
                    if not keys:
                        continue
                    cmd, env = st.command(c, bench, build)
                    before = st.before_run()
                    status, out, err, secs = run_once(
                        cmd, env, a.timeout,
                        done=lambda text, b=bench, ks=keys: all(k in parse_csv(b, text)[0] for k in ks),
                        grace=a.grace)
                    counters = st.after_run(before, err, f"{c.key}-{bench}-r{rep}")
                    vals, cpu = parse_csv(bench, out)
                    complete = all(k in vals for k in keys)
                    if status == "ok" and complete:
                        state = "ok"
                    elif status == "timeout":
                        state = "hang-after-output" if complete else "hang"
                    elif status == "ok":
                        state = "bad-output"
                    else:
                        state = "fail(" + status + ")"
                    runs = store.runs.setdefault((st.name, c.key), [])
                    runs.append((bench, state))
                    if counters is not None:
                        store.counters.setdefault((st.name, c.key, bench), []).append(counters)
                    if state in ("ok", "hang-after-output"):
                        for k in keys:
                            store.by_rep.setdefault((st.name, c.key), {}).setdefault(k, {})[rep] = vals[k]
                            if k in cpu:
                                store.cpu.setdefault((st.name, c.key), {}).setdefault(k, {})[rep] = cpu[k]
                    print(f"[{st.name} rep {rep + 1}/{a.repeat}] {c.key:5s} {bench:8s} {state:18s} {secs:6.1f}s "
                          + " ".join(f"{k[1]}={v:g}" for k, v in sorted(vals.items()))
                          + (" cpu/GB " + " ".join(f"{k[1]}={v:g}" for k, v in sorted(cpu.items())) if cpu else ""),
                          file=sys.stderr, flush=True)
                    if state not in ("ok", "hang-after-output"):
                        tail = (err.strip().splitlines() or [""])[-3:]
                        print("    stderr: " + " | ".join(tail), file=sys.stderr, flush=True)
                        if c.key in ("sctp", "usctp") and rep == 0 and len(runs) == 1:
                            # The SCTP transport is optional: a first-run failure means "not available".
                            skipped[c.key] = True
                            store.notes[(st.name, c.key)] = f"skipped: first run {state}: " + " | ".join(tail)[:300]


def report(st, contenders, store):
    """Markdown lines for one setting: medians with ratios, spread, paired ratios, CPU per GB, targets."""
    cols = columns_for(st.pp_sizes, st.bw_sizes)
    refs = [r for r in (["ompi"] if st.kind == "loopback" else ["ompi", "tcp"])
            if any(c.key == r for c in contenders)]
    ref_name = {"ompi": "Open MPI", "tcp": "our TCP"}
    loads = store.loads.get(st.name) or [0.0]
    L = [f"### {st.label}", "",
         f"1-min load average at the start of the repetitions: {min(loads):.2f}-{max(loads):.2f}.", ""]
    L.append("| contender | " + " | ".join(h for _, h, _ in cols) + " | runs |")
    L.append("|---|" + "---|" * (len(cols) + 1))
    for c in contenders:
        cells = []
        for k, _, kind in cols:
            v = store.median(st.name, c.key, k)
            ratios = [f"{ratio(v / store.median(st.name, r, k))}{'' if len(refs) == 1 else ' ' + ref_name[r]}"
                      for r in refs if v is not None and store.median(st.name, r, k) and c.key != r]
            cells.append(fmt(v, kind) + (f" ({', '.join(ratios)})" if ratios else ""))
        counts = {}
        for _, s in store.runs.get((st.name, c.key), []):
            counts[s] = counts.get(s, 0) + 1
        runs = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "none"
        if store.notes.get((st.name, c.key)):
            runs += f"; {store.notes[(st.name, c.key)]}"
        L.append(f"| {c.label} | " + " | ".join(cells) + f" | {runs} |")
    L.append("")
    L.append("Medians; ratio in parentheses = contender / " + " and contender / ".join(ref_name[r] for r in refs)
             + " (latency: lower is better, bandwidth: higher is better). Spread (min-max) over the runs:")
    L.append("")
    L.append("| contender | " + " | ".join(h for _, h, _ in cols) + " |")
    L.append("|---|" + "---|" * len(cols))
    for c in contenders:
        cells = []
        for k, _, kind in cols:
            v = store.vals(st.name, c.key, k)
            cells.append(f"{fmt(min(v), kind)}-{fmt(max(v), kind)}" if v else "-")
        L.append(f"| {c.label} | " + " | ".join(cells) + " |")
    L.append("")
    # Paired ratios: each repetition runs all contenders back to back, so the ratio within one
    # repetition cancels slow load drifts; their median is steadier than a ratio of medians.
    for r in refs:
        L.append(f"Paired ratios (median over repetitions of contender / {ref_name[r]} within the same repetition):")
        L.append("")
        L.append("| contender | " + " | ".join(h for _, h, _ in cols) + " |")
        L.append("|---|" + "---|" * len(cols))
        for c in contenders:
            if c.key == r:
                continue
            cells = []
            for k, _, _ in cols:
                p, n = store.paired(st.name, c.key, r, k)
                cells.append(f"{ratio(p)} (n={n})" if p is not None else "-")
            L.append(f"| {c.label} | " + " | ".join(cells) + " |")
        L.append("")
    bw_cols = [(k, h) for k, h, kind in cols if kind == "bw"]
    if bw_cols:
        L.append("CPU seconds per GB moved (10^9 payload bytes; user+system of both ranks over bw's timed "
                 "loop, all threads, median). Kernel work the ranks' system time does not see is not in it: "
                 "softirq work charged to other tasks" + (" and, on netlab, the receive-side protocol "
                 "processing, which runs inside the forwarder's write() to the TUN (forwarder CPU below)"
                 if st.kind == "netlab" else "") + ":")
        L.append("")
        L.append("| contender | " + " | ".join(size_label(k[1]) for k, _ in bw_cols) + " |")
        L.append("|---|" + "---|" * len(bw_cols))
        for c in contenders:
            cells = []
            for k, _ in bw_cols:
                v = store.cpu_median(st.name, c.key, k)
                cells.append("-" if v is None else f"{v:.2f}")
            L.append(f"| {c.label} | " + " | ".join(cells) + " |")
        L.append("")
    if st.kind == "netlab":
        L += compare_netlab.counters_table(st, contenders, store.counters)
    # targets
    if st.kind == "loopback":
        targets = [(k, t, text, "ompi") for k, t, text in LOOPBACK_TARGETS if k in [c[0] for c in cols]]
        title = "Targets on loopback (ratio of medians, then paired ratio):"
    else:
        targets = [(k, (lambda x: x >= 1.0), f"{size_label(k[1])} bandwidth >= 1.0x {ref_name[r]}'s", r)
                   for k, _ in bw_cols for r in refs]
        title = ("Target on netlab (throughput >= kernel TCP's; stated for a 1 Gbit/s rail with 1% "
                 f"loss{'' if st.loss == 1 else ', shown here for reference'}; ratio of medians, then paired ratio):")
    mine = [c for c in contenders if c.key in OURS and c.key not in [t[3] for t in targets]]
    if targets and mine:
        L.append(title)
        L.append("")
        L.append("| target | " + " | ".join(c.label for c in mine) + " |")
        L.append("|---|" + "---|" * len(mine))
        for k, test, text, r in targets:
            cells = []
            for c in mine:
                v, rv = store.median(st.name, c.key, k), store.median(st.name, r, k)
                if v is None or not rv:
                    cells.append("n/a")
                    continue
                cell = f"{'PASS' if test(v / rv) else 'MISS'} ({ratio(v / rv)})"
                p, _ = store.paired(st.name, c.key, r, k)
                if p is not None:
                    cell += f"; paired {'PASS' if test(p) else 'MISS'} ({ratio(p)})"
                cells.append(cell)
            L.append(f"| {text} | " + " | ".join(cells) + " |")
        L.append("")
    return L


# ---- collectives: bench/coll/coll_lat.c ("compare.py coll ...") ----
COLL_DOC = """compare.py coll - collective latency (bench/coll/coll_lat.c) for sctpmpi (TCP, SCTP), Open MPI and MPICH.

One invocation builds coll_lat.c with mpicc.openmpi and mpicc.mpich into a scratch directory,
runs every contender R times with N ranks on loopback (interleaved: each repetition runs every
contender once, so load drifts hit all alike), each run under a timeout, and prints a markdown
table of medians (op x size rows, one column per contender, ratio vs Open MPI in parentheses).
A run that times out is recorded as a hang (and its numbers used if it had printed all of them,
e.g. MPICH hanging in MPI_Finalize); the SCTP contender is recorded "not available" if its
first run fails (the build has no SCTP transport).  Process handling (timeouts, ending a hung
launcher's ranks by pid) is the point-to-point comparison's.

With --base DIR (another build of sctpmpi, e.g. of the previous revision) the contenders
tcp-base and sctp-base run that build's coll_lat in the same interleaved repetitions, so a
change can be measured before/after under the same load.

Usage: compare.py coll [--build DIR] [--base DIR] [-n RANKS] [-r R] [--reps R] [--sizes LIST]
                       [--timeout S] [--out FILE.md] [--scratch DIR] [--only tcp,sctp,ompi,mpich]
"""

COLL_OPS = ["allreduce", "alltoall", "bcast"]


def coll_parse(text):
    vals = {}
    for line in text.splitlines():
        f = line.strip().split(",")
        if len(f) == 5 and f[0] == "coll":
            try:
                vals[(f[1], int(f[2]))] = float(f[4])
            except ValueError:
                pass
    return vals


def coll_size_bytes(s):
    s = s.strip()
    mult = {"k": 1024, "m": 1024 * 1024}.get(s[-1:].lower(), 1)
    v = int(s[:-1] if mult > 1 else s) * mult
    return max(4, v // 4 * 4)


def coll_fmt_size(b):
    return f"{b // 1048576} MiB" if b >= 1048576 and b % 1048576 == 0 else \
        f"{b // 1024} KiB" if b >= 1024 and b % 1024 == 0 else f"{b} B"


def coll_main(argv):
    ap = argparse.ArgumentParser(prog="compare.py coll", description=COLL_DOC,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="/work/main/build", help="our CMake build dir")
    ap.add_argument("--base", help="a second build of ours to compare with (tcp-base, sctp-base)")
    ap.add_argument("-n", "--ranks", type=int, default=4, help="ranks per job (default 4)")
    ap.add_argument("-r", "--repeat", type=int, default=3, help="runs per contender (default 3)")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions inside each run (default 5)")
    ap.add_argument("--sizes", default="8,64,512,4K,32K,256K,1M", help="message sizes (bytes, per peer for alltoall)")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per run before it counts as a hang")
    ap.add_argument("--grace", type=float, default=10.0, help="seconds to exit after printing everything")
    ap.add_argument("--out", help="also write the report (markdown) to this file")
    ap.add_argument("--scratch", help="where to build the Open MPI / MPICH binaries (default: temp dir)")
    ap.add_argument("--only", default="tcp,sctp,ompi,mpich", help="comma list of contenders")
    a = ap.parse_args(argv)

    build = os.path.abspath(a.build)
    scratch = a.scratch or tempfile.mkdtemp(prefix="sctpmpi-coll-")
    os.makedirs(scratch, exist_ok=True)
    mpiexec = os.path.join(build, "tools", "mpiexec", "mpiexec")
    n = str(a.ranks)
    sizes = [coll_size_bytes(s) for s in a.sizes.split(",")]
    keys = [(op, s) for op in COLL_OPS for s in sizes]
    base_env = {"HWLOC_COMPONENTS": "-gl"}
    cont = [  # key, label, launcher, env, binary
        ("ompi", "Open MPI (ob1, btl tcp,self, lo)",
         ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", n, "--mca", "pml", "ob1",
          "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"], dict(base_env),
         os.path.join(scratch, "coll_lat.openmpi")),
        ("mpich", "MPICH ch4:ucx (UCX_TLS=tcp,self, lo)", ["mpiexec.hydra", "-n", n],
         dict(base_env, UCX_TLS="tcp,self", UCX_NET_DEVICES="lo"), os.path.join(scratch, "coll_lat.mpich")),
        ("tcp", "sctpmpi tcp", [mpiexec, "-n", n, "--transport", "tcp"], dict(base_env),
         os.path.join(build, "bench", "coll", "coll_lat")),
        ("sctp", "sctpmpi sctp", [mpiexec, "-n", n, "--transport", "sctp"], dict(base_env),
         os.path.join(build, "bench", "coll", "coll_lat")),
    ]
    if a.base:
        base = os.path.abspath(a.base)
        base_exec = os.path.join(base, "tools", "mpiexec", "mpiexec")
        for tp in ("tcp", "sctp"):
            cont.append((tp + "-base", "sctpmpi " + tp + " (base)", [base_exec, "-n", n, "--transport", tp],
                         dict(base_env), os.path.join(base, "bench", "coll", "coll_lat")))
    wanted = a.only.split(",") + ([k + "-base" for k in a.only.split(",")] if a.base else [])
    cont = [c for c in cont if c[0] in wanted]
    args = ["--sizes", ",".join(str(s) for s in sizes), "--reps", str(a.reps), "--csv"]
    res = {c[0]: {k: [] for k in keys} for c in cont}
    runs = {c[0]: {} for c in cont}
    note = {c[0]: "" for c in cont}
    build_log = []
    launcher_of = {c[0]: c[2][0] for c in cont}
    for key, _, _, _, binary in cont:
        if key in ("ompi", "mpich"):
            cc = "mpicc.openmpi" if key == "ompi" else "mpicc.mpich"
            cmd = [cc] + CFLAGS + ["-o", binary, os.path.join(HERE, "coll", "coll_lat.c")]
            build_log.append(sh(cmd))
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                note[key] = f"not available: build failed: {r.stderr.strip()[:200]}"
        elif not (os.access(binary, os.X_OK) and os.access(launcher_of[key], os.X_OK)):
            note[key] = f"not available: {binary} not built"

    started = datetime.datetime.now().astimezone()
    load_before = os.getloadavg()
    for rep in range(a.repeat):
        for key, _, launcher, env, binary in cont:
            if note[key].startswith("not available"):
                continue
            status, out, err, secs = run_once(launcher + [binary] + args, env, a.timeout,
                                              done=lambda t: all(k in coll_parse(t) for k in keys), grace=a.grace)
            vals = coll_parse(out)
            complete = all(k in vals for k in keys)
            st = ("ok" if complete else "bad-output") if status == "ok" else \
                ("hang-after-output" if complete else "hang") if status == "timeout" else f"fail({status})"
            runs[key][st] = runs[key].get(st, 0) + 1
            if st in ("ok", "hang-after-output"):
                for k in keys:
                    res[key][k].append(vals[k])
            print(f"[rep {rep + 1}/{a.repeat}] {key:5s} {st:18s} {secs:6.1f}s", file=sys.stderr, flush=True)
            if st not in ("ok", "hang-after-output"):
                tail = " | ".join((err.strip().splitlines() or [""])[-3:])
                print("    stderr: " + tail, file=sys.stderr, flush=True)
                if key.startswith("sctp") and rep == 0:
                    note[key] = "not available: first run " + st + ": " + tail[:200]
    load_after = os.getloadavg()
    finished = datetime.datetime.now().astimezone()

    med = {c: {k: (statistics.median(v) if v else None) for k, v in res[c].items()} for c in res}
    L = ["| op | size | " + " | ".join(c[1] + " µs" for c in cont) + " |",
         "|---|---|" + "---|" * len(cont)]
    for op, s in keys:
        cells = []
        for key, *_ in cont:
            v = med[key][(op, s)]
            ref_key = key + "-base" if key + "-base" in med else "ompi"  # before/after, else vs Open MPI
            ref = med.get(ref_key, {}).get((op, s))
            cell = "-" if v is None else f"{v:.1f}"
            if v is not None and ref and key != ref_key and not key.endswith("-base"):
                cell += f" ({v / ref:.2f}x)"
            cells.append(cell)
        L.append(f"| {op} | {coll_fmt_size(s)} | " + " | ".join(cells) + " |")
    L.append("")
    L.append("Median over runs of each run's median latency (µs per call, slowest rank); ratio = "
             + ("this build / the base build" if a.base else "contender / Open MPI")
             + " (lower is better). Runs per contender:")
    L.append("")
    for key, label, *_ in cont:
        r = ", ".join(f"{v} {s}" for s, v in sorted(runs[key].items())) or "none"
        L.append(f"- {label}: {r}{'; ' + note[key] if note[key] else ''}")
    table = "\n".join(L)
    print(table)

    if a.out:
        uname = platform.uname()
        rev = capture(["git", "-C", os.path.dirname(HERE), "rev-parse", "--short", "HEAD"])
        ompi_ver = capture(["mpirun.openmpi", "--version"]).splitlines()[:1]
        mpich_ver = [" ".join(l.split()) for l in capture(["mpichversion"]).splitlines() if "Version" in l][:1]
        M = [f"### Run of {started.strftime('%Y-%m-%d %H:%M %Z')}", ""]
        M.append(f"- Machine: {uname.node}, {uname.system} {uname.release}, {os.cpu_count()} CPUs shared with "
                 f"other users; 1-min load average {load_before[0]:.2f} before, {load_after[0]:.2f} after.")
        M.append(f"- Versions: {' '.join(ompi_ver) or 'Open MPI ?'}; {' '.join(mpich_ver) or 'MPICH ?'}; "
                 f"sctpmpi build `{build}`, source {rev} + working tree.")
        M.append(f"- {a.ranks} ranks on loopback (oversubscribed), {a.repeat} runs per contender interleaved, "
                 f"{a.reps} timed repetitions per run; iterations per repetition 200 up to 4 KiB, 50 up to "
                 f"64 KiB, 10 above; timeout {a.timeout:g} s per run. Took "
                 f"{(finished - started).total_seconds():.0f} s. Command: `{sh(sys.argv)}`")
        M.append("")
        M.append(table)
        M.append("")
        M.append("Exact commands:")
        M.append("")
        M.append("```")
        M.extend(build_log)
        for key, _, launcher, env, binary in cont:
            M.append(sh(launcher + [binary] + args, env))
        M.append("```")
        M.append("")
        with open(a.out, "w") as f:
            f.write("\n".join(M))
        print(f"\nwrote {a.out}", file=sys.stderr)
    return 0


def start_load(n):
    """--load N: N busy `yes > /dev/null` processes; returns their Popen objects"""
    hogs = []
    for _ in range(n):
        hogs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    if n:
        print(f"compare.py: background load: {n} x yes (pids {' '.join(str(h.pid) for h in hogs)})",
              file=sys.stderr)
    return hogs


def stop_load(hogs):
    """end the processes start_load started, by their pids"""
    for h in hogs:
        if h.poll() is None:
            os.kill(h.pid, signal.SIGTERM)
    for h in hogs:
        try:
            h.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.kill(h.pid, signal.SIGKILL)
            h.wait()


def main():
    if sys.argv[1:2] == ["coll"]:
        return coll_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="/work/main/build", help="our CMake build dir (default /work/main/build)")
    ap.add_argument("-r", "--repeat", type=int, default=5, help="runs per contender, benchmark and setting (default 5)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per run before it counts as a hang (default 90 loopback, 150 with --netlab)")
    ap.add_argument("--grace", type=float, default=10.0,
                    help="seconds a run may take to exit after printing all its results (default 10)")
    ap.add_argument("--out", help="also write the report (markdown) to this file")
    ap.add_argument("--scratch", help="where to build the Open MPI / MPICH binaries (default: a temp dir)")
    ap.add_argument("--only", default="tcp,sctp,usctp,ompi,mpich", help="comma list of contenders to run")
    ap.add_argument("--netlab", metavar="RATE_MBIT,LOSS_PCT[,LOSS_PCT...]",
                    help="run on a 2-host netlab network with host NICs at RATE Mbit/s, once per loss "
                         "percentage (needs root); without --loopback, loopback is not run")
    ap.add_argument("--loopback", action="store_true", help="with --netlab: also run the loopback setting first")
    ap.add_argument("--tcp-cc", default="",
                    help="netlab: TCP congestion control inside the emulated hosts (default: the kernel default)")
    ap.add_argument("--pp-sizes", help="pingpong sizes for every setting (default: 0,16384 loopback, 0 netlab)")
    ap.add_argument("--bw-sizes", help="bw sizes for every setting (default: 65536,1048576 loopback, "
                                       "65536,1048576,4194304 netlab)")
    ap.add_argument("--quick", action="store_true", help="few iterations and a small window (tests the code path)")
    ap.add_argument("--load", type=int, default=0, metavar="N",
                    help="start N busy background processes (`yes > /dev/null`) for the whole run and "
                         "kill them (by pid) at the end: latency and bandwidth beside a busy neighbour")
    a = ap.parse_args()
    if a.load < 0:
        ap.error("--load must be 0 or more")
    if a.repeat < 1:
        ap.error("-r must be at least 1")
    for opt in ("pp_sizes", "bw_sizes"):
        v = getattr(a, opt)
        if v is not None and not all(x.isdigit() for x in v.split(",")):
            ap.error(f"--{opt.replace('_', '-')} wants a comma list of byte counts, got '{v}'")
    net_rate, losses = None, []
    if a.netlab:
        try:
            net_rate, losses = compare_netlab.parse_rate_loss(a.netlab)
        except ValueError as e:
            ap.error(str(e))
        if os.geteuid() != 0:
            print("compare.py: --netlab needs root (netlab creates network namespaces)", file=sys.stderr)
            return 77
    timeout = a.timeout or (150.0 if a.netlab else 90.0)
    a.timeout = timeout

    build = os.path.abspath(a.build)
    scratch = a.scratch or tempfile.mkdtemp(prefix="sctpmpi-compare-")
    os.makedirs(scratch, exist_ok=True)
    mpiexec = os.path.join(build, "tools", "mpiexec", "mpiexec")
    ours_bin = os.path.join(build, "bench", "p2p")
    base_env = {"HWLOC_COMPONENTS": "-gl"}
    ompi_launch = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "2",
                   "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"]
    all_contenders = [
        Contender("ompi", "Open MPI 4.1 (ob1, btl tcp,self)", ompi_launch, dict(base_env), scratch, ".openmpi"),
        Contender("mpich", "MPICH 4.0 ch4:ucx (UCX_TLS=tcp,self)", ["mpiexec.hydra", "-n", "2"],
                  dict(base_env, UCX_TLS="tcp,self", UCX_NET_DEVICES="lo"), scratch, ".mpich"),
        Contender("tcp", "sctpmpi, tcp", [mpiexec, "-n", "2", "--transport", "tcp"], dict(base_env), ours_bin),
        Contender("sctp", "sctpmpi, sctp over our engine", [mpiexec, "-n", "2", "--transport", "sctp"],
                  dict(base_env, SCTPMPI_SCTP_BACKEND="native"), ours_bin),
        Contender("usctp", "sctpmpi, sctp over usrsctp", [mpiexec, "-n", "2", "--transport", "sctp"],
                  dict(base_env, SCTPMPI_SCTP_BACKEND="usrsctp"), ours_bin),
    ]
    wanted = [w for w in a.only.split(",") if w]
    unknown = [w for w in wanted if w not in [c.key for c in all_contenders]]
    if unknown:
        ap.error(f"--only: unknown contender(s) {','.join(unknown)} (known: tcp,sctp,usctp,ompi,mpich)")
    contenders = [c for c in all_contenders if c.key in wanted]

    started = datetime.datetime.now().astimezone()
    # the source measured: HEAD and whether src/ or bench/ differ from it, at the start
    rev = capture(["git", "-C", os.path.dirname(HERE), "rev-parse", "--short", "HEAD"])
    rev = rev if rev and " " not in rev else "no commit yet (working tree)"
    dirty = capture(["git", "-C", os.path.dirname(HERE), "status", "--short", "src", "bench"])
    build_log = []
    build_others(scratch, contenders, build_log)
    for c in contenders:
        if c.key in OURS:
            missing = [p for p in (mpiexec, c.prog("pingpong"), c.prog("bw")) if not os.access(p, os.X_OK)]
            if missing:
                c.skipped, c.note = True, "not built: " + ", ".join(missing)
    load_before = os.getloadavg()

    def sizes(kind):
        d = LOOPBACK_SIZES if kind == "loopback" else NETLAB_SIZES
        return (a.pp_sizes if a.pp_sizes is not None else d[0], a.bw_sizes if a.bw_sizes is not None else d[1])

    def args(kind):
        if a.quick:
            return QUICK_PP_ARGS, QUICK_BW_ARGS
        return ([], []) if kind == "loopback" else (NETLAB_PP_ARGS, NETLAB_BW_ARGS)

    hogs = []
    settings = []
    if not a.netlab or a.loopback:
        settings.append(LoopbackSetting(*sizes("loopback"), *args("loopback")))
    network = None
    try:
        hogs = start_load(a.load)
        if a.netlab:
            network = compare_netlab.Network(build, net_rate, scratch, a.tcp_cc)
            for loss in losses:
                settings.append(compare_netlab.NetlabSetting(network, loss, scratch, *sizes("netlab"), *args("netlab")))
        store = Store()
        measure(settings, contenders, a, build, store)
    finally:
        if network:
            network.stop()
        stop_load(hogs)

    load_after = os.getloadavg()
    finished = datetime.datetime.now().astimezone()
    L = []
    for st in settings:
        L += report(st, contenders, store)
    table = "\n".join(L)
    print(table)

    if a.out:
        uname = platform.uname()
        cpu = next((l.split(":", 1)[1].strip() for l in capture(["lscpu"]).splitlines()
                    if l.startswith("Model name")), "?")
        cache = os.path.join(build, "CMakeCache.txt")
        btype = "?"
        flags = ""
        if os.path.exists(cache):
            with open(cache) as f:
                for l in f:
                    if l.startswith("CMAKE_BUILD_TYPE:"):
                        btype = l.split("=", 1)[1].strip() or "RelWithDebInfo (project default, -O2 -g)"
                    if l.startswith("SCTPMPI_SANITIZE:") and l.strip().endswith("ON"):
                        flags = ", ASan+UBSan"
        ompi_ver = capture(["mpirun.openmpi", "--version"]).splitlines()[:1]
        mpich_ver = [" ".join(l.split()) for l in capture(["mpichversion"]).splitlines() if "Version" in l][:1]
        sctp_env = {k: v for k, v in os.environ.items() if k.startswith("SCTPMPI_")}
        M = [f"## Run of {started.strftime('%Y-%m-%d %H:%M %Z')}", ""]
        M.append(f"- Machine: {uname.node}, {uname.system} {uname.release} {uname.machine}, {cpu}, "
                 f"{os.cpu_count()} CPUs, shared with other users: 1-min load average "
                 f"{load_before[0]:.2f} before, {load_after[0]:.2f} after.")
        M.append(f"- Versions: {' '.join(ompi_ver) or 'Open MPI ?'}; {' '.join(mpich_ver) or 'MPICH ?'}; "
                 f"sctpmpi build `{build}` ({btype}{flags}), source {rev}"
                 f"{' + uncommitted changes in src/ or bench/ at the start' if dirty else ''}.")
        if a.load:
            M.append(f"- Background load started by this run: {a.load} busy `yes > /dev/null` "
                     f"process{'es' if a.load > 1 else ''} for its whole duration (`--load {a.load}`).")
        M.append(f"- {a.repeat} runs per contender, benchmark and setting, interleaved, timeout {a.timeout:g} s "
                 f"per run ({a.grace:g} s once all results are printed).")
        for st in settings:
            M.append(f"- {st.label}: pingpong `--sizes {st.pp_sizes} {' '.join(st.pp_args)}`, "
                     f"bw `--sizes {st.bw_sizes} {' '.join(st.bw_args)}` (program defaults: pingpong 10000 "
                     "iterations up to 8 KiB, 1000 above; bw window 64, 20 iterations above 8 KiB).")
        if network:
            M.append(f"- netlab: topology `{network.topo}`; TCP congestion control inside the hosts "
                     f"{network.tcp_cc}, SACK {network.tcp_sack}; every library with its default socket "
                     "buffers and settings; our ranks with SCTPMPI_STATS=1.")
        M.append(f"- SCTPMPI_* environment: {sctp_env or 'none'}. HWLOC_COMPONENTS=-gl for all.")
        M.append(f"- Took {(finished - started).total_seconds():.0f} s. Command: `{sh(sys.argv)}`")
        M.append("")
        M.append(table)
        M.append("Exact commands (pingpong of each contender in each setting; bw alike):")
        M.append("")
        M.append("```")
        M.extend(build_log)
        seen = set()
        for st in settings:
            for c in contenders:
                line = sh(*st.command(c, "pingpong", build))
                if not c.skipped and line not in seen:  # netlab settings differ only in loss
                    seen.add(line)
                    M.append(line)
        M.append("```")
        M.append("")
        with open(a.out, "w") as f:
            f.write("\n".join(M))
        print(f"\nwrote {a.out}", file=sys.stderr)

    bad = [k for (s, k), runs in store.runs.items() if k in ("tcp", "ompi")
           and any(state != "ok" for _, state in runs)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
