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
} ProbeError;

/* Payload value meaning "no task is running" (NO_TASK / idle) in PROBE_EVENT_TASK_SWITCH.
 * Sources normalise the OS's own NO_TASK value(s) to this. */
#define PROBE_TASK_IDLE 0xFFFFFFFFu
/* Payload value meaning "unknown id" (e.g. an exit whose function is not known). */
#define PROBE_ID_ANY 0xFFFFFFFFu

/* What happened. Values are stable: they are stored in databases and capture files. */
typedef enum {
  PROBE_EVENT_NONE = 0,
  PROBE_EVENT_TASK_SWITCH = 1,    /* a = task now running on `core` (PROBE_TASK_IDLE: none) */
  PROBE_EVENT_TASK_ACTIVATE = 2,  /* a = task made ready (ActivateTask / alarm) */
  PROBE_EVENT_TASK_TERMINATE = 3, /* a = task that terminated (TerminateTask / ChainTask) */
  PROBE_EVENT_ISR_ENTER = 4,      /* a = ISR2 id; nests over the running context */
  PROBE_EVENT_ISR_EXIT = 5,       /* a = ISR2 id, or PROBE_ID_ANY */
  PROBE_EVENT_FUNC_ENTER = 6,     /* a = function entry address (or id), b = call site or 0 */
  PROBE_EVENT_FUNC_EXIT = 7,      /* a = function address (or id), or PROBE_ID_ANY */
  PROBE_EVENT_SERVICE_ENTER = 8,  /* a = OS service id (SERVICETRACE value without entry bit) */
  PROBE_EVENT_SERVICE_EXIT = 9,   /* a = OS service id */
  PROBE_EVENT_PP_BEGIN = 10,      /* a = profile point id (seed 003 pfpBegin) */
  PROBE_EVENT_PP_END = 11,        /* a = profile point id, b = 1 to latch (pfpEnd(id, latch)) */
  PROBE_EVENT_DATA = 12,          /* a = variable id, b = value written (data profiling) */
  PROBE_EVENT_GAP = 13,           /* data was lost before this point: a = records lost (0 =
                                   * unknown), b = PROBE_GAP_* reason. State after a gap is
                                   * unknown until the next task switch. */
  PROBE_EVENT_TARGET_STATE = 14,  /* a = PROBE_TARGET_* (halt/resume/reset seen by the probe) */
  PROBE_EVENT_END = 15,           /* end of the stream: close everything still open at ts */
  PROBE_EVENT_KIND_COUNT
} ProbeEventKind;

/* b of PROBE_EVENT_GAP: why data was lost. */
typedef enum {
  PROBE_GAP_UNKNOWN = 0,
  PROBE_GAP_TARGET_DROP = 1, /* the target's ring was full and it counted drops */
  PROBE_GAP_DECODE = 2,      /* the decoder lost sync on corrupt bytes */
  PROBE_GAP_LINK = 3,        /* the probe link (OpenOCD) went away and came back */
  PROBE_GAP_HALT = 4,        /* the target was halted or reset */
} ProbeGapReason;

/* a of PROBE_EVENT_TARGET_STATE. */
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
 * the input gives the same Events. It joins a stream mid-way at the next sync record,
 * resynchronises after corrupt bytes (PROBE_EVENT_GAP, b = PROBE_GAP_DECODE), turns the
 * target's drop records into PROBE_EVENT_GAP (a = records lost, b = PROBE_GAP_TARGET_DROP),
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

#define PROBE_POLL_MAX_CHANNELS 32

typedef enum {
  PROBE_POLL_TASK,    /* RUNNINGTASK: TASK_SWITCH on change */
  PROBE_POLL_ISR,     /* RUNNINGISR2: ISR_ENTER / ISR_EXIT on change */
  PROBE_POLL_SERVICE, /* SERVICETRACE: SERVICE_ENTER / SERVICE_EXIT on change */
  PROBE_POLL_DATA,    /* a state variable: DATA on change */
} ProbePollKind;

/* One watched value. Either @simple (one read of @width bytes at @address) or computed by
 * @eval over @plan (pointer chases). */
typedef struct {
  ProbePollKind kind;
  guint16 core;
  char *name;             /* for messages: "RUNNINGTASK core 0 (os_running_task)" */
  gboolean simple;
  guint64 address;        /* simple: where */
  guint width;            /* simple: 1, 2, 4 or 8 bytes */
  gboolean is_signed;     /* simple: sign-extend */
  ProbePollEvalFunc eval; /* !simple: evaluator */
  gpointer plan;          /* !simple: its plan (borrowed; must outlive the sampler) */
  gint64 *none_values;    /* values meaning "nothing" (NO_TASK, NO_ISR, no service) */
  guint n_none_values;
  gboolean entry_bit;     /* SERVICE: odd = inside service value & ~1 (ORTI convention) */
  guint32 data_id;        /* DATA: variable id put in Event.a */
} ProbePollChannel;

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
guint64 probe_poll_decoder_get_samples (ProbePollDecoder *d);
/* Sample record encoding (the sampler's output, and what captures of poll sessions hold). */
gsize probe_poll_record_size (guint n_channels);
void probe_poll_record_append (GByteArray *out, guint n_channels, guint32 valid, guint64 ts,
                               const gint64 *values);

/* --- sampler: live, over an OpenOCD connection, on the probe's worker thread --- */
typedef enum {
  PROBE_POLL_AUTO,   /* measure SINGLE and BATCH briefly, keep the faster */
  PROBE_POLL_SINGLE, /* one sample per round trip */
  PROBE_POLL_BATCH,  /* `batch` samples per round trip, looped inside OpenOCD's Tcl */
} ProbePollMode;

typedef struct {
  const char *target;          /* OpenOCD target name, NULL: current */
  gboolean big_endian;         /* target byte order */
  guint64 timestamp_address;   /* free-running target timer (0: OpenOCD's µs clock) */
  guint64 timestamp_hz;        /* its rate */
  gboolean timestamp_down;     /* it counts down (CMSDK timers): use ~value */
  ProbePollMode mode;
  guint batch;                 /* samples per round trip in BATCH mode (0: 32) */
  guint dither_us;             /* pause a random 0..dither_us µs before each round trip, so a
                                * steady sample rate cannot alias with the target's periods
                                * (0: none) */
} ProbePollConfig;

typedef struct {
  guint64 samples;        /* samples taken */
  double elapsed_s;       /* since prepare */
  double sample_rate;     /* achieved samples/s */
  guint64 min_interval;   /* shortest interval between samples, ticks (resolution) */
  double mean_interval;   /* ticks */
  double jitter;          /* standard deviation of the interval, ticks */
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
/* Explicit target poll (arp_poll + curstate): call every ~100 ms. */
gboolean probe_poll_sampler_check_target (ProbePollSampler *s, ProbeTargetState *state,
                                          GError **error);
const ProbePollQuality *probe_poll_sampler_get_quality (ProbePollSampler *s);
/* After the last step: `poll on` again. */
gboolean probe_poll_sampler_finish (ProbePollSampler *s, GError **error);

/* ---------------------------------------------------------------------------------------- */
/* RTT source (rtt-source.c): the target library's up-channel, through OpenOCD.             */

typedef enum {
  PROBE_RTT_AUTO,   /* DRAIN, falling back to SERVER when DRAIN cannot work */
  PROBE_RTT_DRAIN,  /* read_memory/write_memory of the ring ourselves: one round trip a drain */
  PROBE_RTT_SERVER, /* OpenOCD's `rtt server` TCP port (capped at 1 KiB per channel per poll) */
} ProbeRttMethod;

typedef struct {
  ProbeRttMethod method;
  const char *target;          /* OpenOCD target, NULL: current */
  guint64 cb_address;          /* control block address when known (ELF symbol), else 0 … */
  guint64 search_start;        /* … search for the ID in this range */
  guint64 search_size;
  guint channel;               /* up channel carrying the event stream */
  const char *host;            /* SERVER: OpenOCD host (NULL: 127.0.0.1) */
  guint16 server_port;         /* SERVER: port for `rtt server start` */
  guint polling_interval_ms;   /* SERVER: `rtt polling_interval` (0: 1 ms) */
} ProbeRttConfig;

typedef struct _ProbeRttSource ProbeRttSource;
/* @oc is borrowed and must outlive the source. */
ProbeRttSource *probe_rtt_source_new (ProbeOpenocd *oc, const ProbeRttConfig *cfg);
void probe_rtt_source_free (ProbeRttSource *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeRttSource, probe_rtt_source_free)
/* Find the control block and the channel's buffer. PROBE_ERROR_NOT_FOUND while the firmware
 * has not initialised it (retry later); call again after a target reset. */
gboolean probe_rtt_source_locate (ProbeRttSource *r, GError **error);
/* Locate if needed and start (SERVER: setup, start, server start, connect). */
gboolean probe_rtt_source_start (ProbeRttSource *r, GError **error);
/* Append newly arrived bytes to @out (SERVER waits up to @wait_ms for data; DRAIN does one
 * round trip). PROBE_ERROR_NOT_FOUND: the block went away (reset): locate again. */
gboolean probe_rtt_source_step (ProbeRttSource *r, GByteArray *out, guint wait_ms,
                                GError **error);
gboolean probe_rtt_source_stop (ProbeRttSource *r, GError **error);
ProbeRttMethod probe_rtt_source_get_method (ProbeRttSource *r);
guint64 probe_rtt_source_get_control_block (ProbeRttSource *r);
guint64 probe_rtt_source_get_bytes (ProbeRttSource *r);

G_END_DECLS
