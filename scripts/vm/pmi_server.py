#!/usr/bin/env python3
"""pmi_server.py — a small PMI-1 server in hydra's -pmi-port mode for jobs whose ranks run in
the test guests (scripts/vm/vmlab.sh): ranks connect over TCP (PMI_PORT=host:port, PMI_ID=rank),
get their rank and size, put/get business cards, meet in barriers and finalize.

Usage: pmi_server.py PORTFILE SIZE TIMEOUT — listens on 127.0.0.1 (qemu's user-mode network
forwards the guests' 10.0.2.2 there), writes the port to PORTFILE, exits 0 once every rank has
finalized, 1 on an abort (the rank and code on stderr), 124 after TIMEOUT seconds."""
import socket
import sys
import threading

portfile, size, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
kvs = {}
lock = threading.Condition()
barrier = {"in": 0, "gen": 0}
state = {"finalized": 0, "abort": None}


def parse(line):
    out = {}
    for f in line.split():
        k, _, v = f.partition("=")
        out[k] = v
    return out


def serve(conn):
    f = conn.makefile("rwb", buffering=0)
    rank = -1

    def send(s):
        f.write((s + "\n").encode())

    for raw in f:
        m = parse(raw.decode(errors="replace"))
        cmd = m.get("cmd", "")
        if cmd == "initack":
            rank = int(m.get("pmiid", "-1"))
            send("cmd=initack")
            send("cmd=set size=%d" % size)
            send("cmd=set rank=%d" % rank)
            send("cmd=set debug=0")
        elif cmd == "init":
            send("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
        elif cmd == "get_maxes":
            send("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0")
        elif cmd == "get_my_kvsname":
            send("cmd=my_kvsname kvsname=vmjob rc=0")
        elif cmd == "get_universe_size":
            send("cmd=universe_size size=%d rc=0" % size)
        elif cmd == "get_appnum":
            send("cmd=appnum appnum=0 rc=0")
        elif cmd == "put":
            with lock:
                kvs[m.get("key", "")] = m.get("value", "")
            send("cmd=put_result rc=0")
        elif cmd == "get":
            with lock:
                v = kvs.get(m.get("key", ""))
            send("cmd=get_result rc=0 value=%s" % v if v is not None else "cmd=get_result rc=-1")
        elif cmd == "barrier_in":
            with lock:
                gen = barrier["gen"]
                barrier["in"] += 1
                if barrier["in"] == size:
                    barrier["in"] = 0
                    barrier["gen"] += 1
                    lock.notify_all()
                while barrier["gen"] == gen:
                    lock.wait()
            send("cmd=barrier_out")
        elif cmd == "finalize":
            send("cmd=finalize_ack")
            with lock:
                state["finalized"] += 1
                lock.notify_all()
        elif cmd == "abort":
            with lock:
                state["abort"] = (rank, m.get("exitcode", "1"))
                lock.notify_all()
        else:
            send("cmd=%s_result rc=-1 msg=unknown_command_%s" % (cmd, cmd))
    conn.close()


srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(256)
with open(portfile + ".tmp", "w") as pf:
    pf.write(str(srv.getsockname()[1]))
import os
os.rename(portfile + ".tmp", portfile)


def accept_loop():
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


threading.Thread(target=accept_loop, daemon=True).start()
with lock:
    ok = lock.wait_for(lambda: state["finalized"] == size or state["abort"], timeout)
if state["abort"]:
    print("pmi_server: rank %d called MPI_Abort with code %s" % state["abort"], file=sys.stderr)
    sys.exit(1)
if not ok:
    print("pmi_server: job timed out after %g s (%d of %d ranks finalized)"
          % (timeout, state["finalized"], size), file=sys.stderr)
    sys.exit(124)
sys.exit(0)
