CLI_TEST_DIRS += tests/fold/cases
