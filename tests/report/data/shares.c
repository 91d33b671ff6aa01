/*
 * shares - a CPU-bound program whose time splits 50/30/20 between three
 * functions by iteration count: fifty, thirty and twenty run the same loop
 * 5, 3 and 2 units a round, each called from main.  tr-report's tests
 * check its percentages against these shares and against perf report's.
 *   shares [ROUNDS]   default 40
 * Built -O0 -fno-omit-frame-pointer: every function keeps its frame.
 */
#include <stdlib.h>

#define UNIT 1000000ul

volatile unsigned long sink;

static void burn(unsigned long units)
{
    for (unsigned long i = 0; i < units * UNIT; i++)
        sink = sink * 6364136223846793005ul + 1442695040888963407ul;
}

void fifty(void) { burn(5); }
void thirty(void) { burn(3); }
void twenty(void) { burn(2); }

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 40;
    for (unsigned long r = 0; r < rounds; r++) {
        fifty();
        thirty();
        twenty();
    }
    return 0;
}
