/* reader.c - a thread that only empties the kernel's per-CPU ring buffers into memory.
 *
 * Parsing, ordering, compressing and writing take far longer than read(2) of a sub-buffer;
 * done in the same thread they let a storm overrun the ring buffer while a chunk is being
 * compressed.  This thread copies sub-buffers into a queue (bounded by max_pages) as soon as
 * the kernel has them, and tells the main thread through a pipe. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "ftrace.h"

#define PAGES_PER_ROUND 64

struct ft_reader {
    int ncpus;
    struct tracefs_cpu **tcpus;
    const int *fds;
    size_t subbuf_size, max_pages;
    int notify_fd;          /* main thread's wakeup pipe (write end) */
    int ctl[2];             /* wakes the thread up to finish */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t room;    /* queue below max_pages again */
    struct ft_item *head, *tail, *free;
    size_t queued;          /* data items queued */
    int finish;             /* drain everything, then end */
    int started;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct ft_item *get_item(struct ft_reader *r)
{
    pthread_mutex_lock(&r->lock);
    struct ft_item *it = r->free;
    if (it)
        r->free = it->next;
    pthread_mutex_unlock(&r->lock);
    if (!it) {
        it = malloc(sizeof *it + r->subbuf_size);
        if (!it)
            return NULL;
        it->data = (uint8_t *)(it + 1);
    }
    it->next = NULL;
    it->len = 0;
    it->bound = 0;
    it->eof = 0;
    return it;
}

static void push(struct ft_reader *r, struct ft_item *it, int data)
{
    pthread_mutex_lock(&r->lock);
    while (data && r->queued >= r->max_pages && !r->finish)
        pthread_cond_wait(&r->room, &r->lock);
    if (r->tail)
        r->tail->next = it;
    else
        r->head = it;
    r->tail = it;
    if (data)
        r->queued++;
    pthread_mutex_unlock(&r->lock);
}

static void notify(struct ft_reader *r)
{
    char c = 1;
    if (write(r->notify_fd, &c, 1) < 0) { /* full pipe: the main thread is awake anyway */ }
}

/* Read up to max sub-buffers of one CPU; returns how many. */
static int read_cpu(struct ft_reader *r, int cpu, int max)
{
    int n = 0;
    while (n < max) {
        struct ft_item *it = get_item(r);
        if (!it)
            return n;
        /* what is written from now on is stamped later than this (less a margin for
         * events being committed while we read) */
        uint64_t before = mono_ns() - 1000000;
        int len = tracefs_cpu_read(r->tcpus[cpu], it->data, true);
        it->cpu = cpu;
        if (len <= 0) {
            it->bound = before; /* empty: a time bound for ordering, no data */
            push(r, it, 0);
            break;
        }
        if ((size_t)len < r->subbuf_size)
            memset(it->data + len, 0, r->subbuf_size - (size_t)len);
        it->len = (uint32_t)r->subbuf_size;
        push(r, it, 1);
        n++;
    }
    return n;
}

static void *run(void *arg)
{
    struct ft_reader *r = arg;
    struct pollfd *pfd = calloc((size_t)r->ncpus + 1, sizeof *pfd);
    int more = 0;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        int finish = r->finish;
        pthread_mutex_unlock(&r->lock);
        if (finish)
            break;
        if (pfd) {
            for (int i = 0; i < r->ncpus; i++) {
                pfd[i].fd = r->tcpus[i] ? r->fds[i] : -1;
                pfd[i].events = POLLIN;
            }
            pfd[r->ncpus].fd = r->ctl[0];
            pfd[r->ncpus].events = POLLIN;
            poll(pfd, (nfds_t)r->ncpus + 1, more ? 0 : 100);
        }
        more = 0;
        for (int i = 0; i < r->ncpus; i++)
            if (r->tcpus[i] && read_cpu(r, i, PAGES_PER_ROUND) == PAGES_PER_ROUND)
                more = 1;
        notify(r);
    }
    /* tracing is off: empty every buffer */
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; i < r->ncpus; i++)
            if (r->tcpus[i] && read_cpu(r, i, PAGES_PER_ROUND) == PAGES_PER_ROUND)
                again = 1;
    }
    struct ft_item *eof = get_item(r);
    if (eof) {
        eof->eof = 1;
        eof->cpu = -1;
        push(r, eof, 0);
    }
    notify(r);
    free(pfd);
    return NULL;
}

struct ft_reader *ft_reader_start(int ncpus, struct tracefs_cpu **tcpus, const int *fds,
                                  size_t subbuf_size, size_t max_pages, int notify_fd)
{
    struct ft_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->ncpus = ncpus;
    r->tcpus = tcpus;
    r->fds = fds;
    r->subbuf_size = subbuf_size;
    r->max_pages = max_pages ? max_pages : 1;
    r->notify_fd = notify_fd;
    if (pipe(r->ctl) < 0) {
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->room, NULL);
    /* signals are for the main thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&r->thread, NULL, run, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(r->ctl[0]);
        close(r->ctl[1]);
        free(r);
        errno = rc;
        return NULL;
    }
    r->started = 1;
    return r;
}

struct ft_item *ft_reader_take(struct ft_reader *r)
{
    pthread_mutex_lock(&r->lock);
    struct ft_item *list = r->head;
    r->head = r->tail = NULL;
    r->queued = 0;
    pthread_cond_signal(&r->room);
    pthread_mutex_unlock(&r->lock);
    return list;
}

void ft_reader_recycle(struct ft_reader *r, struct ft_item *list)
{
    if (!list)
        return;
    struct ft_item *last = list;
    while (last->next)
        last = last->next;
    pthread_mutex_lock(&r->lock);
    last->next = r->free;
    r->free = list;
    pthread_mutex_unlock(&r->lock);
}

void ft_reader_finish(struct ft_reader *r)
{
    pthread_mutex_lock(&r->lock);
    r->finish = 1;
    pthread_cond_signal(&r->room);
    pthread_mutex_unlock(&r->lock);
    char c = 1;
    if (write(r->ctl[1], &c, 1) < 0) { /* the thread polls at least every 100 ms */ }
}

void ft_reader_free(struct ft_reader *r)
{
    if (!r)
        return;
    if (r->started) {
        ft_reader_finish(r);
        pthread_join(r->thread, NULL);
    }
    for (struct ft_item *l = r->head; l;) {
        struct ft_item *n = l->next;
        free(l);
        l = n;
    }
    for (struct ft_item *l = r->free; l;) {
        struct ft_item *n = l->next;
        free(l);
        l = n;
    }
    close(r->ctl[0]);
    close(r->ctl[1]);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->room);
    free(r);
}
