TOOLS += tr-flame
tr-flame_SRCS := $(wildcard renderers/tr-flame/*.c)

# the viewer's script and style are kept as files and embedded as C strings
renderers/tr-flame/script.c: renderers/tr-flame/script.js renderers/tr-flame/style.css renderers/tr-flame/embed.sh
	$(Q)sh renderers/tr-flame/embed.sh renderers/tr-flame/script.js renderers/tr-flame/style.css > $@.tmp && mv $@.tmp $@
