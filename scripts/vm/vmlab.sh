#!/bin/bash
# vmlab.sh — test guests with Linux's SCTP for the kernel SCTP backend's tests: two guests, or
# one guest with two network namespaces (VM_NETNS=1); KVM where it can run them, else TCG.
#
# Source it (functions below) or run `vmlab.sh check|image|boot|hold` for a look by hand.  Guests boot the
# cached Debian 12 image (image.sh builds it once) with their kernel and initrd directly, share
# the host's tree read-only over 9p at the same path (the build's rpaths work unchanged) and a
# control directory through which vm_exec hands them commands (guest-init.sh runs them).
# Networks, per guest N:
#   control: qemu user-mode network, guest 10.0.2.15; the host is 10.0.2.2 (the PMI server)
#   link L (1..VM_LINKS): a point-to-point UDP "wire" between guest 1 and guest 2 (qemu socket
#     netdev), guest address 10.L.0.N; loss and delay with tc netem inside the guests
#     (vm_netem), a cut with qemu's set_link (vm_link: carrier off, frames dropped).
# VM_NETNS=1: one guest instead of two; inside it two network namespaces n1 and n2 stand for
#   the two hosts (guest-netns.sh: link L is a veth pair n1 10.L.0.1 <-> n2 10.L.0.2, netem on
#   both ends; a cut is 100 % loss).  Booting one emulated guest costs half of booting two.
# VM_TAP=1 (with VM_NETNS=1): a TAP device on the host (10.213.0.254) bridged in the guest to
#   both namespaces (10.213.0.1, 10.213.0.2): ranks on the host join a job (vm_mpirun --host).
# VM_NICE=N runs qemu at that nice level (-15 for measurements on a shared host; as root).
# Everything (qemu processes, TAP device, temp directory) goes away in vm_down, which the
# callers trap on EXIT.  Facilities missing (qemu, the image, root) are reported by vm_check with the reason.
VM_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_SHARE=${VM_SHARE:-$(cd "$VM_HERE/../.." && pwd)}
VM_NETNS=${VM_NETNS:-}
VM_TAP=${VM_TAP:-}
VM_TAPDEV=${VM_TAPDEV:-} # the host end of VM_TAP (ours: vm_down deletes it)
[ -n "$VM_NETNS" ] && VM_N=1
VM_N=${VM_N:-2}
VM_LINKS=${VM_LINKS:-2}
VM_MEM=${VM_MEM:-640}
VM_CPUS=${VM_CPUS:-2}
VM_TMP=""
VM_PIDS=()
VM_IMAGE=""
VM_INITRD=""
VM_ACCEL=""

vm_log() { echo "vmlab: $*" >&2; }

# 0 when guests can run here; else prints why (for a test's SKIP line) and returns 1
vm_check() {
  if [ "$(id -u)" != 0 ]; then echo "needs root (the guest image is built with debootstrap)"; return 1; fi
  command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 missing (bash scripts/setup.sh)"; return 1; }
  command -v python3 >/dev/null || { echo "python3 missing"; return 1; }
  if [ ! -e "$(dirname "$(command -v qemu-system-x86_64)")/../share/qemu" ] && [ ! -d /usr/share/qemu ]; then
    echo "qemu firmware directory missing"; return 1
  fi
  if [ -z "${SCTPMPI_VM_CACHE_ONLY:-}" ]; then
    command -v debootstrap >/dev/null || { echo "debootstrap missing (bash scripts/setup.sh)"; return 1; }
  fi
  return 0
}

# the small initrd (mini_init.c + the modules of the root disk), cached next to the image
vm_initrd() {
  local key out k w m
  key=$(sed -n '/^vm_initrd()/,/^}/p' "$VM_HERE/vmlab.sh" | cat "$VM_HERE/mini_init.c" - | sha256sum | cut -c1-12)
  out=$VM_IMAGE/initrd-mini-$key.img
  if [ ! -s "$out" ]; then
    w=$(mktemp -d /tmp/sctpmpi-initrd.XXXXXX)
    k=$(debugfs -R "ls -p /lib/modules" "$VM_IMAGE/rootfs.img" 2>/dev/null | awk -F/ '$6 ~ /^[0-9]/ {print $6; exit}')
    gcc -static -O2 -o "$w/init" "$VM_HERE/mini_init.c" || { rm -rf "$w"; return 1; }
    : >"$w/modules"
    for m in virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
      virtio_blk crc16 mbcache jbd2 crc32c_generic ext4; do
      local path
      path=$(debugfs -R "cat /lib/modules/$k/modules.dep" "$VM_IMAGE/rootfs.img" 2>/dev/null |
        awk -F: -v m="/$m.ko" 'index($1, m) && substr($1, length($1) - length(m) + 1) == m {print $1; exit}')
      [ -n "$path" ] || continue # built into the kernel
      debugfs -R "dump /lib/modules/$k/$path $w/$m.ko" "$VM_IMAGE/rootfs.img" >/dev/null 2>&1
      [ -s "$w/$m.ko" ] && echo "/$m.ko" >>"$w/modules"
    done
    (cd "$w" && ls | cpio -o -H newc 2>/dev/null | gzip -1 >"$out.tmp") && mv "$out.tmp" "$out"
    rm -rf "$w"
  fi
  VM_INITRD=$out
}

# why KVM cannot run the Debian guests on this host (printed), or nothing (returns 1) when it can.
# A host without VMX/SVM whose KVM is kvm_pvm (PVM, "pagetable-based virtual machine": KVM
# inside a guest without nested hardware virtualization) runs only guest kernels built for PVM;
# an ordinary kernel (Debian's) is executed by KVM's instruction emulator one instruction at a
# time (about 0.6 M instructions/s measured: the decompressor alone takes minutes), which
# looks like a hang in early boot.
vm_kvm_unusable() {
  if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then echo "/dev/kvm missing or not accessible"; return 0; fi
  if ! grep -qw -e vmx -e svm /proc/cpuinfo; then
    if [ -d /sys/module/kvm_pvm ]; then
      echo "KVM here is PVM (kvm_pvm, no VMX/SVM in the CPU): it runs PVM guest kernels only;" \
        "Debian's kernel would be emulated instruction by instruction"
    else
      echo "no VMX/SVM in the CPU flags"
    fi
    return 0
  fi
  local img=${SCTPMPI_VM_CACHE:-/var/cache/sctpmpi-vm}
  if [ -e "$img/kvm-hangs-$(uname -r)" ]; then
    echo "KVM guests hang in early boot on this host kernel ($img/kvm-hangs-$(uname -r))"
    return 0
  fi
  return 1
}

# which accelerator vm_up would take: kvm, or tcg (with the reason on stdout after "tcg: ")
vm_accel_guess() {
  local why
  case ${SCTPMPI_VM_ACCEL:-auto} in kvm) echo kvm; return ;; tcg) echo "tcg: SCTPMPI_VM_ACCEL=tcg"; return ;; esac
  if why=$(vm_kvm_unusable); then echo "tcg: $why"; return; fi
  echo kvm
}

vm_free_port() { # a free UDP port on 127.0.0.1
  python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

vm_down() {
  local p
  for p in "${VM_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${VM_PIDS[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  VM_PIDS=()
  [ -n "$VM_TAPDEV" ] && ip link del "$VM_TAPDEV" 2>/dev/null
  VM_TAPDEV=""
  [ -n "$VM_TMP" ] && rm -rf "$VM_TMP"
  VM_TMP=""
}

# boot VM_N guests; returns when every guest serves commands
vm_up() {
  local why
  why=$(vm_check) || { vm_log "cannot run: $why"; return 2; }
  VM_IMAGE=$(bash "$VM_HERE/image.sh") || { vm_log "no guest image"; return 2; }
  vm_initrd || { vm_log "cannot build the small initrd"; return 2; }
  # SCTPMPI_VM_ACCEL=kvm|tcg|auto (default): auto takes KVM unless /dev/kvm is missing or a
  # previous boot on this host kernel hung under KVM (a marker in the image cache, see below)
  local accel marker
  marker="$(dirname "$VM_IMAGE")/kvm-hangs-$(uname -r)"
  accel=$(vm_accel_guess)
  if [ "$accel" != kvm ]; then
    [ "${SCTPMPI_VM_ACCEL:-auto}" = auto ] && vm_log "TCG emulation (much slower): ${accel#tcg: }"
    accel=tcg
  fi
  if [ "$accel" = kvm ]; then
    VM_ACCEL="-accel kvm -cpu host"
    VM_CLOCK=""
  else # emulation: one vCPU boots faster on a busy host; the boot may take minutes
    VM_ACCEL="-accel tcg,thread=multi -cpu max"
    VM_CPUS=${VM_CPUS_TCG:-1}
    VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-600}
    # the emulated TSC's calibration on a loaded host is far off (guest time ran 14x fast,
    # SCTP's timers with it): keep time with the ACPI PM timer, which follows the host clock;
    # no_timer_check: on a loaded host the kernel's check of the emulated timer interrupt
    # fails and it panics ("IO-APIC + timer doesn't work")
    VM_CLOCK="clocksource=acpi_pm tsc=unstable no_timer_check"
  fi
  VM_ACCEL_NAME=$accel
  VM_TMP=$(mktemp -d /tmp/sctpmpi-vm.XXXXXX)
  mkdir -p "$VM_TMP/ctl"
  local t0 i l ports=()
  t0=$(date +%s.%N)
  for l in $(seq 1 "$VM_LINKS"); do ports[$((2 * l))]=$(vm_free_port); ports[$((2 * l + 1))]=$(vm_free_port); done
  for i in $(seq 1 "$VM_N"); do
    mkdir -p "$VM_TMP/ctl/$i"
    local net=(-netdev user,id=ctl,restrict=off -device "virtio-net-pci,netdev=ctl,mac=52:54:00:00:00:0$i")
    for l in $(seq 1 "$VM_LINKS"); do
      [ -n "$VM_NETNS" ] && break # the links are veth pairs inside the guest
      local me=${ports[$((2 * l + (i - 1)))]} other=${ports[$((2 * l + (2 - i)))]}
      if [ "$i" -le 2 ]; then
        net+=(-netdev "socket,id=l$l,udp=127.0.0.1:$other,localaddr=127.0.0.1:$me"
          -device "virtio-net-pci,netdev=l$l,mac=52:54:00:00:0$l:0$i")
      fi
    done
    if [ -n "$VM_TAP" ] && [ "$i" = 1 ]; then
      VM_TAPDEV=smvm$$
      # one address per host rank (10.213.0.254 down to .247, turning round from job to job):
      # the kernel tells associations apart by addresses and SCTP ports only, every engine rank
      # uses SCTP port 5001, and the associations of a job that was killed linger for a while
      ip tuntap add dev "$VM_TAPDEV" mode tap && ip link set "$VM_TAPDEV" up ||
        { vm_log "cannot create the TAP device $VM_TAPDEV"; return 1; }
      for a in 254 253 252 251 250 249 248 247; do
        ip addr add "10.213.0.$a/24" dev "$VM_TAPDEV" || { vm_log "cannot address $VM_TAPDEV"; return 1; }
      done
      net+=(-netdev "tap,id=h1,ifname=$VM_TAPDEV,script=no,downscript=no"
        -device "virtio-net-pci,netdev=h1,mac=52:54:00:00:d5:01")
    fi
    # shellcheck disable=SC2086
    nice -n "${VM_NICE:-0}" qemu-system-x86_64 $VM_ACCEL -m "$VM_MEM" -smp "$VM_CPUS" -nodefaults -display none \
      -no-reboot -kernel "$VM_IMAGE/vmlinuz" -initrd "$VM_INITRD" \
      -append "console=ttyS0 root=/dev/vda rw init=/sbin/sctpmpi-vm-init sm.id=$i sm.src=$VM_SHARE quiet panic=-1 mitigations=off $VM_CLOCK" \
      -drive "file=$VM_IMAGE/rootfs.img,if=virtio,format=raw,snapshot=on" \
      -virtfs "local,path=$VM_SHARE,mount_tag=src,security_model=none,readonly=on" \
      -virtfs "local,path=$VM_TMP/ctl,mount_tag=ctl,security_model=none" \
      "${net[@]}" -serial "file:$VM_TMP/console$i.log" \
      -monitor "unix:$VM_TMP/mon$i.sock,server,nowait" \
      >"$VM_TMP/qemu$i.log" 2>&1 &
    VM_PIDS+=($!)
  done
  local deadline=$((SECONDS + ${VM_BOOT_TIMEOUT:-180}))
  [ "$accel" = kvm ] && [ "${SCTPMPI_VM_ACCEL:-auto}" = auto ] && deadline=$((SECONDS + 30))
  for i in $(seq 1 "$VM_N"); do
    while [ ! -e "$VM_TMP/ctl/$i/ready" ]; do
      if [ $SECONDS -ge $deadline ] && [ "$accel" = kvm ] && [ "${SCTPMPI_VM_ACCEL:-auto}" = auto ] &&
        [ "$(wc -l <"$VM_TMP/console$i.log")" -le 2 ]; then
        vm_log "guest $i is stuck in early boot under KVM (no kernel output in 30 s; nested" \
          "virtualization?): noting it in $marker and booting again with TCG"
        touch "$marker"
        vm_down
        vm_up
        return $?
      fi
      if ! kill -0 "${VM_PIDS[$((i - 1))]}" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
        vm_log "guest $i did not come up; qemu said:"; cat "$VM_TMP/qemu$i.log" >&2
        vm_log "console of guest $i (last lines):"; tail -30 "$VM_TMP/console$i.log" >&2
        return 1
      fi
      sleep 0.1
    done
  done
  if [ -n "$VM_NETNS" ]; then
    vm_exec 1 120 "bash $(printf '%q' "$VM_HERE/guest-netns.sh") $VM_LINKS" >&2 ||
      { vm_log "cannot set up the network namespaces in the guest"; return 1; }
  fi
  VM_BOOT_SECONDS=$(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || echo "?")
  vm_log "$VM_N guests up in ${VM_BOOT_SECONDS} s with $VM_ACCEL_NAME (image $VM_IMAGE)"
}

VM_SEQ=0
VM_HOSTSEQ=0 # host addresses used so far (vm_mpirun --host)
# vm_exec GUEST TIMEOUT 'shell commands' — runs them in the guest; prints their output; returns
# their status (124 when they did not finish within TIMEOUT seconds)
vm_exec() {
  local g=$1 to=$2 cmd=$3 n
  VM_SEQ=$((VM_SEQ + 1)); n=$VM_SEQ.$BASHPID
  local d=$VM_TMP/ctl/$g
  printf '%s\n' "$cmd" >"$d/$n.tmp" && mv "$d/$n.tmp" "$d/$n.cmd"
  local deadline=$((SECONDS + to))
  while [ ! -e "$d/$n.rc" ]; do
    if [ $SECONDS -ge $deadline ]; then
      cat "$d/$n.out" 2>/dev/null
      vm_log "guest $g: command timed out after $to s"
      return 124
    fi
    sleep 0.05
  done
  cat "$d/$n.out"
  return "$(cat "$d/$n.rc")"
}

# vm_hmp GUEST 'monitor command'
vm_hmp() {
  python3 - "$VM_TMP/mon$1.sock" "$2" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(2)
time.sleep(0.1); s.recv(4096)
s.sendall((sys.argv[2] + "\n").encode()); time.sleep(0.2)
try: s.recv(4096)
except Exception: pass
PY
}

# vm_link L on|off — plug or cut link L at both ends (two guests: qemu's set_link, carrier off;
# VM_NETNS: 100 % loss on both veth ends, the carrier stays up as on a cable cut further away)
vm_link() {
  local i
  if [ -n "$VM_NETNS" ]; then
    if [ "$2" = off ]; then vm_netem "$1" "loss 100%"; else vm_netem "$1" ""; fi
    return
  fi
  for i in 1 2; do vm_hmp "$i" "set_link l$1 $2"; done
}

# vm_netem L 'netem arguments' — e.g. 'loss 1%' or 'delay 5ms loss 1%'; '' removes it
vm_netem() {
  local i l=$1 spec=$2
  if [ -n "$VM_NETNS" ]; then
    local c="" end
    for end in "n1 l${l}a" "n2 l${l}b"; do
      if [ -n "$spec" ]; then c+="ip netns exec ${end% *} tc qdisc replace dev ${end#* } root netem $spec || exit 1;"
      else c+="ip netns exec ${end% *} tc qdisc del dev ${end#* } root 2>/dev/null;"; fi
    done
    vm_exec 1 120 "$c true"
    return
  fi
  for i in 1 2; do
    local c="dev=\$(ip -o -4 addr show | awk '/ 10\\.$l\\.0\\./{print \$2}');"
    if [ -n "$spec" ]; then c+=" tc qdisc replace dev \$dev root netem $spec"
    else c+=" tc qdisc del dev \$dev root 2>/dev/null; true"; fi
    vm_exec "$i" 120 "$c" || return 1
  done
}

# vm_libs PROGRAM — the shared libraries PROGRAM needs on this host that the guest image lacks
# (a build with PMIx links libpmix, which the image does not have): copied once into the
# control directory, which the guests see at /vmctl/lib (vm_mpirun puts it on LD_LIBRARY_PATH)
vm_libs() {
  [ -e "$VM_TMP/ctl/lib/.done" ] && return 0
  mkdir -p "$VM_TMP/ctl/lib"
  local names missing n
  names=$(ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// && $3 !~ /^\/work/ {print $1}' | tr '\n' ' ')
  missing=$(vm_exec 1 60 "for n in $names; do ldconfig -p | grep -q \"^\s*\$n \" || echo \$n; done")
  for n in $missing; do
    cp -L "$(ldd "$1" | awk -v n="$n" '$1 == n {print $3}')" "$VM_TMP/ctl/lib/" || return 1
  done
  : >"$VM_TMP/ctl/lib/.done"
  [ -z "$missing" ] || vm_log "libraries the guest lacks, shared from this host: $(echo $missing)"
}

# vm_mpirun [-n N] [--links K] [--timeout S] [--host H] [-x VAR=VAL]... [-xg VAR=VAL]...
#           [-xh VAR=VAL]... -- PROGRAM ARGS
# ranks round-robin over the guests (VM_NETNS: over the namespaces n1, n2 of guest 1), bound to
# their link addresses (1..K), PMI on the host; --host H (at most 4): the last H ranks run on
# the host, each bound to its own TAP address out of 10.213.0.247-254 (VM_TAP=1), the guests'
# ranks to 10.213.0.N; -x sets a
# variable for every rank, -xg for the guests' ranks only, -xh for the host's only
vm_mpirun() {
  local np=2 links=1 to=60 nhost=0 env=() genv=() henv=() a
  while [ $# -gt 0 ]; do
    case $1 in
      -n) np=$2; shift 2 ;;
      --links) links=$2; shift 2 ;;
      --timeout) to=$2; shift 2 ;;
      --host) nhost=$2; shift 2 ;;
      -x) env+=("$2"); shift 2 ;;
      -xg) genv+=("$2"); shift 2 ;;
      -xh) henv+=("$2"); shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  local prog=$*
  vm_libs "${prog%% *}" || { vm_log "cannot copy the libraries the guests lack"; return 1; }
  local pf="$VM_TMP/pmi.$BASHPID.port"
  rm -f "$pf" # a previous job of this shell left its port there
  python3 "$VM_HERE/pmi_server.py" "$pf" "$np" "$to" &
  local pmi=$!
  while [ ! -s "$pf" ]; do sleep 0.02; done
  local port secret
  port=$(cat "$pf")
  secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  local ng=$((np - nhost)) nodes=$VM_N
  [ -n "$VM_NETNS" ] && nodes=2
  local g pids=() hpids=()
  for g in $(seq 1 "$VM_N"); do
    local script="rc=0; pids=();"
    local r node addrs
    for r in $(seq 0 $((ng - 1))); do
      node=$((r % nodes + 1))
      [ -n "$VM_NETNS" ] || [ "$node" = "$g" ] || continue
      addrs=""
      if [ "$nhost" -gt 0 ]; then addrs=10.213.0.$node
      else for l in $(seq 1 "$links"); do addrs+="${addrs:+,}10.$l.0.$node"; done; fi
      local pmienv="PMI_PORT=10.0.2.2:$port PMI_ID=$r" pre=""
      if [ -n "$VM_NETNS" ]; then
        # the namespaces cannot reach the host: the PMI connection is opened (and hydra's
        # initack exchanged) in the guest's own namespace, the rank inherits it (PMI_FD)
        pmienv="PMI_FD=7 PMI_RANK=$r PMI_SIZE=$np"
        pre="exec 7<>/dev/tcp/10.0.2.2/$port && printf 'cmd=initack pmiid=$r\\n' >&7 &&"
        pre+=" for _ in 1 2 3 4; do read -r -u 7 _; done && ip netns exec n$node"
      fi
      script+=" ( $pre env LD_LIBRARY_PATH=/vmctl/lib $pmienv SCTPMPI_JOB_SECRET=$secret SCTPMPI_ADDRS=$addrs SCTPMPI_LOCAL_RANKS=$(((ng + nodes - node) / nodes))"
      for a in "${env[@]}" "${genv[@]}"; do script+=" $(printf '%q' "$a")"; done
      script+=" timeout -k 2 $to $prog 2>&1 | sed -u 's/^/[$r] /'; exit \${PIPESTATUS[0]} ) & pids+=(\$!);"
    done
    script+=" for p in \"\${pids[@]}\"; do wait \$p || rc=\$?; done; exit \$rc"
    vm_exec "$g" $((to + 10)) "$script" &
    pids+=($!)
  done
  for r in $(seq "$ng" $((np - 1))); do # ranks on the host
    (
      # shellcheck disable=SC2086
      env PMI_PORT=127.0.0.1:$port PMI_ID=$r SCTPMPI_JOB_SECRET=$secret \
        SCTPMPI_ADDRS=10.213.0.$((254 - (r - ng + VM_HOSTSEQ) % 8)) \
        SCTPMPI_LOCAL_RANKS=$nhost "${env[@]}" "${henv[@]}" timeout -k 2 "$to" $prog 2>&1 |
        sed -u "s/^/[$r] /"
      exit "${PIPESTATUS[0]}"
    ) &
    hpids+=($!)
  done
  VM_HOSTSEQ=$((VM_HOSTSEQ + nhost))
  local rc=0 p prc=0 alive
  while kill -0 "$pmi" 2>/dev/null; do # the ranks all gone without finalizing: stop waiting
    alive=0
    for p in "${pids[@]}" "${hpids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 1 ] || { sleep 1; kill "$pmi" 2>/dev/null; break; }
    sleep 0.2
  done
  wait "$pmi" || prc=$?
  if [ $prc != 0 ]; then # an abort or a timeout: end the ranks still running in the guests
    for g in $(seq 1 "$VM_N"); do vm_exec "$g" 60 "pkill -KILL -x $(printf '%q' "$(basename "${prog%% *}")")" >/dev/null; done
    for p in "${hpids[@]}"; do pkill -TERM -P "$p" 2>/dev/null; done # our host ranks' timeout
  fi
  for p in "${pids[@]}" "${hpids[@]}"; do wait "$p" || { [ $rc = 0 ] && rc=$?; }; done
  [ $rc = 0 ] && rc=$prc
  return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case ${1:-} in
    check) why=$(vm_check) && echo "ok" || { echo "$why"; exit 1; } ;;
    image) bash "$VM_HERE/image.sh" ;;
    boot)
      trap vm_down EXIT
      vm_up || exit $?
      vm_exec 1 10 'uname -r; ip -o -4 addr; lsmod | grep -w sctp; cat /proc/sys/net/sctp/udp_port'
      vm_exec 2 10 'ping -c 2 -W 1 10.1.0.1; ping -c 1 -W 1 10.2.0.1' ;;
    hold) # boot and keep the guests until this script is killed; prints VM_TMP for vm_attach
      trap vm_down EXIT
      trap 'exit 0' TERM INT
      vm_up || exit $?
      echo "$VM_TMP" >"${2:-/dev/stdout}"
      while :; do sleep 1; done ;;
    *) echo "usage: vmlab.sh check|image|boot|hold [FILE]" >&2; exit 2 ;;
  esac
fi
