/* probe.h — orti-profd's probe library: the Event, and the sources and decoders that make it.
 *
 * The Event is the one currency between the probe (poll, RTT, replay sources) and the slicer
 * (daemon/), and the row format of the store's raw events table (../DESIGN.md "Data flow").
 * It is a small fixed struct: a timestamp in target ticks, the core it happened on, its kind,
 * and two 32-bit payload words whose meaning depends on the kind (table below).
 *
 * Identities carried in the payload are the target's own values: a task is identified by the
 * value the OS keeps in RUNNINGTASK (an index or a TCB address, truncated to 32 bits) or gives
 * to PreTaskHook; a function by its entry address (or, for text input, an interned id).
 * Turning values into names is the job of whoever owns the name table (the session), never
 * of the Event.
 *
 * This header never includes daemon/, store/ or web/ headers.
 */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

#define PROBE_ERROR (probe_error_quark ())
GQuark probe_error_quark (void);

/* Errors of the probe library (sources, decoders, the OpenOCD client). */
typedef enum {
  PROBE_ERROR_CONNECT,  /* cannot connect to OpenOCD (message names HOST:PORT) */
  PROBE_ERROR_IO,       /* the connection failed or closed */
  PROBE_ERROR_TIMEOUT,  /* no answer in time */
  PROBE_ERROR_PROTOCOL, /* an answer we cannot parse */
  PROBE_ERROR_OPENOCD,  /* OpenOCD ran the command and it failed (message has its code) */
  PROBE_ERROR_FORMAT,   /* a stream or capture file we cannot decode (unknown version, …) */
  PROBE_ERROR_READ,     /* a target memory read faulted (message names the address) */
  PROBE_ERROR_FORMAT_VERSION, /* a stream's format version is not one we decode */
  PROBE_ERROR_NOT_FOUND, /* something on the target is not there (yet): RTT control block */
  PROBE_ERROR_UNSUPPORTED, /* the target or adapter cannot do it (no DWT, no SWO capture) */
} ProbeError;

/* Payload value meaning "no task is running" (NO_TASK / idle) in PROBE_EVENT_TASK_SWITCH.
 * Sources normalise the OS's own NO_TASK value(s) to this. */
#define PROBE_TASK_IDLE 0xFFFFFFFFu
/* Payload value of PROBE_EVENT_TASK_SWITCH meaning "what runs on the core is not known" (the
 * OS marks its attributes invalid, ORTI VALID false): the core's time is unknown until its next
 * TASK_SWITCH, which resumes the task that ran (the same value again: its job goes on) or
 * switches it out as any switch does. Never namespaced, never a task. */
#define PROBE_TASK_UNKNOWN 0xFFFFFFFEu
/* b of PROBE_EVENT_PC_SAMPLE. */
#define PROBE_PC_SLEEPING 1u /* the core was asleep (WFI/WFE): the sample counts as idle */
#define PROBE_PC_HALTED 2u   /* the core was halted (poll: DHCSR.S_HALT in the same batch):
                              * not a sample of the running program, left out of profiles */
#define PROBE_PC_UNATTRIBUTED 4u /* the core's context changed around the PC read (poll: its
                              * RUNNINGTASK / RUNNINGISR2 read again after DWT_PCSR differ
                              * from the sample's first read, PROBE_POLL_CONTEXT_CHECK): which
                              * task, ISR2 or idle the PC belongs to is not known */

/* Payload value meaning "unknown id" (e.g. an exit whose function is not known). */
#define PROBE_ID_ANY 0xFFFFFFFFu

/* What happened. Values are stable: they are stored in databases and capture files. */
typedef enum {
  PROBE_EVENT_NONE = 0,
  PROBE_EVENT_TASK_SWITCH = 1,    /* a = task now running on `core` (PROBE_TASK_IDLE: none,
                                   * PROBE_TASK_UNKNOWN: not known), b = ProbeEvidence */
  PROBE_EVENT_TASK_ACTIVATE = 2,  /* a = task made ready (ActivateTask / alarm) */
  PROBE_EVENT_TASK_TERMINATE = 3, /* a = task that terminated (TerminateTask / ChainTask) */
  PROBE_EVENT_ISR_ENTER = 4,      /* a = ISR2 id; nests over the running context */
  PROBE_EVENT_ISR_EXIT = 5,       /* a = ISR2 id, or PROBE_ID_ANY; b = PROBE_ISR_* (where the
                                   * instance ran, 0: not known) */
  PROBE_EVENT_FUNC_ENTER = 6,     /* a = function entry address (or id), b = call site or 0 */
  PROBE_EVENT_FUNC_EXIT = 7,      /* a = function address (or id), or PROBE_ID_ANY */
  PROBE_EVENT_SERVICE_ENTER = 8,  /* a = OS service id (SERVICETRACE value without entry bit) */
  PROBE_EVENT_SERVICE_EXIT = 9,   /* a = OS service id */
  PROBE_EVENT_PP_BEGIN = 10,      /* a = profile point id (seed 003 pfpBegin) */
  PROBE_EVENT_PP_END = 11,        /* a = profile point id, b = 1 to latch (pfpEnd(id, latch)) */
  PROBE_EVENT_DATA = 12,          /* a = variable id, b = value written (data profiling) */
  PROBE_EVENT_GAP = 13,           /* data was lost from this point on: a = records lost (0 =
                                   * unknown), b = PROBE_GAP_* reason. At the time of the last
                                   * event known good before the loss; the state after it is
                                   * unknown until the next task switch (the time between is
                                   * time nobody saw). */
  PROBE_EVENT_TARGET_STATE = 14,  /* a = PROBE_TARGET_* (halt/resume/reset seen by the probe) */
  PROBE_EVENT_END = 15,           /* end of the stream: close everything still open at ts */
  PROBE_EVENT_TASK_WAIT = 16,     /* a = task that blocked (WaitEvent): it leaves the CPU
                                   * without being preempted and without ending its job */
  PROBE_EVENT_PP_ALPHA = 17,      /* a = profile point, b = alpha as 16.16 fixed point */
  PROBE_EVENT_PC_SAMPLE = 18,     /* a = PC sampled, b = PROBE_PC_* flags */
  PROBE_EVENT_STIMULUS = 19,      /* a = ITM stimulus port, b = value written */
  PROBE_EVENT_KIND_COUNT
} ProbeEventKind;

/* b of PROBE_EVENT_TASK_SWITCH: the evidence the source decided the switch-out of the task
 * that ran before on the core on (PROBE_EVIDENCE_OF (b)); b of PROBE_EVENT_TASK_TERMINATE and
 * PROBE_EVENT_TASK_WAIT: the evidence that ended (or blocked) the task. A source that decides
 * a switch-out emits TASK_TERMINATE or TASK_WAIT before the TASK_SWITCH when the job ended or
 * blocked, and nothing when it was preempted. 0: the source says nothing — its own
 * TASK_TERMINATE / TASK_WAIT events decide (a trace library's records), or an old capture.
 * Stored in databases and capture files: values are stable. */
typedef enum {
  PROBE_EVIDENCE_UNSTATED = 0, /* nothing said (see above) */
  PROBE_EVIDENCE_STATE = 1,    /* the task's STATE (READY: preempted, SUSPENDED: ended, WAITING) */
  PROBE_EVIDENCE_SERVICE = 2,  /* the job-end services the kernel traced: a task that entered
                                * TerminateTask or ChainTask since its switch-in ended its job;
                                * one that did not was preempted (or waits) */
  PROBE_EVIDENCE_PRIORITY = 3, /* priorities: a more urgent task preempts, an equal or less
                                * urgent one runs only after the job ended */
  PROBE_EVIDENCE_IDLE = 4,     /* the core went idle: nothing was ready, so the task ended its
                                * job (or blocked: WaitEvent) */
  PROBE_EVIDENCE_NONE = 5,     /* no evidence: a preemption cannot be told from a job's end */
  PROBE_EVIDENCE_COUNT
} ProbeEvidence;
#define PROBE_EVIDENCE_MASK 0xfu
#define PROBE_EVIDENCE_OF(b) ((ProbeEvidence) ((b) & PROBE_EVIDENCE_MASK))
/* Or-ed into b of TASK_SWITCH or TASK_TERMINATE: weaker evidence said otherwise — the
 * priorities of the two tasks contradict what the stronger evidence decided (a task not more
 * urgent preempted it), or (exact sources) a task taken for preempted on priorities was not
 * ready after all: the core went idle, or ran a less urgent task, before it resumed. */
#define PROBE_EVIDENCE_CONTRADICTED 0x10u

/* probe_evidence_name: "state", "service", "priority", "idle", "none"; "unstated" for 0; NULL
 * when @e is no ProbeEvidence. */
const char *probe_evidence_name (guint e);

/* b of PROBE_EVENT_ISR_EXIT: where the ISR2's instance ran, as an exception trace shows it
 * (0: not known — a sampled source, no exception trace). */
#define PROBE_ISR_HANDLER 1u /* it ended inside its exception's handler (handler mode) */
#define PROBE_ISR_THREAD 2u  /* its exception returned while the kernel still named it (its
                              * running id names no task): the body ran on in thread mode, as
                              * a process, until the kernel stopped naming it */

/* b of PROBE_EVENT_GAP: why data was lost. */
typedef enum {
  PROBE_GAP_UNKNOWN = 0,
  PROBE_GAP_TARGET_DROP = 1, /* the target's ring was full and it counted drops */
  PROBE_GAP_DECODE = 2,      /* the decoder lost sync on corrupt bytes */
  PROBE_GAP_LINK = 3,        /* the probe link (OpenOCD) went away and came back */
  PROBE_GAP_HALT = 4,        /* the target was halted (it ran nothing: no job or call is hidden
                              * in it; before schema 13 sessions also resets) */
  PROBE_GAP_OVERFLOW = 5,    /* the trace unit reported overflows (SWO bandwidth exceeded) */
  PROBE_GAP_HOST_STALL = 6,  /* the host did not read in time (its sampler or drain was held
                              * up), while the target ran on */
  PROBE_GAP_RESET = 7,       /* the target was reset, or its stream restarted: what its ring
                              * held unread is gone */
} ProbeGapReason;

/* Or-ed into b of PROBE_EVENT_GAP: the gap concerns the Event's core alone (that core was
 * halted while the others ran on); without it a gap concerns every core. */
#define PROBE_GAP_CORE_ONLY 0x100u
#define PROBE_GAP_REASON(b) ((ProbeGapReason) ((b) & 0xffu))

/* a of PROBE_EVENT_TARGET_STATE (b: PROBE_GAP_CORE_ONLY when it is the state of the Event's
 * core alone, probe_source_core_state; 0: the whole target's, probe_source_target_state). */
typedef enum {
  PROBE_TARGET_RUNNING = 0,
  PROBE_TARGET_HALTED = 1,
  PROBE_TARGET_RESET = 2,
} ProbeTargetState;

/* One event. 24 bytes; plain data, copy freely. */
typedef struct {
  guint64 ts;   /* target ticks since the session's epoch (tick rate: in the session) */
  guint32 a;    /* first payload word (see ProbeEventKind) */
  guint32 b;    /* second payload word */
  guint16 core; /* core index as the ORTI file numbers them (0 for single core) */
  guint16 kind; /* ProbeEventKind */
  guint32 reserved; /* zero: makes the padding explicit so Events compare with memcmp */
} ProbeEvent;

G_STATIC_ASSERT (sizeof (ProbeEvent) == 24);

/* probe_event_kind_name:
 * Returns a static lower-case name for @kind ("task_switch", "func_enter", …), or NULL when
 * @kind is not a known ProbeEventKind. Used by text dumps, the store and the REST API. */
const char *probe_event_kind_name (guint kind);

/* probe_event_kind_from_name:
 * The inverse of probe_event_kind_name(). Returns PROBE_EVENT_NONE when @name is unknown. */
ProbeEventKind probe_event_kind_from_name (const char *name);

/* ---------------------------------------------------------------------------------------- */
/* Tcl lists (tcl-list.c): OpenOCD answers in Tcl syntax.                                    */

/* probe_tcl_list_split: the elements of the Tcl list @list (char*, newly allocated), or NULL
 * with PROBE_ERROR_PROTOCOL when braces or quotes do not match. */
GPtrArray *probe_tcl_list_split (const char *list, GError **error);
/* probe_tcl_quote: @s quoted as one Tcl word (braces when possible, else backslashes). */
char *probe_tcl_quote (const char *s);

/* ---------------------------------------------------------------------------------------- */
/* OpenOCD client (openocd.c): blocking TCL RPC for the probe's worker thread.               */

typedef struct _ProbeOpenocd ProbeOpenocd;

typedef enum {
  PROBE_OPENOCD_NOTIFY_EVENT, /* "type target_event event halted|resumed|reset-…" */
  PROBE_OPENOCD_NOTIFY_STATE, /* "type target_state state running|halted|reset" */
  PROBE_OPENOCD_NOTIFY_RESET, /* "type target_reset mode run|halt|init" */
  PROBE_OPENOCD_NOTIFY_OTHER,
} ProbeOpenocdNotifyKind;

typedef struct {
  ProbeOpenocdNotifyKind kind;
  char *value;          /* "halted", "running", "run", …; NULL for OTHER */
  char *raw;            /* the whole message */
  gint64 host_time_us;  /* g_get_monotonic_time() when it was read */
} ProbeOpenocdNotification;

/* One answer of a pipelined batch: exactly one of result / error is set. */
typedef struct {
  char *result;
  GError *error;
} ProbeOpenocdReply;

/* probe_openocd_connect: connects to OpenOCD's TCL port. Every later call waits at most
 * @timeout_ms. Fails with PROBE_ERROR_CONNECT "cannot connect to OpenOCD at HOST:PORT: …". */
ProbeOpenocd *probe_openocd_connect (const char *host, guint16 port, guint timeout_ms,
                                     GError **error);
void probe_openocd_free (ProbeOpenocd *oc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeOpenocd, probe_openocd_free)
const char *probe_openocd_get_address (ProbeOpenocd *oc); /* "HOST:PORT" */
/* The host OpenOCD was reached at. */
const char *probe_openocd_get_host (ProbeOpenocd *oc);
/* A TCP port on the loopback interface that nothing listens on right now (0 and @error when
 * none can be had), for a server OpenOCD is to open. */
guint16 probe_free_loopback_port (GError **error);

/* probe_openocd_call: runs @script (wrapped in catch) and returns its result, or NULL with
 * PROBE_ERROR_OPENOCD (the command failed: OpenOCD's code and message), PROBE_ERROR_IO /
 * PROBE_ERROR_TIMEOUT (connection lost; the client is then unusable). */
char *probe_openocd_call (ProbeOpenocd *oc, const char *script, GError **error);
/* probe_openocd_call_many: sends all @n scripts at once, then reads the @n answers in order
 * (ProbeOpenocdReply*). NULL only when the connection fails. */
GPtrArray *probe_openocd_call_many (ProbeOpenocd *oc, const char *const *scripts, guint n,
                                    GError **error);
void probe_openocd_reply_free (ProbeOpenocdReply *reply);

/* Notifications: turn them on for this connection; they are queued while answers are read
 * and taken (oldest first, ProbeOpenocdNotification*) with probe_openocd_take_notifications().
 * probe_openocd_pump() sends a command that runs no target poll, to collect pending ones. */
gboolean probe_openocd_set_notifications (ProbeOpenocd *oc, gboolean on, GError **error);
GPtrArray *probe_openocd_take_notifications (ProbeOpenocd *oc);
gboolean probe_openocd_pump (ProbeOpenocd *oc, GError **error);

/* Memory. @target NULL: the current target. @width_bits 8/16/32/64, @count ≤ 65536.
 * A faulting read fails with PROBE_ERROR_READ naming the address. */
gboolean probe_openocd_read_memory (ProbeOpenocd *oc, const char *target, guint64 address,
                                    guint width_bits, guint count, guint64 *values,
                                    GError **error);
gboolean probe_openocd_write_memory (ProbeOpenocd *oc, const char *target, guint64 address,
                                     guint width_bits, const guint64 *values, guint count,
                                     GError **error);
/* The script probe_openocd_read_memory() sends, for pipelining, and the parser of its answer. */
char *probe_openocd_read_memory_script (const char *target, guint64 address, guint width_bits,
                                        guint count);
gboolean probe_openocd_parse_memory (const char *text, guint64 *values, guint count,
                                     GError **error);

/* Targets: `target names` as a NULL-terminated vector; `curstate` of @target (NULL: current):
 * "running", "halted", "reset", "unknown" … */
GStrv probe_openocd_target_names (ProbeOpenocd *oc, GError **error);
char *probe_openocd_target_state (ProbeOpenocd *oc, const char *target, GError **error);

/* ---------------------------------------------------------------------------------------- */
/* Capture files (capture.c; format: docs/capture-format.md): --record / --replay.          */

/* Which source produced a capture. Stored in files: values are stable. */
typedef enum {
  PROBE_SOURCE_NONE = 0,
  PROBE_SOURCE_POLL = 1, /* poll samples (see the poll source) */
  PROBE_SOURCE_RTT = 2,  /* the target library's RTT byte stream (docs/event-format.md) */
  PROBE_SOURCE_TEXT = 3, /* the slicer's text notation */
  PROBE_SOURCE_SWO = 4,  /* an SWO byte stream (ITM, TPIU frames or orbflow: see the metadata) */
} ProbeSourceKind;

/* What a capture says about itself. */
typedef struct {
  ProbeSourceKind source;
  guint64 tick_hz;           /* target ticks per second (0: unknown) */
  gint64 start_unix_us;      /* wall time the recording started */
  guint8 orti_sha256[32];    /* SHA-256 of the ORTI file (zeros: none) */
  guint8 elf_sha256[32];     /* SHA-256 of the ELF (zeros: none) */
  guint32 flags;             /* source specific */
  GHashTable *metadata;      /* char* → char*, free-form (e.g. "timestamp" → "host") */
} ProbeCaptureInfo;
void probe_capture_info_clear (ProbeCaptureInfo *info);

typedef enum {
  PROBE_CAPTURE_DATA = 1,   /* bytes from the source, for its decoder */
  PROBE_CAPTURE_GAP = 2,    /* the link was lost between the neighbouring records */
  PROBE_CAPTURE_STATE = 3,  /* a target state notification: payload = ProbeTargetState byte */
  PROBE_CAPTURE_SIDE = 4,   /* written by the session beside the source's records (channel:
                             * what it holds, the session's to define); a replay hands it back
                             * through ProbeSourceSink.on_side at the same point */
  PROBE_CAPTURE_RECORD_TYPE_COUNT
} ProbeCaptureRecordType;

typedef struct {
  ProbeCaptureRecordType type;
  guint16 channel;       /* source specific (RTT channel, core) */
  gint64 host_time_us;   /* monotonic host time it was received */
  const guint8 *data;    /* payload, valid until the next call */
  gsize len;
  guint64 offset;        /* byte offset of the record in the file */
} ProbeCaptureRecord;

/* Little-endian integers in a capture's bytes (its header and records, a side record's
 * payload): probe_le_put_* writes @v at @p, probe_le_get_* reads one, whatever the host's byte
 * order and @p's alignment. */
static inline void
probe_le_put_u16 (guint8 *p, guint16 v)
{
  v = GUINT16_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static inline void
probe_le_put_u32 (guint8 *p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static inline void
probe_le_put_u64 (guint8 *p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static inline guint16
probe_le_get_u16 (const guint8 *p)
{
  guint16 v;
  memcpy (&v, p, sizeof v);
  return GUINT16_FROM_LE (v);
}

static inline guint32
probe_le_get_u32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, sizeof v);
  return GUINT32_FROM_LE (v);
}

static inline guint64
probe_le_get_u64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

typedef struct _ProbeCaptureWriter ProbeCaptureWriter;
typedef struct _ProbeCaptureReader ProbeCaptureReader;

/* probe_capture_writer_new: creates (truncates) @path and writes the header. */
ProbeCaptureWriter *probe_capture_writer_new (const char *path, const ProbeCaptureInfo *info,
                                              GError **error);
/* Appends one record (one buffered write; flushed by _flush and _close). */
gboolean probe_capture_writer_add (ProbeCaptureWriter *w, ProbeCaptureRecordType type,
                                   guint16 channel, gint64 host_time_us, const guint8 *data,
                                   gsize len, GError **error);
gboolean probe_capture_writer_flush (ProbeCaptureWriter *w, GError **error);
/* Flushes, closes and frees @w (also on error). */
gboolean probe_capture_writer_close (ProbeCaptureWriter *w, GError **error);

/* probe_capture_reader_open: reads and checks the header. Errors name the file and byte
 * offset: not a capture, unsupported version, truncated or corrupt header. */
ProbeCaptureReader *probe_capture_reader_open (const char *path, GError **error);
const ProbeCaptureInfo *probe_capture_reader_get_info (ProbeCaptureReader *r);

typedef enum {
  PROBE_CAPTURE_RECORD, /* *rec filled */
  PROBE_CAPTURE_END,    /* clean end of file */
  PROBE_CAPTURE_ERROR,  /* truncated or corrupt at a byte offset (error says which); the
                         * records returned before stay valid */
} ProbeCaptureStatus;
ProbeCaptureStatus probe_capture_reader_next (ProbeCaptureReader *r, ProbeCaptureRecord *rec,
                                              GError **error);
void probe_capture_reader_free (ProbeCaptureReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeCaptureReader, probe_capture_reader_free)

/* probe_sha256_file: SHA-256 of a file's contents. */
gboolean probe_sha256_file (const char *path, guint8 digest[32], GError **error);

/* ---- RTT stream decoder ----------------------------------------------------------------
 * Decodes the orti-trace byte stream (docs/event-format.md; written by probe/target/) into
 * Events. A pure byte pump: bytes in, Events out through a callback, no I/O. Any split of
 * the input gives the same Events. It joins a stream mid-way at the next sync record (where
 * its Events start: no gap),
 * resynchronises after corrupt bytes (PROBE_EVENT_GAP, b = PROBE_GAP_DECODE), turns the
 * target's drop records into PROBE_EVENT_GAP (a = records lost, b = PROBE_GAP_TARGET_DROP),
 * each GAP at the time of the last record decoded before the loss (the records after it carry
 * the time the stream resumed: the core's state between is unknown),
 * keeps a shadow call stack per task to name the function of each exit, and extends the
 * target's 32-bit tick counter to 64 bits. */

/* Errors: PROBE_ERROR (top of this header), PROBE_ERROR_FORMAT_VERSION for streams of an
 * unknown format version. */

/* Highest orti-trace format version probe_decoder_feed() accepts. */
#define PROBE_DECODER_FORMAT_VERSION 2

typedef struct {
  guint16 core;        /* core for Events until a stream header names one (0) */
  guint32 max_depth;   /* shadow stack depth kept per task (0: 256) */
} ProbeDecoderOptions;

#define PROBE_DECODER_OPTIONS_INIT { 0, 0 }

/* Counters since probe_decoder_new(); plain data. */
typedef struct {
  guint64 bytes;            /* bytes fed */
  guint64 records;          /* records decoded (including headers and syncs) */
  guint64 events;           /* Events delivered */
  guint64 headers;          /* stream header records accepted */
  guint64 syncs;            /* sync records accepted */
  guint64 sync_mismatches;  /* syncs that contradicted the decoded state (gap emitted) */
  guint64 resyncs;          /* times the decoder lost sync on an invalid record */
  guint64 skipped_bytes;    /* bytes discarded while hunting for a sync */
  guint64 target_drops;     /* records the target reported as dropped (ring full) */
  guint64 exits_unmatched;  /* function exits with no known entry (a = PROBE_ID_ANY) */
  guint64 backlog_events;   /* Events of the backlog (probe_decoder_set_backlog; delivered
                             * only when kept) */
  guint64 backlog_drops;    /* records the target dropped before the Events started (a
                             * discarded backlog) */
} ProbeDecoderStats;

typedef struct _ProbeDecoder ProbeDecoder;

/* Receives @n_events (> 0) Events; the array is only valid during the call. */
typedef void (*ProbeEventsFunc) (const ProbeEvent *events, gsize n_events, gpointer user_data);

/* probe_decoder_new:
 * Returns a decoder waiting for a stream header or sync record. @options may be NULL
 * (defaults). Free with probe_decoder_free(). */
ProbeDecoder *probe_decoder_new (const ProbeDecoderOptions *options);

/* probe_decoder_free: frees @decoder (NULL is ignored). */
void probe_decoder_free (ProbeDecoder *decoder);

/* probe_decoder_feed:
 * Decodes @len bytes at @data (a record may span calls) and delivers the resulting Events to
 * @func in order, in batches, before returning. Returns FALSE with PROBE_ERROR_FORMAT_VERSION
 * when a valid header or sync names a format version other than PROBE_DECODER_FORMAT_VERSION;
 * the decoder then stays failed and every later call fails the same way. */
gboolean probe_decoder_feed (ProbeDecoder *decoder, const guint8 *data, gsize len,
                             ProbeEventsFunc func, gpointer user_data, GError **error);

/* probe_decoder_set_backlog:
 * The next @bytes bytes fed are a backlog (what a ring held before the host attached). Unless
 * @keep, they are decoded for the stream's state (time base, running task, shadow stacks) but
 * give no Events: the Events start with the first record after them, with a TASK_SWITCH
 * naming the task running then (none when no task is: the state is then unknown until the
 * next switch) at its time or, when that record reports a loss (a drop, or the decoder had to
 * hunt for a sync), at the sync that follows — a loss that began before the start is no gap
 * of the Events (its drops count as backlog_drops). @bytes 0: the next record starts the
 * Events so. With @keep the backlog's Events are delivered as any others (a loss between it
 * and the start is a gap as any other); only where the start is gets noted. */
void probe_decoder_set_backlog (ProbeDecoder *decoder, guint64 bytes, gboolean keep);

/* probe_decoder_get_start: after probe_decoder_set_backlog, TRUE and the time the stream after
 * the backlog starts at (the session's own span) once a record after it was decoded; FALSE
 * before. */
gboolean probe_decoder_get_start (ProbeDecoder *decoder, guint64 *ts);

/* probe_decoder_get_stats: the counters so far (never NULL). */
const ProbeDecoderStats *probe_decoder_get_stats (ProbeDecoder *decoder);

/* probe_decoder_get_stream_info:
 * Returns TRUE and the tick rate (Hz, 0 if the target did not say), core and format version
 * of the last stream header seen; FALSE (outputs untouched) when none was seen yet. Any
 * output pointer may be NULL. */
gboolean probe_decoder_get_stream_info (ProbeDecoder *decoder, guint32 *tick_hz, guint16 *core,
                                        guint *version);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeDecoder, probe_decoder_free)

/* ---------------------------------------------------------------------------------------- */
/* Poll source (poll.c: sampler over OpenOCD; poll-decoder.c: samples → Events).            */

/* Receives decoded Events, one at a time, in order. */
typedef void (*ProbeEventFunc) (const ProbeEvent *event, gpointer user_data);

/* A memory reader (same contract as OrtiReadFunc in orti.h, so ORTI plans can be evaluated
 * through the probe without probe/ depending on orti/). */
typedef gboolean (*ProbeReadFunc) (guint64 address, guint size, guint8 *buf, gpointer user_data,
                                   GError **error);
/* Evaluates @plan reading memory through @read (orti_plan_eval fits this shape). */
typedef gboolean (*ProbePollEvalFunc) (gpointer plan, ProbeReadFunc read, gpointer read_data,
                                       gint64 *value, GError **error);

#define PROBE_POLL_MAX_CHANNELS 1024 /* watched values of one source */
#define PROBE_POLL_MAX_CORES 64       /* cores one poll source watches */

typedef enum {
  PROBE_POLL_TASK,       /* RUNNINGTASK: TASK_SWITCH on change; values of class
                          * PROBE_VALUE_ISR are an ISR2 running over the task instead */
  PROBE_POLL_ISR,        /* RUNNINGISR2: ISR_ENTER / ISR_EXIT on change */
  PROBE_POLL_SERVICE,    /* SERVICETRACE: SERVICE_ENTER / SERVICE_EXIT on change */
  PROBE_POLL_DATA,       /* a state variable: DATA on change */
  PROBE_POLL_TASK_STATE, /* one task's STATE (values classed RUNNING/READY/WAITING/SUSPENDED):
                          * the evidence that tells a preemption (READY) from the end of a job
                          * (SUSPENDED: TASK_TERMINATE) and a wait (WAITING: TASK_WAIT), and
                          * shows activations (SUSPENDED → READY: TASK_ACTIVATE). A channel of
                          * this kind without reads carries only the task's static priority */
  PROBE_POLL_PRIORITY,   /* RUNNINGTASKPRIORITY of the core: the evidence when no state is */
  PROBE_POLL_VALID,      /* VALID of the core: its other channels count only while it is not 0 */
  PROBE_POLL_PC,         /* the core's sampled PC (DWT_PCSR): a PC_SAMPLE Event every sample,
                          * after the sample's switches (attributed to what runs then);
                          * 0xFFFFFFFF (halted, asleep, no sample) counts as sleeping */
  PROBE_POLL_DHCSR,      /* the core's DHCSR, read before its PC channel: S_HALT marks the
                          * sample's PC_SAMPLE halted (PROBE_PC_HALTED) instead of sleeping */
  PROBE_POLL_CONTEXT_CHECK, /* a second read of the core's TASK or ISR channel
                          * (ProbePollChannel.checks), in a later phase than the PC channel:
                          * when it differs from the first read (or either is unread) the
                          * sample's PC_SAMPLE is flagged PROBE_PC_UNATTRIBUTED. No events */
} ProbePollKind;

/* Classes of values (ProbePollValueClass.cls). */
enum {
  PROBE_VALUE_OTHER = 0,     /* nothing special (TASK: a task; TASK_STATE: unknown) */
  PROBE_VALUE_ISR,           /* TASK: an ISR2 runs over the task (one running-id variable) */
  PROBE_VALUE_RUNNING,       /* TASK_STATE classes */
  PROBE_VALUE_READY,
  PROBE_VALUE_WAITING,
  PROBE_VALUE_SUSPENDED,
  PROBE_VALUE_SVC_END,       /* SERVICE: a service that ends the caller's job (TerminateTask,
                              * ChainTask) */
  PROBE_VALUE_SVC_WAIT,      /* SERVICE: a service that may block the caller (WaitEvent) */
  PROBE_VALUE_FOREIGN,       /* TASK: no task runs, something the file names no task or ISR
                              * of (an ISR2's process labelled "X"): no switch; its time is the
                              * ISR2 RUNNINGISR2 names then, else an ISR2 of this value's id
                              * ("other" time, never a task's) */
};

typedef struct {
  gint64 value;
  guint32 cls;             /* PROBE_VALUE_* */
} ProbePollValueClass;

/* A read at a fixed address. */
typedef struct {
  guint64 address;
  guint width;             /* bytes */
} ProbePollRead;

/* One watched value. Either @simple (one read of @width bytes at @address); or derived: @eval
 * over @plan from @reads, all at fixed addresses, made with the simple reads of the batch
 * (`running_id != -1`); or computed by @tcl inside OpenOCD's batch (pointer chases,
 * value-dependent indices); or by @eval over @plan on the host (one round trip per dependent
 * read, once per batch: the slow fallback). */
typedef struct {
  ProbePollKind kind;
  guint16 core;
  char *name;             /* for messages: "RUNNINGTASK core 0 (os_running_task)" */
  gboolean simple;
  guint64 address;        /* simple: where */
  guint width;            /* simple: 1, 2, 4 or 8 bytes */
  gboolean is_signed;     /* simple: sign-extend */
  char *tcl;              /* !simple: a Jim Tcl expression (orti_plan_to_tcl) */
  ProbePollEvalFunc eval; /* !simple: evaluator (derived channels, or the fallback) */
  gpointer plan;          /* !simple: its plan (borrowed; must outlive the sampler) */
  ProbePollRead *reads;   /* derived: every read the plan makes (fixed addresses) */
  guint n_reads;
  gint64 *none_values;    /* values meaning "nothing" (NO_TASK, NO_ISR, no service) */
  guint n_none_values;
  ProbePollValueClass *classes; /* values with a class (see PROBE_VALUE_*) */
  guint n_classes;
  gboolean entry_bit;     /* SERVICE: odd = inside service value & ~1 (ORTI convention) */
  guint32 data_id;        /* DATA: variable id put in Event.a */
  guint32 task;           /* TASK_STATE: the task's value (Event.a of its TASK_SWITCH) */
  gboolean has_priority;  /* TASK_STATE: the task's static priority is known: … */
  gint64 priority;        /* … (larger = more urgent) */
  guint phase;            /* read order in a sample (0, 1, 2; above 2 reads as 2): every read
                           * of phase 0 comes before any of phase 1, and so on; reads of
                           * different phases are never merged (poll.c) */
  guint checks;           /* CONTEXT_CHECK: index of the channel it reads again */
} ProbePollChannel;

/* TRUE when the channel reads something (a TASK_STATE channel may carry only a priority). */
gboolean probe_poll_channel_reads (const ProbePollChannel *c);

/* probe_poll_channel_copy: deep copy of @src into @dst (free with probe_poll_channel_clear). */
void probe_poll_channel_copy (ProbePollChannel *dst, const ProbePollChannel *src);
/* probe_poll_channel_clear: frees what a channel owns (name, value tables); not @c itself. */
void probe_poll_channel_clear (ProbePollChannel *c);

/* --- decoder: pure, bytes of sample records in, Events out --- */
typedef struct _ProbePollDecoder ProbePollDecoder;
ProbePollDecoder *probe_poll_decoder_new (const ProbePollChannel *channels, guint n_channels,
                                          GError **error);
void probe_poll_decoder_free (ProbePollDecoder *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbePollDecoder, probe_poll_decoder_free)
/* Feed any split of the sample bytes. Fails (PROBE_ERROR_FORMAT, naming the sample number) on
 * a corrupt record or a timestamp going backwards; Events before it were delivered. */
gboolean probe_poll_decoder_feed (ProbePollDecoder *d, const guint8 *data, gsize len,
                                  ProbeEventFunc func, gpointer user, GError **error);
/* The link was lost: emit GAP(@reason) and forget the state (the next sample re-emits it). */
void probe_poll_decoder_gap (ProbePollDecoder *d, guint64 ts, ProbeGapReason reason,
                             ProbeEventFunc func, gpointer user);
/* Core @core (< 64) of a multi-core target halted or was reset (@st, seen at @ts): emit its
 * TARGET_STATE and a GAP of that core alone (both flagged PROBE_GAP_CORE_ONLY, at the latest
 * sample's time or later), forget its channels' state and ignore them from now on;
 * PROBE_TARGET_RUNNING: its TARGET_STATE, and its channels are read again (the next sample
 * re-emits the core's state). Repeated states are no-ops. */
void probe_poll_decoder_core_state (ProbePollDecoder *d, guint16 core, ProbeTargetState st,
                                    guint64 ts, ProbeEventFunc func, gpointer user);
guint64 probe_poll_decoder_get_samples (ProbePollDecoder *d);
/* probe_poll_decoder_set_trace: the records are a trace, not samples: each holds one value as
 * it was written, and no change is missed (the SWO mapper). Then ISR2 values nest — a new ISR2
 * over a running one is nested in it unless the exception depth says they are at one level;
 * the value below coming back ends the nested one — and SERVICE classes are evidence at a
 * task's switch-out (the last job-end service it entered: TASK_TERMINATE; the last service
 * entered was SVC_WAIT and the priorities rule out a preemption: TASK_WAIT). Call before the
 * first feed. */
void probe_poll_decoder_set_trace (ProbePollDecoder *d, gboolean trace);
/* probe_poll_decoder_set_depth: (trace) the exception nesting depth of @core is now @depth
 * (0: thread mode); ISR2s entered deeper than @depth whose end was not traced end at @ts. */
void probe_poll_decoder_set_depth (ProbePollDecoder *d, guint16 core, guint depth, guint64 ts,
                                   ProbeEventFunc func, gpointer user);
/* Sample record encoding (the sampler's output, and what captures of poll sessions hold). */
gsize probe_poll_record_size (guint n_channels);
/* @valid: bitmap of (n_channels + 31) / 32 words, bit i set when channel i was read. */
void probe_poll_record_append (GByteArray *out, guint n_channels, const guint32 *valid, guint64 ts,
                               const gint64 *values);

/* --- sampler: live, over an OpenOCD connection, on the probe's worker thread --- */
typedef enum {
  PROBE_POLL_AUTO,   /* measure SINGLE and BATCH briefly, keep the faster */
  PROBE_POLL_SINGLE, /* one sample per round trip */
  PROBE_POLL_BATCH,  /* `batch` samples per round trip, looped inside OpenOCD's Tcl */
} ProbePollMode;

typedef struct {
  const char *target;          /* OpenOCD target name, NULL: current */
  const char *const *core_targets; /* an AMP part with one OpenOCD target per core: core c's
                                * channels are read through target core_targets[c] (`NAME
                                * read_memory …`); NULL, a NULL entry or c ≥ n_core_targets:
                                * through `target`. The timestamp (timer or CYCCNT), Tcl and
                                * host-evaluated pointer chases still go through `target` */
  guint n_core_targets;
  gboolean core_targets_auto;  /* the poll source maps core c to OpenOCD's c-th `target
                                * names` at attach (n_core_targets then ignored) */
  gboolean big_endian;         /* target byte order */
  guint64 timestamp_address;   /* free-running target timer (0: CYCCNT or OpenOCD's µs clock) */
  guint64 timestamp_hz;        /* its rate */
  gboolean cyccnt;             /* no timer given: use the Cortex-M DWT cycle counter when the
                                * core has one that counts (the poll source enables it) */
  guint64 cyccnt_hz;           /* its rate, the core clock (0: measured against host time) */
  gboolean timestamp_down;     /* it counts down (CMSDK timers): use ~value */
  ProbePollMode mode;
  guint batch;                 /* samples per round trip in BATCH mode (0: 32) */
  guint dither_us;             /* pause a random 0..dither_us µs before each round trip, so a
                                * steady sample rate cannot alias with the target's periods
                                * (0: none) */
  const gint *link_shared;     /* NULL, or another user of the same debug link (an RTT drain
                                * beside a PC sampler) adds 1 here, atomically, when it sends a
                                * round trip and 1 when its answer is in (odd: in flight). A
                                * round trip's first interval during which it changed or was odd
                                * waited for that user, not for the host: ProbePollQuality
                                * counts its time as `shared`, not as `stalled` */
} ProbePollConfig;

/* probe_poll_config_copy_core_targets: @cfg's core_targets as a NULL-terminated copy (a NULL
 * entry becomes ""), or NULL when it names none. */
GStrv probe_poll_config_copy_core_targets (const ProbePollConfig *cfg);

#define PROBE_POLL_STALL_FACTOR 3 /* an interval this many times the median is a stall */

typedef struct {
  guint64 samples;        /* samples taken */
  double elapsed_s;       /* since prepare */
  double sample_rate;     /* achieved samples/s */
  guint64 min_interval;   /* shortest interval between samples, ticks */
  double mean_interval;   /* ticks */
  double jitter;          /* standard deviation of the interval, ticks */
  guint64 p50_interval;   /* median interval, ticks */
  guint64 p99_interval;   /* 99th percentile: the resolution of every sampled duration */
  guint64 max_interval;   /* longest (a stall of the host or the link) */
  guint64 intervals;      /* intervals counted (consecutive samples of one link session) */
  double sum_interval;    /* Σ interval, ticks … */
  double sum_interval_sq; /* … and Σ interval²: effective samples (ΣΔ)²/ΣΔ² (bounds) */
  double stalled;         /* share of the sampled time in intervals longer than
                           * PROBE_POLL_STALL_FACTOR × the median (nonzero) one: time the
                           * sampler was held up. A starved host lets it run only when the
                           * scheduler's tick comes round, so its instants follow that tick,
                           * not chance (bounds.h) */
  double shared;          /* share of the sampled time in intervals that waited for the
                           * link's other user (ProbePollConfig.link_shared): long ones are
                           * not counted in `stalled` */
  guint64 reads_failed;   /* reads that faulted */
  double rate_single;     /* AUTO calibration: samples/s with SINGLE … */
  double rate_batch;      /* … and with BATCH */
  ProbePollMode mode;     /* the mode in use */
  GPtrArray *messages;    /* char*: channels disabled and why (owned by the sampler) */
  guint64 samples_before; /* samples of the samplers this one inherited its clock from */
} ProbePollQuality;

typedef struct _ProbePollSampler ProbePollSampler;
/* probe_poll_sampler_new: @oc is borrowed and must outlive the sampler. */
ProbePollSampler *probe_poll_sampler_new (ProbeOpenocd *oc, const ProbePollConfig *cfg,
                                          const ProbePollChannel *channels, guint n_channels,
                                          GError **error);
void probe_poll_sampler_free (ProbePollSampler *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbePollSampler, probe_poll_sampler_free)
/* After a reconnect: continue @from's timeline (epoch, timer wraps, last timestamp), so
 * timestamps never restart at 0 within a session. Call before the first step. */
void probe_poll_sampler_inherit_clock (ProbePollSampler *s, ProbePollSampler *from);
/* Ticks per second of the sample timestamps. */
guint64 probe_poll_sampler_get_tick_hz (ProbePollSampler *s);
/* Before the first step: `poll off` (OpenOCD's own periodic poll). */
gboolean probe_poll_sampler_prepare (ProbePollSampler *s, GError **error);
/* One round trip: appends sample records to @out. A faulting read disables its channel (see
 * the quality messages) and is not an error; FALSE means the link failed (reconnect). */
gboolean probe_poll_sampler_step (ProbePollSampler *s, GByteArray *out, GError **error);
/* probe_poll_sampler_check_core_targets: with one OpenOCD target per core (at least two),
 * each core's state by one explicit poll of every target, into @states[0..n) (n ≤ @max);
 * returns n, or 0 (with @error set when OpenOCD failed) without per-core targets. */
guint probe_poll_sampler_check_core_targets (ProbePollSampler *s, ProbeTargetState *states,
                                             guint max, GError **error);
/* probe_poll_sampler_check_target: the sampler's target's state by an explicit poll (arp_poll
 * + curstate, probe_openocd_target_states of that one target): call every ~100 ms. FALSE with
 * @error as probe_openocd_target_states. */
gboolean probe_poll_sampler_check_target (ProbePollSampler *s, ProbeTargetState *state,
                                          GError **error);
const ProbePollQuality *probe_poll_sampler_get_quality (ProbePollSampler *s);
/* After the last step: `poll on` again. */
gboolean probe_poll_sampler_finish (ProbePollSampler *s, GError **error);

/* ---------------------------------------------------------------------------------------- */
/* RTT link (rtt-link.c): the target library's up-channel, through OpenOCD.               */

typedef enum {
  PROBE_RTT_AUTO,   /* DRAIN, falling back to SERVER when DRAIN cannot work */
  PROBE_RTT_DRAIN,  /* read_memory/write_memory of the ring ourselves: one round trip a drain */
  PROBE_RTT_SERVER, /* OpenOCD's `rtt server` TCP port (capped at 1 KiB per channel per poll) */
} ProbeRttMethod;

typedef struct {
  ProbeRttMethod method;
  const char *target;          /* OpenOCD target, NULL: current */
  guint64 info_address;        /* orti_trace_info (ELF symbol), 0: unknown — the library's init
                                * status and tick rate, read before the stream (source only) */
  guint64 cb_address;          /* control block address when known (ELF symbol), else 0 … */
  guint64 search_start;        /* … search for the ID in this range */
  guint64 search_size;
  guint channel;               /* up channel carrying the event stream */
  const char *host;            /* SERVER: OpenOCD host (NULL: 127.0.0.1) */
  guint16 server_port;         /* SERVER: port for `rtt server start` */
  guint polling_interval_ms;   /* SERVER: `rtt polling_interval` (0: 1 ms) */
  gboolean keep_backlog;       /* source: what the ring holds at the first attach is part of the
                                * session (its pre-attach span); FALSE: decoded for the stream's
                                * state only, the session starts at the attach */
} ProbeRttConfig;

/* DRAIN: the ring bytes a link has received but not yet released on the target (RdOff still
 * at @rd_off; the host has the bytes up to @upto; equal: nothing held). Each drain releases
 * the previous drain's bytes before it reads, so a lost reply loses nothing. */
typedef struct {
  guint64 desc;                /* up-buffer descriptor the offsets belong to (0: none) */
  guint32 buf, size;           /* its buffer and size, as located */
  guint32 rd_off;              /* RdOff as the last drain left it on the target */
  guint32 upto;                /* the host has received the bytes up to here */
  guint32 last_word;           /* rd_off 0: the last aligned little-endian word wholly in the
                                * held range, as received (a re-initialised block differs) */
} ProbeRttHeld;

typedef struct _ProbeRttLink ProbeRttLink;
/* @oc is borrowed and must outlive the link. */
ProbeRttLink *probe_rtt_link_new (ProbeOpenocd *oc, const ProbeRttConfig *cfg);
void probe_rtt_link_free (ProbeRttLink *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeRttLink, probe_rtt_link_free)
/* Find the control block and the channel's buffer. PROBE_ERROR_NOT_FOUND while the firmware
 * has not initialised it (retry later); call again after a target reset. */
gboolean probe_rtt_link_locate (ProbeRttLink *r, GError **error);
/* Locate if needed and start (SERVER: setup, start, server start, connect). */
gboolean probe_rtt_link_start (ProbeRttLink *r, GError **error);
/* Append newly arrived bytes to @out (SERVER waits up to @wait_ms for data; DRAIN does one
 * round trip: it releases the previous drain's bytes, then reads). PROBE_ERROR_NOT_FOUND: the
 * block went away (reset): locate again. On any error nothing is appended, and DRAIN has
 * released nothing it did not deliver. */
gboolean probe_rtt_link_step (ProbeRttLink *r, GByteArray *out, guint wait_ms,
                                GError **error);
/* DRAIN: releases the last drain's bytes on the target (RdOff = where it ended, if RdOff is
 * still where it began); nothing else: TRUE. FALSE with the link's error (still held). */
gboolean probe_rtt_link_release (ProbeRttLink *r, GError **error);
/* The held range, for the link of the next connection (probe_rtt_link_set_held before its
 * locate, which keeps it only for the same descriptor, buffer and size): a drain that never
 * reached the target then repeats nothing. */
void probe_rtt_link_get_held (ProbeRttLink *r, ProbeRttHeld *held);
void probe_rtt_link_set_held (ProbeRttLink *r, const ProbeRttHeld *held);
/* probe_rtt_drain_script: the DRAIN script (rtt-link.c): releases [@rd_off, @upto) as
 * described above when they differ (from offset 0 only if the last aligned word wholly inside
 * still is @last_word), then reads at most @max_bytes of the ring of @size bytes at @buf whose
 * descriptor is at @desc, through OpenOCD target @target (NULL: current). Its
 * result: "B E" (RdOff where the read began and ended) then per part "S N w0 w1 …" (S bytes
 * of word w0 to skip, N bytes, little-endian 32-bit words). Newly allocated. */
char *probe_rtt_drain_script (const char *target, guint64 desc, guint32 buf, guint32 size,
                              guint32 max_bytes, guint32 rd_off, guint32 upto,
                              guint32 last_word);
/* probe_rtt_link_pending: the bytes the located ring holds now, from RdOff to WrOff (what a
 * reader attaching now would read first). */
gboolean probe_rtt_link_pending (ProbeRttLink *r, guint32 *bytes, GError **error);
/* SERVER: stops OpenOCD's rtt server; DRAIN: probe_rtt_link_release. */
gboolean probe_rtt_link_stop (ProbeRttLink *r, GError **error);
ProbeRttMethod probe_rtt_link_get_method (ProbeRttLink *r);
guint64 probe_rtt_link_get_control_block (ProbeRttLink *r);
guint64 probe_rtt_link_get_bytes (ProbeRttLink *r);

/* ---------------------------------------------------------------------------------------- */
/* Cortex-M trace unit (cortexm.c): the debug and trace registers sources configure through  */
/* OpenOCD, written with a record so a source undoes exactly what it changed.                */

#define PROBE_DEMCR 0xE000EDFCu
#define PROBE_DEMCR_TRCENA (1u << 24)
#define PROBE_DWT_CTRL 0xE0001000u
#define PROBE_DWT_CTRL_CYCCNTENA 1u
#define PROBE_DWT_CYCCNT 0xE0001004u
#define PROBE_DWT_PCSR 0xE000101Cu
#define PROBE_DWT_COMP(n) (0xE0001020u + 16u * (n))
#define PROBE_DWT_MASK(n) (0xE0001024u + 16u * (n))
#define PROBE_DWT_FUNCTION(n) (0xE0001028u + 16u * (n))
#define PROBE_ITM_TER 0xE0000E00u
#define PROBE_ITM_TCR 0xE0000E80u
#define PROBE_ITM_LAR 0xE0000FB0u
#define PROBE_TPIU_ACPR 0xE0040010u
#define PROBE_TPIU_SPPR 0xE00400F0u
#define PROBE_TPIU_FFCR 0xE0040304u

typedef struct {
  guint32 cpuid;
  gboolean is_cortex_m;
  gboolean has_dwt;        /* Cortex-M3 and later (not M0/M0+/M1) */
  guint32 dwt_ctrl;        /* DWT_CTRL as read */
  guint n_comparators;     /* DWT_CTRL.NUMCOMP */
  gboolean has_cyccnt;     /* !NOCYCCNT */
  gboolean has_trace_packets; /* !NOTRCPKT: data/exception/PC-sample packets */
  gboolean armv8m;         /* ARMv8-M comparator encoding (DWT_DEVARCH) */
} ProbeCortexmInfo;

typedef struct _ProbeCortexm ProbeCortexm;
/* @oc is borrowed; @target NULL: OpenOCD's current target. */
ProbeCortexm *probe_cortexm_new (ProbeOpenocd *oc, const char *target);
void probe_cortexm_free (ProbeCortexm *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeCortexm, probe_cortexm_free)
/* After a reconnect: the registers are written through @oc from now on (the record stays). */
void probe_cortexm_set_openocd (ProbeCortexm *c, ProbeOpenocd *oc);
gboolean probe_cortexm_read (ProbeCortexm *c, guint32 address, guint32 *value, GError **error);
/* probe_cortexm_write: writes @value to @address (@what names it in messages and the record);
 * the register's value before the first write is kept for probe_cortexm_restore(). */
gboolean probe_cortexm_write (ProbeCortexm *c, guint32 address, guint32 value, const char *what,
                              GError **error);
/* probe_cortexm_restore: writes back every register written, last first. */
gboolean probe_cortexm_restore (ProbeCortexm *c, GError **error);
/* What was written, as a JSON array of {"register", "address", "value"} (newly allocated). */
char *probe_cortexm_config_json (ProbeCortexm *c);
/* probe_cortexm_identify: CPUID and what the DWT offers. A refused CPUID read (not an
 * M-profile core) leaves @info all FALSE and returns TRUE; @error only for a failed link. */
gboolean probe_cortexm_identify (ProbeCortexm *c, ProbeCortexmInfo *info, GError **error);
/* probe_cortexm_cyccnt_start:
 * Enables CYCCNT (DEMCR.TRCENA, DWT_CTRL.CYCCNTENA) and checks that it counts; its rate is
 * @given_hz or measured against host time over @window_us. TRUE with *@hz; FALSE without error
 * when the core has no counter that counts (*@note says why); FALSE with @error when the link
 * failed. *@note (newly allocated) says how the clock was chosen. */
gboolean probe_cortexm_cyccnt_start (ProbeCortexm *c, guint64 given_hz, guint window_us,
                                     guint64 *hz, char **note, GError **error);
/* probe_cortexm_pcsr_start:
 * Makes DWT_PCSR readable (DEMCR.TRCENA; restored by probe_cortexm_restore) and checks that it
 * samples: FALSE with PROBE_ERROR_UNSUPPORTED naming the register, its address and what was
 * read when the core has no DWT, the read fails, or @tries reads all give 0 (no PC sampler:
 * Cortex-M0/M0+, or a simulator without one). 0xFFFFFFFF (halted or asleep) is accepted.
 * FALSE with the link's error when the link failed. */
gboolean probe_cortexm_pcsr_start (ProbeCortexm *c, guint tries, GError **error);

/* ---------------------------------------------------------------------------------------- */
/* Sources (source.c, source-poll.c, source-rtt.c): poll, RTT and replay behind one small   */
/* interface, so the session drives any of them without knowing their internals (RTT control */
/* blocks, sample batches, trace units).                                                      */
/*                                                                                            */
/* Life cycle: probe_source_new_*() → probe_source_attach() (configure the target through an */
/* OpenOCD connection; again after a reconnect, with the new connection: clocks, decoder      */
/* state and statistics carry on) → probe_source_step() until stopped → probe_source_detach() */
/* (undo what attach configured) → probe_source_free(). A replay needs no connection.         */

typedef struct _ProbeSource ProbeSource;

/* Where a source's output goes. */
typedef struct {
  ProbeEventFunc on_event;  /* each decoded Event, in order (required) */
  /* Everything the source read, as capture records (--record), before it is decoded; NULL:
   * nothing is recorded. */
  void (*on_record) (ProbeCaptureRecordType type, guint16 channel, gint64 host_time_us,
                     const guint8 *data, gsize len, gpointer user_data);
  gpointer user_data;
  /* A replay's PROBE_CAPTURE_SIDE records, in their place among the Events (NULL: skipped). */
  void (*on_side) (guint16 channel, const guint8 *data, gsize len, gpointer user_data);
} ProbeSourceSink;

typedef enum {
  PROBE_SOURCE_OK,    /* something was read and decoded */
  PROBE_SOURCE_IDLE,  /* nothing arrived: the caller may sleep a little */
  PROBE_SOURCE_END,   /* a replay reached the end of its capture */
  PROBE_SOURCE_ERROR, /* see the error: PROBE_ERROR_IO / _TIMEOUT — the link is lost (reconnect
                       * and attach again); PROBE_ERROR_NOT_FOUND — the target restarted and the
                       * stream with it (emit a gap, attach again); anything else — the stream
                       * cannot be decoded (corrupt capture, unknown format): stop */
} ProbeSourceStatus;

/* What a source says about its measurement; owned by the source, valid until the next call
 * on it. */
typedef struct {
  const char *label;        /* "poll", "rtt-drain", "rtt-server", "replay" */
  const char *clock;        /* "cyccnt", "timer" (a target timer), "host" (OpenOCD's host
                             * clock), "stream" (the target's own timestamps) */
  const char *clock_note;   /* how the clock was chosen or why not CYCCNT (NULL: nothing) */
  double clock_hz;          /* rate of the clock as given or measured (0: unknown) */
  gboolean clock_measured;  /* clock_hz was measured against host time (not given) */
  guint64 tick_hz;          /* ticks per second of Event timestamps (0: not known yet) */
  gboolean exact;           /* every change of the watched state is seen (a trace); FALSE:
                             * sampled, every statistic is an estimate */
  gboolean sees_calls;      /* function entry/exit events can appear */
  gboolean sees_activations;/* TASK_ACTIVATE events can appear */
  const char *inference;    /* the evidence job ends and preemptions are decided on */
  guint64 records;          /* samples (sampled sources) or bytes (streams) */
  GPtrArray *messages;      /* char*: what went wrong and was survived (channels disabled, …),
                             * oldest first; the session reports the new ones */
  const ProbePollQuality *poll; /* the sampler's quality (poll sources), else NULL */
  const char *config;       /* what attach configured on the target, as a JSON object (NULL:
                             * nothing); stored with the session and in captures */
  guint comparators;        /* SWO: DWT comparators tracing watch[0 … n-1] (a replay needs it) */
  guint core_comparators[PROBE_POLL_MAX_CORES]; /* SWO of several cores: cores[k]'s … */
  guint64 core_cpu_hz[PROBE_POLL_MAX_CORES];    /* … and its CYCCNT rate */
  gboolean attach_known;    /* RTT: the session's own span began at attach_ts, the first
                             * record after the rings' backlog (the Events before it, kept,
                             * are the pre-attach span; discarded, there are none) */
  guint64 attach_ts;
  guint n_backlog;          /* RTT: streams whose backlog is known … */
  guint64 backlog[PROBE_POLL_MAX_CORES]; /* … the bytes each ring held when the session
                             * attached (what probe_source_rtt_set_backlog replays) */
  gboolean backlog_kept;    /* … kept as the pre-attach span (else decoded for state only) */
  guint64 backlog_drops;    /* RTT: records the target dropped before the session's span */
} ProbeSourceQuality;

/* probe_source_new_poll: a poll source over @channels (copied). The sampler is made at
 * attach, with @cfg (copied; cfg->target is copied too). */
ProbeSource *probe_source_new_poll (const ProbePollConfig *cfg, const ProbePollChannel *channels,
                                    guint n_channels, GError **error);
/* probe_source_new_rtt: the orti-trace event stream of the RTT up channel @cfg names. attach
 * locates the control block (retrying up to 5 s while the firmware has not made it) and reads
 * until the stream header tells the tick rate (up to 3 s; the bytes are decoded first). */
ProbeSource *probe_source_new_rtt (const ProbeRttConfig *cfg);
/* probe_source_new_rtt_per_core: an AMP target with one orti-trace stream per core: core c's
 * control block is @cfgs[c].cb_address (required, distinct), read through OpenOCD target
 * @cfgs[c].target — or, with @targets_auto, OpenOCD's c-th `target names`, resolved at attach —
 * with the drain method (one round trip per core in turn); its Events are core c's and its
 * bytes capture channel c. A stream whose header names another core than c is refused (naming
 * the target), as are differing tick rates. The streams must share one time base (the session
 * merges them in time order). FALSE/NULL with @error for 0 or too many cores, a missing or
 * shared address, or the server method. */
ProbeSource *probe_source_new_rtt_per_core (const ProbeRttConfig *cfgs, guint n_cores,
                                            gboolean targets_auto, GError **error);
/* probe_source_rtt_set_backlog: the first @bytes of stream @channel of RTT source @src (a
 * replay's decoder) are a backlog, kept or not (probe_decoder_set_backlog), as the live
 * session that recorded it found them (ProbeSourceQuality.backlog). Before any byte of it is
 * decoded. */
void probe_source_rtt_set_backlog (ProbeSource *src, guint16 channel, guint64 bytes,
                                   gboolean keep);
/* probe_source_new_replay: plays back the capture @reader (taken over) through @decoder, a
 * source of the kind the capture was recorded with (taken over; never attached: only its
 * decoder is used). */
ProbeSource *probe_source_new_replay (ProbeCaptureReader *reader, ProbeSource *decoder);

void probe_source_free (ProbeSource *src);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSource, probe_source_free)

/* probe_source_attach: configures the target through @oc (borrowed; must stay open until the
 * next attach or detach). FALSE with the error that prevented it; PROBE_ERROR_NOT_FOUND means
 * the target is not ready yet (no RTT control block). */
gboolean probe_source_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error);
/* probe_source_step: one round: reads what arrived, hands it to @sink->on_record, decodes it
 * into @sink->on_event. */
ProbeSourceStatus probe_source_step (ProbeSource *src, const ProbeSourceSink *sink,
                                     GError **error);
/* probe_source_gap: data was lost (link, halt, reset): emits a GAP Event (and a capture GAP
 * record) at the source's latest timestamp and forgets the decoded state. */
void probe_source_gap (ProbeSource *src, ProbeGapReason reason, const ProbeSourceSink *sink);
/* probe_source_finish: the stream ends (the session stops, a replay reached its end): what
 * the decoder still holds is decoded into @sink (and recorded, so a replay ends the same). */
void probe_source_finish (ProbeSource *src, const ProbeSourceSink *sink);
/* probe_source_check_target: the target's state by an explicit poll, for sources that turn
 * OpenOCD's own polling off (poll); TRUE with *state, or FALSE without error when the source
 * relies on OpenOCD's notifications instead. */
gboolean probe_source_check_target (ProbeSource *src, ProbeTargetState *state, GError **error);
/* probe_target_state_parse: OpenOCD's `curstate` word as a ProbeTargetState (halted and
 * debug-running: halted; reset…: reset; anything else: running). */
ProbeTargetState probe_target_state_parse (const char *st);
/* probe_openocd_target_states: the states of OpenOCD targets @targets[0..n) (NULL: the current
 * one) by one explicit poll of each (`T arp_poll`, `T curstate`) into @states. FALSE with
 * @error when OpenOCD failed or answered otherwise. */
gboolean probe_openocd_target_states (ProbeOpenocd *oc, const char *const *targets, guint n,
                                      ProbeTargetState *states, GError **error);
/* probe_source_check_core_targets: with one OpenOCD target per core (poll with core targets),
 * each core's state by an explicit poll into @states[0..n), n ≤ @max; 0 when the source has no
 * per-core targets (or OpenOCD failed: @error). */
guint probe_source_check_core_targets (ProbeSource *src, ProbeTargetState *states, guint max,
                                       GError **error);
/* probe_source_core_state: core @core of several changed state (@st): a TARGET_STATE Event of
 * that core, and when it stopped a GAP of that core alone (PROBE_GAP_HALT |
 * PROBE_GAP_CORE_ONLY) — a poll source ignores the core's variables until it runs again —
 * and a capture STATE record naming the core, which a replay turns into the same Events. */
void probe_source_core_state (ProbeSource *src, guint16 core, ProbeTargetState st,
                              const ProbeSourceSink *sink);
/* probe_source_target_state: the whole target changed state (@st): its TARGET_STATE Event into
 * @sink->on_event, at the earliest of the cores' latest Event times and on that core (the
 * source's latest time, core 0, before any core has one), so that it moves no core's clock
 * past its own: each core's stream has its own time, and the slicer takes an Event's time as
 * its core's. Only the Event: the caller records the state and emits the gap of a stop. */
void probe_source_target_state (ProbeSource *src, ProbeTargetState st,
                                const ProbeSourceSink *sink);
/* probe_source_detach: undoes what attach configured (`poll on`, stops OpenOCD's rtt
 * server, …). Safe to call when not attached. */
gboolean probe_source_detach (ProbeSource *src, GError **error);
const ProbeSourceQuality *probe_source_get_quality (ProbeSource *src);
/* The capture kind of what this source reads (PROBE_SOURCE_POLL, _RTT). */
ProbeSourceKind probe_source_get_kind (ProbeSource *src);
/* The latest Event timestamp the source produced. */
guint64 probe_source_get_last_ts (ProbeSource *src);

/* ---------------------------------------------------------------------------------------- */
/* SWO decoders (swo-tpiu.c, swo-orbflow.c, swo-itm.c, swo-mapper.c, swo-decoder.c; see       */
/* docs/swo.md). Pure byte pumps in layers, each usable and tested alone:                     */
/*   TPIU deframer (formatter on)  ─┐                                                         */
/*   orbflow (orbuculum TCP 3402)  ─┼─► ITM bytes ─► ITM/DWT packet decoder ─► packets ─►     */
/*   raw ITM (OpenOCD, 3443, file) ─┘                  mapper (comparator map) ─► Events      */
/* ProbeSwoDecoder chains them for a source; with n_streams it runs one ITM decoder and       */
/* mapper per trace ID of a TPIU stream (multi-core, Events in global timestamp ticks).       */
/* Any split of the input gives the same output;                                              */
/* nothing waits for a sync to start; lost or corrupt input becomes a GAP Event.              */

/* Receives @len (> 0) bytes of the inner stream; @lost_before: bytes of it were lost or
 * corrupt just before these (a bad frame, a partial frame cut by a sync). Only valid during
 * the call. */
typedef void (*ProbeSwoBytesFunc) (const guint8 *data, gsize len, gboolean lost_before,
                                   gpointer user_data);

/* --- TPIU deframer: CoreSight formatter frames (16 bytes; CoreSight Architecture
 * Specification, "Trace Formatter") → the bytes of one trace ID. --- */
typedef struct {
  guint8 trace_id;  /* the ID to deliver (ITM_TCR.TraceBusID; 0: 1) */
} ProbeSwoTpiuOptions;
#define PROBE_SWO_TPIU_OPTIONS_INIT { 1 }

typedef struct {
  guint64 bytes;          /* bytes fed */
  guint64 frames;         /* complete frames decoded */
  guint64 syncs;          /* full syncs FF FF FF 7F */
  guint64 halfword_syncs; /* halfword syncs FF 7F (at an even frame position) */
  guint64 id_changes;     /* ID change bytes (immediate and delayed) */
  guint64 id_bytes;       /* data bytes delivered: of the selected ID (feed), of IDs 0x01–0x6F
                           * (feed_ids) */
  guint64 other_bytes;    /* data bytes of other IDs (feed: ETM, …; feed_ids: reserved IDs
                           * 0x70–0x7C, 0x7E) */
  guint64 null_bytes;     /* data bytes of ID 0 (padding) */
  guint64 trigger_bytes;  /* data bytes of the trigger ID 0x7D */
  guint64 bad_frames;     /* frames with ID 0x7F (impossible: misaligned or corrupt): dropped */
  guint64 skipped_bytes;  /* bytes dropped: bad frames, partial frames cut by a sync */
} ProbeSwoTpiuStats;

typedef struct _ProbeSwoTpiu ProbeSwoTpiu;
/* probe_swo_tpiu_new: a deframer taking frames as aligned from the first byte until a full
 * sync says otherwise. @options may be NULL (defaults). */
ProbeSwoTpiu *probe_swo_tpiu_new (const ProbeSwoTpiuOptions *options);
void probe_swo_tpiu_free (ProbeSwoTpiu *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoTpiu, probe_swo_tpiu_free)
/* probe_swo_tpiu_feed: deframes @len bytes (frames may span calls) and hands the selected ID's
 * bytes to @func, in batches, before returning. Up to 18 bytes stay inside (a frame in
 * progress and a possible sync). */
void probe_swo_tpiu_feed (ProbeSwoTpiu *t, const guint8 *data, gsize len,
                          ProbeSwoBytesFunc func, gpointer user_data);
/* Receives @len (> 0) bytes of trace ID @id (0x01–0x6F), a run of that ID in stream order;
 * @lost_before: bytes were lost or corrupt since this ID's previous bytes (a bad frame or a
 * partial frame cut by a sync is lost for every ID). Only valid during the call. */
typedef void (*ProbeSwoIdBytesFunc) (guint8 id, const guint8 *data, gsize len,
                                     gboolean lost_before, gpointer user_data);
/* probe_swo_tpiu_feed_ids: as probe_swo_tpiu_feed, but hands over the data bytes of EVERY
 * source ID 0x01–0x6F (not 0 padding, not 0x7D trigger, not the reserved IDs), in stream
 * order, one callback per run of an ID (or per 4 KiB). After a lost frame the next bytes of
 * each ID carry lost_before. Use one feed or the other on a deframer, not both. */
void probe_swo_tpiu_feed_ids (ProbeSwoTpiu *t, const guint8 *data, gsize len,
                              ProbeSwoIdBytesFunc func, gpointer user_data);
/* probe_swo_tpiu_reset: the input was interrupted and the caller reports the gap: drops the
 * frame in progress (counted as skipped) and takes the next byte as a frame start; the trace
 * ID in force stays. */
void probe_swo_tpiu_reset (ProbeSwoTpiu *t);
const ProbeSwoTpiuStats *probe_swo_tpiu_get_stats (ProbeSwoTpiu *t);

/* --- orbflow: orbuculum's protocol (TCP 3402): COBS frames ended by 0x00; a decoded frame is
 * [tag][payload…][sum] with all its bytes summing to 0 mod 256; tag 1 carries ITM. --- */
typedef struct {
  guint8 tag;  /* the tag to deliver (0: 1, ITM) */
} ProbeSwoOrbflowOptions;
#define PROBE_SWO_ORBFLOW_OPTIONS_INIT { 1 }

#define PROBE_SWO_ORBFLOW_MAX_FRAME 8192 /* decoded bytes of the longest frame accepted */

typedef struct {
  guint64 bytes;          /* bytes fed */
  guint64 frames;         /* well-formed frames (any tag) */
  guint64 tag_frames;     /* … of the selected tag (their payload is delivered) */
  guint64 payload_bytes;  /* bytes delivered */
  guint64 bad_frames;     /* frames dropped: COBS code overrun, too short, too long, bad sum */
  guint64 skipped_bytes;  /* encoded bytes of the dropped frames */
} ProbeSwoOrbflowStats;

typedef struct _ProbeSwoOrbflow ProbeSwoOrbflow;
/* probe_swo_orbflow_new: a decoder taking the first byte as a frame start. */
ProbeSwoOrbflow *probe_swo_orbflow_new (const ProbeSwoOrbflowOptions *options);
void probe_swo_orbflow_free (ProbeSwoOrbflow *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoOrbflow, probe_swo_orbflow_free)
/* probe_swo_orbflow_feed: decodes @len bytes (frames may span calls) and hands the payload of
 * good frames of the selected tag to @func before returning. */
void probe_swo_orbflow_feed (ProbeSwoOrbflow *o, const guint8 *data, gsize len,
                             ProbeSwoBytesFunc func, gpointer user_data);
/* probe_swo_orbflow_reset: the input was interrupted and the caller reports the gap: drops
 * the frame in progress (counted as skipped); the next byte starts a frame. */
void probe_swo_orbflow_reset (ProbeSwoOrbflow *o);
const ProbeSwoOrbflowStats *probe_swo_orbflow_get_stats (ProbeSwoOrbflow *o);

/* --- ITM/DWT packet decoder (ARMv7-M ARM appendix D4; ARMv8-M ARM appendix D2 is the same
 * for these packets): ITM bytes → packets, each with its timestamp. --- */

typedef enum {
  PROBE_SWO_PACKET_SYNC = 0,      /* synchronisation packet (≥ 47 zero bits, then a 1) */
  PROBE_SWO_PACKET_OVERFLOW,      /* 0x70: the ITM or DWT dropped packets */
  PROBE_SWO_PACKET_LOCAL_TS,      /* local timestamp: value = delta, info = TC (0: in sync;
                                   * 1 timestamp delayed, 2 packet delayed, 3 both) */
  PROBE_SWO_PACKET_GLOBAL_TS,     /* global timestamp (skipped): info = 1 or 2 (GTS1/GTS2),
                                   * value = its low 32 payload bits */
  PROBE_SWO_PACKET_EXTENSION,     /* extension: source = SH bit, value = EX bits; SH = 0 sets
                                   * the stimulus port page */
  PROBE_SWO_PACKET_STIMULUS,      /* software source: source = port (page × 32 + port),
                                   * value, size 1/2/4 */
  PROBE_SWO_PACKET_EVENT_COUNTER, /* hardware ID 0: value = counter wrap bits (CPI, Exc,
                                   * Sleep, LSU, Fold, Cyc) */
  PROBE_SWO_PACKET_EXCEPTION,     /* hardware ID 1: value = exception number (0: thread),
                                   * info = PROBE_SWO_EXC_* */
  PROBE_SWO_PACKET_PC_SAMPLE,     /* hardware ID 2: value = PC, info = 1 when sleeping (`15 00`) */
  PROBE_SWO_PACKET_DATA_PC,       /* data trace PC value: source = comparator, value = PC */
  PROBE_SWO_PACKET_DATA_ADDRESS,  /* data trace address offset: source = comparator,
                                   * value = address[15:0] */
  PROBE_SWO_PACKET_DATA_VALUE,    /* data trace data value: source = comparator, value, size,
                                   * info = 1 write / 0 read */
  PROBE_SWO_PACKET_HARDWARE,      /* any other hardware source packet (reserved ID, or a size
                                   * its ID does not have: malformed): source = ID */
  PROBE_SWO_PACKET_LOST,          /* the input was corrupt or lost here (a malformed run
                                   * starts): info = PROBE_SWO_LOST_* */
  PROBE_SWO_PACKET_GLOBAL_TIME,   /* right after a GLOBAL_TS packet once the full global time
                                   * is known (a GTS1's low and a GTS2's high bits, no Wrap
                                   * waiting for its GTS2): the 64-bit global time G =
                                   * probe_swo_packet_global_time () (value = G[31:0],
                                   * reserved[0..3] = G[63:32] little endian); info =
                                   * PROBE_SWO_GTS_CLOCK_CHANGED when a GTS1 said ClkCh since the
                                   * previous GLOBAL_TIME. Same ts as its GLOBAL_TS packet:
                                   * the instant the GTS stamps (see ProbeSwoPacket), the
                                   * local time G belongs to. */
  PROBE_SWO_PACKET_KIND_COUNT
} ProbeSwoPacketKind;

/* info of PROBE_SWO_PACKET_EXCEPTION (the FN field). */
enum {
  PROBE_SWO_EXC_ENTERED = 1,  /* the exception's handler was entered */
  PROBE_SWO_EXC_EXITED = 2,   /* its handler was left (exception return begins) */
  PROBE_SWO_EXC_RETURNED = 3, /* execution returned to this exception (0: thread mode) */
};

/* info of PROBE_SWO_PACKET_LOST. */
enum {
  PROBE_SWO_LOST_MALFORMED = 1, /* a header that is no packet, or a malformed packet */
  PROBE_SWO_LOST_CUT = 2,       /* a sync arrived inside a packet */
  PROBE_SWO_LOST_INPUT = 3,     /* the layer below reported lost bytes (bad frame, link) */
};

/* info of PROBE_SWO_PACKET_GLOBAL_TIME. */
enum {
  PROBE_SWO_GTS_CLOCK_CHANGED = 1, /* ClkCh: the processor clock changed, the relation between
                                    * local and global time restarts here */
};

/* One ITM/DWT packet. Its timestamp: local timestamp packets follow the packets they stamp
 * (ARMv7-M D4.2.4), so every packet gets the cumulative local-timestamp count up to and
 * including the next local timestamp packet after it (a timestamp packet: its own). But
 * GLOBAL_TS and GLOBAL_TIME: a GTS stamps the instant of the latest local timestamp before it
 * (an ITM sends it right after the local timestamp that closes a packet group, with the global
 * time of that instant), so they get the count up to that one — possibly behind the packets
 * between it and the GTS, which are stamped with the next. */
typedef struct {
  guint64 ts;      /* Σ local-timestamp deltas, in timestamp-clock ticks (after the prescaler) */
  guint32 value;   /* payload (see the kind) */
  guint16 source;  /* stimulus port; data trace: comparator; other hardware packets: their
                    * source ID (0 event counter, 1 exception, 2 PC sample, …) */
  guint8 kind;     /* ProbeSwoPacketKind */
  guint8 size;     /* payload bytes (source packets: 1, 2 or 4) */
  guint8 info;     /* kind-specific detail (see the kind) */
  guint8 reserved[7]; /* zero, but GLOBAL_TIME: [0..3] = G[63:32] (use the getter below) */
} ProbeSwoPacket;

G_STATIC_ASSERT (sizeof (ProbeSwoPacket) == 24);

/* The 64-bit global time of a PROBE_SWO_PACKET_GLOBAL_TIME packet (0 for other kinds). */
static inline guint64
probe_swo_packet_global_time (const ProbeSwoPacket *pk)
{
  if (pk->kind != PROBE_SWO_PACKET_GLOBAL_TIME)
    return 0;
  return (guint64) pk->reserved[0] << 32 | (guint64) pk->reserved[1] << 40 |
         (guint64) pk->reserved[2] << 48 | (guint64) pk->reserved[3] << 56 | pk->value;
}

typedef struct {
  guint max_held;  /* packets kept waiting for their timestamp; when exceeded they get the
                    * latest time (counted as untimed) — a stream without local timestamps
                    * is delivered every max_held packets (0: 4096) */
} ProbeSwoItmOptions;
#define PROBE_SWO_ITM_OPTIONS_INIT { 0 }

typedef struct {
  guint64 bytes;           /* bytes fed */
  guint64 packets;         /* packets decoded (all kinds; a flush hands over the last) */
  guint64 kinds[PROBE_SWO_PACKET_KIND_COUNT]; /* packets decoded per ProbeSwoPacketKind */
  guint64 syncs;           /* sync packets */
  guint64 overflows;       /* overflow packets */
  guint64 malformed;       /* malformed packets or headers, and packets cut by a sync */
  guint64 lost_runs;       /* LOST packets: runs of malformed or lost input */
  guint64 skipped_bytes;   /* bytes in no packet: malformed headers, packets cut short */
  guint64 ts_delayed;      /* local timestamps with TC ≠ 0 (time or packet delayed) */
  guint64 untimed;         /* packets delivered without a later timestamp (max_held, flush) */
  guint64 gts_times;       /* GLOBAL_TIME packets: global times reconstructed */
  guint64 gts_unknown;     /* GTS packets after which the global time was still unknown (a
                            * GTS2 before a full GTS1, a short GTS1 after a loss, a GTS1 while
                            * a Wrap waits for its GTS2, a GTS1 with Wrap) */
  guint64 gts_wraps_lost;  /* GTS1 with Wrap not followed by a GTS2 before the next GTS1, and
                            * wraps lost with lost input (low bits went backwards) */
  guint64 gts_clock_changes; /* GTS1 with ClkCh */
} ProbeSwoItmStats;

/* Receives @n (> 0) packets in stream order; the array is only valid during the call. */
typedef void (*ProbeSwoPacketsFunc) (const ProbeSwoPacket *packets, gsize n,
                                     gpointer user_data);

typedef struct _ProbeSwoItm ProbeSwoItm;
/* probe_swo_itm_new: a decoder taking the first byte as a packet header. */
ProbeSwoItm *probe_swo_itm_new (const ProbeSwoItmOptions *options);
void probe_swo_itm_free (ProbeSwoItm *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoItm, probe_swo_itm_free)
/* probe_swo_itm_feed: decodes @len ITM bytes (packets may span calls; @lost_before: bytes
 * before these were lost, as ProbeSwoBytesFunc says) and hands every packet whose timestamp
 * is known to @func, in batches, before returning. */
void probe_swo_itm_feed (ProbeSwoItm *d, const guint8 *data, gsize len, gboolean lost_before,
                         ProbeSwoPacketsFunc func, gpointer user_data);
/* probe_swo_itm_flush: hands over the packets still waiting for a timestamp, with the latest
 * time (the end of a stream, or before a gap). A packet in progress stays. */
void probe_swo_itm_flush (ProbeSwoItm *d, ProbeSwoPacketsFunc func, gpointer user_data);
/* probe_swo_itm_reset: the input was interrupted and the caller reports the gap: drops the
 * packet in progress (counted as skipped), forgets the global time (a GTS2 and a full GTS1
 * are needed again) and takes the next byte as a header; malformed
 * bytes right after belong to that gap (no LOST packet until the decoder has resynchronised).
 * Waiting packets stay (flush first to hand them over). */
void probe_swo_itm_reset (ProbeSwoItm *d);
/* The cumulative local-timestamp count so far. */
guint64 probe_swo_itm_get_time (ProbeSwoItm *d);
/* probe_swo_itm_get_global: the latest reconstructed global time (the last GLOBAL_TIME
 * packet's, decoded so far; packets may still wait for their local timestamp) into @gts (0 if
 * none); FALSE when none has been reconstructed yet. */
gboolean probe_swo_itm_get_global (ProbeSwoItm *d, guint64 *gts);
const ProbeSwoItmStats *probe_swo_itm_get_stats (ProbeSwoItm *d);
/* probe_swo_packet_kind_name: "sync", "overflow", "local_ts", … or NULL. */
const char *probe_swo_packet_kind_name (guint kind);

/* --- mapper: packets → Events (pure). --- */

/* Event id of an exception the exception map does not name (ISR_ENTER/ISR_EXIT a). */
#define PROBE_SWO_EXCEPTION_ID(number) (0xE0000000u | (guint32) (number))
#define PROBE_SWO_MAX_EXCEPTIONS 512 /* exception numbers are 9 bits */
#define PROBE_SWO_MAX_COMPARATORS 4  /* data trace packets name comparators 0–3 */

/* One DWT comparator with data trace: what the value it traces means. @watch is read like a
 * poll channel (kind TASK, ISR, SERVICE, DATA or PRIORITY; width, is_signed, none_values,
 * classes, entry_bit, data_id; address and name for messages), and a traced value changes the
 * state as a poll sample of that channel would (poll-decoder.c, in its trace mode). */
typedef struct {
  guint comparator;        /* 0–3 */
  ProbePollChannel watch;
} ProbeSwoComparator;

/* One exception of the vector table. */
typedef struct {
  guint16 number;  /* exception number (16 + IRQn for interrupts) */
  guint32 id;      /* ISR id in Events: the ORTI ISR2 value, or any id the session names */
  gboolean isr2;   /* it is an ISR2: with a comparator on RUNNINGISR2 (or a task comparator
                    * with ISR values) it is reported from the data trace, not from here. When
                    * no entry says isr2, the mapper learns which exceptions carry ISR2s
                    * (swo-mapper.c) */
} ProbeSwoException;

typedef struct {
  guint16 core;                          /* core of every Event */
  const ProbeSwoComparator *comparators; /* copied */
  guint n_comparators;
  const ProbeSwoException *exceptions;   /* copied; others get PROBE_SWO_EXCEPTION_ID (n)
                                          * | unnamed_exception_bits */
  guint n_exceptions;
  gboolean no_exceptions;  /* do not turn exception trace into ISR Events */
  guint lts_prescaler;     /* ITM_TCR.TSPrescale as a divisor: 1, 4, 16 or 64 (0: 1) */
  guint64 lts_hz;          /* the timestamp clock before the prescaler (0: the CPU clock) */
  guint64 cpu_hz;          /* CYCCNT rate: Event timestamps are CPU cycles (0: Event
                            * timestamps are timestamp-clock ticks × prescaler) */
  /* Evidence the comparators do not trace: TASK_STATE channels of this core without reads,
   * each carrying one task's priority (copied), so a switch tells a preemption from the end
   * of a job as in poll-decoder.c ("Evidence"). */
  const ProbePollChannel *evidence;
  guint n_evidence;
  /* VALID channels of this core whose one read is a traced variable (same address as a
   * comparator's watch, no wider): evaluated (eval over plan, little endian) on each traced
   * value of it, so a value the OS marks invalid (Trampoline's running id -1 while it
   * dispatches) changes nothing, as in poll-decoder.c ("VALID"). Copied; plans borrowed. */
  const ProbePollChannel *gates;
  guint n_gates;
  /* OR'd into PROBE_SWO_EXCEPTION_ID (n) of the exceptions @exceptions does not name: with
   * several cores core << 16, so that core k's unnamed exception n is its own ISR, as its named
   * ones are (0: the id as it is) */
  guint32 unnamed_exception_bits;
} ProbeSwoMapConfig;
#define PROBE_SWO_MAP_CONFIG_INIT { 0, NULL, 0, NULL, 0, FALSE, 1, 0, 0, NULL, 0, NULL, 0, 0 }

typedef struct {
  guint64 packets;          /* packets fed */
  guint64 events;           /* Events delivered */
  guint64 overflow_gaps;    /* GAP Events for overflows … */
  guint64 overflow_packets; /* … and the overflow packets they stand for */
  guint64 decode_gaps;      /* GAP Events for LOST packets */
  guint64 other_gaps;       /* GAP Events of probe_swo_mapper_gap (link, halt, …) */
  guint64 values;           /* data values of configured comparators */
  guint64 values_unmapped;  /* data values of comparators the map does not name */
  guint64 values_narrow;    /* values narrower than the watched width (zero-extended) */
  guint64 exceptions_unmatched; /* exits/returns of exceptions not seen entering */
  guint64 exceptions_repaired;  /* exits emitted for exceptions whose exit was never seen */
  guint64 exceptions_isr2;      /* exceptions found to carry an ISR2 (learned; see swo-mapper.c) */
} ProbeSwoMapStats;

typedef struct _ProbeSwoMapper ProbeSwoMapper;
/* probe_swo_mapper_new: checks and copies @config. Fails with PROBE_ERROR_FORMAT naming the
 * entry: a comparator outside 0–3 or given twice, a watch kind other than TASK, ISR, SERVICE or
 * DATA, a width other than 1, 2 or 4, a watch on another core, an exception number ≥ 512 or
 * given twice, a prescaler other than 1, 4, 16, 64. */
ProbeSwoMapper *probe_swo_mapper_new (const ProbeSwoMapConfig *config, GError **error);
void probe_swo_mapper_free (ProbeSwoMapper *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoMapper, probe_swo_mapper_free)
/* probe_swo_mapper_feed: turns @n packets (in stream order, non-decreasing ts) into Events,
 * delivered to @func in batches before returning. */
void probe_swo_mapper_feed (ProbeSwoMapper *m, const ProbeSwoPacket *packets, gsize n,
                            ProbeEventsFunc func, gpointer user_data);
/* probe_swo_mapper_flush: emits an overflow GAP still waiting for the end of its run. */
void probe_swo_mapper_flush (ProbeSwoMapper *m, ProbeEventsFunc func, gpointer user_data);
/* probe_swo_mapper_gap: emits GAP(@reason) at the latest timestamp and forgets the state. */
void probe_swo_mapper_gap (ProbeSwoMapper *m, ProbeGapReason reason, ProbeEventsFunc func,
                           gpointer user_data);
/* probe_swo_mapper_seed: the variable of @comparator holds @value now (read through the
 * debugger when the trace started or resumed): as if written at the latest timestamp, so
 * the state is known before the variable's next write. */
void probe_swo_mapper_seed (ProbeSwoMapper *m, guint comparator, guint32 value,
                            ProbeEventsFunc func, gpointer user_data);
/* The Event timestamp of cumulative local-timestamp count @lts (config's clocks). */
guint64 probe_swo_mapper_ticks (ProbeSwoMapper *m, guint64 lts);
const ProbeSwoMapStats *probe_swo_mapper_get_stats (ProbeSwoMapper *m);
/* The Cortex-M architecture a target was built for, which names its exceptions (the ELF's
 * build attributes tell it: orti_elf_get_arm_arch). */
typedef enum {
  PROBE_ARM_ARCH_UNKNOWN = 0,
  PROBE_ARM_ARCH_V6M,        /* ARMv6-M: no configurable faults, no DebugMonitor */
  PROBE_ARM_ARCH_V7M,        /* ARMv7-M, v7E-M: MemManage, BusFault, UsageFault, DebugMonitor */
  PROBE_ARM_ARCH_V8M_BASE,   /* ARMv8-M Baseline: as ARMv6-M */
  PROBE_ARM_ARCH_V8M_MAIN,   /* ARMv8-M Mainline: as ARMv7-M, and SecureFault (7) */
  PROBE_ARM_ARCH_V81M_MAIN,  /* ARMv8.1-M Mainline: as ARMv8-M Mainline */
} ProbeArmArch;

/* probe_swo_exception_name: the name of exception @number on @arch: "Reset", "NMI",
 * "HardFault", …, "SysTick", "IRQ5" (number 21); "Thread" for 0; "Reserved7" for a number
 * @arch reserves (7 on ARMv7-M; 4–7 and 12 on ARMv6-M and ARMv8-M Baseline). With an
 * UNKNOWN architecture the numbers whose name depends on it are "Exception4" … "Exception12".
 * Newly allocated. */
char *probe_swo_exception_name (ProbeArmArch arch, guint number);

/* --- the whole pipeline for a source --- */
typedef enum {
  PROBE_SWO_INPUT_ITM = 0,  /* raw ITM bytes (TPIU formatter off: OpenOCD's tpiu -output,
                             * orbuculum 3443, a file) */
  PROBE_SWO_INPUT_TPIU,     /* TPIU formatter frames */
  PROBE_SWO_INPUT_ORBFLOW,  /* orbuculum orbflow (3402) */
} ProbeSwoInput;

/* One core's ITM in a multi-core TPIU stream (issue #19: e.g. STM32H745, an M7 and an M4
 * funnelled into one SWO). */
#define PROBE_SWO_MAX_STREAMS 16
typedef struct {
  guint8 trace_id;          /* the core's ITM_TCR.TraceBusID: 0x01–0x6F, one per stream */
  guint64 cpu_hz;           /* the core's clock (local timestamps count it, before map's
                             * lts_prescaler, unless map.lts_hz says otherwise); > 0 */
  ProbeSwoMapConfig map;    /* map.core = the session core this stream is; map.cpu_hz is not
                             * used (Events are in global ticks) */
} ProbeSwoStream;

typedef struct {
  ProbeSwoInput input;
  guint8 trace_id;          /* TPIU: the ITM's trace ID (0: 1) */
  guint8 orbflow_tag;       /* ORBFLOW: the ITM tag (0: 1) */
  guint max_held;           /* ProbeSwoItmOptions.max_held; with streams also the packets a
                             * stream holds before its first global time (0: 4096) */
  ProbeSwoMapConfig map;    /* the single stream's (n_streams 0) */
  /* Multi-core (n_streams ≥ 1; input must be PROBE_SWO_INPUT_TPIU; map and trace_id are then
   * not used): one ITM decoder and mapper per stream, Events in global timestamp ticks. */
  guint n_streams;          /* 0: one stream, as above (unchanged) */
  const ProbeSwoStream *streams; /* copied (maps as probe_swo_mapper_new copies them) */
  guint64 global_hz;        /* the global timestamp clock (ITM GTS): the Events' rate; > 0 */
} ProbeSwoDecoderOptions;
#define PROBE_SWO_DECODER_OPTIONS_INIT { PROBE_SWO_INPUT_ITM, 1, 1, 0, PROBE_SWO_MAP_CONFIG_INIT, \
                                         0, NULL, 0 }

typedef struct {
  ProbeSwoTpiuStats tpiu;       /* zero unless input is TPIU */
  ProbeSwoOrbflowStats orbflow; /* zero unless input is ORBFLOW */
  ProbeSwoItmStats itm;
  ProbeSwoMapStats map;
  guint64 bytes;                /* bytes fed */
  guint64 skipped_bytes;        /* bytes of every layer that carried nothing (lost) */
  guint64 overflows;            /* overflow packets (trace bandwidth exceeded) */
  guint64 gaps;                 /* GAP Events emitted (overflow, decode, _gap calls) */
} ProbeSwoDecoderStats;

/* One stream of a multi-core decoder. */
typedef struct {
  ProbeSwoItmStats itm;
  ProbeSwoMapStats map;
  guint64 bytes;              /* bytes of its trace ID */
  guint64 anchors;            /* GLOBAL_TIME packets: its local time tied to global time */
  guint64 held;               /* packets waiting now for a global time (the first, or the
                               * next after lost input) */
  guint64 dropped;            /* packets dropped without a global time (more than max_held
                               * waited, or a gap came first): inside a GAP, never timed */
  guint64 clamped;            /* packets whose global time was raised to the stream's latest
                               * (a new global time behind the previous extrapolation) */
} ProbeSwoStreamStats;

typedef struct _ProbeSwoDecoder ProbeSwoDecoder;
/* probe_swo_decoder_new: the layers for @options->input and the mapper (errors: as
 * probe_swo_mapper_new, prefixed "stream N: " for a stream's map). With n_streams ≥ 1 also
 * PROBE_ERROR_FORMAT for: more than PROBE_SWO_MAX_STREAMS streams or streams NULL, an input
 * other than TPIU, a trace ID outside 0x01–0x6F or given twice, cpu_hz 0, global_hz 0.
 *
 * Multi-core (n_streams ≥ 1): the TPIU deframer hands every ID's bytes to that stream's ITM
 * decoder and mapper (bytes of IDs no stream takes are dropped: tpiu.id_bytes − Σ the
 * streams' bytes);
 * every Event carries its stream's map.core. Time: Event timestamps are global timestamp
 * ticks (global_hz). A stream's packet with local time L (its Σ local timestamps) after the
 * stream's latest GLOBAL_TIME packet (global time G, local time L0) gets
 *   G + floor ((L − L0) × lts_prescaler × global_hz / lts_clock)
 * with lts_clock = map.lts_hz or else cpu_hz (exact 128-bit integers; floor also below L0).
 * L0 is the GLOBAL_TIME packet's ts: a GTS stamps the instant of the latest local timestamp
 * before it (see ProbeSwoPacket); a stream whose ITM means the local timestamp after it
 * would be off by at most one local-timestamp interval per anchor. Packets before a stream's
 * first global time (or after lost input, which makes local time unreliable) are held, up to
 * max_held, and converted with the next global time; beyond that they are dropped into a GAP
 * (PROBE_GAP_DECODE) placed before the next timed packet — never given a guessed time. Within
 * a stream Events are in time order (a time behind the stream's latest is raised to it:
 * stats clamped); Events of different streams come out interleaved as their bytes arrive,
 * NOT in time order across streams: the session's per-core merge orders them. */
ProbeSwoDecoder *probe_swo_decoder_new (const ProbeSwoDecoderOptions *options, GError **error);
void probe_swo_decoder_free (ProbeSwoDecoder *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoDecoder, probe_swo_decoder_free)
/* probe_swo_decoder_feed: decodes @len input bytes into Events, delivered to @func in batches
 * before returning. Any split of the input gives the same Events. */
void probe_swo_decoder_feed (ProbeSwoDecoder *d, const guint8 *data, gsize len,
                             ProbeEventsFunc func, gpointer user_data);
/* probe_swo_decoder_flush: the stream ended (or paused for long): Events of the packets still
 * waiting for a timestamp, and a pending overflow gap. Multi-core: packets still waiting for
 * a global time stay held (stats held): there is no time to give them. */
void probe_swo_decoder_flush (ProbeSwoDecoder *d, ProbeEventsFunc func, gpointer user_data);
/* probe_swo_decoder_gap: the input was interrupted (link lost, target reset): flushes, drops
 * every layer's partial frame or packet, emits GAP(@reason) and forgets the state.
 * Multi-core: on every stream, at its latest time; packets still waiting for a global time
 * are dropped (stats dropped) and the streams wait for their next global time. */
void probe_swo_decoder_gap (ProbeSwoDecoder *d, ProbeGapReason reason, ProbeEventsFunc func,
                            gpointer user_data);
/* probe_swo_decoder_seed: comparators 0 … @n-1 watch variables that hold @values now
 * (probe_swo_mapper_seed), after the packets fed so far. Multi-core: stream 0's. */
void probe_swo_decoder_seed (ProbeSwoDecoder *d, const guint32 *values, guint n,
                             ProbeEventsFunc func, gpointer user_data);
/* probe_swo_decoder_seed_stream: as probe_swo_decoder_seed for stream @stream_index (< the
 * number of streams; 0 for a single-stream decoder). While the stream waits for a global
 * time, the seed waits with its packets and comes out, in order, when they do. */
void probe_swo_decoder_seed_stream (ProbeSwoDecoder *d, guint stream_index,
                                    const guint32 *values, guint n, ProbeEventsFunc func,
                                    gpointer user_data);
/* probe_swo_decoder_stream_stopped: stream @stream_index's core stopped (halted, reset; < the
 * number of streams). Its local clock does not keep step with the global one across the stop
 * (CYCCNT and the ITM's timestamp counter stop with the core, or saturate, while the global
 * clock runs on), so the packets it sends once running again wait for its next global time,
 * as after lost input, instead of counting on from the global time before the stop. Call it
 * once the packets sent before the stop have been fed: those still waiting for a local
 * timestamp are handed over first, with the stream's latest time (Events to @func). No-op for
 * a single-stream decoder (its Events are on the core's own clock). */
void probe_swo_decoder_stream_stopped (ProbeSwoDecoder *d, guint stream_index,
                                       ProbeEventsFunc func, gpointer user_data);
/* The statistics of all layers (never NULL; refreshed by each call). Multi-core: itm and map
 * are the sums over the streams. */
const ProbeSwoDecoderStats *probe_swo_decoder_get_stats (ProbeSwoDecoder *d);
/* probe_swo_decoder_get_stream_stats: stream @i's statistics (refreshed by each call), NULL
 * when @i is not a stream (a single-stream decoder has none). */
const ProbeSwoStreamStats *probe_swo_decoder_get_stream_stats (ProbeSwoDecoder *d, guint i);
/* The Event timestamp the stream has reached. Multi-core: the smallest of the streams' (the
 * time every stream has reached; a stream without a global time yet counts as 0). */
guint64 probe_swo_decoder_get_ts (ProbeSwoDecoder *d);
/* probe_swo_decoder_get_stream_ts: stream @i's time reached (global ticks: its latest global
 * time extrapolated to its local time so far; else its latest Event time). Single-stream
 * decoder, @i 0: probe_swo_decoder_get_ts. */
guint64 probe_swo_decoder_get_stream_ts (ProbeSwoDecoder *d, guint i);

/* ---------------------------------------------------------------------------------------- */
/* The TPIU's output protocol (TPIU_SPPR; OpenOCD's `tpiu configure -protocol`). */
typedef enum {
  PROBE_SWO_UART = 0,        /* SWO pin, NRZ (SPPR 2): the common one */
  PROBE_SWO_MANCHESTER,      /* SWO pin, Manchester (SPPR 1) */
  PROBE_SWO_SYNC,            /* parallel trace port (SPPR 0): TRACEDATA pins, a trace probe */
} ProbeSwoProtocol;

/* The SWO source (source-swo.c): DWT data trace of the watched variables, exception trace
 * and PC samples through the ITM, read from the SWO stream. */
typedef struct _ProbeSwoSourceConfig {
  const char *target;          /* OpenOCD target (NULL: the current one) */
  guint16 core;                /* core of every Event */
  /* Where the stream comes from: NULL — OpenOCD's own capture (`tpiu … -output :PORT` on a
   * free port of OpenOCD's host, programmed by OpenOCD); ":PORT" or "HOST:PORT" — a server
   * already serving it (orbuculum 3443 raw / 3402 orbflow, the rig); anything else — a file
   * or FIFO being written. With a stream given, attach programs the TPIU itself. */
  const char *stream;
  ProbeSwoInput input;         /* the stream's format (OpenOCD's capture: ITM, formatter off) */
  guint64 core_clock_hz;       /* CYCCNT = TRACECLKIN rate (0: measured against host time) */
  guint64 pin_hz;              /* SWO pin rate (0: OpenOCD's choice; a given stream: the TPIU
                                * prescaler is left as it is) */
  ProbeSwoProtocol protocol;   /* the TPIU's output (default: UART/NRZ on the SWO pin) */
  /* What to trace: one comparator each, most important first (simple channels: a fixed
   * address, 1/2/4 bytes); those beyond the DWT's comparators are reported, not traced. */
  const ProbePollChannel *watch;
  guint n_watch;
  const ProbePollChannel *evidence; /* ProbeSwoMapConfig.evidence (copied) */
  guint n_evidence;
  const ProbePollChannel *gates;    /* ProbeSwoMapConfig.gates (copied; plans borrowed) */
  guint n_gates;
  const ProbeSwoException *exceptions; /* ProbeSwoMapConfig.exceptions (copied) */
  guint n_exceptions;
  gboolean no_exception_trace; /* leave DWT_CTRL.EXCTRCENA off */
  guint pc_sample_hz;          /* periodic PC samples at about this rate (0: none) */
  guint ts_prescale;           /* ITM_TCR.TSPrescale divisor 1, 4, 16, 64 (0: 1) */
  /* A replay's decoder (never attached): the comparators and clock the recording used. */
  gboolean decode_only;
  guint decode_comparators;    /* watch[0 … n-1] were on comparators 0 … n-1 */
  /* Several cores (n_cores ≥ 2) sharing one TPIU, e.g. an STM32H745's M7 and M4: cores[k] is
   * core k's part — target, core, core_clock_hz, watch, evidence, gates, exceptions,
   * decode_comparators — and this config gives what they share (stream, input, protocol,
   * pin_hz, no_exception_trace, pc_sample_hz, ts_prescale, decode_only). Core k's ITM sends
   * under trace ID k + 1 with global timestamps, so input must be PROBE_SWO_INPUT_TPIU, and
   * Event timestamps are ticks of the shared global timestamp clock, @global_hz. 0 or 1:
   * this config is the one core (TraceBusID 1, timestamps in its CPU cycles). */
  const struct _ProbeSwoSourceConfig *cores;
  guint n_cores;
  guint64 global_hz;
} ProbeSwoSourceConfig;

/* probe_source_new_swo: the SWO source for @cfg (copied). Fails with PROBE_ERROR_FORMAT for
 * a configuration the decoder refuses (probe_swo_mapper_new) or a bad stream address. attach
 * fails with PROBE_ERROR_UNSUPPORTED on a core without DWT data trace (Cortex-M0/M0+: use
 * --source poll) or an adapter OpenOCD cannot capture SWO with. */
ProbeSource *probe_source_new_swo (const ProbeSwoSourceConfig *cfg, GError **error);

G_END_DECLS
