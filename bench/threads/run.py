#!/usr/bin/env python3
"""run.py — the multi-threaded benchmark (mt_bench.c) of ours beside Open MPI and MPICH.

Builds mt_bench.c with our mpicc and with mpicc.openmpi / mpicc.mpich when installed, then for
each thread count and mode runs every contender R times, interleaved (each repetition runs every
contender once), under `nice -n -15` when allowed, and prints a markdown table of medians with
ratios against Open MPI, and the load average before and after.
  rate: messages/s of all thread pairs together (8-byte messages, windows of 64)
  lat:  median one-way 0-byte latency of the thread pairs (µs)
usage: run.py [--build DIR] [-r R] [--threads 1,2,4] [--secs S] [--only tcp,sctp,ompi,mpich]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] in ("rate", "lat"):
            return float(f[2]), ""
    return None, (p.stdout + p.stderr)[-300:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-r", type=int, default=5)
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--secs", default="1")
    ap.add_argument("--only", default="tcp,sctp,ompi,mpich")
    a = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="mt_bench.")
    src = os.path.join(HERE, "mt_bench.c")
    base_env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                    HWLOC_COMPONENTS="-gl")
    ours_cc = os.path.join(a.build, "tools", "mpicc", "mpicc")
    ours_exec = os.path.join(a.build, "tools", "mpiexec", "mpiexec")
    cands = {
        "tcp": ("sctpmpi TCP", ours_cc, [ours_exec, "-n", "2", "--transport", "tcp"], {}),
        "sctp": ("sctpmpi SCTP", ours_cc, [ours_exec, "-n", "2", "--transport", "sctp"], {}),
        "ompi": ("Open MPI (ob1, btl tcp,self, lo)", "mpicc.openmpi",
                 ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "2", "--mca",
                  "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"],
                 {}),
        "mpich": ("MPICH ch4:ucx (UCX_TLS=tcp,self, lo)", "mpicc.mpich",
                  ["mpiexec.hydra", "-n", "2"], {"UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "lo"}),
    }
    use = []
    for k in a.only.split(","):
        name, cc, launch, env = cands[k]
        if not shutil.which(cc) and not os.path.exists(cc):
            print(f"(skipping {name}: {cc} not found)")
            continue
        exe = os.path.join(scratch, "mt_bench." + k)
        if k == "sctp" and "tcp" in [u[0] for u in use]:
            shutil.copy(os.path.join(scratch, "mt_bench.tcp"), exe)
        else:
            p = subprocess.run([cc, "-O2", src, "-o", exe, "-lpthread"], capture_output=True,
                               text=True)
            if p.returncode:
                print(f"(skipping {name}: build failed: {p.stderr[-200:]})")
                continue
        use.append((k, name, launch + [exe], dict(base_env, **env)))
    nice = ["nice", "-n", "-15"] if os.geteuid() == 0 else []
    threads = [int(t) for t in a.threads.split(",")]
    load0 = open("/proc/loadavg").read().split()[:3]
    res = {}
    for mode in ("rate", "lat"):
        for t in threads:
            for _ in range(a.r):
                for k, name, cmd, env in use:
                    v, err = run(nice + cmd + [mode, str(t), a.secs], env, 60 + 4 * float(a.secs))
                    res.setdefault((mode, t, k), []).append(v)
                    if v is None:
                        print(f"  {k} {mode} T={t}: failed: {err.strip()[-200:]}", file=sys.stderr)
    load1 = open("/proc/loadavg").read().split()[:3]
    print(f"\nmt_bench, 2 ranks on loopback, median of {a.r} interleaved runs of {a.secs} s; "
          f"load average before {' '.join(load0)}, after {' '.join(load1)}\n")
    for mode, unit in (("rate", "messages/s (all pairs)"), ("lat", "one-way 0-byte latency µs")):
        print(f"| {mode}: {unit} | " + " | ".join(f"T={t}" for t in threads) + " |")
        print("|---|" + "---|" * len(threads))
        for k, name, _, _ in use:
            row = []
            for t in threads:
                vals = [v for v in res[(mode, t, k)] if v is not None]
                if not vals:
                    row.append("failed")
                    continue
                m = statistics.median(vals)
                ref = [v for v in res.get((mode, t, "ompi"), []) if v is not None]
                ratio = ""
                if ref and k != "ompi":
                    r = m / statistics.median(ref)
                    ratio = f" ({r:.2f}x)"
                fails = len(res[(mode, t, k)]) - len(vals)
                row.append((f"{m:,.0f}" if mode == "rate" else f"{m:.1f}") + ratio +
                           (f" [{fails} failed]" if fails else ""))
            print(f"| {name} | " + " | ".join(row) + " |")
        print()
    print("ratios: against Open MPI (rate: higher is better; latency: lower is better)")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
