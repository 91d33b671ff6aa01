// prog.cc - a C++ workload for demangling: a method in a namespace and a
// template instance.
#include <cstdlib>

volatile unsigned long sink;

namespace ns {
struct Worker {
    __attribute__((noinline)) unsigned long run(unsigned long n);
};

template <typename T> __attribute__((noinline)) T spin(T n)
{
    for (T i = 0; i < n; i++)
        sink = sink * 6364136223846793005ul + i;
    return sink;
}

unsigned long Worker::run(unsigned long n)
{
    return spin<unsigned long>(n) + 1;
}
} // namespace ns

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], nullptr, 10) : 100;
    ns::Worker w;
    for (unsigned long r = 0; r < rounds; r++)
        sink += w.run(200000);
    return 0;
}
