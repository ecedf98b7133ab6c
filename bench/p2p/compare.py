#!/usr/bin/env python3
"""compare.py - run pingpong and bw for sctpmpi (TCP, SCTP), Open MPI and MPICH in one invocation.

Orchestration only: builds the Open MPI / MPICH binaries of bench/p2p/{pingpong,bw}.c into a
scratch directory, runs every contender R times (interleaved: each repetition runs every
contender once, so slow drifts in machine load hit all of them alike), each run under a timeout,
and prints a markdown table of medians with ratios against Open MPI plus the issue's targets.

A run that times out is recorded as a hang. If it had already printed all of its results
(MPICH 4.0.2 + UCX 1.13.1 is known to hang in MPI_Finalize about one run in three), its numbers
are used and the hang is counted in the "runs" column; it is never silently dropped.

Usage: compare.py [--build DIR] [-r R] [--timeout S] [--out FILE.md] [--scratch DIR]
                  [--only tcp,sctp,usctp,ompi,mpich]
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
PP_SIZES = "0,16384"
BW_SIZES = "65536,1048576"
COLUMNS = [  # (key, header, kind)
    (("pingpong", 0), "0 B lat µs", "lat"),
    (("pingpong", 16384), "16 KiB lat µs", "lat"),
    (("bw", 65536), "64 KiB bw MB/s", "bw"),
    (("bw", 1048576), "1 MiB bw MB/s", "bw"),
]
TARGETS = [  # (column key, test, text)
    (("pingpong", 0), lambda r: r <= 1.3, "0 B latency within 1.3x of Open MPI (ratio <= 1.30)"),
    (("bw", 65536), lambda r: r >= 0.8, "64 KiB bandwidth at least 0.8x of Open MPI (ratio >= 0.80)"),
    (("bw", 1048576), lambda r: r >= 0.8, "1 MiB bandwidth at least 0.8x of Open MPI (ratio >= 0.80)"),
]
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"]


def sh(cmd, env=None):
    return " ".join(shlex.quote(c) for c in cmd) if env is None else \
        " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + sh(cmd)


def capture(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


class Contender:
    def __init__(self, key, label, launcher, env, bindir, suffix=""):
        self.key, self.label, self.launcher, self.env = key, label, launcher, env
        self.bindir, self.suffix = bindir, suffix
        self.results = {c[0]: [] for c in COLUMNS}
        self.by_rep = {c[0]: {} for c in COLUMNS}  # column -> {repetition: value}, for paired ratios
        self.runs = []  # (bench, status) with status ok / hang-after-output / hang / fail / bad-output
        self.note = ""
        self.skipped = False

    def prog(self, bench):
        return os.path.join(self.bindir, bench + self.suffix)

    def command(self, bench):
        args = ["--sizes", PP_SIZES if bench == "pingpong" else BW_SIZES, "--csv"]
        return self.launcher + [self.prog(bench)] + args


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
    """{(bench, size): value} from our CSV rows."""
    vals = {}
    for line in text.splitlines():
        f = line.strip().split(",")
        if not f or f[0] != bench:
            continue
        try:
            vals[(bench, int(f[1]))] = float(f[3] if bench == "pingpong" else f[4])
        except (IndexError, ValueError):
            pass
    return vals


def build_others(scratch, contenders, log):
    """Compile pingpong/bw with mpicc.openmpi and mpicc.mpich into scratch."""
    for c in contenders:
        if c.key not in ("ompi", "mpich"):
            continue
        cc = "mpicc.openmpi" if c.key == "ompi" else "mpicc.mpich"
        for bench in ("pingpong", "bw"):
            cmd = [cc] + CFLAGS + ["-o", c.prog(bench), os.path.join(HERE, bench + ".c")]
            log.append(sh(cmd))
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                c.skipped = True
                c.note = f"build failed: {cc}: {r.stderr.strip()[:300]}"


def fmt(v, kind):
    return "-" if v is None else (f"{v:.2f}" if kind == "lat" else f"{v:.0f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="/work/main/build", help="our CMake build dir (default /work/main/build)")
    ap.add_argument("-r", "--repeat", type=int, default=5, help="runs per contender and benchmark (default 5)")
    ap.add_argument("--timeout", type=float, default=90.0, help="seconds per run before it counts as a hang")
    ap.add_argument("--grace", type=float, default=10.0,
                    help="seconds a run may take to exit after printing all its results (default 10)")
    ap.add_argument("--out", help="also write the report (markdown) to this file")
    ap.add_argument("--scratch", help="where to build the Open MPI / MPICH binaries (default: a temp dir)")
    ap.add_argument("--only", default="tcp,sctp,usctp,ompi,mpich", help="comma list of contenders to run")
    a = ap.parse_args()

    build = os.path.abspath(a.build)
    scratch = a.scratch or tempfile.mkdtemp(prefix="sctpmpi-compare-")
    os.makedirs(scratch, exist_ok=True)
    mpiexec = os.path.join(build, "tools", "mpiexec", "mpiexec")
    ours_bin = os.path.join(build, "bench", "p2p")
    base_env = {"HWLOC_COMPONENTS": "-gl"}
    ompi_launch = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "2",
                   "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"]
    all_contenders = [
        Contender("ompi", "Open MPI 4.1 (ob1, btl tcp,self, lo)", ompi_launch, dict(base_env), scratch, ".openmpi"),
        Contender("mpich", "MPICH 4.0 ch4:ucx (UCX_TLS=tcp,self, lo)", ["mpiexec.hydra", "-n", "2"],
                  dict(base_env, UCX_TLS="tcp,self", UCX_NET_DEVICES="lo"), scratch, ".mpich"),
        Contender("tcp", "sctpmpi, --transport tcp", [mpiexec, "-n", "2", "--transport", "tcp"],
                  dict(base_env), ours_bin),
        Contender("sctp", "sctpmpi, --transport sctp (own SCTP engine)", [mpiexec, "-n", "2", "--transport", "sctp"],
                  dict(base_env, SCTPMPI_SCTP_BACKEND="native"), ours_bin),
        Contender("usctp", "sctpmpi, --transport sctp over usrsctp", [mpiexec, "-n", "2", "--transport", "sctp"],
                  dict(base_env, SCTPMPI_SCTP_BACKEND="usrsctp"), ours_bin),
    ]
    wanted = set(a.only.split(","))
    contenders = [c for c in all_contenders if c.key in wanted]

    started = datetime.datetime.now().astimezone()
    build_log = []
    build_others(scratch, contenders, build_log)
    for c in contenders:
        if c.key in ("tcp", "sctp", "usctp"):
            missing = [p for p in (mpiexec, c.prog("pingpong"), c.prog("bw")) if not os.access(p, os.X_OK)]
            if missing:
                c.skipped, c.note = True, "not built: " + ", ".join(missing)
    load_before = os.getloadavg()

    loads = []
    for rep in range(a.repeat):
        loads.append(os.getloadavg()[0])
        for c in contenders:
            if c.skipped:
                continue
            for bench in ("pingpong", "bw"):
                if c.skipped:
                    break
                cmd = c.command(bench)
                keys = [k for k, _, _ in COLUMNS if k[0] == bench]
                status, out, err, secs = run_once(
                    cmd, c.env, a.timeout, done=lambda text, b=bench, ks=keys: all(k in parse_csv(b, text) for k in ks),
                    grace=a.grace)
                vals = parse_csv(bench, out)
                complete = all(k in vals for k, _, _ in COLUMNS if k[0] == bench)
                if status == "ok" and complete:
                    st = "ok"
                elif status == "timeout":
                    st = "hang-after-output" if complete else "hang"
                elif status == "ok":
                    st = "bad-output"
                else:
                    st = "fail(" + status + ")"
                c.runs.append((bench, st))
                if st in ("ok", "hang-after-output"):
                    for k, v in vals.items():
                        if k in c.results:
                            c.results[k].append(v)
                            c.by_rep[k][rep] = v
                print(f"[rep {rep + 1}/{a.repeat}] {c.key:5s} {bench:8s} {st:18s} {secs:6.1f}s "
                      + " ".join(f"{k[1]}={v:g}" for k, v in sorted(vals.items())), file=sys.stderr, flush=True)
                if st not in ("ok", "hang-after-output"):
                    tail = (err.strip().splitlines() or [""])[-3:]
                    print("    stderr: " + " | ".join(tail), file=sys.stderr, flush=True)
                    if c.key in ("sctp", "usctp") and rep == 0 and not c.runs[:-1]:
                        # The SCTP transport is optional: a first-run failure means "not available".
                        c.skipped = True
                        c.note = f"skipped: first run {st}: " + " | ".join(tail)[:300]

    load_after = os.getloadavg()
    finished = datetime.datetime.now().astimezone()
    med = {c.key: {k: (statistics.median(v) if v else None) for k, v in c.results.items()} for c in contenders}
    ref = med.get("ompi")

    L = []
    L.append("| contender | " + " | ".join(h for _, h, _ in COLUMNS) + " | runs |")
    L.append("|---|" + "---|" * (len(COLUMNS) + 1))
    for c in contenders:
        cells = []
        for k, _, kind in COLUMNS:
            v = med[c.key][k]
            cell = fmt(v, kind)
            if v is not None and ref and ref.get(k) and c.key != "ompi":
                cell += f" ({v / ref[k]:.2f}x)"
            cells.append(cell)
        counts = {}
        for _, st in c.runs:
            counts[st] = counts.get(st, 0) + 1
        runs = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "none"
        if c.note:
            runs += f"; {c.note}"
        L.append(f"| {c.label} | " + " | ".join(cells) + f" | {runs} |")
    L.append("")
    L.append("Medians; ratio in parentheses = contender / Open MPI (latency: lower is better, "
             "bandwidth: higher is better). Spread (min-max) over the runs:")
    L.append("")
    L.append("| contender | " + " | ".join(h for _, h, _ in COLUMNS) + " |")
    L.append("|---|" + "---|" * len(COLUMNS))
    for c in contenders:
        cells = [(f"{fmt(min(c.results[k]), kind)}-{fmt(max(c.results[k]), kind)}" if c.results[k] else "-")
                 for k, _, kind in COLUMNS]
        L.append(f"| {c.label} | " + " | ".join(cells) + " |")
    L.append("")
    # Paired ratios: each repetition runs all contenders back to back, so the ratio within one
    # repetition cancels slow load drifts; their median is steadier than a ratio of medians.
    ompi_c = next((c for c in contenders if c.key == "ompi"), None)
    paired = {}
    if ompi_c:
        L.append("Paired ratios (median over repetitions of contender / Open MPI within the same repetition):")
        L.append("")
        L.append("| contender | " + " | ".join(h for _, h, _ in COLUMNS) + " |")
        L.append("|---|" + "---|" * len(COLUMNS))
        for c in contenders:
            if c is ompi_c:
                continue
            cells = []
            for k, _, _ in COLUMNS:
                rs = [v / ompi_c.by_rep[k][r] for r, v in c.by_rep[k].items() if ompi_c.by_rep[k].get(r)]
                paired[(c.key, k)] = statistics.median(rs) if rs else None
                cells.append(f"{paired[(c.key, k)]:.2f}x (n={len(rs)})" if rs else "-")
            L.append(f"| {c.label} | " + " | ".join(cells) + " |")
        L.append("")
    L.append("Targets of the issue (sctpmpi vs Open MPI's TCP BTL; ratio of medians, then paired ratio):")
    L.append("")
    L.append("| target | " + " | ".join(c.label for c in contenders if c.key in ("tcp", "sctp", "usctp")) + " |")
    L.append("|---|" + "---|" * sum(1 for c in contenders if c.key in ("tcp", "sctp", "usctp")))
    for k, test, text in TARGETS:
        cells = []
        for c in contenders:
            if c.key not in ("tcp", "sctp", "usctp"):
                continue
            v = med[c.key][k]
            if v is None or not ref or not ref.get(k):
                cells.append("n/a")
            else:
                r = v / ref[k]
                pr = paired.get((c.key, k))
                cell = f"{'PASS' if test(r) else 'MISS'} ({r:.2f}x)"
                if pr is not None:
                    cell += f"; paired {'PASS' if test(pr) else 'MISS'} ({pr:.2f}x)"
                cells.append(cell)
        L.append(f"| {text} | " + " | ".join(cells) + " |")
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
        rev = capture(["git", "-C", os.path.dirname(os.path.dirname(HERE)), "rev-parse", "--short", "HEAD"])
        rev = rev if rev and " " not in rev else "no commit yet (working tree)"
        ompi_ver = capture(["mpirun.openmpi", "--version"]).splitlines()[:1]
        mpich_ver = [" ".join(l.split()) for l in capture(["mpichversion"]).splitlines() if "Version" in l][:1]
        sctp_env = {k: v for k, v in os.environ.items() if k.startswith("SCTPMPI_")}
        M = [f"## Run of {started.strftime('%Y-%m-%d %H:%M %Z')}", ""]
        M.append(f"- Machine: {uname.node}, {uname.system} {uname.release} {uname.machine}, {cpu}, "
                 f"{os.cpu_count()} CPUs, shared with other users: 1-min load average "
                 f"{load_before[0]:.2f} before, {load_after[0]:.2f} after, "
                 f"{min(loads, default=0):.2f}-{max(loads, default=0):.2f} at the start of the repetitions.")
        M.append(f"- Versions: {' '.join(ompi_ver) or 'Open MPI ?'}; {' '.join(mpich_ver) or 'MPICH ?'}; "
                 f"sctpmpi build `{build}` ({btype}{flags}), source {rev}.")
        M.append(f"- {a.repeat} runs per contender and benchmark, interleaved, timeout {a.timeout:g} s per run "
                 f"({a.grace:g} s once all results are printed); "
                 f"2 ranks on loopback; pingpong {PP_SIZES} (10000 iterations up to 8 KiB, 1000 above, "
                 f"warm-up 100/10); bw {BW_SIZES} (window 64, 20 iterations, warm-up 2).")
        M.append(f"- SCTPMPI_* environment: {sctp_env or 'none'}. HWLOC_COMPONENTS=-gl for all.")
        M.append(f"- Took {(finished - started).total_seconds():.0f} s. Command: `{sh(sys.argv)}`")
        M.append("")
        M.append(table)
        M.append("")
        M.append("Exact commands (one of each; bw takes `--sizes " + BW_SIZES + " --csv`):")
        M.append("")
        M.append("```")
        M.extend(build_log)
        for c in contenders:
            env = {k: v for k, v in c.env.items()}
            M.append(sh(c.command("pingpong"), env))
        M.append("```")
        M.append("")
        with open(a.out, "w") as f:
            f.write("\n".join(M))
        print(f"\nwrote {a.out}", file=sys.stderr)

    bad = [c.key for c in contenders if c.key in ("tcp", "ompi") and not c.skipped
           and any(st not in ("ok",) for _, st in c.runs)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
