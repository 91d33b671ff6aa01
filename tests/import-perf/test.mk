# tr-import-perf: perf.data files recorded here by Debian's perf, converted and read by the tr
# tools, against perf script on the very same file; damaged files.
CLI_TEST_DIRS += tests/import-perf/cases
