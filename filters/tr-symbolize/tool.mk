TOOLS += tr-symbolize
tr-symbolize_SRCS := $(wildcard filters/tr-symbolize/*.c) $(SYM_SRCS)
tr-symbolize_LIBS := $(SYM_LIBS)
