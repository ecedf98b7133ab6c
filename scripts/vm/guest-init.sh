#!/bin/bash
# guest-init.sh — PID 1 of the sctpmpi test guests, exec'd by the image's init stub (image.sh)
# from the host's tree, which the stub has mounted read-only (9p) at sm.src=PATH.
# Mounts the kernel filesystems, loads sctp/netem, names the guest and its links from the
# kernel command line (sm.id=N), mounts the harness's control directory at /vmctl, then serves
# commands: the host drops /vmctl/<id>/<n>.cmd, the guest runs it (several at once) and leaves
# <n>.out and <n>.rc next to it.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mountpoint -q /proc || mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
id=1 src=/work
for a in $(cat /proc/cmdline); do
  case $a in
    sm.id=*) id=${a#sm.id=} ;;
    sm.src=*) src=${a#sm.src=} ;;
  esac
done
hostname "vm$id"
for m in sctp sch_netem 9p 9pnet_virtio virtio_net; do modprobe -q $m; done
ip link set lo up
# socket buffers up to 8 MiB (SCTPMPI_SOCKBUF asks for 2 MiB; Debian's cap is 208 KiB)
sysctl -q -w net.core.wmem_max=8388608 net.core.rmem_max=8388608
# interfaces by MAC: 52:54:00:00:<link>:<id>; link 0 = control (user-mode net to the host)
for dev in /sys/class/net/*; do
  d=${dev##*/}; mac=$(cat "$dev/address")
  case $mac in
    52:54:00:00:00:*) ip addr add 10.0.2.15/24 dev "$d"; ip link set "$d" up
                      ip route add default via 10.0.2.2 dev "$d" ;;
    52:54:00:00:0[1-9]:*) l=$((16#${mac:12:2}))
                      ip addr add "10.$l.0.$id/24" dev "$d"; ip link set "$d" up ;;
  esac
done
mkdir -p /vmctl
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none ctl /vmctl
d=/vmctl/$id
mkfifo /run/idle && exec 9<>/run/idle # read -t on it: a pause without forking sleep
echo ready > "$d/ready"
while :; do
  for f in "$d"/*.cmd; do
    [ -e "$f" ] || continue
    n=${f%.cmd}
    mv "$f" "$n.run"
    ( bash "$n.run" > "$n.out" 2>&1 < /dev/null; echo $? > "$n.rct"; mv "$n.rct" "$n.rc" ) &
  done
  read -r -t 0.2 -u 9 _
done
