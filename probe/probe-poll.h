/* probe-poll.h — the poll source's layers: the sampler over OpenOCD (poll.c) and the pure
 * decoder of sample records into Events (poll-decoder.c). */
#pragma once

#include <glib.h>

#include "probe-event.h"
#include "probe-openocd.h"

G_BEGIN_DECLS

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
  PROBE_POLL_WRITES_ARM,  /* DWT_FUNCTIONn of a comparator watching writes to a context
                          * variable (ProbePollChannel.watch_address), read in a phase before
                          * the context's: the read clears FUNCTION.MATCHED. No events */
  PROBE_POLL_WRITES_CHECK, /* the same DWT_FUNCTIONn read again in a phase after the PC
                          * channel's: MATCHED set (or the read missing) means the variable
                          * was written since the arm read, so the context the sample read may
                          * not be the one the PC was read in (it changed, or changed and
                          * changed back: A-B-A), and the sample's PC_SAMPLE is flagged
                          * PROBE_PC_UNATTRIBUTED. No events */
} ProbePollKind;

#define PROBE_DWT_FUNCTION_MATCHED (1u << 24) /* DWT_FUNCTIONn: matched since last read */

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
  guint phase;            /* read order in a sample (0 … 4; above 4 reads as 4): every read
                           * of phase 0 comes before any of phase 1, and so on; reads of
                           * different phases are never merged (poll.c) */
  guint checks;           /* CONTEXT_CHECK: index of the channel it reads again; WRITES_*:
                           * of the context channel whose variable the comparator watches */
  guint64 watch_address;  /* WRITES_*: the variable the comparator watches … */
  guint watch_width;      /* … and its bytes (1, 2, 4); 0: no comparator can watch it (a
                           * value computed in OpenOCD), the check is never read */
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
/* probe_poll_decoder_feed_values: one sample at @ts in which only the @n channels
 * @channels (each < the decoder's count, no repeats) were read, with @values: the Events and
 * errors of feeding the 'P' record that says so, without writing and parsing it (the SWO
 * mapper's one value a record). Only between whole records fed with probe_poll_decoder_feed. */
gboolean probe_poll_decoder_feed_values (ProbePollDecoder *d, guint64 ts, const guint *channels,
                                         const gint64 *values, guint n, ProbeEventFunc func,
                                         gpointer user, GError **error);
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
  guint64 still_intervals; /* … of them, those over which the timestamp did not advance, when
                            * the next target check found the target running (a halt's are not
                            * counted): a timer slower than the sampler, or one that is not
                            * free-running — a copy the firmware writes */
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
/* probe_poll_sampler_disable_channel: channel @i is never read (every sample: not valid);
 * @why goes into the sampler's messages like a read fault's. */
void probe_poll_sampler_disable_channel (ProbePollSampler *s, guint i, const char *why);
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

G_END_DECLS
