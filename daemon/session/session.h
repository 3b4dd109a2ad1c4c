/* session.h — the session room (daemon/session/) and its one object, the Session.
 *
 * The room runs a source into the store, live or replayed: session-watch (what the ORTI file
 * says to watch), the worker thread and its source (session-source; RTT cores in rtt-cores,
 * SWO in session-swo), the PC sampler (session-sampler, session-pcprof), the slicer of the
 * engine room, and the way to the store (session-ingest, the live statistics of
 * session-stats) through the StoreWriter. The command line (cli/) and the web layer's live
 * views are its callers.
 *
 * A Session is one profiling session, end to end: ORTI + ELF → what to watch; a source (poll,
 * RTT, replay) through OpenOCD → Events → the slicer → the store.
 *
 * A Session resolves everything it can before touching the target (ORTI errors, unresolvable
 * RUNNINGTASK, a missing capture file fail session_new), then session_start() connects and
 * only then begins the store session — so "OpenOCD not running" leaves no empty session
 * behind. The source runs on its own worker thread (blocking OpenOCD I/O never runs on the
 * main loop); the worker owns the slicer, hands rows to the StoreWriter (which has its own
 * thread and connection), and publishes a small live snapshot under a mutex for the progress
 * line, REST and /metrics.
 *
 * Faults: a link failure mid-session becomes a GAP (reason LINK) and the worker reconnects
 * with backoff until stopped; a target halt or reset seen by the explicit target poll becomes
 * a TARGET_STATE event and a GAP (reason HALT); a read that faults disables that channel and
 * is recorded; a corrupt capture is reported with its byte offset after everything before it
 * was stored. Nothing collected before a fault is lost: the store commits every 100 ms.
 */
#pragma once

#include "orti.h"
#include "probe.h"
#include "rtt-cores.h"
#include "session-stats.h"
#include "session-watch.h"
#include "store.h"

#include <glib.h>

G_BEGIN_DECLS

#define SESSION_ERROR (session_error_quark ())
GQuark session_error_quark (void);

typedef enum {
  SESSION_ERROR_CONFIG, /* a bad option value (message names it) */
  SESSION_ERROR_FAILED, /* the session could not run or ended by an error */
  SESSION_ERROR_SOURCE_LOST, /* the source was lost and never came back, or saw less than
                              * SESSION_COVERAGE_MIN of the time: the session is incomplete */
} SessionError;

/* A session whose source saw less than this share of its time (session_stats_coverage: the
 * rest lost to gaps, or unknown) ends incomplete: most of its stream is lost, its loads are
 * not known (NULL). */
#define SESSION_COVERAGE_MIN 0.5

typedef enum {
  SESSION_SOURCE_AUTO,   /* RTT when the firmware links orti-trace, else SWO when the target and
                          * adapter can, else poll */
  SESSION_SOURCE_POLL,
  SESSION_SOURCE_RTT,
  SESSION_SOURCE_REPLAY, /* a capture file */
  SESSION_SOURCE_SWO,    /* DWT/ITM trace over SWO */
  SESSION_SOURCE_OFFLINE, /* a raw SWO stream (swo_stream: a file, "-" stdin) with no target:
                          * the plan from the ORTI, the ELF and the options (docs/swo.md) */
} SessionSourceKind;

typedef struct {
  const char *orti_path;         /* ORTI file (required) */
  const char *elf_path;          /* firmware ELF (NULL: only constant formulas) */
  int core;                      /* only this core's symbols (-1: all cores) */
  OrtiWatchOptions orti_options; /* what the user says where the ORTI file leaves it open
                                  * (--idle-value, --no-isr-value, --priority-order) */
  const char *openocd_host;      /* default 127.0.0.1 */
  guint16 openocd_port;          /* TCL RPC port, default 6666 */
  SessionSourceKind source;
  const char *name;              /* session name (NULL: from the ORTI file name) */
  const char *record_path;       /* write a capture (NULL: none) */
  const char *replay_path;       /* SESSION_SOURCE_REPLAY: the capture to play */
  guint64 duration_ms;           /* stop after this long (0: until session_request_stop) */
  guint64 timestamp_address;     /* poll: free-running target timer (0: OpenOCD's µs clock) */
  guint64 timestamp_hz;          /* its rate */
  gboolean timestamp_down;       /* it counts down */
  guint64 core_clock_hz;         /* poll without a timer: DWT CYCCNT's rate (0: measured) */
  const guint64 *core_clocks_hz; /* SWO of several cores: core k's CYCCNT rate, one per core
                                  * traced (n_core_clocks ≥ 2; core_clock_hz is then 0) */
  guint n_core_clocks;
  ProbeRttMethod rtt_method;     /* RTT: drain, server or auto */
  gboolean rtt_keep_backlog;     /* RTT: what the rings hold at the attach is kept as the
                                  * session's pre-attach span (sessions.attach_tick marks where
                                  * its own span starts); FALSE (--rtt-backlog discard, the
                                  * default): decoded for the stream's state only, the session
                                  * starts at the attach */
  guint16 rtt_server_port;       /* RTT server method: port for `rtt server start` */
  const char *swo_stream;        /* SWO: ":PORT", "HOST:PORT" or a file (NULL: OpenOCD's
                                  * capture); given with --source auto: SWO is wanted */
  ProbeSwoInput swo_input;       /* SWO: the stream's format */
  gboolean swo_input_given;      /* --swo-format said it (OFFLINE, a file: else it is found
                                  * from the stream's first bytes) */
  guint64 swo_pin_hz;            /* SWO: pin rate (0: OpenOCD's choice / left as it is) */
  ProbeSwoProtocol swo_protocol; /* SWO: the TPIU's output protocol */
  gboolean swo_no_exception_trace; /* SWO: no exception trace */
  guint64 swo_global_hz;         /* SWO of several cores: the global timestamp clock's rate */
  guint swo_comparators;         /* OFFLINE: the DWT comparators of the capture's target (0: 4) */
  const char *swo_vtor;          /* OFFLINE: the vector table's address (NULL: the ELF's symbol) */
  const char *swo_channel;       /* OFFLINE, a sigrok session file: the SWO pin's logic channel
                                  * (NULL: "SWO"); its baud rate is swo_pin_hz (0: found) */
  guint pc_sample_hz;            /* PC sampling (0: none): SWO: samples per second; poll: read
                                  * DWT_PCSR in every sample (the rate is the poll's own) */
  gboolean raw_pc_samples;       /* PC samples in the raw events too (the store's events);
                                  * FALSE: only in the sampled profile (session-pcprof.h) */
  const char *command_line;      /* recorded in the session */
  const char *build_label;       /* the user's name for the build (NULL: none) */
  const char *const *tags;       /* "key=value" (session_identity_check_tag), NULL-terminated;
                                  * may be NULL */
  const SessionPointAlpha *pp_alphas; /* profile points' averaging constants (borrowed) */
  guint n_pp_alphas;
  const SessionVariable *variables;   /* declared data variables (borrowed) */
  guint n_variables;
  const char *const *watch;      /* poll/SWO: variables to watch, "EXPR[:state|:value]" */
  guint n_watch;
  const char *const *core_targets; /* poll, RTT: OpenOCD target per core (AMP part; NULL
                                  * entries: the current target); poll: at most the ORTI
                                  * file's cores; RTT: one control block per core */
  guint n_core_targets;
  gboolean core_targets_auto;    /* poll: core c → OpenOCD's c-th `target names` */
  const guint64 *rtt_addresses;  /* RTT per core (with core_targets): core c's control block
                                  * (NULL: the ELF's per-core copies; rtt-cores.h) */
  guint n_rtt_addresses;
} SessionConfig;

typedef enum {
  SESSION_STATE_NEW,
  SESSION_STATE_RUNNING,
  SESSION_STATE_RECONNECTING,
  SESSION_STATE_COMPLETE,
  SESSION_STATE_INCOMPLETE,
} SessionState;

/* Cores the live snapshot tracks (as many as a poll source watches, PROBE_POLL_MAX_CORES).
 * Events of a core beyond it are sliced and stored as usual; only the live view omits it. */
#define SESSION_LIVE_MAX_CORES 64

/* What the progress line, REST and /metrics show while a session runs. */
typedef struct {
  gint64 id;               /* store session id (-1 before start) */
  SessionState state;
  const char *source;      /* "poll", "rtt-drain", "rtt-server", "replay" (static) */
  guint64 tick_hz;
  guint64 events;          /* Events decoded */
  guint64 events_stored;   /* Events handed to the store */
  double rate;             /* samples/s (poll) or events/s (other sources), recent */
  guint64 samples;         /* poll samples */
  guint64 gaps;
  guint64 drops;           /* records the target reported lost */
  guint64 anomalies;
  guint64 span;            /* ticks from the first to the latest event */
  guint n_cores;           /* ≤ SESSION_LIVE_MAX_CORES */
  guint32 running[SESSION_LIVE_MAX_CORES]; /* task value running per core (PROBE_TASK_IDLE:
                                            * none) */
  double clock_ratio;      /* target clock / host time since the first event (0: unknown) */
} SessionLive;

typedef struct _Session Session;

/* session_new: resolves the ORTI file on the ELF and prepares the source. Fails (file:line:col
 * for ORTI errors, "no running-task information in FILE", bad capture header) before any
 * connection is made. */
Session *session_new (const SessionConfig *cfg, GError **error);
void session_free (Session *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Session, session_free)

/* session_connect: connects to OpenOCD and configures the source on the target (a replay:
 * opens its decoder), so everything that can fail on the way to the target has failed before
 * a store exists; fails with "cannot connect to OpenOCD at HOST:PORT: …". TRUE at once when
 * already connected. */
gboolean session_connect (Session *s, GError **error);

/* session_start: session_connect() unless done, then begins the store session on @writer
 * (borrowed; must outlive the session) and starts the worker thread. A failure to connect
 * creates no store session. */
gboolean session_start (Session *s, StoreWriter *writer, GError **error);
/* Ask the worker to stop (thread safe, idempotent; also from a signal handler's idle). */
void session_request_stop (Session *s);
/* TRUE once the worker has finished (thread safe). */
gboolean session_is_finished (Session *s);
/* session_wait: joins the worker; writes the final statistics and ends the store session.
 * Returns TRUE when it completed, FALSE with the error that ended it (the session is then
 * stored as incomplete). */
gboolean session_wait (Session *s, GError **error);
gint64 session_get_id (Session *s);
/* A consistent snapshot of the live counters (thread safe). */
void session_get_live (Session *s, SessionLive *live);
/* Name of a task value (for progress lines), or NULL. */
const char *session_task_name (Session *s, guint32 value);

/* session_identity_check_tag: whether @tag, a SessionConfig tag, is key=value (key not empty,
 * neither with a newline); FALSE with a message naming it (session-identity.c). */
gboolean session_identity_check_tag (const char *tag, GError **error);

G_END_DECLS
