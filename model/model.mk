# model/: the middle layer (model/README.md), compiled into $(MODEL_LIB).
# A module that needs a library adds it here:
#     MODEL_LIBS += $(call pc,--libs,NAME)
#     CFLAGS_model += $(call pc,--cflags,NAME)
CFLAGS_model :=
