#!/usr/bin/env python3
"""validate.py [--build DIR] [--reps N] [--cells a,b,...] [--csv FILE] — every cell of the reduced
grid (bench/run-experiment REDUCED: ping-pong by size and under loss, the Bulk Processor Farm on
the LAN and at 20 ms, the buffered farm at 0/20/80 ms) run on netlab with our SCTP transport
(sctp10: the papers' 220 KB buffers, 10 streams, CRC32c off) and our TCP transport (reno inside
the emulated hosts, as run-experiment sets it), and under mpiexec --sim with the same topology
(8 hosts, 1 Gbit/s NICs, the same delay and loss) three times: the links alone ("sim"); with
netlab's forwarder latency added to every packet ("sim+hop": SCTPMPI_SIM_HOP_NS = half the
median ping RTT between two emulated hosts at 0 ms); and with that and how late a rank wakes up
on netlab's loaded host ("sim+host": SCTPMPI_SIM_BATCH_NS = half of what netlab's 1 KB
ping-pong round trip takes beyond the sim+hop one, i.e. how late each of the two ranks wakes;
a rank asleep in the kernel then takes in every packet that arrives in that time and answers
once). Both are measured at the start of the same session (so the 1 KB ping-pong cell is
calibrated, not predicted, in the sim+host column).
Interleaved: each repetition runs the three
once, every process under `nice -n -15` (the host is shared).  Prints, per cell, the medians, the
difference of the simulated value from netlab's sctp10 median, the 1-min load average over the
cell's runs, and the simulator's wall time and speed-up (virtual / wall).

The value compared is a time: the farms' run time (s), and the ping-pong's round-trip time (µs,
its rtt_us column: 2 x size / throughput).  --sim models SCTP only (the sim transport carries
frames over simulated SCTP associations); the tcp column is netlab's TCP beside it, for
reference.  Needs root (netlab); writes every run to --csv and a Markdown table to stdout."""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOSTS = [f"h{i}" for i in range(8)]
FARM = ["--size", "12288", "--k", "1", "--maxreqs", "3", "--task-ms", "23.7"]


def _cells():
    """name -> (program, ranks, one-way delay ms, loss %, args): the reduced grid, in its order"""
    c = {}
    for size in (1024, 4096, 22528, 65536, 262144):  # (a) pingpong-size
        c[f"pp-{size}"] = ("pingpong", 2, 0, 0, ["--sizes", str(size), "--iters", "30", "--warmup", "5",
                                                 "--max-seconds", "2"])
    for loss in (1, 2):  # (b) pingpong-loss
        for size in (30720, 307200):
            c[f"pp-{size}-{loss}pct"] = ("pingpong", 2, 0, loss, ["--sizes", str(size), "--iters", "10",
                                                                  "--warmup", "2", "--max-seconds", "1.5"])
    for loss in (0, 2):  # (c) bpfarm-lan
        for fan in (1, 10):
            c[f"bpfarm-lan-{loss}pct-f{fan}"] = ("bpfarm", 8, 0, loss, [
                "--tasks", "100", "--size", "30720", "--fanout", str(fan), "--outstanding", "10", "--work-ms", "0"])
    c["bpfarm-20ms-2pct-f1"] = ("bpfarm", 8, 20, 2, ["--tasks", "100", "--size", "30720", "--fanout", "1",
                                                     "--outstanding", "10", "--work-ms", "0"])
    for delay in (0, 20, 80):  # (e) farm, and farm-1pct
        for loss in (0, 2):
            c[f"farm-{delay}ms-{loss}pct"] = ("farm", 8, delay, loss, ["--tasks", "70"] + FARM)
    c["farm-20ms-1pct"] = ("farm", 8, 20, 1, ["--tasks", "70"] + FARM)
    return c


CELLS = _cells()
CONTENDERS = ("sctp10", "tcp", "sim", "sim+hop", "sim+host")


def topo(delay, loss):
    return {"hosts": HOSTS, "rails": 1, "mtu": 1500, "seed": 1,
            "defaults": {"delay_ms": delay, "loss": loss / 100.0}, "nic": {"rate_mbit": 1000}}


def value(out, prog):
    """the compared time: a farm's seconds (s), a ping-pong's round trip (µs)"""
    for line in out.splitlines():
        if line.startswith(prog + ","):
            f = line.split(",")
            return float(f[5]) if prog == "pingpong" else float(f[8])
    return None


def farm_rtt(out):
    """the farm's own RTT probe (ms) and mean task time (ms): how much the host inflated them"""
    for line in out.splitlines():
        if line.startswith("farm,"):
            f = line.split(",")
            return float(f[9]), float(f[10])
    return None


def load1():
    return float(open("/proc/loadavg").read().split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=5, help="repetitions (each runs every contender once)")
    ap.add_argument("--cells", default=",".join(CELLS))
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--nice", type=int, default=-15, help="nice level of every run (root: negative)")
    ap.add_argument("--csv", default=None, help="every run: cell,contender,rep,value,wall,load,virtual")
    a = ap.parse_args()
    conts = a.contenders.split(",")
    mpiexec = os.path.join(a.build, "tools/mpiexec/mpiexec")
    netlab = os.path.join(a.build, "tools/netlab/netlab")
    nice = ["nice", "-n", str(a.nice)]  # also netlab's forwarder, which carries every packet
    env = dict(os.environ, SCTPMPI_SOCKBUF="225280", SCTPMPI_SCTP_CRC32C="0",
               SCTPMPI_SCTP_STREAMS="10", SCTPMPI_SCTP_BACKEND="native")
    tmp = tempfile.mkdtemp(prefix="sim-validate-")
    csvf = open(a.csv, "w") if a.csv else None
    if csvf:
        csvf.write("cell,contender,rep,value,wall_s,load1,virtual_s\n")
    run = None
    if any(c != "sim" for c in conts):
        path = os.path.join(tmp, "topo.json")
        json.dump(topo(0, 0), open(path, "w"))
        r = subprocess.run(nice + [netlab, "start", path], capture_output=True, text=True, timeout=120)
        if r.returncode:
            print("netlab start failed (needs root):", r.stderr, file=sys.stderr)
            return 77
        run = r.stdout.strip().splitlines()[-1]
        for h in HOSTS:  # as bench/run-experiment --tcp-cc reno (the papers' NewReno + SACK)
            subprocess.run([netlab, "exec", "--run", run, h, "--", "sysctl", "-qw",
                            "net.ipv4.tcp_congestion_control=reno"], capture_output=True)
    hop_ns = 0
    if run:  # netlab's forwarding cost: ping between two hosts with the links at 0 ms, no loss
        r = subprocess.run(nice + [netlab, "exec", "--run", run, "h0", "--", "ping", "-c", "100", "-i", "0.005",
                                   "198.18.0.2"], capture_output=True, text=True)
        rtts = [float(x) for x in re.findall(r"time=([0-9.]+) ms", r.stdout)]
        if rtts:
            hop_ns = int(statistics.median(rtts) * 1e6 / 2)
            print(f"netlab hop: ping RTT median {statistics.median(rtts) * 1e3:.0f} us (min {min(rtts) * 1e3:.0f}, "
                  f"{len(rtts)} pings): SCTPMPI_SIM_HOP_NS={hop_ns}", file=sys.stderr)
    batch_ns = 0
    if run:  # how late a rank wakes: netlab's 1 KB ping-pong against the simulator's with the hop
        exe = os.path.join(a.build, "bench/exp/pingpong")
        pp = ["--sizes", "1024", "--iters", "30", "--warmup", "5", "--max-seconds", "2"]
        tpath = os.path.join(tmp, "calib.json")
        json.dump(topo(0, 0), open(tpath, "w"))
        nl, sm = [], []
        for rep in range(5):
            r = subprocess.run(nice + [mpiexec, "--netlab", tpath, "-n", "2", "--transport", "sctp", "--timeout",
                                       "60", exe] + pp, env=dict(env, NETLAB_RUN=run), capture_output=True,
                               text=True, timeout=120)
            if value(r.stdout, "pingpong"):
                nl.append(value(r.stdout, "pingpong"))
        r = subprocess.run(nice + [mpiexec, "--sim", tpath, "-n", "2", "--timeout", "60", exe] + pp,
                           env=dict(env, SCTPMPI_SIM_HOP_NS=str(hop_ns)), capture_output=True, text=True,
                           timeout=120)
        if nl and value(r.stdout, "pingpong"):
            sm = value(r.stdout, "pingpong")
            batch_ns = max(0, int((statistics.median(nl) - sm) / 2 * 1e3))
            print(f"netlab wake-up: 1 KB round trip {statistics.median(nl):.0f} us on netlab, {sm:.0f} us "
                  f"simulated with the hop: SCTPMPI_SIM_BATCH_NS={batch_ns}", file=sys.stderr)
    rows = []
    t_start = time.time()
    try:
        for name in a.cells.split(","):
            prog, n, delay, loss, args = CELLS[name]
            exe = os.path.join(a.build, "bench/exp", prog)
            tpath = os.path.join(tmp, f"{name}.json")
            json.dump(topo(delay, loss), open(tpath, "w"))
            if run:
                subprocess.run([netlab, "set", "--run", run, "*", f"loss={loss / 100.0}",
                                f"delay_ms={delay}"], check=True, capture_output=True)
            vals = {c: [] for c in conts}
            walls, speed, probes, loads = [], [], [], []
            for rep in range(a.reps):
                for c in conts:
                    if c.startswith("sim"):
                        cmd = [mpiexec, "--sim", tpath, "--sim-seed", str(rep + 1), "-n", str(n)]
                        host = c == "sim+host"
                        e = dict(env, SCTPMPI_SIM_HOP_NS=str(hop_ns if c != "sim" else 0),
                                 SCTPMPI_SIM_BATCH_NS=str(batch_ns if host else 0))
                    else:
                        cmd = [mpiexec, "--netlab", tpath, "-n", str(n), "--transport",
                               "tcp" if c == "tcp" else "sctp"]
                        e = dict(env, NETLAB_RUN=run)
                    t0 = time.time()
                    r = subprocess.run(nice + cmd + ["--timeout", "300", exe] + args, env=e,
                                       capture_output=True, text=True, timeout=400)
                    wall = time.time() - t0
                    ld = load1()
                    loads.append(ld)
                    v = value(r.stdout, prog)
                    virt = ""
                    if c == "sim":
                        m = re.search(r"sim: virtual time ([0-9.]+) s", r.stderr)
                        if v is not None and m:
                            virt = m.group(1)
                            walls.append(wall)
                            speed.append(float(virt) / wall)
                    elif c == "sctp10" and farm_rtt(r.stdout):
                        probes.append(farm_rtt(r.stdout))
                    if v is None:
                        print(f"{name} {c} rep {rep}: failed (exit {r.returncode}):\n{r.stderr[-1500:]}",
                              file=sys.stderr)
                    else:
                        vals[c].append(v)
                    if csvf:
                        csvf.write(f"{name},{c},{rep},{'' if v is None else v},{wall:.3f},{ld},{virt}\n")
                        csvf.flush()
                    print(f"{time.strftime('%H:%M:%S')} {name} {c} rep {rep}: {v} wall {wall:.2f} load {ld}",
                          file=sys.stderr, flush=True)
            med = lambda v: statistics.median(v) if v else float("nan")
            pr = (f"{med([p[0] for p in probes]):.0f} / {med([p[1] for p in probes]):.1f}"
                  if probes else "-")
            rows.append((name, prog, delay, loss, {c: (med(v), len(v), min(v, default=float('nan')),
                                                       max(v, default=float('nan'))) for c, v in vals.items()},
                         med(walls), med(speed), pr, min(loads), max(loads)))
    finally:
        if run:
            subprocess.run([netlab, "stop", "--run", run], capture_output=True, timeout=120)
        if csvf:
            csvf.close()
    hdr = "| cell | unit | " + " | ".join(f"{c} median (min-max, runs)" for c in conts)
    hdr += " | sim variants - sctp10 | sctp10 RTT probe / task (ms) | load | sim wall (s) | virtual / wall |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for name, prog, delay, loss, st, w, sp, pr, lo, hi in rows:
        unit = "µs RTT" if prog == "pingpong" else "s"
        fmt = (lambda x: f"{x:.0f}") if prog == "pingpong" else (lambda x: f"{x:.3f}")
        cols = [f"{fmt(st[c][0])} ({fmt(st[c][2])}-{fmt(st[c][3])}, {st[c][1]})" for c in conts]
        d = "-"
        if "sctp10" in st and st["sctp10"][0] == st["sctp10"][0] and st["sctp10"][0]:
            d = " / ".join(f"{(st[c][0] - st['sctp10'][0]) / st['sctp10'][0] * 100:+.1f} %"
                           for c in ("sim", "sim+hop", "sim+host") if c in st)
        print(f"| {name} | {unit} | " + " | ".join(cols) +
              f" | {d} | {pr} | {lo:.1f}-{hi:.1f} | {w:.2f} | {sp:.1f} |")
    print(f"\n({len(rows)} cells, {a.reps} repetitions, SCTPMPI_SIM_HOP_NS={hop_ns}, SCTPMPI_SIM_BATCH_NS={batch_ns}, {(time.time() - t_start) / 60:.1f} min, "
          f"load average {load1()} at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
