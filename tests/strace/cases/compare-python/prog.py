# exercises decoders: epoll, eventfd, pipes, socketpair, send/recv flags, poll, iovecs, sockets
import os, select, socket
ep = select.epoll()
r, w = os.pipe()
ep.register(r, select.EPOLLIN)
os.write(w, b"x")
ep.poll(1)
ep.modify(r, select.EPOLLIN | select.EPOLLET)
ep.unregister(r)
os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
a, b = socket.socketpair()
a.send(b"hello\n", socket.MSG_DONTWAIT)
b.recv(100)
p = select.poll()
p.register(b.fileno(), select.POLLIN)
p.poll(0)
os.writev(w, [b"ab", b"cd\n"])
os.readv(r, [bytearray(3), bytearray(10)])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
s.getsockname()
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    u.connect("/nonexistent/socket")
except OSError:
    pass
# accept4 with its flags (SOCK_CLOEXEC), on an abstract AF_UNIX listener
l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
l.bind("\0tr-compare-python-%d" % os.getpid())
l.listen(1)
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.connect(l.getsockname())
l.accept()
