/*
 * tpformat.h - tracepoint formats: one libtraceevent handle per stream,
 * events by kernel id or by name, fields by name, field values read from a
 * payload in the byte order and word size it was recorded with.
 *
 * The handle is built from the stream's blobs (model/keys.h): the format
 * files "ftrace/format/SYSTEM/EVENT" (the older "format:SYSTEM:EVENT" too),
 * which tr-rec-perf and tr-rec-ftrace write, and tr-rec-ftrace's
 * "ftrace/header_page", "ftrace/printk_formats", "ftrace/saved_cmdlines"
 * and "ftrace/kallsyms" (else "kallsyms") when present.  It is built on first use
 * (tpformat_use); each event's format is parsed the first time the event
 * is looked up, and the other blobs when they are needed, so a stream with
 * hundreds of formats costs only what its readers use.  A recorder without a trace (formats read from tracefs)
 * adds format text directly (tpformat_add_format).
 *
 * Payloads are a tracepoint's raw record, common fields included: a
 * TR_REC_TRACE_EVENT's data or a sample's raw bytes, with TR_RAW_* flags
 * (TR_RAW_BIG_ENDIAN, TR_RAW_32BIT) saying how they were recorded.
 *
 * Look-ups are O(log n) (the handle's sorted events) or O(1) once a field
 * is found: look fields up once, keep the tpformat_field, read it per
 * record.  Nothing here allocates per record.
 *
 * Like every module of model/, it never prints or exits: calls return 0,
 * a count, or a negative tr_error (format/tr.h).  libtraceevent's own
 * messages are silenced (critical ones only).
 */
#ifndef MODEL_TPFORMAT_H
#define MODEL_TPFORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "tr.h"

typedef struct tpformat tpformat;
/* An event of the handle (libtraceevent's struct tep_event); valid until
 * tpformat_reset or tpformat_free. */
typedef struct tep_event tpformat_event;

/* Field flags (tpformat_field.flags) */
enum {
    TPF_SIGNED = 1u << 0,   /* a signed integer */
    TPF_ARRAY = 1u << 1,    /* a fixed array: size bytes of elementsize each */
    TPF_STRING = 1u << 2,   /* characters (char[N], or __data_loc char[]) */
    TPF_DYNAMIC = 1u << 3,  /* __data_loc: the field holds (length << 16 | offset) */
    TPF_RELATIVE = 1u << 4, /* __rel_loc: that offset counts from the field's end */
    TPF_POINTER = 1u << 5,  /* a pointer ("*" in its type) */
    TPF_LONG = 1u << 6,     /* long: 4 or 8 bytes by the recording kernel */
};

/* A field of an event's format: where it is in the payload.  A plain value
 * the caller keeps; name points into the handle (valid as an event). */
typedef struct tpformat_field {
    const char *name;
    int offset, size;   /* bytes in the payload (of the __data_loc word when TPF_DYNAMIC) */
    int elementsize;    /* bytes of one element of an array; 0 when the format does not say */
    uint32_t flags;     /* TPF_* */
} tpformat_field;

/* A new empty set of formats (*out), TR_E_NOMEM.  Free with tpformat_free. */
int tpformat_new(tpformat **out);
void tpformat_free(tpformat *t);
/* Forget the handle and everything parsed: a new stream begins.  The next
 * tpformat_use builds a new one. */
void tpformat_reset(tpformat *t);

/* Make the handle of r's current stream, when there is none since the last
 * reset: payloads are as raw_flags says (TR_RAW_*: the first payload's).
 * Reads the stream's header page; formats are parsed as events are looked
 * up (formats written later are found then), printk formats, kallsyms and
 * saved cmdlines at the first tpformat_print, and the ones still missing
 * at each tpformat_comm (r must stay open until the next reset).  r may be
 * NULL (a recorder: formats come from tpformat_add_format).  Returns 1 when
 * the stream has format blobs or formats were added, 0 when it has none
 * (look-ups then find nothing), TR_E_NOMEM. */
int tpformat_use(tpformat *t, tr_reader *r, uint32_t raw_flags);
/* 1 when the handle was built with the stream's "ftrace/header_page" (a
 * tr-rec-ftrace stream: its sub-buffer layout is known), else 0. */
int tpformat_has_header_page(const tpformat *t);

/* Parse one format file's text (system: "sched") into the handle (built
 * first with raw_flags 0 when tpformat_use was not called).  Returns 0
 * when the event's fields were parsed (an unparsable print format leaves the
 * event usable: printing it shows its fields), TR_E_CORRUPT_RECORD when the
 * text is no format, TR_E_NOMEM. */
int tpformat_add_format(tpformat *t, const char *system, const char *text, size_t len);
/* Parse header_page text (tracefs events/header_page) into the handle; 0,
 * TR_E_CORRUPT_RECORD, TR_E_NOMEM. */
int tpformat_add_header_page(tpformat *t, const char *text, size_t len);
/* From the header page parsed: the kernel's long (the size of the header's
 * commit field, 4 or 8), and the ring buffer's sub-buffer size (the data
 * field's offset + size); 0 when not known. */
int tpformat_header_long_size(const tpformat *t);
size_t tpformat_header_subbuf_size(const tpformat *t);

/* The event with kernel id (common_type), or NULL: no format for it in
 * the stream (formats written since the last look-up are read then). */
const tpformat_event *tpformat_event_by_id(tpformat *t, int id);
/* The event of a payload (its common_type), or NULL (also for a payload
 * shorter than common_type). */
const tpformat_event *tpformat_event_of(tpformat *t, const uint8_t *data, size_t len);
/* The event system:name ("sched", "sched_switch"), or NULL. */
const tpformat_event *tpformat_event_by_name(tpformat *t, const char *system, const char *name);

/* The event of a stream's event definition (tr_reader_event): a tracepoint's
 * by its kernel id (config), else by its name "system:event"; NULL. */
const tpformat_event *tpformat_event_by_def(tpformat *t, const tr_event_def *def);

const char *tpformat_event_name(const tpformat_event *ev);   /* "sched_switch" */
const char *tpformat_event_system(const tpformat_event *ev); /* "sched" */
int tpformat_event_id(const tpformat_event *ev);

/* The field called name (common fields such as common_pid too): 1 with *f
 * set, 0 when the event has none. */
int tpformat_field_find(const tpformat_event *ev, const char *name, tpformat_field *f);
/* The i-th field of the event's own fields (not the common ones), in the
 * format's order: 1 with *f set, 0 after the last. */
int tpformat_field_at(const tpformat_event *ev, size_t i, tpformat_field *f);

/* The integer value of field f (size 1, 2, 4 or 8) in a payload of len
 * bytes recorded with raw_flags: sign-extended to 64 bits when TPF_SIGNED,
 * else zero-extended.  0 with *v set, TR_E_CORRUPT_RECORD when the field
 * lies beyond the payload, TR_E_INVAL when it is no integer (array,
 * __data_loc, another size). */
int tpformat_read(const tpformat_field *f, uint32_t raw_flags, const uint8_t *data, size_t len,
                  uint64_t *v);
/* The bytes of field f in the payload: the field itself, or what a
 * __data_loc / __rel_loc field points to.  0 with *p, *n set,
 * TR_E_CORRUPT_RECORD when they lie beyond the payload. */
int tpformat_field_bytes(const tpformat_field *f, uint32_t raw_flags, const uint8_t *data, size_t len,
                         const uint8_t **p, size_t *n);
/* A number of size bytes (1, 2, 4, 8; else 0) at p in raw_flags' byte order, zero-extended. */
uint64_t tpformat_number(uint32_t raw_flags, const uint8_t *p, int size);

/* The event's fields as its print format shows them (libtraceevent's
 * "INFO": "prev_comm=sh prev_pid=12 ... ==> next_comm=..."), for the
 * payload of a record at time on cpu.  NUL-terminated text owned by t,
 * valid until the next call; NULL when out of memory. */
const char *tpformat_print(tpformat *t, const tpformat_event *ev, uint64_t time, int cpu,
                           const uint8_t *data, size_t len);

/* The command name of pid from the stream's "ftrace/saved_cmdlines" (read
 * when it has arrived), or NULL. */
const char *tpformat_comm(tpformat *t, int pid);

/* The fields whose values the event's print format shows as kernel
 * functions (%ps, %pS, %pf, %pF of REC->FIELD, cast or not; the first
 * TPFORMAT_FUNCS_MAX): a recorder stores the symbols of their values (the
 * "kallsyms" blob) so that readers print names. */
enum { TPFORMAT_FUNCS_MAX = 4 };
typedef struct tpformat_funcs {
    int n;
    tpformat_field f[TPFORMAT_FUNCS_MAX];
} tpformat_funcs;
/* The event's function fields into *out; returns out->n. */
int tpformat_funcs_of(const tpformat_event *ev, tpformat_funcs *out);
/* The non-zero values of those fields in a payload into addrs (room for
 * TPFORMAT_FUNCS_MAX): how many. */
int tpformat_funcs_read(const tpformat_funcs *fs, uint32_t raw_flags, const uint8_t *data, size_t len,
                        uint64_t *addrs);

/* Kernel function names for the stream: tpformat_print names a function
 * address from the stream's "ftrace/kallsyms" or "kallsyms" blob once it
 * has arrived (call tpformat_blob_arrived when a blob record is read, so
 * that a blob written after the events is looked for again), and before
 * that asks resolver: the name of the function addr is in (*start where it
 * begins), NULL when unknown (then the address is printed).  Kept across
 * tpformat_reset; NULL: none. */
typedef const char *(*tpformat_resolver)(void *ctx, uint64_t addr, uint64_t *start);
void tpformat_set_resolver(tpformat *t, tpformat_resolver fn, void *ctx);
void tpformat_blob_arrived(tpformat *t);

#endif
