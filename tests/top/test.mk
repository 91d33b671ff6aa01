CLI_TEST_DIRS += tests/top/cases
