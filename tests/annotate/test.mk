CLI_TEST_DIRS += tests/annotate/cases
# the matches-perf case converts perf.data with the symbolize bench's converter
test: $(B)/bin/tr-import-perf
