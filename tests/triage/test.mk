# tr-triage's cases: one per behaviour of tests/triage/workload.c (CPU, lock wait, sleep,
# syscall errors), the readers of its trace, -p/-a, Ctrl-C, the HTML page in Chromium.
CLI_TEST_DIRS += tests/triage/cases
