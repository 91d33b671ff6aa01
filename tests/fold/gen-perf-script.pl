#!/usr/bin/perl
# gen-perf-script.pl SEED: random perf-script-like text full of the shapes that
# stackcollapse-perf.pl's regular expressions treat specially (for differential tests).
use strict;
srand($ARGV[0]);
my @atoms = ("java", "V8 Worker", "a", "x", " ", "\t", "0", "12", "1/2", "/", "[000]", "1.5:", ":",
    "cycles:", "sched:sched_switch:", "00", "(", ")", " (", "->", "+0x1f", "+0xZ", "[unknown]",
    "Lorg/a/B;.c", "(anonymous namespace)", ".(*T).", "\"q'", ";", "_[i]", "/tmp/perf-12.map",
    "[kernel.kallsyms]", "vmlinux", "f", "main", "ab");
sub pick { $_[int(rand(@_))] }
sub rnd { my $s = ""; $s .= pick(@atoms) for 1 .. int(rand($_[0] + 1)); $s }
for (1 .. 1 + int(rand(30))) {
    my $k = rand();
    if ($k < 0.3) {
        print pick("java", "perf", "a b", "x"), pick(" ", "  ", "\t"), pick("12", "3/4", "5/0", "0/0", "7//8", "9/"),
            pick(" ", " [001] "), pick("1.0: ", "2: 100 ", ": 5 ", ""),
            pick("cycles:", "instructions:", "cpu-clock: ", "sched:sched_switch: prev=1", rnd(3)), "\n";
    } elsif ($k < 0.75) {
        print pick("\t", "   ", "\t\t ", ""), pick("7f01", "ffff", "1", "ab_c", ""), pick(" ", "", "  "), rnd(4),
            pick(" (", "(", " ( "), rnd(2), pick(")", "", ") x", "))"), "\n";
    } elsif ($k < 0.9) {
        print "\n";
    } else {
        print rnd(6), "\n";
    }
}
