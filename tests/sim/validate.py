#!/usr/bin/env python3
"""validate.py [--build DIR] [--reps N] [--cells a,b,...] — cells of the reduced grid
(bench/run-experiment) run on netlab and under mpiexec --sim, sctp10 settings (the papers' 220 KB
buffers, 10 streams, CRC32c off), 8 hosts with 1 Gbit/s NICs: the median of N runs on each, the
difference of the simulated run time from netlab's, and the simulator's wall time and speed-up
(virtual time / wall time).  Needs root (netlab); prints a Markdown table (docs/simulation.md)."""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOSTS = [f"h{i}" for i in range(8)]
CELLS = {  # name: (program, one-way delay ms, loss %, args)
    "farm-20ms-2pct": ("farm", 20, 2, ["--tasks", "70", "--size", "12288", "--k", "1", "--maxreqs", "3", "--task-ms", "23.7"]),
    "farm-80ms-2pct": ("farm", 80, 2, ["--tasks", "70", "--size", "12288", "--k", "1", "--maxreqs", "3", "--task-ms", "23.7"]),
    "bpfarm-20ms-2pct": ("bpfarm", 20, 2, ["--tasks", "100", "--size", "30720", "--fanout", "1", "--outstanding", "10", "--work-ms", "0"]),
    "bpfarm-lan-2pct": ("bpfarm", 0, 2, ["--tasks", "100", "--size", "30720", "--fanout", "1", "--outstanding", "10", "--work-ms", "0"]),
}


def topo(delay, loss):
    return {"hosts": HOSTS, "rails": 1, "mtu": 1500, "seed": 1,
            "defaults": {"delay_ms": delay, "loss": loss / 100.0}, "nic": {"rate_mbit": 1000}}


def seconds(out, prog):
    for line in out.splitlines():
        if line.startswith(prog + ","):
            return float(line.split(",")[8])
    return None


def farm_rtt(out):
    """the farm's own RTT probe (ms) and mean task time (ms): how much the host inflated them"""
    for line in out.splitlines():
        if line.startswith("farm,"):
            f = line.split(",")
            return float(f[9]), float(f[10])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sim-reps", type=int, default=7, help="runs under --sim (cheap)")
    ap.add_argument("--cells", default=",".join(CELLS))
    ap.add_argument("--sim-only", action="store_true")
    a = ap.parse_args()
    mpiexec = os.path.join(a.build, "tools/mpiexec/mpiexec")
    netlab = os.path.join(a.build, "tools/netlab/netlab")
    env = dict(os.environ, SCTPMPI_SOCKBUF="225280", SCTPMPI_SCTP_CRC32C="0",
               SCTPMPI_SCTP_STREAMS="10", SCTPMPI_SCTP_BACKEND="native")
    tmp = tempfile.mkdtemp(prefix="sim-validate-")
    run = None
    if not a.sim_only:
        path = os.path.join(tmp, "topo.json")
        json.dump(topo(0, 0), open(path, "w"))
        r = subprocess.run([netlab, "start", path], capture_output=True, text=True, timeout=120)
        if r.returncode:
            print("netlab start failed (needs root):", r.stderr, file=sys.stderr)
            return 77
        run = r.stdout.strip().splitlines()[-1]
    rows = []
    try:
        for name in a.cells.split(","):
            prog, delay, loss, args = CELLS[name]
            exe = os.path.join(a.build, "bench/exp", prog)
            tpath = os.path.join(tmp, f"{name}.json")
            json.dump(topo(delay, loss), open(tpath, "w"))
            if run:
                subprocess.run([netlab, "set", "--run", run, "*", f"loss={loss / 100.0}",
                                f"delay_ms={delay}"], check=True, capture_output=True)
            nl, sim, walls, speed, probes = [], [], [], [], []
            for rep in range(max(a.reps, a.sim_reps)):
                if run and rep < a.reps:
                    e = dict(env, NETLAB_RUN=run)
                    r = subprocess.run([mpiexec, "--netlab", tpath, "-n", "8", "--transport", "sctp",
                                        "--timeout", "300", exe] + args, env=e,
                                       capture_output=True, text=True, timeout=400)
                    s = seconds(r.stdout, prog)
                    if s is not None:
                        nl.append(s)
                    if farm_rtt(r.stdout):
                        probes.append(farm_rtt(r.stdout))
                if rep >= a.sim_reps:
                    continue
                t0 = time.time()
                r = subprocess.run([mpiexec, "--sim", tpath, "--sim-seed", str(rep + 1), "-n", "8",
                                    "--timeout", "300", exe] + args, env=env,
                                   capture_output=True, text=True, timeout=400)
                wall = time.time() - t0
                s = seconds(r.stdout, prog)
                m = re.search(r"sim: virtual time ([0-9.]+) s", r.stderr)
                if s is not None and m:
                    sim.append(s)
                    walls.append(wall)
                    speed.append(float(m.group(1)) / wall)
                else:
                    print(f"{name} rep {rep}: the --sim run failed:\n{r.stderr[-2000:]}", file=sys.stderr)
                print(f"{name} rep {rep}: netlab {nl[-1] if nl else '-'} sim {sim[-1] if sim else '-'}"
                      f" wall {wall:.2f}", file=sys.stderr, flush=True)
            med = lambda v: statistics.median(v) if v else float("nan")
            pr = (f"{med([p[0] for p in probes]):.0f} / {med([p[1] for p in probes]):.1f}"
                  if probes else "-")
            rows.append((name, prog, delay, loss, med(nl), med(sim), med(walls), med(speed), len(nl),
                         len(sim), pr))
    finally:
        if run:
            subprocess.run([netlab, "stop", "--run", run], capture_output=True, timeout=120)
    print("| cell | netlab median (s) | netlab's RTT probe / task (ms) | --sim median (s) | sim - netlab | sim wall (s) | virtual / wall |")
    print("|---|---|---|---|---|---|---|")
    for name, prog, delay, loss, n, s, w, sp, nn, ns, pr in rows:
        d = (s - n) / n * 100 if n == n and n else float("nan")
        print(f"| {name} ({prog}, {delay} ms, {loss} %) | {n:.3f} ({nn} runs) | {pr} | {s:.3f} ({ns} runs) | "
              f"{d:+.1f} % | {w:.2f} | {sp:.1f} |")
    load = open("/proc/loadavg").read().split()[0]
    print(f"\n(load average {load} at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
