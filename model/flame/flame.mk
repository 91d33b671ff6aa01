# model/flame: folded stacks merged into a tree and drawn as tr-flame's
# interactive SVG (model/flame/flame.h): tr-flame, and every tool that embeds
# a flame graph.  A tool that draws one adds, in its tool.mk:
#     NAME_SRCS += $(FLAME_SRCS)
# and includes "flame/flame.h".
FLAME_SRCS := $(sort $(wildcard model/flame/*.c) model/flame/script.c)

# the viewer's script and style are kept as files and embedded as C strings
model/flame/script.c: model/flame/script.js model/flame/style.css model/flame/embed.sh
	$(Q)sh model/flame/embed.sh model/flame/script.js model/flame/style.css > $@.tmp && mv $@.tmp $@
