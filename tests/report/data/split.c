/*
 * split - a CPU-bound program whose time splits 90/10 between two leaves:
 * spin (called from main) and other, which main calls through a, b and c
 * (5, 3 and 2 % of the work).  Call-graph branches of other fall between
 * perf report's default threshold (0.5 %) and a --percent-limit of 5.
 *   split [ROUNDS]   default 40
 * Built -O0 -fno-omit-frame-pointer: every function keeps its frame.
 */
#include <stdlib.h>

#define UNIT 100000ul

volatile unsigned long sink;

void spin(unsigned long units)
{
    for (unsigned long i = 0; i < units * UNIT; i++)
        sink = sink * 6364136223846793005ul + 1442695040888963407ul;
}

void other(unsigned long units)
{
    for (unsigned long i = 0; i < units * UNIT; i++)
        sink ^= i;
}

void a(void) { other(5); }
void b(void) { other(3); }
void c(void) { other(2); }

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 40;
    for (unsigned long r = 0; r < rounds; r++) {
        spin(90);
        a();
        b();
        c();
    }
    return 0;
}
