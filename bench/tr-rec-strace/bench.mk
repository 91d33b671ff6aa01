BENCHES += bench/tr-rec-strace/bench.sh
