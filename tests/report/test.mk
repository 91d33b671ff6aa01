CLI_TEST_DIRS += tests/report/cases
# the perf.data converter: the cases compare tr-report with perf report on one recording
test: $(B)/bin/tr-import-perf
