/* mini_init.c — /init of the small initrd of the test guests (built by vmlab.sh): loads the
 * modules the root disk needs (listed in /modules, in order), mounts /dev/vda and switches to
 * it, then runs the image's init (sctpmpi-vm-init).  It replaces Debian's initramfs, whose
 * udev start takes most of a guest's boot under emulation.  Static, no libraries. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void say(const char *m)
{
    int fd = open("/dev/console", O_WRONLY);
    if (fd >= 0) {
        write(fd, m, strlen(m));
        close(fd);
    }
}

int main(void)
{
    mkdir("/dev", 0755);
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    FILE *list = fopen("/modules", "r");
    char line[256];
    while (list && fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = '\0';
        int fd = open(line, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || syscall(SYS_finit_module, fd, "", 0) != 0) {
            say("mini_init: cannot load ");
            say(line);
            say("\n");
        }
        if (fd >= 0)
            close(fd);
    }
    mkdir("/root", 0755);
    for (int i = 0; i < 100; i++) { /* the disk appears asynchronously */
        if (mount("/dev/vda", "/root", "ext4", 0, NULL) == 0)
            break;
        usleep(20000);
    }
    if (chdir("/root") != 0 || mount(".", "/", NULL, MS_MOVE, NULL) != 0 || chroot(".") != 0 ||
        chdir("/") != 0) {
        say("mini_init: cannot mount the root disk\n");
        return 1;
    }
    umount2("/dev", MNT_DETACH);
    char *argv[] = { "/sbin/sctpmpi-vm-init", NULL };
    execv(argv[0], argv);
    say("mini_init: cannot run /sbin/sctpmpi-vm-init\n");
    return 1;
}
