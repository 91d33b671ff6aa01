/* server.c - benchmark workload: a multi-threaded server.  A client thread sends requests over
 * one socketpair per worker to NWORKERS (default 6) worker threads, round robin, and reads the
 * replies.  A request is a text line of "key=value" fields; a worker parses it into small heap
 * objects, hashes every field (FNV-1a), sorts the fields by hash, builds a reply and writes it.
 * The requests come from a fixed-seed generator: every run does the same work, for SECONDS.
 *
 *   server SECONDS [NWORKERS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXW 16
#define REQ_MAX 4096

struct field { char *key, *val; uint64_t hash; };

static int fds[MAXW][2];
static unsigned long served[MAXW];

static int read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) { /* requests end with '\n'; socketpairs keep message boundaries here (SOCK_SEQPACKET) */
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0)
            return -1;
        n += (size_t)r;
        if (buf[n - 1] == '\n' || n == cap)
            break;
    }
    buf[n - 1] = 0;
    return (int)n;
}

__attribute__((noinline)) static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int by_hash(const void *a, const void *b)
{
    const struct field *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

__attribute__((noinline)) static size_t parse(char *line, struct field *f, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *tok = strtok_r(line, " ", &save); tok && n < max; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        f[n].key = strdup(tok);
        f[n].val = strdup(eq + 1);
        n++;
    }
    return n;
}

__attribute__((noinline)) static size_t handle(char *req, char *reply, size_t cap)
{
    struct field f[128];
    size_t n = parse(req, f, 128), len = 0;
    for (size_t i = 0; i < n; i++) {
        char *kv = malloc(strlen(f[i].key) + strlen(f[i].val) + 2);
        sprintf(kv, "%s:%s", f[i].key, f[i].val);
        f[i].hash = fnv1a(kv);
        free(kv);
    }
    qsort(f, n, sizeof *f, by_hash);
    for (size_t i = 0; i < n; i++) {
        if (len + 64 < cap)
            len += (size_t)snprintf(reply + len, cap - len, "%s=%016llx ", f[i].key, (unsigned long long)f[i].hash);
        free(f[i].key);
        free(f[i].val);
    }
    reply[len++] = '\n';
    return len;
}

static void *worker(void *arg)
{
    long w = (long)arg;
    char req[REQ_MAX], reply[REQ_MAX * 2];
    while (read_line(fds[w][1], req, sizeof req) > 0) {
        size_t len = handle(req, reply, sizeof reply);
        if (write(fds[w][1], reply, len) != (ssize_t)len)
            break;
        served[w]++;
    }
    return NULL;
}

__attribute__((noinline)) static size_t make_request(unsigned *seed, char *buf, size_t cap)
{
    static const char *words[] = {"user", "session", "path", "agent", "token", "lang", "item",
                                  "price", "count", "region", "zone", "query", "sort", "page"};
    size_t len = 0, n = 20 + (*seed >> 8) % 60;
    for (size_t i = 0; i < n && len + 64 < cap; i++) {
        *seed = *seed * 1103515245 + 12345;
        len += (size_t)snprintf(buf + len, cap - len, "%s%u=%x%s ", words[(*seed >> 16) % 14], (*seed >> 4) % 97,
                                *seed, (*seed & 1) ? "-value" : "");
    }
    buf[len++] = '\n';
    return len;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 5;
    int nw = argc > 2 ? atoi(argv[2]) : 6;
    if (nw < 1 || nw > MAXW) {
        fprintf(stderr, "server: NWORKERS must be 1..%d\n", MAXW);
        return 2;
    }
    pthread_t th[MAXW];
    for (long w = 0; w < nw; w++) {
        if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds[w]) < 0) {
            perror("server: socketpair");
            return 1;
        }
        pthread_create(&th[w], NULL, worker, (void *)w);
    }
    /* the client: keeps one request in flight per worker */
    char req[REQ_MAX], reply[REQ_MAX * 2];
    unsigned seed = 1;
    unsigned long total = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int w = 0; w < nw; w++) {
        size_t len = make_request(&seed, req, sizeof req);
        if (write(fds[w][0], req, len) != (ssize_t)len)
            return 1;
    }
    do {
        for (int w = 0; w < nw; w++) {
            if (read_line(fds[w][0], reply, sizeof reply) < 0)
                return 1;
            total += (unsigned char)reply[0];
            size_t len = make_request(&seed, req, sizeof req);
            if (write(fds[w][0], req, len) != (ssize_t)len)
                return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
    for (int w = 0; w < nw; w++) {
        read_line(fds[w][0], reply, sizeof reply);
        shutdown(fds[w][0], SHUT_WR);
    }
    unsigned long n = 0;
    for (int w = 0; w < nw; w++) {
        pthread_join(th[w], NULL);
        n += served[w];
    }
    printf("server: %lu requests (%lu)\n", n, total);
    return 0;
}
