#!/usr/bin/perl
# frames.pl [--delta] < SVG: every frame's <title> of a flame graph as
# "count<TAB>percent[<TAB>delta]<TAB>name" (XML entities decoded), the form of
# the FlameGraph reference's .frames files.  Sort the output bytewise.
use strict;
my $delta = @ARGV && $ARGV[0] eq '--delta';
local $/;
my $svg = <STDIN>;
while ($svg =~ m{<title>(.*?)</title>}gs) {
    my $t = $1;
    next unless $t =~ /^(.*) \(([\d,.]+) \S+, ([\d.]+)%(?:; ([+-]?[\d.]+)%(?:; before [\d,.]+)?)?\)$/s;
    my ($name, $count, $pct, $d) = ($1, $2, $3, $4);
    $count =~ tr/,//d;
    for ($name) { s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/&/g; }
    if ($delta && defined $d) { print "$count\t$pct\t$d\t$name\n"; }
    else { print "$count\t$pct\t$name\n"; }
}
