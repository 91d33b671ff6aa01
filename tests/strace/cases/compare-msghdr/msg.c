/* msg.c - sendmsg/recvmsg with SCM_RIGHTS and SCM_CREDENTIALS, a named datagram unix
 * socket, sendmmsg/recvmmsg of two messages and a netlink RTM_GETLINK dump request
 * (compare-msghdr) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

int main(void)
{
    int sv[2], one = 1;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 1;
    /* SCM_RIGHTS: an fd, and SCM_CREDENTIALS once SO_PASSCRED is on */
    int fd = open("/dev/null", O_RDONLY);
    char data[] = "hello";
    struct iovec iov = { data, 5 };
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
    memset(&u, 0, sizeof u);
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (sendmsg(sv[0], &m, MSG_NOSIGNAL) != 5)
        return 1;
    char rbuf[64], rctl[256];
    struct iovec riov = { rbuf, sizeof rbuf };
    struct msghdr r = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = rctl, .msg_controllen = sizeof rctl };
    if (recvmsg(sv[1], &r, MSG_CMSG_CLOEXEC) != 5)
        return 1;
    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    struct iovec two[2] = { { data, 2 }, { data + 2, 3 } };
    struct msghdr m2 = { .msg_iov = two, .msg_iovlen = 2 };
    if (sendmsg(sv[0], &m2, 0) != 5)
        return 1;
    r.msg_controllen = sizeof rctl;
    if (recvmsg(sv[1], &r, 0) != 5)
        return 1;

    /* a named datagram socket */
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "msg-test.sock");
    unlink(sa.sun_path);
    int d = socket(AF_UNIX, SOCK_DGRAM, 0), s = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (bind(d, (struct sockaddr *)&sa, sizeof sa) < 0)
        return 1;
    struct msghdr md = { .msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &iov, .msg_iovlen = 1 };
    if (sendmsg(s, &md, 0) != 5)
        return 1;
    struct sockaddr_un from;
    struct msghdr rd = { .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &riov, .msg_iovlen = 1 };
    if (recvmsg(d, &rd, 0) != 5)
        return 1;

    /* two messages at once */
    struct mmsghdr mm[2];
    memset(mm, 0, sizeof mm);
    mm[0].msg_hdr = md;
    mm[1].msg_hdr = md;
    mm[1].msg_hdr.msg_iov = two;
    mm[1].msg_hdr.msg_iovlen = 2;
    if (sendmmsg(s, mm, 2, 0) != 2)
        return 1;
    char b1[16], b2[16];
    struct iovec ri1 = { b1, sizeof b1 }, ri2 = { b2, sizeof b2 };
    struct mmsghdr rm[2];
    memset(rm, 0, sizeof rm);
    rm[0].msg_hdr.msg_iov = &ri1;
    rm[0].msg_hdr.msg_iovlen = 1;
    rm[1].msg_hdr.msg_iov = &ri2;
    rm[1].msg_hdr.msg_iovlen = 1;
    if (recvmmsg(d, rm, 2, MSG_DONTWAIT, NULL) != 2)
        return 1;
    /* nothing queued: strace prints the msg_namelen recvmsg was given */
    rd.msg_namelen = sizeof from;
    if (recvmsg(d, &rd, MSG_DONTWAIT) != -1)
        return 1;
    /* a timeout: the time left after the return value */
    if (sendmsg(s, &md, 0) != 5)
        return 1;
    struct timespec ts = { 5, 0 };
    if (recvmmsg(d, rm, 1, 0, &ts) != 1)
        return 1;
    unlink(sa.sun_path);

    /* netlink: an RTM_GETLINK dump request and the first part of its answer */
    int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct { struct nlmsghdr h; struct ifinfomsg i; } req = {
        { NLMSG_LENGTH(sizeof(struct ifinfomsg)), RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 1, 0 }, { .ifi_family = AF_UNSPEC },
    };
    struct sockaddr_nl nla = { .nl_family = AF_NETLINK };
    if (bind(nl, (struct sockaddr *)&nla, sizeof nla) < 0) /* as glibc does: strace finds its protocol */
        return 1;
    if (sendto(nl, &req, sizeof req, 0, (struct sockaddr *)&nla, sizeof nla) != sizeof req)
        return 1;
    static char nbuf[65536];
    struct iovec niov = { NULL, 0 };
    struct msghdr nm = { .msg_name = &nla, .msg_namelen = sizeof nla, .msg_iov = &niov, .msg_iovlen = 1 };
    if (recvmsg(nl, &nm, MSG_PEEK | MSG_TRUNC) <= 0) /* as ip does: the size of what comes */
        return 1;
    niov = (struct iovec){ nbuf, sizeof nbuf };
    if (recvmsg(nl, &nm, 0) <= 0)
        return 1;
    /* and without an address, as ip sends: known as netlink by its socket */
    req.h.nlmsg_type = RTM_GETADDR;
    req.h.nlmsg_seq = 2;
    if (sendto(nl, &req, sizeof req, 0, NULL, 0) != sizeof req)
        return 1;
    return 0;
}
