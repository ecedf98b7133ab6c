"""compare_netlab.py - the netlab settings of compare.py: 2 emulated hosts, one rail.

Owns: starting and stopping one netlab network for a compare.py invocation, setting its loss,
launching each contender on the emulated hosts, and the per-run counters that explain the numbers
(bytes and loss drops on the emulated links, the forwarder's CPU time, Linux TCP retransmissions /
RTOs / tail-loss probes inside the hosts, SCTP retransmissions / T3 / TLP / final cwnd from
SCTPMPI_STATS). How each contender is launched inside netlab is not defined here: it is
bench/run-experiment's contender_cmd (the papers' experiments harness), imported as a module, with every
library's transport defaults (papers_settings False) and our bench/p2p programs.
"""
import importlib.machinery
import importlib.util
import json
import os
import re
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_run_experiment():
    path = os.path.join(ROOT, "bench", "run-experiment")
    loader = importlib.machinery.SourceFileLoader("run_experiment", path)
    spec = importlib.util.spec_from_loader("run_experiment", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


REXP = load_run_experiment()
# compare.py contender key -> run-experiment contender key (same launcher; with papers_settings
# False the "10 streams" of sctp10 is not applied, every library runs with its defaults)
REXP_KEY = {"tcp": "tcp", "sctp": "sctp10", "usctp": "usctp10", "ompi": "ompi", "mpich": "mpich"}

# SCTPMPI_STATS lines beyond run-experiment's sctp_totals: tail-loss probes of our engine and the
# final congestion window of each path / association (both backends)
TLP_RE = re.compile(r"sctpn: rank \d+ assoc \d+.*tail-loss probes (\d+) \(repaired (\d+)\)")
CWND_RE = re.compile(r"(?:sctpn:   path \d+ to \S+.* cwnd (\d+) |sctp assoc to rank \d+: .* cwnd (\d+) mtu)")


def parse_rate_loss(text):
    """'RATE_MBIT,LOSS_PCT[,LOSS_PCT...]' -> (rate, [loss...]); ValueError with a clear message."""
    parts = [p for p in text.split(",") if p != ""]
    if len(parts) < 2:
        raise ValueError(f"--netlab wants RATE_MBIT,LOSS_PCT[,LOSS_PCT...], got '{text}'")
    try:
        rate = float(parts[0])
        losses = [float(p) for p in parts[1:]]
    except ValueError:
        raise ValueError(f"--netlab: not a number in '{text}'") from None
    if rate <= 0:
        raise ValueError(f"--netlab: rate must be > 0 Mbit/s, got {parts[0]}")
    for l in losses:
        if not 0 <= l < 100:
            raise ValueError(f"--netlab: loss must be a percentage in [0, 100), got {l:g}")
    return rate, losses


class Network:
    """One netlab run (2 hosts h0 h1, one rail, MTU 1500, host NICs at RATE Mbit/s) for the whole
    invocation; loss is set per setting on every directed link (both directions)."""

    def __init__(self, build, rate_mbit, scratch, tcp_cc):
        self.build = build
        self.rate = rate_mbit
        self.netlab = REXP.netlab_bin(build)
        self.topo = {"hosts": ["h0", "h1"], "rails": 1, "mtu": 1500, "seed": 1,
                     "defaults": {"delay_ms": 0, "loss": 0}, "nic": {"rate_mbit": rate_mbit}}
        self.topo_path = os.path.join(scratch, "topo.json")
        with open(self.topo_path, "w") as f:
            json.dump(self.topo, f, indent=1)
        self.net = REXP.Net(self.netlab, self.topo_path, self.topo["hosts"])
        self.wrap = REXP.write_wrappers(scratch, self.netlab, self.net.run, len(self.topo["hosts"]))
        if tcp_cc:
            for h in self.topo["hosts"]:
                r = self.net.exec_in(h, ["sysctl", "-qw", f"net.ipv4.tcp_congestion_control={tcp_cc}"])
                if r.returncode != 0:
                    self.stop()
                    raise SystemExit(f"--tcp-cc {tcp_cc}: sysctl failed in {h}: {r.stderr.strip()}")
        r = self.net.exec_in("h0", ["sysctl", "-n", "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_sack"])
        vals = r.stdout.split()
        self.tcp_cc = vals[0] if vals else "?"
        self.tcp_sack = vals[1] if len(vals) > 1 else "?"
        self.fwd_pid = None
        try:
            with open(os.path.join(self.net.run, "info")) as f:
                for line in f:
                    if line.startswith("fwd_pid="):
                        self.fwd_pid = int(line.split("=", 1)[1])
        except (OSError, ValueError):
            pass

    def set_loss(self, loss_pct):
        self.net.set(loss=loss_pct / 100.0)

    def fwd_cpu(self):
        """User+system CPU seconds of the netlab forwarder so far (None if unknown)."""
        if not self.fwd_pid:
            return None
        try:
            with open(f"/proc/{self.fwd_pid}/stat") as f:
                st = f.read()
            fields = st[st.rfind(")") + 2:].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def snapshot(self):
        c = self.net.counters()
        c.update(self.net.tcp_counters())
        # datagrams the hosts' UDP dropped (receive buffer full, other input errors): losses of our
        # SCTP over UDP that the emulated links did not cause
        c.update(self.net.snmp_counters({("Udp", "RcvbufErrors"): "udp_rcvbuf_errors",
                                         ("Udp", "InErrors"): "udp_in_errors"}))
        c["fwd_cpu_s"] = self.fwd_cpu()
        return c

    def stop(self):
        self.net.stop()


class NetlabSetting:
    """compare.py setting: both ranks on emulated hosts h0 and h1 at one loss rate."""

    kind = "netlab"

    def __init__(self, network, loss_pct, scratch, pp_sizes, bw_sizes, pp_args, bw_args):
        self.network, self.loss = network, loss_pct
        self.name = f"netlab-{network.rate:g}mbit-loss{loss_pct:g}"
        self.label = (f"netlab, 2 hosts, {network.rate:g} Mbit/s host NICs, MTU 1500, "
                      f"{loss_pct:g}% loss on every directed link")
        self.scratch = scratch
        self.pp_sizes, self.bw_sizes = pp_sizes, bw_sizes
        self.pp_args, self.bw_args = pp_args, bw_args
        self.logdir = os.path.join(scratch, "logs")
        os.makedirs(self.logdir, exist_ok=True)

    def begin(self):
        self.network.set_loss(self.loss)

    def command(self, contender, bench, build):
        sizes = self.pp_sizes if bench == "pingpong" else self.bw_sizes
        extra = self.pp_args if bench == "pingpong" else self.bw_args
        ctx = {"net": self.network.net, "build": build, "topo": self.network.topo_path,
               "wrap": self.network.wrap, "papers_settings": False,
               "prog_path": lambda key, prog: contender.prog(prog)}
        argv, env = REXP.contender_cmd(REXP_KEY[contender.key], 2,
                                       [bench, "--sizes", sizes, "--csv"] + extra, ctx)
        # only what differs from our own environment is passed on (run_once adds os.environ)
        env = {k: v for k, v in env.items() if os.environ.get(k) != v}
        return argv, env

    def before_run(self):
        return self.network.snapshot()

    def after_run(self, before, stderr_text, tag):
        after = self.network.snapshot()
        d = {}
        for k, v in after.items():
            b = before.get(k)
            d[k] = None if v is None or b is None or v == -1 or b == -1 else v - b
        errlog = os.path.join(self.logdir, tag + ".err")
        with open(errlog, "w") as f:
            f.write(stderr_text)
        d.update({k: (v if v != "" else None) for k, v in REXP.sctp_totals(errlog).items()})
        tlp = [int(m.group(1)) for m in TLP_RE.finditer(stderr_text)]
        d["sctp_tlp"] = sum(tlp) if tlp else None
        cw = [int(m.group(1) or m.group(2)) for m in CWND_RE.finditer(stderr_text)]
        d["sctp_cwnd_max"] = max(cw) if cw else None
        return d


# per-run counters shown in the counters table (key, header)
COUNTERS = [("fwd_bytes", "net MB"), ("drop_loss", "net loss drops"), ("drop_queue", "net queue drops"),
            ("udp_rcvbuf_errors", "UDP rcvbuf drops"), ("tcp_retrans", "TCP retrans segs"),
            ("tcp_rto", "TCP RTOs"), ("tcp_tlp", "TCP TLPs"), ("sctp_data_out", "SCTP DATA chunks out"),
            ("sctp_retrans", "SCTP retrans"), ("sctp_fast_retrans", "SCTP fast retrans"),
            ("sctp_t3", "SCTP T3"), ("sctp_tlp", "SCTP TLPs"), ("sctp_cwnd_max", "SCTP final cwnd (max)")]


def counters_table(setting, contenders, counters):
    """Markdown lines: median per bw run of each counter, per contender; the forwarder's CPU per GB
    carried. counters: {(setting name, contender key, bench): [dict per run]}."""
    L = [f"Counters per bw run ({setting.label}; medians over the runs; TCP counters are the hosts' "
         "/proc/net/snmp + netstat, SCTP counters from SCTPMPI_STATS of our ranks; cwnd in bytes at "
         "MPI_Finalize):", "",
         "| contender | " + " | ".join(h for _, h in COUNTERS) + " | forwarder CPU s/GB |",
         "|---|" + "---|" * (len(COUNTERS) + 1)]
    for c in contenders:
        runs = counters.get((setting.name, c.key, "bw"), [])
        if not runs:
            continue
        cells = []
        for k, _ in COUNTERS:
            v = [r[k] for r in runs if r.get(k) is not None]
            if not v:
                cells.append("-")
            elif k == "fwd_bytes":
                mb = statistics.median(v) / 1e6
                cells.append(f"{mb:.0f}" if mb >= 10 else f"{mb:.2f}")
            else:
                cells.append(f"{statistics.median(v):.0f}")
        f = [r["fwd_cpu_s"] / (r["fwd_bytes"] / 1e9) for r in runs
             if r.get("fwd_cpu_s") is not None and r.get("fwd_bytes")]
        cells.append(f"{statistics.median(f):.2f}" if f else "-")
        L.append(f"| {c.label} | " + " | ".join(cells) + " |")
    L.append("")
    return L
