CLI_TEST_DIRS += tests/cli/cases
