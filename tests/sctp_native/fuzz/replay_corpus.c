/* replay_corpus.c — runs the packet fuzz target (fuzz_packet.c) over corpus files without
 * libFuzzer, so the ordinary gcc build (and its ASan/UBSan build) exercises the parser on every
 * corpus entry.  Arguments: files or directories (their regular files, not recursive).  Also
 * feeds each entry under every scenario mode and with every single byte flipped in a few
 * positions, a cheap deterministic mutation pass.  Prints "replayed N inputs" and exits 0;
 * a crash or sanitizer report fails the test. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_harness.h"

static long inputs;

static void run(const uint8_t *data, size_t len)
{
    LLVMFuzzerTestOneInput(data, len);
    inputs++;
}

static void replay(const uint8_t *data, size_t len, int mutate)
{
    run(data, len);
    if (!mutate || len < 2)
        return;
    uint8_t *copy = malloc(len);
    if (!copy)
        return;
    /* the same packet in the other scenarios (keep the fix-up and multi-packet bits), and from
     * an unknown source */
    for (unsigned m = 0; m < 8; m++) {
        memcpy(copy, data, len);
        copy[0] = (uint8_t)((data[0] & ~(FZ_STATE_MASK | FZ_TARGET_CLIENT)) | m);
        if (copy[0] != data[0])
            run(copy, len);
    }
    memcpy(copy, data, len);
    copy[0] ^= FZ_FOREIGN_SOURCE;
    run(copy, len);
    /* a handful of byte flips and truncations, spread over the packet */
    for (size_t k = 1; k < len; k += 1 + len / 8) {
        memcpy(copy, data, len);
        copy[k] ^= 0xff;
        run(copy, len);
        run(data, k);
    }
    free(copy);
}

static int replay_file(const char *path, int mutate)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    uint8_t *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    if (!buf)
        return -1;
    uint8_t *exact = malloc(n ? n : 1); /* exact size: ASan catches over-reads */
    if (exact) {
        memcpy(exact, buf, n);
        replay(exact, n, mutate);
    }
    free(exact);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int mutate = 1, rc = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-mutate")) {
            mutate = 0;
            continue;
        }
        struct stat sb;
        if (stat(argv[i], &sb) < 0) {
            perror(argv[i]);
            rc = 1;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            rc |= replay_file(argv[i], mutate) < 0;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
                rc |= replay_file(path, mutate) < 0;
        }
        if (d)
            closedir(d);
    }
    if (inputs == 0) {
        fprintf(stderr, "replay_corpus: no input files\n");
        return 1;
    }
    printf("replay_corpus: replayed %ld inputs\n", inputs);
    return rc;
}
