CLI_TEST_DIRS += tests/diff/cases
