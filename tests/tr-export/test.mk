CLI_TEST_DIRS += tests/tr-export/cases
