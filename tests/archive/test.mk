# tr-archive: record, archive, delete the binary and its debug file, analyse elsewhere.
CLI_TEST_DIRS += tests/archive/cases
