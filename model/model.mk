# model/: the middle layer (model/README.md), compiled into $(MODEL_LIB).
# A module that needs a library adds it here:
#     MODEL_LIBS += $(call pc,--libs,NAME)
#     CFLAGS_model += $(call pc,--cflags,NAME)
CFLAGS_model :=
# tpformat.c: tracepoint formats through libtraceevent
MODEL_LIBS += $(or $(call pc,--libs,libtraceevent),-ltraceevent)
CFLAGS_model += $(call pc,--cflags,libtraceevent)
