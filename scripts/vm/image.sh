#!/bin/bash
# image.sh — builds the Debian 12 guest image of the VM tests once and caches it.
#
# Output: $SCTPMPI_VM_CACHE (default /var/cache/sctpmpi-vm)/<hash>/{rootfs.img,vmlinuz,initrd.img}
# where <hash> covers this script, so an edit rebuilds and an unchanged harness reuses the
# image.  The image's init is a stub that mounts the host's tree (9p, tag "src", at the path
# sm.src= on the kernel command line) and runs scripts/vm/guest-init.sh from it, so the
# guest's behaviour can change without a rebuild.  Everything comes from Debian's package mirror (debootstrap):
# the guest kernel (linux-image-amd64, which has the sctp and netem modules), the runtime
# libraries of our test programs, iproute2 for tc.  Prints the image directory on stdout.
# Needs root (debootstrap, mknod in the chroot) and debootstrap + e2fsprogs on the host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${SCTPMPI_VM_CACHE:-/var/cache/sctpmpi-vm}
mirror=${SCTPMPI_VM_MIRROR:-http://deb.debian.org/debian}
key=$(sha256sum <"$here/image.sh" | cut -c1-16)
out=$cache/$key
if [ -s "$out/rootfs.img" ] && [ -s "$out/vmlinuz" ] && [ -s "$out/initrd.img" ]; then
  echo "$out"
  exit 0
fi
die() { echo "image.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "building the guest image needs root (debootstrap)"
command -v debootstrap >/dev/null || die "debootstrap missing (bash scripts/setup.sh)"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing (e2fsprogs)"
mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
root=$work/root
t0=$(date +%s)
echo "image.sh: building the guest image in $out (debootstrap from $mirror, a few minutes)" >&2
pkgs=linux-image-amd64,kmod,iproute2,procps,libusrsctp2,libsctp1,lksctp-tools,initramfs-tools
debootstrap --variant=minbase --include="$pkgs" bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
cat >"$root/sbin/sctpmpi-vm-init" <<'STUB'
#!/bin/sh
# init stub of the sctpmpi test guests: mount the host's tree, run its guest-init.sh
mount -t proc proc /proc
src=/work
for a in $(cat /proc/cmdline); do case $a in sm.src=*) src=${a#sm.src=} ;; esac; done
modprobe -q 9pnet_virtio; modprobe -q 9p
mkdir -p "$src"
mount -t 9p -o trans=virtio,version=9p2000.L,ro src "$src" || { echo "init: no 9p share"; sleep 1; echo o >/proc/sysrq-trigger; }
exec /bin/bash "$src/scripts/vm/guest-init.sh"
STUB
chmod 0755 "$root/sbin/sctpmpi-vm-init"
kver=$(ls "$root/lib/modules" | head -1)
[ -n "$kver" ] || die "no kernel in the image"
# an initrd with the virtio and ext4 modules (debootstrap's chroot may not have made one)
if [ ! -s "$root/boot/initrd.img-$kver" ]; then
  printf 'virtio_pci\nvirtio_blk\next4\n' >>"$root/etc/initramfs-tools/modules"
  chroot "$root" update-initramfs -c -k "$kver" >"$work/initramfs.log" 2>&1 ||
    { tail -20 "$work/initramfs.log" >&2; die "update-initramfs failed"; }
fi
mkdir -p "$work/out"
cp "$root/boot/vmlinuz-$kver" "$work/out/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$work/out/initrd.img"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/usr/share/doc/* "$root"/usr/share/man/* \
  "$root"/usr/share/locale/* "$root/boot"/*
echo "sctpmpi-vm" >"$root/etc/hostname"
size=$(($(du -sm "$root" | cut -f1) + 256))
mkfs.ext4 -q -L root -d "$root" "$work/out/rootfs.img" "${size}M" ||
  die "mkfs.ext4 -d failed"
rm -rf "$out"
mv "$work/out" "$out"
echo "image.sh: image built in $(($(date +%s) - t0)) s: $out" >&2
echo "$out"
