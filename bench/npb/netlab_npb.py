#!/usr/bin/python3
"""netlab_npb.py — the papers' NAS Parallel Benchmarks comparisons on netlab, rerun: every NPB
benchmark with N ranks on emulated hosts (a switched gigabit cluster: every host NIC at
1 Gbit/s, as bench/run-experiment) for sctpmpi over SCTP and TCP beside Open MPI and MPICH;
CG with Nagle on and off and with the SACK-immediately (I-bit) setting; and runs over two rails
where rail 0 fails mid-run (our SCTP fails over to rail 1), beside the same runs without the
failure.  It fetches and builds nothing: the binaries come from bench/npb/build_npb.sh.

  netlab_npb.py --build BUILD --bins DIR [--class A] [--np 8] [--hosts 8] [--reps 1]
                [--benches "bt cg ep ft is lu mg sp"] [--contenders sctp10,tcp,ompi,mpich]
                [--cg-variants] [--failover "cg ft"] [--fail-at 3] [--out DIR] [--nice -15]
  netlab_npb.py --table RESULTS.csv      only print the tables of an earlier run

DIR holds ours/npb/bin, ompi/npb/bin and mpich/npb/bin (build_npb.sh DIR/<key> ...).  The
contenders and their settings (the papers' 220 KB socket buffers, 10 SCTP streams, CRC32c off)
are bench/run-experiment's; every run is timed under `nice -n <nice>` and records the
1-minute load average before it.  Results: OUT/results.csv and OUT/table.md (also printed).
"""
import argparse
import csv
import datetime
import importlib.machinery
import importlib.util
import json
import os
import re
import signal
import statistics
import threading
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load_run_experiment():
    path = os.path.join(ROOT, "bench", "run-experiment")
    loader = importlib.machinery.SourceFileLoader("run_experiment", path)
    spec = importlib.util.spec_from_loader("run_experiment", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


RX = load_run_experiment()
KEYDIR = {"sctp10": "ours", "sctp1": "ours", "usctp10": "ours", "tcp": "ours", "ompi": "ompi", "mpich": "mpich"}
FIELDS = ["section", "bench", "class", "np", "contender", "variant", "rep", "status", "verified",
          "seconds", "mops", "wall_s", "load1_before", "fwd_bytes"]


def parse_npb(text):
    def grab(rx):
        m = re.search(rx, text)
        return m.group(1).strip() if m else ""
    return (grab(r"Time in seconds\s*=\s*(\S+)"), grab(r"Mop/s total\s*=\s*(\S+)"),
            grab(r"Verification\s*=\s*(\S+)"))


def run_npb(ctx, key, bench, variant, env_extra, topo, rep, section, timeout, fail_at=None):
    """one run; fail_at: seconds after the launch at which every rail-0 link goes down (brought
    back up after the run)"""
    cls, n = ctx["class"], ctx["np"]
    prog = f"{bench}.{cls}.x"
    c = dict(ctx)
    c["topo"] = topo
    c["prog_path"] = lambda k, p: os.path.join(ctx["bins"], KEYDIR[k], "npb", "bin", p)
    argv, env = RX.contender_cmd(key, n, [prog], c)
    env.pop("SCTPMPI_STATS", None)
    env.update(env_extra)
    if ctx["nice"] is not None:
        argv = ["nice", "-n", str(ctx["nice"])] + argv
    load = open("/proc/loadavg").read().split()[0]
    before = ctx["net"].counters()["fwd_bytes"]
    logf = os.path.join(ctx["outdir"], "logs", f"{section}-{bench}-{key}-{variant}-{rep}")
    t0 = time.time()
    with open(logf + ".out", "w") as out, open(logf + ".err", "w") as err:
        out.write("# " + " ".join(argv) + "\n# " + " ".join(f"{k}={v}" for k, v in env_extra.items())
                  + "\n")
        out.flush()
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=env, start_new_session=True)
        fired = []
        timer = None
        if fail_at is not None:
            def down():
                fired.append(time.time() - t0)
                RX.run_cmd([ctx["net"].netlab, "down", "--run", ctx["net"].run, "*@0"])
            timer = threading.Timer(fail_at, down)
            timer.start()
        # wait; once the benchmark has printed its verification, allow a grace period (MPICH 4.0
        # with UCX hangs in MPI_Finalize now and then: bench/run-experiment)
        status, seen = None, None
        while status is None:
            try:
                rc = p.wait(timeout=0.5)
                status = "ok" if rc == 0 else f"fail(rc={rc})"
            except subprocess.TimeoutExpired:
                now = time.time()
                if seen is None and "Verification" in open(logf + ".out").read():
                    seen = now
                if now - t0 > timeout or (seen is not None and now - seen > ctx["grace"]):
                    RX.kill_tree(p.pid)
                    p.wait()
                    status = "hang-after-output" if seen is not None else "timeout"
        if timer:
            timer.cancel()
            RX.run_cmd([ctx["net"].netlab, "up", "--run", ctx["net"].run, "*@0"])
            if not fired:
                status += " (ended before the failure)"
            time.sleep(1)  # heartbeats find rail 0 again before the next job
    wall = time.time() - t0
    secs, mops, ver = parse_npb(open(logf + ".out").read())
    fwd = ctx["net"].counters()["fwd_bytes"] - before if key in ("ompi", "mpich") else ""
    row = {"section": section, "bench": bench, "class": cls, "np": n, "contender": key,
           "variant": variant, "rep": rep, "status": status, "verified": ver or "no",
           "seconds": secs, "mops": mops, "wall_s": "%.1f" % wall, "load1_before": load,
           "fwd_bytes": fwd}
    RX.log(f"{section} {bench} {key} {variant} rep {rep}: {status} {ver} {secs} s (load {load})")
    return row


def fmt_cell(rows):
    if not rows:
        return "not run"
    ok = [float(r["seconds"]) for r in rows if r["verified"] == "SUCCESSFUL" and r["seconds"]]
    loads = ", ".join(r["load1_before"] for r in rows)
    if not ok:
        st = ",".join(sorted({r["status"] + "/" + r["verified"] for r in rows}))
        return f"— ({st}; load {loads})"
    # a verified run that did not exit by itself (MPICH's MPI_Finalize hang) is marked
    hung = "†" if any(r["status"] != "ok" for r in rows if r["verified"] == "SUCCESSFUL") else ""
    return "%.2f%s (load %s)" % (statistics.median(ok), hung, loads)


def tables(rows):
    out = []
    main = [r for r in rows if r["section"] == "nas"]
    if main:
        cont = list(dict.fromkeys(r["contender"] for r in main))
        benches = list(dict.fromkeys(r["bench"] for r in main))
        r0 = main[0]
        out.append(f"### NAS class {r0['class']}, {r0['np']} ranks: seconds (median of verified "
                   "runs; 1-min load average before each run)\n")
        out.append("| benchmark | " + " | ".join(cont) + " | TCP/SCTP |")
        out.append("|---|" + "---|" * (len(cont) + 1))
        for b in benches:
            cells, med = [], {}
            for c in cont:
                rs = [r for r in main if r["bench"] == b and r["contender"] == c]
                cells.append(fmt_cell(rs))
                ok = [float(r["seconds"]) for r in rs if r["verified"] == "SUCCESSFUL" and r["seconds"]]
                if ok:
                    med[c] = statistics.median(ok)
            ratio = "%.2f" % (med["tcp"] / med["sctp10"]) if "tcp" in med and "sctp10" in med else "—"
            out.append(f"| {b.upper()} | " + " | ".join(cells) + f" | {ratio} |")
        out.append("")
        out.append("† verified, then did not exit by itself (ended after the grace period).")
        out.append("")
    for sec, title in (("cg", "CG: Nagle and the SACK-immediately (I-bit) setting, our SCTP (usrsctp and native backends)"),
                       ("failover", "Two rails, rail 0 failing mid-run (our SCTP)")):
        rs = [r for r in rows if r["section"] == sec]
        if not rs:
            continue
        out.append(f"### {title}: seconds (load average before each run)\n")
        out.append("| benchmark | variant | seconds | verified |")
        out.append("|---|---|---|---|")
        for b in dict.fromkeys(r["bench"] for r in rs):
            for v in dict.fromkeys(r["variant"] for r in rs if r["bench"] == b):
                sel = [r for r in rs if r["bench"] == b and r["variant"] == v]
                vers = ",".join(sorted({r["verified"] for r in sel}))
                out.append(f"| {b.upper()} | {v} | {fmt_cell(sel)} | {vers} |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--bins")
    ap.add_argument("--class", dest="cls", default="A")
    ap.add_argument("--np", type=int, default=8)
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--benches", default="bt cg ep ft is lu mg sp")
    ap.add_argument("--contenders", default="sctp10,tcp,ompi,mpich")
    ap.add_argument("--cg-variants", action="store_true")
    ap.add_argument("--failover", default="", help="benchmarks to run over two rails with rail 0 failing")
    ap.add_argument("--fail-at", type=float, default=3.0, help="seconds after the launch")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--nice", type=int, default=-15)
    ap.add_argument("--out", default="/tmp/netlab-npb")
    ap.add_argument("--table")
    a = ap.parse_args()
    if a.table:
        print(tables(list(csv.DictReader(open(a.table)))))
        return
    if not a.bins:
        raise SystemExit("--bins DIR (from bench/npb/build_npb.sh) is required")
    if os.geteuid() != 0:
        print("netlab_npb.py: netlab needs root; skipped")
        sys.exit(77)
    a.build = os.path.abspath(a.build)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = os.path.join(a.out, stamp)
    os.makedirs(os.path.join(outdir, "logs"))
    hosts = [f"h{i}" for i in range(a.hosts)]
    topo1 = {"hosts": hosts, "rails": 1, "mtu": 1500, "seed": 1,
             "defaults": {"delay_ms": 0, "loss": 0}, "nic": {"rate_mbit": 1000}}
    topo2 = dict(topo1, rails=2)
    paths = {}
    for name, t in (("topo1", topo1), ("topo2", topo2)):
        paths[name] = os.path.join(outdir, name + ".json")
        with open(paths[name], "w") as f:
            json.dump(t, f, indent=1)
    netlab = RX.netlab_bin(a.build)
    net = RX.Net(netlab, paths["topo1"], hosts)
    ctx = {"net": net, "build": a.build, "bins": os.path.abspath(a.bins), "outdir": outdir,
           "wrap": RX.write_wrappers(outdir, netlab, net.run, len(hosts)), "class": a.cls,
           "np": a.np, "nice": a.nice, "grace": 15}
    rows = []
    csvf = open(os.path.join(outdir, "results.csv"), "w", newline="")
    w = csv.DictWriter(csvf, FIELDS)
    w.writeheader()

    def rec(row):
        rows.append(row)
        w.writerow(row)
        csvf.flush()

    cont = [c for c in a.contenders.split(",") if c]
    try:
        # TCP inside the emulated hosts: reno (the papers' NewReno), as bench/run-experiment
        RX.allow_tcp_cc("reno")
        for h in hosts:
            net.exec_in(h, ["sysctl", "-qw", "net.ipv4.tcp_congestion_control=reno"])
        for rep in range(a.reps):
            for b in a.benches.split():
                for c in cont:  # interleaved: every contender once per benchmark and repetition
                    rec(run_npb(ctx, c, b, "default", {}, paths["topo1"], rep, "nas", a.timeout))
        if a.cg_variants:
            # Nagle exists only in the usrsctp backend (our own engine sends at once, always):
            # Nagle x I-bit there; the I-bit alone on our engine
            variants = [("usctp10", "usrsctp: Nagle off, I-bit off", {"SCTPMPI_SCTP_NODELAY": "1", "SCTPMPI_SCTP_SACK_IMMEDIATELY": "0"}),
                        ("usctp10", "usrsctp: Nagle on, I-bit off", {"SCTPMPI_SCTP_NODELAY": "0", "SCTPMPI_SCTP_SACK_IMMEDIATELY": "0"}),
                        ("usctp10", "usrsctp: Nagle off, I-bit on", {"SCTPMPI_SCTP_NODELAY": "1", "SCTPMPI_SCTP_SACK_IMMEDIATELY": "1"}),
                        ("usctp10", "usrsctp: Nagle on, I-bit on", {"SCTPMPI_SCTP_NODELAY": "0", "SCTPMPI_SCTP_SACK_IMMEDIATELY": "1"}),
                        ("sctp10", "native: I-bit off", {"SCTPMPI_SCTP_SACK_IMMEDIATELY": "0"}),
                        ("sctp10", "native: I-bit on", {"SCTPMPI_SCTP_SACK_IMMEDIATELY": "1"})]
            for rep in range(a.reps):
                for key, v, env in variants:
                    rec(run_npb(ctx, key, "cg", v, env, paths["topo1"], rep, "cg", a.timeout))
        if a.failover.split():
            # a network of two rails of its own; our SCTP with the thesis's LAN failover
            # settings (Table 6.1: SCTPMPI_SCTP_FAILOVER=lan)
            net.stop()
            net = RX.Net(netlab, paths["topo2"], hosts)
            ctx["net"] = net
            for b in a.failover.split():
                for rep in range(a.reps):
                    # transport statistics on stderr (logs/*.err): every path's counters
                    st = {"SCTPMPI_STATS": "1", "SCTPMPI_SCTP_FAILOVER": "lan"}
                    rec(run_npb(ctx, "sctp10", b, "2 rails, no failure", st, paths["topo2"], rep,
                                "failover", a.timeout))
                    rec(run_npb(ctx, "sctp10", b, "2 rails, rail 0 down %g s after launch" % a.fail_at,
                                st, paths["topo2"], rep, "failover", a.timeout, fail_at=a.fail_at))
    finally:
        net.stop()
        csvf.close()
    t = tables(rows)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(t + "\n")
    print(t)
    print(f"\n(results: {outdir}/results.csv)")


if __name__ == "__main__":
    main()
