/* rtt-test-amp.h — a synthetic AMP (one OS per core) workload for the multi-core tests and
 * benchmark (issue 19): each core's events go through the host build of the firmware tracer
 * (probe/target/) configured with that core's id, so every core has its own orti-trace
 * stream; the streams are interleaved in time into one RTT capture, one record channel per
 * core, as a per-core drain would record them. The generator knows the truth: each task's run
 * time and jobs, each core's task time and span, and every cross-core activation latency.
 *
 * The schedule, per core c and frame f (base b = f × RTT_AMP_FRAME ticks, tasks by id
 * RTT_AMP_TASK(c, k)):
 *   b+0    ACTIVATE A, A runs (a function call at +10..+50), TERMINATE at b + 200 + 5c
 *   b+300  ACTIVATE B, B runs; b+350 ACTIVATE C, C preempts B; b+400 C terminates, B resumes;
 *          b+450 B terminates
 *   b+690  ACTIVATE D, D runs; b+700 D activates X of core (c+1) mod n (an ActivateTask for
 *          another core); b+710 D terminates
 *   b+700+L  X of core c starts (L = 20 … 69, varying with f and the activating core), runs 30
 *   b+850  (n ≥ 2) task M, activated and run for 50 on core f mod 2: a task that migrates
 * Every core is idle between. Test-only. */
#pragma once

#include "probe.h"

#define RTT_AMP_FRAME 1000u               /* ticks per frame */
#define RTT_AMP_TASK(core, k) ((core) * 8u + (k)) /* k: 0 A, 1 B, 2 C, 3 D, 4 X */
#define RTT_AMP_TASK_M 0x7Fu              /* the migrating task */
#define RTT_AMP_MAX_CORES 16

typedef struct {
  guint n_cores;          /* 1 … RTT_AMP_MAX_CORES */
  guint n_frames;         /* frames per core */
  guint32 tick_hz;        /* rate written into the stream headers */
} RttAmpOptions;

/* The truth about one task. */
typedef struct {
  guint32 task;           /* task id */
  gint core;              /* the core it runs on, −1: several (M) */
  guint64 run_time;       /* ticks it executed */
  guint64 jobs;           /* jobs (each activated, run, terminated) */
  guint64 preemptions;
} RttAmpTask;

typedef struct {
  GByteArray *bytes;      /* every stream's bytes, as drained, chunk after chunk */
  GArray *chunks;         /* RttAmpChunk, in time order across cores */
  guint64 n_events;       /* hook calls made (= Events a decoder must give, no drops) */
  GArray *tasks;          /* RttAmpTask */
  guint64 core_task_time[RTT_AMP_MAX_CORES]; /* ticks some task ran on the core */
  guint64 core_first[RTT_AMP_MAX_CORES], core_last[RTT_AMP_MAX_CORES]; /* its first/last event */
  GArray *latency[RTT_AMP_MAX_CORES][RTT_AMP_MAX_CORES]; /* guint64 by [from][to]: the
                                                * cross-core activation latencies, NULL none */
} RttAmpResult;

/* The bytes one core's tracer wrote for one hook call (and the header/syncs before it). */
typedef struct {
  guint64 ts;
  guint32 offset, len;    /* in RttAmpResult.bytes */
  guint16 core;
} RttAmpChunk;

/* rtt_amp_run: generates the workload (the tracer is a global: not thread-safe). Free with
 * rtt_amp_result_free(). */
RttAmpResult *rtt_amp_run (const RttAmpOptions *options);

/* rtt_amp_write_capture: writes @res as an RTT capture at @path, channel = core, records of at
 * most @max_record bytes. @drain_ticks 0: the streams interleaved in time (a record per run of
 * one core's consecutive calls — what cross-core statistics need); else as a live drain of each
 * core's ring every @drain_ticks records them: per window of @drain_ticks ticks, core 0's bytes,
 * then core 1's, … (within a window the cores' order is not time order). FALSE with @error. */
gboolean rtt_amp_write_capture (const RttAmpResult *res, const char *path, guint32 tick_hz,
                                guint max_record, guint64 drain_ticks, GError **error);

void rtt_amp_result_free (RttAmpResult *res);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RttAmpResult, rtt_amp_result_free)
