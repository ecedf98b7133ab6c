#!/usr/bin/env python3
"""run.py — the MPI-IO benchmark: io_bench.c (collective write + read of a block-cyclic 2-D
array of doubles) under sctpmpi (TCP transport), Open MPI and MPICH on the same file system,
4 and 8 ranks, collective buffering on and off; then the same runs once more under
`strace -f -y` to count the system calls that touched the data file.

    python3 bench/io/run.py --build build [--n 2048] [--b 16] [--reps 3] [--dir /tmp]
                            [--only ours,ompi,mpich] [--np 4,8] [--no-strace]

Prints a Markdown table: best-of-reps times and bandwidths, the ratio of ours to the best
peer, and write / read calls on the data file.  Peers turn collective buffering off their own
way: MPICH (ROMIO) with the romio_cb_read/write hints io_bench sets, Open MPI (OMPIO) with
`--mca fcoll individual`."""
import argparse, os, re, shutil, subprocess, sys, tempfile, collections

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "io_bench.c")


def contenders(a, scratch):
    ours = os.path.join(os.path.abspath(a.build), "bench", "io", "io_bench")
    mpiexec = os.path.join(os.path.abspath(a.build), "tools", "mpiexec", "mpiexec")
    c = collections.OrderedDict()
    c["ours"] = ("sctpmpi (TCP)", lambda n, cb: [mpiexec, "-n", str(n), "--transport", "tcp"], ours, {})
    ompi_env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    c["ompi"] = ("Open MPI 4.1 (OMPIO)", lambda n, cb: ["mpirun.openmpi", "--oversubscribe", "-n", str(n),
                 "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"]
                 + (["--mca", "fcoll", "individual"] if cb == "disable" else []),
                 os.path.join(scratch, "io_bench.openmpi"), ompi_env)
    c["mpich"] = ("MPICH 4.0 (ROMIO)", lambda n, cb: ["mpiexec.hydra", "-n", str(n)],
                  os.path.join(scratch, "io_bench.mpich"), {"UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "lo"})
    return c


def build_peers(scratch, only):
    for key, cc in (("ompi", "mpicc.openmpi"), ("mpich", "mpicc.mpich")):
        if key in only:
            subprocess.run([cc, "-O2", SRC, "-o", os.path.join(scratch, "io_bench." + ("openmpi" if key == "ompi" else "mpich"))],
                           check=True)


def run(cmd, env, timeout):
    e = dict(os.environ)
    e.update(env)
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
        return p.stdout + p.stderr
    except subprocess.TimeoutExpired as x:
        return (x.stdout or b"").decode() if isinstance(x.stdout, bytes) else (x.stdout or "") + "\nTIMEOUT"


def count_calls(tracedir, needle):
    w = r = 0
    for f in os.listdir(tracedir):
        with open(os.path.join(tracedir, f), errors="replace") as fh:
            for line in fh:
                m = re.match(r"(?:\d+\s+)?(\w+)\((\d+)<([^>]*)>", line)
                # the data file only (not sctpmpi's shared-pointer side file, ".<name>.<id>.shfp")
                if not m or needle not in m.group(3) or m.group(3).endswith(".shfp"):
                    continue
                if m.group(1).startswith(("write", "pwrite")):
                    w += 1
                elif m.group(1).startswith(("read", "pread")):
                    r += 1
    return w, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--b", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--only", default="ours,ompi,mpich")
    ap.add_argument("--np", default="4,8")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--no-strace", action="store_true")
    a = ap.parse_args()
    only = a.only.split(",")
    scratch = tempfile.mkdtemp(prefix="sm-iobench-")
    try:
        build_peers(scratch, only)
        C = contenders(a, scratch)
        rows = []
        for np_ in [int(x) for x in a.np.split(",")]:
            for cb in ("enable", "disable"):
                res = {}
                for key in only:
                    label, launch, exe, env = C[key]
                    args = [exe, "-n", str(a.n), "-b", str(a.b), "-r", str(a.reps), "-cb", cb, "-dir", a.dir]
                    out = run(launch(np_, cb) + args, env, a.timeout)
                    m = re.search(r"RESULT .*write_s=([\d.]+) read_s=([\d.]+) write_MBps=([\d.]+) read_MBps=([\d.]+) errors=(\d+)", out)
                    calls = ("", "")
                    if not a.no_strace and shutil.which("strace"):
                        td = tempfile.mkdtemp(prefix="trace-", dir=scratch)
                        args1 = [exe, "-n", str(a.n), "-b", str(a.b), "-r", "1", "-cb", cb, "-dir", a.dir]
                        run(["strace", "-f", "-qq", "-y", "-ff", "-o", os.path.join(td, "t"),
                             "-e", "trace=write,pwrite64,pwritev,pwritev2,writev,read,pread64,preadv,preadv2,readv"]
                            + launch(np_, cb) + args1, env, a.timeout * 3)
                        calls = count_calls(td, "io_bench.")
                    res[key] = (label, m.groups() if m else None, calls, out if not m else "")
                best_peer_w = min((float(v[1][0]) for k, v in res.items() if k != "ours" and v[1]), default=None)
                best_peer_r = min((float(v[1][1]) for k, v in res.items() if k != "ours" and v[1]), default=None)
                for key, (label, g, calls, err) in res.items():
                    if not g:
                        rows.append(f"| {np_} | {cb} | {label} | failed | | | | | | |")
                        sys.stderr.write(f"--- {label} np={np_} cb={cb} failed:\n{err[-2000:]}\n")
                        continue
                    rw = rr = ""
                    if key == "ours" and best_peer_w:
                        rw = f"{float(g[0]) / best_peer_w:.2f}"
                        rr = f"{float(g[1]) / best_peer_r:.2f}"
                    rows.append(f"| {np_} | {cb} | {label} | {float(g[0])*1e3:.1f} | {float(g[1])*1e3:.1f} | "
                                f"{g[2]} | {g[3]} | {rw} | {rr} | {calls[0]} / {calls[1]} |"
                                + (" DATA ERRORS" if g[4] != "0" else ""))
        mb = a.n * a.n * 8 / 1e6
        print(f"N = {a.n} ({mb:.1f} MB of doubles), blocks {a.b} x {a.b}, best of {a.reps}; file system of {a.dir}\n")
        print("| ranks | coll. buffering | MPI | write ms | read ms | write MB/s | read MB/s | "
              "write time / best peer | read time / best peer | file writes / reads (strace, one run) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(r)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
