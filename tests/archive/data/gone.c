/* gone.c - a program that deletes its own binary first (a service whose package is upgraded
 * under it), then burns CPU in functions of known names (gone_mid calls gone_leaf): ROUNDS
 * rounds, and on until its parent (the recorder) holds the deleted binary open, so that the
 * recording sees it alive whatever the machine's load (at most 20 times ROUNDS). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void gone_leaf(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i * i;
}

__attribute__((noinline)) void gone_mid(unsigned long n)
{
    for (int k = 0; k < 20; k++)
        gone_leaf(n);
}

/* Does process pid have the file path, deleted, open? */
static int held_by(pid_t pid, const char *path)
{
    char dir[64], want[4200], fd[4400], got[4200];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    snprintf(want, sizeof want, "%s (deleted)", path);
    DIR *d = opendir(dir);
    int held = 0;
    for (struct dirent *e; d && !held && (e = readdir(d));) {
        snprintf(fd, sizeof fd, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(fd, got, sizeof got - 1);
        held = n > 0 && (got[n] = 0, !strcmp(got, want));
    }
    if (d)
        closedir(d);
    return held;
}

int main(int argc, char **argv)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    if (unlink(self) < 0) {
        perror(self);
        return 1;
    }
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100, r;
    int held = 0;
    for (r = 0; r < rounds || (!held && r < 20 * rounds); r++) {
        gone_mid(10000);
        if (!held && r % 16 == 0)
            held = held_by(getppid(), self);
    }
    printf("gone: deleted, %s\n", held ? "held open by the parent" : "not held open by the parent");
    return 0;
}
