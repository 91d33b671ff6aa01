TOOLS += tr-archive
tr-archive_SRCS := $(wildcard filters/tr-archive/*.c)
tr-archive_LIBS := $(or $(call pc,--libs,libelf),-lelf)
