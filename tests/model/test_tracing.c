/* model/tracing.h against the real tracefs (as root): the directory found, sched:sched_switch's
 * id and format as the files hold them, and, in a private mount namespace without tracefs, the
 * mount it makes and undoes. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tr.h"
#include "tracing.h"

/* The directory holding sched_switch's id and the number in that file, read here, not
 * through the module; NULL when the kernel has neither tracefs location. */
static const char *kernel_switch_id(unsigned long long *id)
{
    static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
    for (size_t i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/events/sched/sched_switch/id", dirs[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int ok = fscanf(f, "%llu", id) == 1;
        fclose(f);
        if (ok)
            return dirs[i];
    }
    return NULL;
}

static void test_switch(void **state)
{
    (void)state;
    unsigned long long want;
    const char *kdir = kernel_switch_id(&want);
    if (!kdir) {
        print_message("SKIP: no tracefs with sched:sched_switch (make test mounts it)\n");
        skip();
    }
    const char *dir = tracing_dir();
    assert_non_null(dir);
    assert_string_equal(dir, kdir);
    uint64_t id = 0;
    assert_int_equal(tracing_event_id(dir, "sched", "sched_switch", &id), 0);
    assert_int_equal(id, want);
    size_t len = 0;
    char *fmt = tracing_event_format(dir, "sched", "sched_switch", &len);
    assert_non_null(fmt);
    assert_int_equal(len, strlen(fmt));
    char head[64];
    snprintf(head, sizeof head, "name: sched_switch\nID: %llu\n", want);
    assert_int_equal(strncmp(fmt, head, strlen(head)), 0);
    assert_non_null(strstr(fmt, "field:pid_t prev_pid;"));
    free(fmt);

    errno = 0;
    assert_int_equal(tracing_event_id(dir, "sched", "no_such_event", &id), TR_E_IO);
    assert_int_equal(errno, ENOENT);
    assert_null(tracing_event_format(dir, "no_such_system", "sched_switch", NULL));
    assert_int_equal(errno, ENOENT);
    char path[256];
    assert_string_equal(tracing_event_path(path, sizeof path, "/t", "s", "e", "id"), "/t/events/s/e/id");

    tracing_release(); /* it mounted nothing: the machine's tracefs stays */
    assert_non_null(kernel_switch_id(&want));
}

static int tracefs_mounts(void)
{
    FILE *f = fopen("/proc/self/mounts", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, " tracefs ") != NULL;
    if (f)
        fclose(f);
    return n;
}

/* In the namespace without tracefs: which step failed, 0 none. */
static int mount_steps(void)
{
    if (tracefs_mounts() != 0)
        return 1;
    const char *dir = tracing_dir();
    if (!dir || strcmp(dir, "/sys/kernel/tracing") || tracefs_mounts() != 1)
        return 2;
    uint64_t id;
    if (tracing_event_id(dir, "sched", "sched_switch", &id) != 0)
        return 3;
    if (tracing_dir() != dir || tracefs_mounts() != 1) /* found now, not mounted again */
        return 4;
    pid_t child = fork(); /* a child's release leaves the parent's mount */
    if (child == 0) {
        tracing_release();
        _exit(0);
    }
    int st;
    if (child < 0 || waitpid(child, &st, 0) != child || tracefs_mounts() != 1)
        return 5;
    tracing_release();
    if (tracefs_mounts() != 0)
        return 6;
    tracing_release(); /* once only */
    return 0;
}

static void test_mounts_when_absent(void **state)
{
    (void)state;
    unsigned long long want;
    if (!kernel_switch_id(&want)) {
        print_message("SKIP: no tracefs with sched:sched_switch (make test mounts it)\n");
        skip();
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int rc = 100;
        if (unshare(CLONE_NEWNS) < 0)
            rc = errno == EPERM || errno == EINVAL ? 99 : 100;
        else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
            /* no tracefs: unmounted here, debugfs's automount covered */
            umount2("/sys/kernel/tracing", MNT_DETACH);
            mount("none", "/sys/kernel/debug", "tmpfs", 0, NULL);
            rc = mount_steps();
        }
        _exit(rc);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 99) {
        print_message("SKIP: the kernel refuses a private mount namespace\n");
        skip();
    }
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_non_null(kernel_switch_id(&want)); /* the machine's mount as it was */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switch),
        cmocka_unit_test(test_mounts_when_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
