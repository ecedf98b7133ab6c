#!/usr/bin/env python3
"""compare.py - one-sided latency / bandwidth (bench/rma/rma_bench.c) for sctpmpi over TCP and SCTP,
Open MPI 4.1 and MPICH 4 in one invocation.

Builds rma_bench.c with mpicc.openmpi and mpicc.mpich into a scratch directory, runs every contender
R times with 2 ranks on loopback (interleaved: each repetition runs every contender once, so load
drifts hit all alike), each run under a timeout, and prints a markdown table of medians (test x size
rows, one column per contender).  Our columns carry the ratio to the better of the two peers
(latency: ours / min(peers), lower is better; bandwidth: ours / max(peers), higher is better), and
a closing list checks the targets: small-message (8 B) Put / Get / Accumulate / Fetch_and_op
latency <= 1.2x the better peer, 1 MiB Put bandwidth >= 1.0x the better peer.
All contenders use sockets on loopback: Open MPI with ob1 + the TCP BTL (one-sided over osc/pt2pt,
which is what Open MPI 4.1 uses without shared memory), MPICH ch4:ucx with UCX_TLS=tcp,self.
A run that times out is a hang (its numbers are used if it had printed them all); the SCTP contender
is "not available" if its first run fails.  Process handling is shared with bench/compare.py.

With --base DIR a second build of ours runs beside (columns tcp-base, sctp-base): before/after
figures of a change measured in the same invocation.

Usage: compare.py [--build DIR] [--base DIR] [-r R] [--reps R] [--sizes LIST] [--tests LIST]
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
import importlib.util  # noqa: E402

# the helpers of the point-to-point comparison driver, bench/compare.py (loaded by path: this
# file has the same name)
_spec = importlib.util.spec_from_file_location(
    "bench_compare", os.path.join(os.path.dirname(HERE), "compare.py"))
_bench_compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench_compare)
run_once, sh, capture, size_label = (_bench_compare.run_once, _bench_compare.sh,
                                     _bench_compare.capture, _bench_compare.size_label)

CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"]
TESTS = ["put_lat_lock", "get_lat_lock", "put_lat_fence", "get_lat_fence", "put_bw_lock", "get_bw_lock",
         "put_bw_fence", "acc_lat", "fop_lat", "cas_lat"]
OURS = ("tcp", "sctp", "tcp-base", "sctp-base")
PEERS = ("ompi", "mpich")


def parse(text):
    vals = {}
    for line in text.splitlines():
        f = line.strip().split(",")
        if len(f) == 5 and f[0] == "rma":
            try:
                vals[(f[1], int(f[2]))] = float(f[4])
            except ValueError:
                pass
    return vals


def expected_keys(tests, sizes):
    keys = []
    for t in tests:
        for i, s in enumerate(sizes):
            if t in ("fop_lat", "cas_lat"):
                if i == 0 and s >= 8:
                    keys.append((t, 8))
                continue
            if t == "acc_lat" and (s < 8 or s > 65536):
                continue
            keys.append((t, s))
    return keys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="/work/main/build", help="our CMake build dir")
    ap.add_argument("-r", "--repeat", type=int, default=3, help="runs per contender (default 3)")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions inside each run (default 5)")
    ap.add_argument("--sizes", default="8,64,512,4096,32768,262144,1048576", help="message sizes in bytes")
    ap.add_argument("--tests", default=",".join(TESTS), help="comma list of rma_bench tests")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run before it counts as a hang")
    ap.add_argument("--grace", type=float, default=10.0, help="seconds to exit after printing everything")
    ap.add_argument("--out", help="also write the report (markdown) to this file")
    ap.add_argument("--scratch", help="where to build the Open MPI / MPICH binaries (default: temp dir)")
    ap.add_argument("--only", default="tcp,sctp,ompi,mpich", help="comma list of contenders")
    ap.add_argument("--base", help="a second build of ours to run beside (tcp-base, sctp-base)")
    a = ap.parse_args()

    build = os.path.abspath(a.build)
    scratch = a.scratch or tempfile.mkdtemp(prefix="sctpmpi-rma-")
    os.makedirs(scratch, exist_ok=True)
    mpiexec = os.path.join(build, "tools", "mpiexec", "mpiexec")
    sizes = [int(s) for s in a.sizes.split(",")]
    tests = a.tests.split(",")
    keys = expected_keys(tests, sizes)
    base_env = {"HWLOC_COMPONENTS": "-gl"}
    cont = [  # key, label, launcher, env, binary
        ("ompi", "Open MPI (ob1, tcp, osc pt2pt)",
         ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "2", "--mca", "pml", "ob1",
          "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo", "--mca", "osc", "pt2pt"],
         dict(base_env), os.path.join(scratch, "rma_bench.openmpi")),
        ("mpich", "MPICH ch4:ucx (tcp)", ["mpiexec.hydra", "-n", "2"],
         dict(base_env, UCX_TLS="tcp,self", UCX_NET_DEVICES="lo"), os.path.join(scratch, "rma_bench.mpich")),
        ("tcp", "sctpmpi tcp", [mpiexec, "-n", "2", "--transport", "tcp"], dict(base_env),
         os.path.join(build, "bench", "rma", "rma_bench")),
        ("sctp", "sctpmpi sctp", [mpiexec, "-n", "2", "--transport", "sctp"], dict(base_env),
         os.path.join(build, "bench", "rma", "rma_bench")),
    ]
    if a.base:
        bdir = os.path.abspath(a.base)
        bexec = os.path.join(bdir, "tools", "mpiexec", "mpiexec")
        for tr in ("tcp", "sctp"):
            cont.append((tr + "-base", f"sctpmpi {tr} (base)", [bexec, "-n", "2", "--transport", tr],
                         dict(base_env), os.path.join(bdir, "bench", "rma", "rma_bench")))
    only = a.only.split(",")
    cont = [c for c in cont if c[0] in only or (c[0].endswith("-base") and c[0][:-5] in only)]
    args = ["--sizes", a.sizes, "--tests", a.tests, "--reps", str(a.reps), "--csv"]
    res = {c[0]: {k: [] for k in keys} for c in cont}
    runs = {c[0]: {} for c in cont}
    note = {c[0]: "" for c in cont}
    build_log = []
    def launcher_of(key, cont):
        return next(c[2][0] for c in cont if c[0] == key)

    for key, _, _, _, binary in cont:
        if key in PEERS:
            cc = "mpicc.openmpi" if key == "ompi" else "mpicc.mpich"
            cmd = [cc] + CFLAGS + ["-o", binary, os.path.join(HERE, "rma_bench.c")]
            build_log.append(sh(cmd))
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                note[key] = f"not available: build failed: {r.stderr.strip()[:200]}"
        elif not (os.access(binary, os.X_OK) and os.access(launcher_of(key, cont), os.X_OK)):
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
            for k in keys:  # partial output still counts for the sizes it reached
                if k in vals:
                    res[key][k].append(vals[k])
            print(f"[rep {rep + 1}/{a.repeat}] {key:5s} {st:18s} {secs:6.1f}s", file=sys.stderr, flush=True)
            if st not in ("ok", "hang-after-output"):
                tail = " | ".join((err.strip().splitlines() or [""])[-3:])
                print("    stderr: " + tail, file=sys.stderr, flush=True)
                if key == "sctp" and rep == 0 and not vals:
                    note[key] = "not available: first run " + st + ": " + tail[:200]
    load_after = os.getloadavg()
    finished = datetime.datetime.now().astimezone()

    med = {c: {k: (statistics.median(v) if v else None) for k, v in res[c].items()} for c in res}

    def ratio(key, k):
        v = med[key][k]
        peers = [med[p][k] for p in PEERS if p in med and med[p][k]]
        if v is None or not peers:
            return None
        return v / (max(peers) if "_bw_" in k[0] else min(peers))

    L = ["| test | size | " + " | ".join(c[1] + (" MB/s" if False else "") for c in cont) + " |",
         "|---|---|" + "---|" * len(cont)]
    for k in keys:
        unit = "MB/s" if "_bw_" in k[0] else "µs"
        cells = []
        for key, *_ in cont:
            v = med[key][k]
            cell = "-" if v is None else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
            r = ratio(key, k) if key in OURS else None
            if r is not None:
                cell += f" ({r:.2f}x)"
            cells.append(cell)
        L.append(f"| {k[0]} ({unit}) | {size_label(k[1])} | " + " | ".join(cells) + " |")
    L.append("")
    L.append("Median over runs of each run's median (µs per operation or MB/s); ratio = ours / the better "
             "of Open MPI and MPICH (latency: lower is better, bandwidth: higher is better).")
    L.append("")
    L.append("Targets:")
    targets = [(("put_lat_lock", 8), "<=", 1.2), (("get_lat_lock", 8), "<=", 1.2), (("acc_lat", 8), "<=", 1.2),
               (("fop_lat", 8), "<=", 1.2), (("put_bw_lock", 1048576), ">=", 1.0)]
    for k, rel, lim in targets:
        if k not in keys:
            continue
        for key in OURS:
            if key not in med:
                continue
            r = ratio(key, k)
            verdict = "n/a" if r is None else ("met" if (r <= lim if rel == "<=" else r >= lim) else "NOT met")
            rs = "-" if r is None else f"{r:.2f}x"
            L.append(f"- {key}: {k[0]} {size_label(k[1])} {rel} {lim}x the better peer: {rs} ({verdict})")
    L.append("")
    L.append("Runs per contender:")
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
                 f"sctpmpi build `{build}`, source {rev} + working tree"
                 + (f"; base build `{os.path.abspath(a.base)}`." if a.base else "."))
        M.append(f"- 2 ranks on loopback, {a.repeat} runs per contender interleaved, {a.reps} timed repetitions "
                 f"per run; took {(finished - started).total_seconds():.0f} s. Command: `{sh(sys.argv)}`")
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
