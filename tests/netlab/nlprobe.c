/* netlab tests: a small traffic probe — UDP echo / RTT probes, UDP blast / sink with loss-burst
 * statistics, and a TCP (or MPTCP) stream sender / sink for rate measurements. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct sockaddr_in addr(const char *host, int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (!host) a.sin_addr.s_addr = htonl(INADDR_ANY);
  else if (inet_pton(AF_INET, host, &a.sin_addr) != 1) { fprintf(stderr, "nlprobe: bad address %s\n", host); exit(2); }
  return a;
}

static int udp_bound(int port) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  int big = 8 << 20;
  setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
  struct sockaddr_in a = addr(NULL, port);
  if (bind(s, (struct sockaddr *)&a, sizeof a)) { perror("nlprobe: bind"); exit(1); }
  return s;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* echo PORT IDLE_S: echo datagrams back until IDLE_S seconds without traffic */
static int echo(int port, double idle) {
  int s = udp_bound(port);
  char buf[65536];
  for (;;) {
    struct pollfd p = {s, POLLIN, 0};
    if (poll(&p, 1, (int)(idle * 1000)) <= 0) return 0;
    struct sockaddr_in from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(s, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
    if (n > 0) sendto(s, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
  }
}

/* rtt HOST PORT N INTERVAL_US: N probes, prints a summary line of RTTs in ms */
static int rtt(const char *host, int port, int n, int interval_us, int verbose) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = addr(host, port);
  if (connect(s, (struct sockaddr *)&a, sizeof a)) { perror("nlprobe: connect"); return 1; }
  double *sent = calloc((size_t)n, sizeof *sent), *rt = calloc((size_t)n, sizeof *rt);
  int got = 0, next = 0;
  double t0 = now_s(), last_send = 0;
  while (got < n) {
    double now = now_s();
    if (next < n && now >= t0 + (double)next * interval_us * 1e-6) {
      uint32_t seq = (uint32_t)next;
      char pkt[64] = {0};
      memcpy(pkt, &seq, 4);
      sent[next] = now_s();
      if (send(s, pkt, sizeof pkt, 0) < 0) perror("nlprobe: send");
      next++;
      last_send = now;
      continue;
    }
    double wait = next < n ? t0 + (double)next * interval_us * 1e-6 - now : last_send + 2.0 - now;
    if (next >= n && wait <= 0) break;
    struct pollfd p = {s, POLLIN, 0};
    int ms = (int)(wait * 1000);
    if (ms < 0) ms = 0;
    if (poll(&p, 1, ms) > 0) {
      char pkt[64];
      if (recv(s, pkt, sizeof pkt, 0) >= 4) {
        double t = now_s();
        uint32_t seq;
        memcpy(&seq, pkt, 4);
        if (seq < (uint32_t)n && rt[seq] == 0) { rt[seq] = (t - sent[seq]) * 1e3; got++; }
      }
    }
  }
  double *v = calloc((size_t)n, sizeof *v);
  int k = 0;
  double sum = 0;
  for (int i = 0; i < n; i++)
    if (rt[i] > 0) { v[k++] = rt[i]; sum += rt[i]; if (verbose) printf("%d %.4f\n", i, rt[i]); }
  free(sent);
  free(rt);
  if (!k) { printf("sent=%d recv=0\n", n); free(v); return 1; }
  qsort(v, (size_t)k, sizeof *v, cmp_d);
  double tsum = 0; /* mean without the lowest and highest 1% */
  int lo = k / 100, hi = k - k / 100;
  for (int i = lo; i < hi; i++) tsum += v[i];
  printf("sent=%d recv=%d min_ms=%.4f median_ms=%.4f mean_ms=%.4f tmean_ms=%.4f p01_ms=%.4f p99_ms=%.4f max_ms=%.4f\n", n, k,
         v[0], v[k / 2], sum / k, tsum / (hi - lo), v[k / 100], v[(k * 99) / 100], v[k - 1]);
  free(v);
  return 0;
}

/* blast HOST PORT N PPS SIZE: N sequence-numbered datagrams at PPS per second */
static int blast(const char *host, int port, long n, double pps, int size) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = addr(host, port);
  if (connect(s, (struct sockaddr *)&a, sizeof a)) { perror("nlprobe: connect"); return 1; }
  char *pkt = calloc(1, (size_t)(size < 8 ? 8 : size));
  double t0 = now_s();
  long errs = 0;
  for (long i = 0; i < n; i++) {
    double due = t0 + (double)i / pps;
    double now;
    while ((now = now_s()) < due) {
      double d = due - now;
      if (d > 200e-6) { struct timespec ts = {0, (long)((d - 100e-6) * 1e9)}; nanosleep(&ts, NULL); }
    }
    uint64_t seq = (uint64_t)i;
    memcpy(pkt, &seq, 8);
    if (send(s, pkt, (size_t)size, 0) < 0) errs++;
  }
  /* end marker sent several times */
  uint64_t end = UINT64_MAX;
  memcpy(pkt, &end, 8);
  for (int i = 0; i < 5; i++) send(s, pkt, 8, 0);
  printf("sent=%ld send_errors=%ld secs=%.3f\n", n, errs, now_s() - t0);
  free(pkt);
  return 0;
}

/* sink PORT IDLE_S: count datagrams until the end marker or IDLE_S idle; loss bursts from gaps */
static int sink(int port, double idle) {
  int s = udp_bound(port);
  char buf[65536];
  long recvd = 0, bursts = 0, lost = 0, reordered = 0;
  int64_t expect = 0;
  double first = 0, last = 0;
  for (;;) {
    struct pollfd p = {s, POLLIN, 0};
    if (poll(&p, 1, (int)(idle * 1000)) <= 0) break;
    ssize_t n = recv(s, buf, sizeof buf, 0);
    if (n < 8) continue;
    uint64_t seq;
    memcpy(&seq, buf, 8);
    if (seq == UINT64_MAX) break;
    last = now_s();
    if (!recvd) first = last;
    recvd++;
    if ((int64_t)seq < expect) { reordered++; continue; }
    if ((int64_t)seq > expect) { bursts++; lost += (long)((int64_t)seq - expect); }
    expect = (int64_t)seq + 1;
  }
  printf("recv=%ld highest=%lld lost_in_gaps=%ld bursts=%ld mean_burst=%.4f reordered=%ld secs=%.3f\n", recvd,
         (long long)expect, lost, bursts, bursts ? (double)lost / (double)bursts : 0.0, reordered, last - first);
  return 0;
}

/* tsend HOST PORT SECS [mptcp] / tsink PORT [mptcp]: one stream, goodput measured at the sink */
static int tsend(const char *host, int port, double secs, int proto) {
  int s = socket(AF_INET, SOCK_STREAM, proto);
  if (s < 0) { perror("nlprobe: socket"); return 1; }
  struct sockaddr_in a = addr(host, port);
  for (int i = 0; connect(s, (struct sockaddr *)&a, sizeof a); i++) {
    if (i > 50) { perror("nlprobe: connect"); return 1; }
    close(s);
    s = socket(AF_INET, SOCK_STREAM, proto);
    usleep(100000);
  }
  static char buf[1 << 16];
  double t0 = now_s();
  long long total = 0;
  while (now_s() - t0 < secs) {
    ssize_t w = send(s, buf, sizeof buf, 0);
    if (w <= 0) { perror("nlprobe: send"); return 1; }
    total += w;
  }
  shutdown(s, SHUT_WR);
  char c;
  while (recv(s, &c, 1, 0) > 0) {}
  printf("sent_bytes=%lld\n", total);
  return 0;
}

static int tsink(int port, int proto) {
  int l = socket(AF_INET, SOCK_STREAM, proto);
  if (l < 0) { perror("nlprobe: socket"); return 1; }
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = addr(NULL, port);
  if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1)) { perror("nlprobe: listen"); return 1; }
  int c = accept(l, NULL, NULL);
  if (c < 0) { perror("nlprobe: accept"); return 1; }
  static char buf[1 << 16];
  long long total = 0;
  double t0 = 0, t1 = 0;
  ssize_t r;
  while ((r = recv(c, buf, sizeof buf, 0)) > 0) {
    if (!total) t0 = now_s();
    total += r;
    t1 = now_s();
  }
  int is_mptcp = 0;
  socklen_t pl = sizeof is_mptcp;
  int proto_got = 0;
  if (getsockopt(c, SOL_SOCKET, SO_PROTOCOL, &proto_got, &pl) == 0) is_mptcp = proto_got == IPPROTO_MPTCP;
  printf("bytes=%lld secs=%.3f mbit=%.2f mptcp=%d\n", total, t1 - t0, t1 > t0 ? (double)total * 8 / (t1 - t0) / 1e6 : 0.0, is_mptcp);
  close(c);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "echo")) return echo(atoi(argv[2]), atof(argv[3]));
  if (argc >= 6 && !strcmp(argv[1], "rtt")) return rtt(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), argc > 6);
  if (argc >= 7 && !strcmp(argv[1], "blast")) return blast(argv[2], atoi(argv[3]), atol(argv[4]), atof(argv[5]), atoi(argv[6]));
  if (argc >= 4 && !strcmp(argv[1], "sink")) return sink(atoi(argv[2]), atof(argv[3]));
  if (argc >= 5 && !strcmp(argv[1], "tsend")) return tsend(argv[2], atoi(argv[3]), atof(argv[4]), argc > 5 ? IPPROTO_MPTCP : 0);
  if (argc >= 3 && !strcmp(argv[1], "tsink")) return tsink(atoi(argv[2]), argc > 3 ? IPPROTO_MPTCP : 0);
  fprintf(stderr,
          "usage: nlprobe echo PORT IDLE_S | rtt HOST PORT N INTERVAL_US [v] | blast HOST PORT N PPS SIZE |\n"
          "       sink PORT IDLE_S | tsend HOST PORT SECS [mptcp] | tsink PORT [mptcp]\n");
  return 2;
}
