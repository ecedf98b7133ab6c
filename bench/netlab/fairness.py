#!/usr/bin/python3
"""fairness.py - our SCTP flow beside a kernel TCP flow on one shared netlab bottleneck.

Topology: 3 emulated hosts h0, h1, h2 on one rail; every host NIC (and the switch port facing
it) serialises at --rate Mbit/s with a drop-tail queue of --queue packets (default: one
bandwidth-delay product); every link has --delay ms one way. Two bulk flows end at h1, so h1's
switch port is the shared bottleneck:
  - ours: bench/netlab/fairflow (an MPI program, 3 ranks, one per host) from the rank on h0 (or
    h2) to the rank on h1, over our SCTP engine (SCTPMPI_SCTP_BACKEND=native) with
    SCTPMPI_SCTP_CC=reno|cubic|bbr;
  - kernel TCP: this script's own `tcp-send` on h2 (or h0) to its `tcp-sink` on h1 (an
    iperf-like stream of 64 KiB writes), with net.ipv4.tcp_congestion_control=cubic|bbr set in
    every host.
The two senders swap hosts from one repetition to the next (the forwarder serves h0's packets
first within a batch, which gives h0's flow an edge at a full drop-tail queue). `--sctp-cc tcp`
is a control: a second kernel-TCP flow (same cc) in our flow's place.
Our flow runs --secs seconds, the kernel flow 5 s longer (so that it spans ours even when the
MPI job is slow to start); each receiver counts bytes per 0.1 s of the wall clock, and the
shares are taken over the time both were running, after --warm seconds.

For every (TCP cc, our cc) pair and repetition it prints one line and at the end a markdown
table: each flow's MB/s, ratio = ours / TCP's, the sum against the bottleneck, and Jain's
fairness index. It exits 1 if a flow failed, with --min-sum S if the two flows' median sum is
below S of the bottleneck, and with --check LO,HI if a loss-based controller's (reno, cubic)
median ratio leaves [LO, HI]. Needs root (netlab); exits 77 without it.

  bench/netlab/fairness.py [--build build] [--rate 100] [--delay 10] [--queue N] [--secs 25]
                           [--warm 5] [--reps 3] [--tcp-cc cubic,bbr] [--sctp-cc reno,cubic,bbr]
                           [--out FILE.md] [--check 0.8,1.25]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = 0.1


def tcp_sink(port, secs):
    """Accept one connection, count bytes per BIN of the wall clock, print like fairflow."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("", port))
    ls.listen(1)
    ls.settimeout(secs + 60)
    c, _ = ls.accept()
    c.settimeout(30)
    bins, t0, total = [], 0.0, 0
    while True:
        try:
            d = c.recv(1 << 16)
        except socket.timeout:
            break
        if not d:
            break
        t = time.time()
        if not t0:
            t0 = t
        b = int((t - t0) / BIN)
        while len(bins) <= b:
            bins.append(0)
        bins[b] += len(d)
        total += len(d)
    print(f"fairflow,{t0:.6f},{BIN:.3f},{len(bins)},{total}")
    print("bins," + ",".join(str(x) for x in bins), flush=True)
    return 0


def tcp_send(host, port, secs):
    s = None
    for _ in range(100):
        try:
            s = socket.create_connection((host, port), timeout=5)
            break
        except OSError:
            time.sleep(0.1)
    if s is None:
        print("tcp-send: cannot connect", file=sys.stderr)
        return 1
    buf = b"\x5a" * (1 << 16)
    t0 = time.time()
    while time.time() - t0 < secs:
        s.sendall(buf)
    s.shutdown(socket.SHUT_WR)
    s.close()
    return 0


def parse_flow(text):
    """(t0, bin, [bytes per bin]) from fairflow / tcp-sink output, or None."""
    t0 = None
    for line in text.splitlines():
        if line.startswith("fairflow,"):
            f = line.split(",")
            t0, b = float(f[1]), float(f[2])
        elif line.startswith("bins") and t0 is not None:
            vals = [int(x) for x in line.split(",")[1:]]
            return t0, b, vals
    return None


def rate_in(flow, lo, hi):
    """Bytes/s of a flow between wall-clock times lo and hi (whole bins inside)."""
    t0, b, vals = flow
    tot, n = 0, 0
    for i, v in enumerate(vals):
        s = t0 + i * b
        if s >= lo and s + b <= hi:
            tot += v
            n += 1
    return tot / (n * b) if n else 0.0


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "tcp-sink":
        return tcp_sink(int(sys.argv[2]), float(sys.argv[3]))
    if len(sys.argv) > 1 and sys.argv[1] == "tcp-send":
        return tcp_send(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rate", type=float, default=100, help="bottleneck Mbit/s (every NIC)")
    ap.add_argument("--delay", type=float, default=10, help="one-way delay per link, ms")
    ap.add_argument("--queue", type=int, default=0, help="drop-tail queue, packets (0: one BDP)")
    ap.add_argument("--secs", type=float, default=25)
    ap.add_argument("--warm", type=float, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tcp-cc", default="cubic,bbr")
    ap.add_argument("--sctp-cc", default="reno,cubic,bbr")
    ap.add_argument("--out", default=None)
    ap.add_argument("--check", default=None, help="LO,HI: loss-based controllers' ratio must be inside")
    ap.add_argument("--min-sum", type=float, default=0.0,
                    help="exit 1 if a pair's median sum of both flows is below this share of the bottleneck")
    a = ap.parse_args()
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        print("fairness: needs root and /dev/net/tun (netlab); skipped")
        return 77
    netlab = os.path.join(a.build, "tools/netlab/netlab")
    mpiexec = os.path.join(a.build, "tools/mpiexec/mpiexec")
    flow = os.path.join(a.build, "bench/netlab/fairflow")
    for p in (netlab, mpiexec, flow):
        if not os.path.exists(p):
            print(f"fairness: {p} missing (build {a.build} first)")
            return 2
    queue = a.queue or max(10, int(a.rate * 1e6 / 8 * 2 * a.delay / 1000 / 1500))
    tmp = tempfile.mkdtemp(prefix="fairness.")
    topo = {"hosts": ["h0", "h1", "h2"], "rails": 1, "mtu": 1500, "seed": 7,
            "defaults": {"delay_ms": a.delay, "loss": 0},
            "nic": {"rate_mbit": a.rate, "queue_pkts": queue}}
    topo_path = os.path.join(tmp, "topo.json")
    with open(topo_path, "w") as f:
        json.dump(topo, f)
    r = run([netlab, "start", topo_path], timeout=60)
    if r.returncode != 0:
        print(f"fairness: netlab start failed: {r.stderr.strip()}")
        return 1
    nrun = r.stdout.strip().splitlines()[-1]
    load0 = open("/proc/loadavg").read().split()[0]
    rows = []
    try:
        # cubic is built in but a namespace may only pick what the root namespace allows
        allowed = open("/proc/sys/net/ipv4/tcp_allowed_congestion_control").read().split()
        for cc in a.tcp_cc.split(","):
            if cc not in allowed:
                allowed.append(cc)
                run(["sysctl", "-qw", "net.ipv4.tcp_allowed_congestion_control=" + " ".join(allowed)])
        port = 7300
        for rep in range(a.reps):
            for tcc in a.tcp_cc.split(","):
                for h in ("h0", "h1", "h2"):
                    r = run([netlab, "exec", "--run", nrun, h, "--", "sysctl", "-qw",
                             f"net.ipv4.tcp_congestion_control={tcc}"])
                    if r.returncode != 0:
                        raise SystemExit(f"fairness: tcp_congestion_control={tcc} in {h}: {r.stderr.strip()}")
                for scc in a.sctp_cc.split(","):
                    port += 1
                    ours_h, tcp_h = ("h0", "h2") if rep % 2 == 0 else ("h2", "h0")
                    me = os.path.abspath(__file__)
                    env = dict(os.environ, NETLAB_RUN=nrun, SCTPMPI_SCTP_BACKEND="native",
                               SCTPMPI_SCTP_CC=scc, SCTPMPI_SOCKBUF=str(8 << 20), HWLOC_COMPONENTS="-gl")
                    sink = subprocess.Popen([netlab, "exec", "--run", nrun, "h1", "--", sys.executable, me,
                                             "tcp-sink", str(port), str(a.secs)],
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    time.sleep(0.3)
                    if scc == "tcp":  # the control: a second kernel TCP flow
                        mpi = subprocess.Popen([netlab, "exec", "--run", nrun, "h1", "--", sys.executable, me,
                                                "tcp-sink", str(port + 500), str(a.secs)],
                                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                        time.sleep(0.3)
                        ctl = subprocess.Popen([netlab, "exec", "--run", nrun, ours_h, "--", sys.executable, me,
                                                "tcp-send", "198.18.0.2", str(port + 500), str(a.secs)])
                    else:
                        ctl = None
                        mpi = subprocess.Popen([mpiexec, "--netlab", topo_path, "-n", "3", flow, "--secs",
                                                str(a.secs), "--size", "65536", "--window", "32",
                                                "--from", "0" if ours_h == "h0" else "2", "--to", "1"],
                                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                    # the kernel flow runs 5 s longer, so that it spans our flow even when the MPI job
                    # is slow to start on a loaded machine (shares count only while both run)
                    send = subprocess.Popen([netlab, "exec", "--run", nrun, tcp_h, "--", sys.executable, me,
                                             "tcp-send", "198.18.0.2", str(port), str(a.secs + 5)],
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    try:
                        if ctl:
                            ctl.wait(timeout=a.secs + 30)
                        send.communicate(timeout=a.secs + 30)
                        mo, me_err = mpi.communicate(timeout=a.secs + 90)
                        so, _ = sink.communicate(timeout=60)
                    except subprocess.TimeoutExpired:
                        for p in (mpi, send, sink) + ((ctl,) if ctl else ()):
                            p.kill()
                            p.wait()
                        print(f"fairness: tcp {tcc} / ours {scc}: timed out")
                        rows.append(dict(rep=rep, tcp_cc=tcc, sctp_cc=scc, ok=False))
                        continue
                    fo, ft = parse_flow(mo), parse_flow(so)
                    if not fo or not ft or mpi.returncode != 0:
                        print(f"fairness: tcp {tcc} / ours {scc}: a flow failed (mpiexec rc {mpi.returncode}): "
                              f"{me_err.strip()[-300:]}")
                        rows.append(dict(rep=rep, tcp_cc=tcc, sctp_cc=scc, ok=False))
                        continue
                    lo = max(fo[0], ft[0]) + a.warm
                    hi = min(fo[0] + len(fo[2]) * fo[1], ft[0] + len(ft[2]) * ft[1]) - 0.5
                    ro, rt = rate_in(fo, lo, hi), rate_in(ft, lo, hi)
                    if hi - lo < 1 or ro <= 0 or rt <= 0:  # the flows did not overlap long enough
                        print(f"fairness: tcp {tcc} / ours {scc}: the two flows overlapped {hi - lo:.1f} s "
                              f"after the warm-up (ours {ro / 1e6:.2f} MB/s, tcp {rt / 1e6:.2f} MB/s): failed run")
                        rows.append(dict(rep=rep, tcp_cc=tcc, sctp_cc=scc, ok=False))
                        continue
                    jain = (ro + rt) ** 2 / (2 * (ro * ro + rt * rt)) if ro + rt else 0
                    load = open("/proc/loadavg").read().split()[0]
                    row = dict(rep=rep, tcp_cc=tcc, sctp_cc=scc, ok=True, ours_host=ours_h, ours=ro / 1e6, tcp=rt / 1e6,
                               ratio=ro / rt if rt else float("inf"), sum=(ro + rt) * 8 / 1e6 / a.rate,
                               jain=jain, window=hi - lo, load=load)
                    rows.append(row)
                    print(f"rep {rep} tcp {tcc:5s} ours {scc:5s} (from {ours_h}): ours {row['ours']:.2f} MB/s, tcp "
                          f"{row['tcp']:.2f} MB/s, ratio {row['ratio']:.2f}, sum {100 * row['sum']:.0f} % of "
                          f"the bottleneck, Jain {jain:.3f} over {hi - lo:.1f} s, load {load}", flush=True)
    finally:
        run([netlab, "stop", "--run", nrun], timeout=60)
    load1 = open("/proc/loadavg").read().split()[0]
    out = [f"Shared bottleneck {a.rate:g} Mbit/s, {a.delay:g} ms one way ({2 * a.delay:g} ms RTT), "
           f"drop-tail queue {queue} packets, {a.secs:g} s per run (shares after {a.warm:g} s), "
           f"{a.reps} run(s) per pair, load average {load0} at the start, {load1} at the end. Medians (min-max).",
           "", "| kernel TCP cc | our SCTP cc | ours MB/s | TCP MB/s | ours / TCP | sum / bottleneck | Jain | runs |",
           "|---|---|---|---|---|---|---|---|"]
    bad = False
    for tcc in a.tcp_cc.split(","):
        for scc in a.sctp_cc.split(","):
            rs = [r for r in rows if r["tcp_cc"] == tcc and r["sctp_cc"] == scc and r["ok"]]
            n_all = len([r for r in rows if r["tcp_cc"] == tcc and r["sctp_cc"] == scc])
            if not rs:
                out.append(f"| {tcc} | {scc} | — | — | — | — | — | 0/{n_all} |")
                bad = True  # a flow that did not run is an error
                continue

            def m(k, fmt):
                v = [r[k] for r in rs]
                return f"{fmt.format(statistics.median(v))} ({fmt.format(min(v))}-{fmt.format(max(v))})"
            out.append(f"| {tcc} | {scc} | {m('ours', '{:.2f}')} | {m('tcp', '{:.2f}')} | {m('ratio', '{:.2f}')} | "
                       f"{m('sum', '{:.2f}')} | {m('jain', '{:.3f}')} | {len(rs)}/{n_all} |")
            if statistics.median(r["sum"] for r in rs) < a.min_sum:
                bad = True
                out.append(f"CHECK FAILED: tcp {tcc} / ours {scc}: the two flows used less than {a.min_sum} of the bottleneck")
            if a.check and scc in ("reno", "cubic"):
                lo, hi = (float(x) for x in a.check.split(","))
                med = statistics.median(r["ratio"] for r in rs)
                if not lo <= med <= hi:
                    bad = True
                    out.append(f"CHECK FAILED: tcp {tcc} / ours {scc}: ratio {med:.2f} outside [{lo}, {hi}]")
    text = "\n".join(out)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
