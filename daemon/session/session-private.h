/* session-private.h — a Session's insides, shared by its three files: session.c (life
 * cycle: new, start, wait, free, the getters), session-source.c (the worker thread: choosing,
 * starting, reconnecting and draining the source and the PC sampler) and session-ingest.c
 * (events → slicer → store: the sinks, gaps, clock checks, flushes and live statistics). Not
 * installed; only these files include it. */
#pragma once

#include <string.h>

#include "session.h"
#include "engine.h"
#include "rtt-cores.h"
#include "session-pcprof.h"
#include "session-clock.h"
#include "session-gaps.h"
#include "session-identity.h"
#include "session-sampler.h"
#include "session-stats.h"
#include "session-evidence.h"
#include "session-invariants.h"
#include "session-swo.h"
#include "session-watch.h"

#define FLUSH_INTERVAL_US 100000    /* hand rows to the store at least this often */
#define TARGET_POLL_INTERVAL_US 100000 /* explicit target poll while sampling */
#define QUIET_STATS_US 50000        /* no Event for this long: the live statistics are due soon */
#define RECONNECT_MAX_US 2000000    /* backoff cap when OpenOCD went away */
#define EVENT_BATCH 16384          /* … or when this many Events wait (each hand-over wakes the
                                     * writer thread: at 6 MB/s of SWO, ~700 k Events/s, a batch
                                     * of 4096 woke it a few hundred times a second) */
#define FINAL_DRAIN_US 20000000     /* at the stop, the target's buffered stream is read for at
                                     * most this long */
#define SAMPLER_GO_MAX_US 3000000   /* the PC sampler starts at the latest this long after
                                     * the stream (session-sampler.h) */
#define SAMPLER_RETRY_US 2000000    /* a failed PC sampler is started again this often */

struct _Session {
  SessionConfig cfg;            /* strings below are owned copies */
  char *orti_path, *elf_path, *host, *name, *record_path, *replay_path, *command_line;
  char *build_label;
  char **tags;

  SessionWatch *w;              /* what to watch, names */
  StoreWriter *writer;          /* borrowed */
  gint64 id;                    /* store session id */
  ProbeOpenocd *oc;             /* the worker's connection (made in session_connect) */
  gboolean connected;           /* session_connect succeeded */
  ProbeCaptureReader *replay;   /* REPLAY: the capture until start hands it to the source */
  int offline_fd;               /* OFFLINE: the raw stream until start hands it to the source
                                 * (-1: none) */
  ProbeCaptureReader *offline_capture; /* OFFLINE: our own capture given instead (its seeds,
                                        * states and gaps played as recorded; NULL: none) */
  ProbeSourceKind capture_kind; /* what the bytes are */
  char *source_why;             /* why that source (live sessions) */
  gboolean swo_tentative;       /* --source auto chose SWO untried: poll if it cannot be had */
  SessionSwoSet *swo;           /* SWO: what is traced on each core traced (made in start, or
                                 * from a capture) */
  ProbeSource *source;          /* made in start */
  ProbeSourceSink sink;         /* the worker's sink: on_event, on_record */
  ProbeCaptureWriter *record;   /* --record */

  GThread *worker;
  gint stop;                    /* atomic: stop requested */
  gint finished;                /* atomic: worker done */
  GError *worker_error;         /* why the worker ended, if by error */

  /* worker-only state */
  Slicer *slicer;
  SessionStats *stats;          /* the slicer's statistics → store rows (live and final) */
  SessionEvidence *evidence;    /* each task's evidence plan (the stats judge by it) */
  GHashTable *violated;         /* "kind task core" of the invariants reported broken */
  SessionPcprof *pcprof;        /* PC samples → the sampled profile (live and final) */
  SessionSampler *sampler;      /* RTT with --pc-sample: the PC sampler beside the stream
                                 * (NULL while a failed one waits to start again) */
  gboolean sampling;            /* … there is one */
  gint64 sampler_retry_us;      /* when a failed sampler is started again */
  double replay_stalled;        /* replay: the recorded PC sampler's share of time held up
                                 * (< 0: none recorded) */
  GArray *pc_samples;           /* SlicerPcSample taken from it, for pcprof */
  gboolean pc_check_context;    /* replay: the capture's PC samples carry the context read
                                 * again after the PC (metadata poll.pc_sample 2) or … */
  gboolean pc_check_writes;     /* … the comparators watching its writes instead (3) */
  gint link_gen;                /* atomic: +1 as the stream's round trip starts, +1 as it ends
                                 * (ProbePollConfig.link_shared: the sampler's waits for it) */
  ProbeEvent *pend;             /* the Events not yet handed to store + slicer: n_pend of … */
  guint n_pend, cap_pend;       /* … room for cap_pend (appended in place: session__on_event) */
  CoreMerge *merge;             /* … through this: the cores' streams in one time order */
  guint expect_cores;           /* RTT per core, live or replayed: the streams the merge waits
                                 * for (0: none named) */
  GArray *merged;               /* ProbeEvent the merge let out, for store + slicer */
  GArray *slices, *calls, *anomalies; /* store rows not yet pushed */
  guint64 last_ts;              /* latest event timestamp */
  guint64 tick_hz;
  guint reported_messages;      /* source quality messages already logged and stored */
  gint64 deadline;              /* monotonic µs when --duration ends (0: none) */
  SessionGaps *gaps;            /* the gap rows (table gaps) */
  ProbeTargetState target_state;/* last state seen (explicit poll or OpenOCD notification) */
  gboolean halt_gap_pending;    /* RTT: halted; its gap comes where the stream resumes */
  gboolean per_core_states;     /* the source polls each core's target: halts are per core */
  ProbeTargetState core_state[SESSION_LIVE_MAX_CORES]; /* … the last state seen of each */

  GMutex lock;                  /* guards live */
  SessionLive live;
  /* What on_event counted since the last publish_live, which folds it into @live: the worker
   * takes the lock once per batch, not once per Event (at a fast probe's line rate the lock
   * per Event was ~5 % of the session's CPU time). */
  guint64 pend_events, pend_gaps, pend_drops;
  guint32 pend_running[SESSION_LIVE_MAX_CORES];
  guint64 pend_running_set;   /* bit per core: pend_running[core] is news */
  guint64 rate_mark_count;      /* for the recent rate */
  gint64 rate_mark_time;
  SessionClock clock;           /* the clock check's running stretches … */
  gboolean clock_rebased;       /* … moved to the session's own span (after a kept backlog) */
  gboolean clock_warned;        /* the clock disagreement was logged */
  gboolean still_warned;        /* … and the poll timestamp's standstill */
  char *clock_warning;          /* the warnings so far, "; "-joined (sessions.clock_warning) */
  gint64 host_now;              /* live: host µs of the worker's current round */
  gint64 last_event_host;       /* … when the latest event arrived */
  gint64 stats_event_host;      /* last_event_host at the latest statistics write */
};

/* session.c */
gboolean session__one_core_clock (const SessionConfig *cfg, const char *what, GError **error);
void session_get_live (Session *s, SessionLive *live);
void session__set_state (Session *s, SessionState st);
gboolean session__check_invariants (Session *s, gboolean final, GError **error);
void session__end_lost_source (Session *s, GError **error);

/* session-ingest.c */
gboolean session__stop_requested (Session *s);
void session__sink_slice (const SlicerSlice *sl, gpointer user);
void session__sink_call (const SlicerCall *c, gpointer user);
void session__sink_data (const SlicerDataChange *d, gpointer user);
void session__sink_pc_sample (const SlicerPcSample *smp, gpointer user);
void session__sink_anomaly (const SlicerAnomaly *a, gpointer user);
void session__publish_live (Session *s);
void session__check_clock (Session *s);
void session__on_event (const ProbeEvent *ev, gpointer user);
void session__on_record (ProbeCaptureRecordType type, guint16 channel, gint64 host_us, const guint8 *data,
                         gsize len, gpointer user);
gboolean session__flush_rows (Session *s, gboolean final, GError **error);
void session__emit_gap (Session *s, ProbeGapReason reason);
void session__note_target_state (Session *s, ProbeTargetState st);
gboolean session__write_stats (Session *s, gboolean final, GError **error);

/* session-source.c */
gboolean session__choose_kind (Session *s, ProbeSourceKind *kind, char **why, GError **error);
ProbeSource *session__make_rtt_per_core (Session *s, gboolean log, GError **error);
ProbeSource * session__make_source (Session *s, ProbeSourceKind kind, GError **error);
gboolean session__start_live_source (Session *s, GError **error);
/* OFFLINE: the raw stream opened (s->offline_fd) and the SWO plan made from the ORTI, the ELF
 * and the options (session_swo_set_new_offline); SESSION_ERROR_CONFIG naming the file or
 * the option otherwise. */
gboolean session__offline_open (Session *s, GError **error);
void session__on_side (guint16 channel, const guint8 *data, gsize len, gpointer user);
gpointer session__worker_main (gpointer data);
