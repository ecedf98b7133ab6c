#!/usr/bin/env bash
# rogue_peer.sh MPIEXEC VICTIM TRANSPORT — while a 3-rank job runs, foreign processes connect to
# every rank's port: garbage bytes, a hello with the right magic and a wrong secret, a hello
# naming a bogus rank, and a connect that sends nothing.  The job must complete with
# " No Errors", and the ranks must log that they rejected the connections.
set -u
mpiexec=$1 victim=$2 transport=$3
tmp=$(mktemp -d /tmp/sm-rogue.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
SCTPMPI_CARD_DIR=$tmp SM_GO_FILE=$tmp/go "$mpiexec" -n 3 --transport "$transport" --timeout 120 \
    "$victim" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for i in $(seq 1 600); do
  [ -f "$tmp/card.0" ] && [ -f "$tmp/card.1" ] && [ -f "$tmp/card.2" ] && break
  sleep 0.1
done
[ -f "$tmp/card.2" ] || { echo "FAIL: cards never appeared"; cat "$tmp/err"; exit 1; }
python3 - "$tmp" "$transport" <<'PY' || exit 1
import socket, struct, sys, time
tmp, transport = sys.argv[1], sys.argv[2]
for r in range(3):
    card = open(f"{tmp}/card.{r}").read().strip()
    # "tcp:IP:PORT[;IP:PORT...]" or "sctpn:IP[,IP...]:PORT[:flags]": the first address and port
    kind, rest = card.split(":", 1)
    fields = rest.split(";")[0].split(":")
    host, port = fields[0].split(",")[0], int(fields[1])
    if transport == "tcp":
        attacks = [b"\xde\xad\xbe\xef" * 64,
                   b"SMPITCP1" + struct.pack("<ii", 0, 3) + b"0" * 48,
                   b"SMPITCP1" + struct.pack("<ii", 77, 3) + b"0" * 48,
                   b""]
        for a in attacks:
            s = socket.create_connection((host, port), timeout=5)
            if a:
                s.sendall(a)
            time.sleep(0.05)
            s.close()
    else:  # sctp over UDP encapsulation: garbage datagrams to the UDP port
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for n in (1, 12, 100, 1400):
            s.sendto(b"\x13" * n, (host, port))
        s.close()
print("attacks sent")
PY
touch "$tmp/go"
wait "$pid"; rc=$?; pid=
cat "$tmp/out"; cat "$tmp/err" >&2
[ $rc -eq 0 ] || { echo "FAIL: job exited with $rc"; exit 1; }
grep -q " No Errors" "$tmp/out" || { echo "FAIL: no ' No Errors'"; exit 1; }
if [ "$transport" = tcp ]; then
  n=$(grep -c "rejected a TCP connection" "$tmp/err")
  [ "$n" -ge 9 ] || { echo "FAIL: expected >= 9 rejections logged, saw $n"; exit 1; }
  grep -q "wrong job secret" "$tmp/err" || { echo "FAIL: wrong secret not reported"; exit 1; }
fi
echo "rogue peers rejected, job completed"
