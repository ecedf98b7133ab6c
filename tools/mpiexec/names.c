/* names.c — the name service of mpiexec: the PMI-1 commands publish_name, unpublish_name and
 * lookup_name.  A name is a file in a directory: SCTPMPI_NAME_DIR when set (separately
 * started mpiexec jobs that share it see each other's names), else one this mpiexec makes
 * under /tmp on first use and removes when it exits; jobs it spawns inherit the directory
 * through the environment, so parents and children share names.  The file's name is the
 * service name in hex (any service name is safe as a file name); its content is the port. */
#include "names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char own_dir[64]; /* the directory we made, removed at exit */

static const char *name_dir(void)
{
    const char *d = getenv("SCTPMPI_NAME_DIR");
    if (d && *d)
        return d;
    snprintf(own_dir, sizeof own_dir, "/tmp/sctpmpi-names-XXXXXX");
    if (!mkdtemp(own_dir)) {
        own_dir[0] = '\0';
        return NULL;
    }
    setenv("SCTPMPI_NAME_DIR", own_dir, 1);
    return own_dir;
}

void names_export(void)
{
    (void)name_dir();
}

static int path_of(const char *service, char *out, size_t len)
{
    const char *d = name_dir();
    if (!d || strlen(service) > 255)
        return -1;
    size_t o = (size_t)snprintf(out, len, "%s/", d);
    for (const unsigned char *p = (const unsigned char *)service; *p && o + 3 < len; p++)
        o += (size_t)snprintf(out + o, len - o, "%02x", *p);
    return 0;
}

int names_serve(const struct pmi_wire_server *s, struct pmi_wire_conn *c, const char *cmd,
                const struct pmi_wire_request *rq)
{
    const char *service = pmi_wire_field(rq, "service");
    char path[1024];
    if (!strcmp(cmd, "publish_name")) {
        const char *port = pmi_wire_field(rq, "port");
        int fd = -1;
        if (!service || !port || path_of(service, path, sizeof path) ||
            (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
            pmi_wire_reply(s, c, "cmd=publish_result rc=-1 msg=%s\n",
                           fd < 0 && errno == EEXIST ? "the_name_is_already_published"
                                                     : "cannot_publish_the_name");
            return 1;
        }
        int ok = write(fd, port, strlen(port)) == (ssize_t)strlen(port);
        close(fd);
        if (!ok)
            unlink(path);
        pmi_wire_reply(s, c, "cmd=publish_result rc=%d info=%s\n", ok ? 0 : -1,
                       ok ? "ok" : "write_failed");
        return 1;
    }
    if (!strcmp(cmd, "unpublish_name")) {
        int ok = service && !path_of(service, path, sizeof path) && unlink(path) == 0;
        if (ok)
            pmi_wire_reply(s, c, "cmd=unpublish_result rc=0 info=ok\n");
        else
            pmi_wire_reply(s, c, "cmd=unpublish_result rc=-1 msg=the_name_is_not_published\n");
        return 1;
    }
    if (!strcmp(cmd, "lookup_name")) {
        char port[1100] = "";
        int fd = service && !path_of(service, path, sizeof path)
                     ? open(path, O_RDONLY | O_CLOEXEC)
                     : -1;
        ssize_t n = fd >= 0 ? read(fd, port, sizeof port - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n <= 0) {
            pmi_wire_reply(s, c, "cmd=lookup_result rc=-1 msg=the_name_is_not_published\n");
        } else {
            port[n] = '\0';
            pmi_wire_reply(s, c, "cmd=lookup_result rc=0 info=ok port=%s\n", port);
        }
        return 1;
    }
    return 0;
}

void names_cleanup(void)
{
    if (!own_dir[0])
        return;
    /* remove what is left in our own directory, then the directory */
    char path[1024];
    DIR *d = opendir(own_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                snprintf(path, sizeof path, "%s/%s", own_dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(own_dir);
    own_dir[0] = '\0';
}
