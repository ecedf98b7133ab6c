#!/usr/bin/env python3
"""compare.py - collective latency (bench/coll/coll_lat.c) for sctpmpi (TCP, SCTP), Open MPI and MPICH.

One invocation builds coll_lat.c with mpicc.openmpi and mpicc.mpich into a scratch directory,
runs every contender R times with N ranks on loopback (interleaved: each repetition runs every
contender once, so load drifts hit all alike), each run under a timeout, and prints a markdown
table of medians (op x size rows, one column per contender, ratio vs Open MPI in parentheses).
A run that times out is recorded as a hang (and its numbers used if it had printed all of them,
e.g. MPICH hanging in MPI_Finalize); the SCTP contender is recorded "not available" if its
first run fails (the build has no SCTP transport).  Process handling (timeouts, ending a hung
launcher's ranks by pid) is shared with bench/p2p/compare.py.

With --base DIR (another build of sctpmpi, e.g. of the previous revision) the contenders
tcp-base and sctp-base run that build's coll_lat in the same interleaved repetitions, so a
change can be measured before/after under the same load.

Usage: compare.py [--build DIR] [--base DIR] [-n RANKS] [-r R] [--reps R] [--sizes LIST]
                  [--timeout S] [--out FILE.md] [--scratch DIR] [--only tcp,sctp,ompi,mpich]
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "p2p"))
from compare import run_once, sh, capture  # noqa: E402  (bench/p2p/compare.py)

OPS = ["allreduce", "alltoall", "bcast"]
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"]


def parse(text):
    vals = {}
    for line in text.splitlines():
        f = line.strip().split(",")
        if len(f) == 5 and f[0] == "coll":
            try:
                vals[(f[1], int(f[2]))] = float(f[4])
            except ValueError:
                pass
    return vals


def size_bytes(s):
    s = s.strip()
    mult = {"k": 1024, "m": 1024 * 1024}.get(s[-1:].lower(), 1)
    v = int(s[:-1] if mult > 1 else s) * mult
    return max(4, v // 4 * 4)


def fmt_size(b):
    return f"{b // 1048576} MiB" if b >= 1048576 and b % 1048576 == 0 else \
        f"{b // 1024} KiB" if b >= 1024 and b % 1024 == 0 else f"{b} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    a = ap.parse_args()

    build = os.path.abspath(a.build)
    scratch = a.scratch or tempfile.mkdtemp(prefix="sctpmpi-coll-")
    os.makedirs(scratch, exist_ok=True)
    mpiexec = os.path.join(build, "tools", "mpiexec", "mpiexec")
    n = str(a.ranks)
    sizes = [size_bytes(s) for s in a.sizes.split(",")]
    keys = [(op, s) for op in OPS for s in sizes]
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
            cmd = [cc] + CFLAGS + ["-o", binary, os.path.join(HERE, "coll_lat.c")]
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
                                              done=lambda t: all(k in parse(t) for k in keys), grace=a.grace)
            vals = parse(out)
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
        L.append(f"| {op} | {fmt_size(s)} | " + " | ".join(cells) + " |")
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
        rev = capture(["git", "-C", os.path.dirname(os.path.dirname(HERE)), "rev-parse", "--short", "HEAD"])
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


if __name__ == "__main__":
    sys.exit(main())
