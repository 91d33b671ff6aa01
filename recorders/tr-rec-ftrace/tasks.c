/* tasks.c - tid -> tgid and comm, read from /proc when a tid is first seen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ftrace.h"

struct ft_tasks {
    struct ft_task *slots; /* open addressing; tid -1 = empty */
    size_t cap, n;
};

struct ft_tasks *ft_tasks_new(void)
{
    struct ft_tasks *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cap = 256;
    t->slots = malloc(t->cap * sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    for (size_t i = 0; i < t->cap; i++)
        t->slots[i].tid = -1;
    return t;
}

void ft_tasks_free(struct ft_tasks *t)
{
    if (!t)
        return;
    free(t->slots);
    free(t);
}

static size_t slot_of(const struct ft_tasks *t, int32_t tid)
{
    size_t i = ((uint32_t)tid * 2654435761u) & (t->cap - 1);
    while (t->slots[i].tid != -1 && t->slots[i].tid != tid)
        i = (i + 1) & (t->cap - 1);
    return i;
}

static int grow(struct ft_tasks *t)
{
    struct ft_tasks big = {0};
    big.cap = t->cap * 2;
    big.slots = malloc(big.cap * sizeof *big.slots);
    if (!big.slots)
        return -1;
    for (size_t i = 0; i < big.cap; i++)
        big.slots[i].tid = -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].tid != -1)
            big.slots[slot_of(&big, t->slots[i].tid)] = t->slots[i];
    free(t->slots);
    t->slots = big.slots;
    t->cap = big.cap;
    return 0;
}

static void read_proc(struct ft_task *task)
{
    char path[64], line[256];
    if (task->tid == 0) {
        snprintf(task->comm, sizeof task->comm, "<idle>");
        task->tgid = 0;
        task->known = 1;
        return;
    }
    if (cli_read_comm(task->tid, task->tid, task->comm, sizeof task->comm) == 0)
        task->known = 1;
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", task->tid, task->tid);
    FILE *f = fopen(path, "re");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "Tgid:", 5)) {
                task->tgid = atoi(line + 5);
                break;
            }
        fclose(f);
    }
}

struct ft_task *ft_tasks_get(struct ft_tasks *t, int32_t tid, int *is_new)
{
    if (tid < 0)
        return NULL;
    size_t i = slot_of(t, tid);
    if (t->slots[i].tid == tid) {
        *is_new = 0;
        return &t->slots[i];
    }
    if ((t->n + 1) * 2 > t->cap) {
        if (grow(t) < 0)
            return NULL;
        i = slot_of(t, tid);
    }
    struct ft_task *task = &t->slots[i];
    memset(task, 0, sizeof *task);
    task->tid = tid;
    task->tgid = -1;
    read_proc(task);
    t->n++;
    *is_new = 1;
    return task;
}

int ft_tasks_refresh(struct ft_tasks *t, struct ft_task *task)
{
    (void)t;
    char old[16];
    memcpy(old, task->comm, sizeof old);
    read_proc(task);
    return strcmp(old, task->comm) != 0;
}

/* Append "a b\n" lines of the kernel's text, then ours for pids it lacks. */
static char *merge(struct ft_tasks *t, const char *kernel, size_t *len, int tgids)
{
    size_t klen = kernel ? strlen(kernel) : 0;
    size_t cap = klen + t->n * 40 + 2;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t n = 0;
    /* pids the kernel already maps: mark with a second table pass */
    if (klen) {
        memcpy(out, kernel, klen);
        n = klen;
        if (out[n - 1] != '\n')
            out[n++] = '\n';
    }
    for (size_t i = 0; i < t->cap; i++) {
        const struct ft_task *task = &t->slots[i];
        if (task->tid <= 0)
            continue;
        if (tgids ? task->tgid < 0 : !task->known)
            continue;
        char key[24];
        int kl = snprintf(key, sizeof key, "%d ", task->tid);
        int dup = 0;
        for (const char *p = kernel; p && *p && !dup;) {
            while (*p == ' ')
                p++;
            if (!strncmp(p, key, (size_t)kl))
                dup = 1;
            p = strchr(p, '\n');
            if (p)
                p++;
        }
        if (dup)
            continue;
        if (tgids)
            n += (size_t)snprintf(out + n, cap - n, "%d %d\n", task->tid, task->tgid);
        else
            n += (size_t)snprintf(out + n, cap - n, "%d %s\n", task->tid, task->comm);
    }
    out[n] = 0;
    *len = n;
    return out;
}

char *ft_tasks_cmdlines(struct ft_tasks *t, const char *kernel, size_t *len)
{
    return merge(t, kernel, len, 0);
}

char *ft_tasks_tgids(struct ft_tasks *t, const char *kernel, size_t *len)
{
    return merge(t, kernel, len, 1);
}
