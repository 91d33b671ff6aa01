/* dec2.c - timers, select and poll with their results, waitid, prctl, ioctls, memory
 * calls, locks, priorities, times, ids, scheduling, inotify and namespaces whose arguments strace decodes.  Every value is the
 * same in every run (the timeouts are 0, the set of ready fds is known) but the times left
 * on running timers and the CPU times: the case leaves the *gettime, getitimer and times
 * lines out of the comparison. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    timer_t t;
    struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
    signal(SIGALRM, SIG_IGN);
    timer_create(CLOCK_MONOTONIC, &sev, &t);
    struct itimerspec its = { { 0, 0 }, { 5, 0 } }, old;
    timer_settime(t, 0, &its, &old);
    timer_gettime(t, &old);
    timer_delete(t);
    struct itimerval itv = { { 0, 0 }, { 3, 0 } }, oitv;
    setitimer(ITIMER_REAL, &itv, &oitv);
    getitimer(ITIMER_REAL, &oitv);
    itv.it_value.tv_sec = 0;
    setitimer(ITIMER_REAL, &itv, NULL);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec far = { { 0, 0 }, { 1000000000, 0 } }; /* in 31 years of uptime */
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &far, NULL);
    timerfd_gettime(tfd, &old);
    int p[2];
    if (pipe(p) < 0 || write(p[1], "x", 1) != 1)
        return 1;
    fd_set r, w;
    FD_ZERO(&r); FD_SET(p[0], &r); FD_SET(tfd, &r);
    FD_ZERO(&w); FD_SET(p[1], &w);
    struct timeval tv = { 0, 0 };
    select(p[1] + 1, &r, &w, NULL, &tv); /* p[0] readable, p[1] writable */
    struct timespec ts = { 0, 0 };
    FD_ZERO(&r); FD_SET(tfd, &r);
    pselect(tfd + 1, &r, NULL, NULL, &ts, NULL); /* nothing: Timeout */
    struct pollfd pf[2] = { { p[0], POLLIN, 0 }, { tfd, POLLIN, 0 } };
    ppoll(pf, 2, &ts, NULL);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    pid_t c = fork();
    if (c == 0)
        _exit(3);
    waitid(P_PID, c, &si, WEXITED);
    struct sched_param sp;
    sched_getparam(0, &sp);
    int v;
    prctl(PR_GET_DUMPABLE);
    prctl(PR_SET_DUMPABLE, 1);
    prctl(PR_SET_KEEPCAPS, 0);
    prctl(PR_GET_PDEATHSIG, &v);
    prctl(PR_CAPBSET_READ, 40);
    prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0);
    prctl(0x1234, 1, 2, 3, 4);
    int one = 1;
    ioctl(p[0], FIONBIO, &one);
    ioctl(p[0], FIONREAD, &v);
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    m = mremap(m, 4096, 8192, MREMAP_MAYMOVE);
    msync(m, 8192, MS_ASYNC | MS_INVALIDATE);
    struct iovec iov = { "ab", 2 };
    pwritev(p[1], &iov, 1, -1);
    int s[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, s);
    shutdown(s[0], SHUT_WR);
    int fd = open("/dev/null", O_RDWR);
    struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
    fcntl(fd, F_SETLK, &fl);
    fl.l_type = F_WRLCK;
    fcntl(fd, F_GETLK, &fl);
    fl.l_type = F_UNLCK;
    fcntl(fd, F_SETLKW, &fl);
    flock(fd, LOCK_EX | LOCK_NB);
    flock(fd, LOCK_UN);
    getpriority(PRIO_PROCESS, 0);
    getpriority(7, 0);
    struct tms tm;
    times(&tm);
    uid_t ru, eu, su;
    getresuid(&ru, &eu, &su);
    sched_getscheduler(0);
    sched_setscheduler(0, SCHED_BATCH, &sp);
    sched_get_priority_max(SCHED_FIFO);
    int in = inotify_init1(IN_CLOEXEC);
    inotify_add_watch(in, "/", IN_MODIFY | IN_CREATE | IN_ONLYDIR);
    unshare(0);
    setns(in, CLONE_NEWNET);
    return 0;
}
