/* tasks.c - tid -> tgid and comm, read from /proc when a tid is first seen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "ftrace.h"
#include "hashmap.h"

struct ft_tasks {
    hashmap by_tid;        /* tid -> struct ft_task (each its own allocation: entries stay put) */
    struct ft_task **v;    /* in the order first seen */
    size_t n, cap;
};

struct ft_tasks *ft_tasks_new(void)
{
    return calloc(1, sizeof(struct ft_tasks));
}

void ft_tasks_free(struct ft_tasks *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    hashmap_free(&t->by_tid);
    free(t);
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
    if (ft_kernel_pid() != getpid())
        return; /* a PID namespace: /proc's pids are not the events' (the kernel's maps tell) */
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
    struct ft_task *task = hashmap_get(&t->by_tid, (uint64_t)tid, 0);
    if (task) {
        *is_new = 0;
        return task;
    }
    if (array_reserve(&t->v, &t->cap, t->n + 1, sizeof *t->v, 256) < 0 || !(task = calloc(1, sizeof *task)))
        return NULL;
    if (hashmap_put(&t->by_tid, (uint64_t)tid, 0, task) < 0) {
        free(task);
        return NULL;
    }
    t->v[t->n++] = task;
    task->tid = tid;
    task->tgid = -1;
    read_proc(task);
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
    /* the pids the kernel already maps (its lines are "PID ...") */
    hashmap known = {0};
    static char mark;
    for (const char *p = kernel; p && *p;) {
        while (*p == ' ')
            p++;
        char *end;
        long pid = strtol(p, &end, 10);
        if (end > p && *end == ' ' && hashmap_put(&known, (uint64_t)pid, 0, &mark) < 0) {
            hashmap_free(&known);
            free(out);
            return NULL;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (klen) {
        memcpy(out, kernel, klen);
        n = klen;
        if (out[n - 1] != '\n')
            out[n++] = '\n';
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct ft_task *task = t->v[i];
        if (task->tid <= 0)
            continue;
        if (tgids ? task->tgid < 0 : !task->known)
            continue;
        if (hashmap_get(&known, (uint64_t)task->tid, 0))
            continue;
        if (tgids)
            n += (size_t)snprintf(out + n, cap - n, "%d %d\n", task->tid, task->tgid);
        else
            n += (size_t)snprintf(out + n, cap - n, "%d %s\n", task->tid, task->comm);
    }
    hashmap_free(&known);
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
