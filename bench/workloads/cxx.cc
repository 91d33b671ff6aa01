// cxx.cc - benchmark workload: a template-heavy C++ program.  Each round builds records in
// std::vector, indexes them in std::map and std::unordered_map, sorts and partitions them with
// lambdas, runs a pipeline of std::function stages, and evaluates a recursive template
// (Walk<N> calls Walk<N-1>: 24 distinct instantiations deep on the stack).  Fixed seed: every
// run does the same work, for SECONDS.
//
//   cxx SECONDS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

namespace bench {

struct Record {
    std::string name;
    unsigned key;
    double weight;
    std::vector<int> tags;
};

template <typename T> struct Rng {
    T state;
    T next() { return state = state * T(6364136223846793005ull) + T(1442695040888963407ull); }
};

template <int N, typename F> struct Walk {
    __attribute__((noinline)) static unsigned long run(const std::vector<Record> &v, F &f, unsigned long acc)
    {
        acc = f(v[(acc + N) % v.size()], acc);
        return Walk<N - 1, F>::run(v, f, acc) + N;
    }
};
template <typename F> struct Walk<0, F> {
    static unsigned long run(const std::vector<Record> &v, F &f, unsigned long acc)
    {
        unsigned long s = 0;
        for (const auto &r : v)
            s += f(r, acc);
        return s;
    }
};

template <typename Map> __attribute__((noinline)) unsigned long index_by_name(const std::vector<Record> &v)
{
    Map m;
    for (const auto &r : v)
        m[r.name] += r.key;
    unsigned long s = 0;
    for (const auto &kv : m)
        s += kv.second;
    return s;
}

__attribute__((noinline)) std::vector<Record> make_records(Rng<unsigned long> &rng, size_t n)
{
    std::vector<Record> v;
    v.reserve(n);
    for (size_t i = 0; i < n; i++) {
        unsigned long x = rng.next();
        Record r{"item-" + std::to_string(x % 5000) + "-" + std::to_string((x >> 20) % 97), unsigned(x >> 33),
                 double(x % 1000) / 7.0, {}};
        for (int t = 0; t < int(x % 6); t++)
            r.tags.push_back(int((x >> (t * 5)) & 31));
        v.push_back(std::move(r));
    }
    return v;
}

__attribute__((noinline)) double pipeline(std::vector<Record> &v)
{
    std::vector<std::function<double(Record &)>> stages = {
        [](Record &r) { r.weight = r.weight * 1.5 + 1; return r.weight; },
        [](Record &r) { std::sort(r.tags.begin(), r.tags.end()); return double(r.tags.size()); },
        [](Record &r) { return double(std::accumulate(r.tags.begin(), r.tags.end(), 0)); },
        [](Record &r) { return double(std::count(r.name.begin(), r.name.end(), '1')); },
    };
    double s = 0;
    for (auto &r : v)
        for (auto &stage : stages)
            s += stage(r);
    return s;
}

__attribute__((noinline)) unsigned long round(Rng<unsigned long> &rng)
{
    auto v = make_records(rng, 4000);
    unsigned long s = index_by_name<std::map<std::string, unsigned long>>(v);
    s += index_by_name<std::unordered_map<std::string, unsigned long>>(v);
    std::sort(v.begin(), v.end(), [](const Record &a, const Record &b) {
        return a.name != b.name ? a.name < b.name : a.key < b.key;
    });
    auto mid = std::stable_partition(v.begin(), v.end(), [](const Record &r) { return r.key % 3 == 0; });
    s += unsigned(mid - v.begin());
    s += unsigned(pipeline(v));
    auto score = [](const Record &r, unsigned long acc) { return (r.key ^ acc) % 1009 + r.tags.size(); };
    s += Walk<24, decltype(score)>::run(v, score, s);
    return s;
}

} // namespace bench

int main(int argc, char **argv)
{
    double secs = argc > 1 ? std::atof(argv[1]) : 5;
    auto t0 = std::chrono::steady_clock::now();
    bench::Rng<unsigned long> rng{1};
    unsigned long s = 0, rounds = 0;
    do {
        s += bench::round(rng);
        rounds++;
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < secs);
    std::printf("cxx: %lu rounds (%lu)\n", rounds, s);
    return 0;
}
