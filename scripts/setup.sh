#!/usr/bin/env bash
# setup.sh — install everything sctpmpi needs on Debian 12 (idempotent; run as root).
# Build tools, usrsctp (SCTP transport), Open MPI and MPICH (the comparison runs), iproute2
# (netlab), Python with matplotlib (experiment plots), clang with libFuzzer (the native SCTP
# engine's fuzz test).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libusrsctp-dev iproute2 iputils-ping procps
      python3 python3-matplotlib openmpi-bin libopenmpi-dev mpich libmpich-dev gdb
      clang libclang-rt-14-dev)
pkgs+=(openssh-server)   # multi-host mpiexec tests: a real sshd per netlab host
pkgs+=(libpmix-dev slurm-wlm)   # PMIx client; the launcher tests' own Slurm (srun --mpi=pmix|pmi2)
pkgs+=(gfortran)   # Fortran bindings (src/fortran), mpifort
pkgs+=(debootstrap qemu-system-x86 qemu-utils libsctp-dev cpio bc)   # kernel SCTP backend and its VM test harness
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: missing packages (${missing[*]}) and not root: run as root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup.sh: all packages present"
