/* rtt-test-gen.h — drives the host build of the firmware tracer (probe/target/) with a seeded
 * random or stress-like workload, drains its ring like OpenOCD would, and computes the
 * Events a correct decoder must produce. Used by the RTT tests and benchmarks only. */
#pragma once

#include "probe.h"

typedef enum {
  RTT_GEN_RANDOM,  /* every record kind, wild timestamp deltas, a large task id */
  RTT_GEN_STRESS,  /* many short nested calls across 3 tasks + a 1 kHz ISR at 25 MHz */
  RTT_GEN_RIG,     /* the rig's periodic shape at 25 MHz, one operation = 1 ms: tasks 0 (every
                    * 10 ms: functions 8 then 9), 1 (every 5 ms: 10, 11), 2 (every 20 ms: 12),
                    * each activated, run, terminated, never overlapping; ISR 3 every 1 ms;
                    * seeded jitter of ±2 % per call (function addresses do not depend on the
                    * seed). Function 9 is the longest (40 µs); a
                    * build made slower by slow_percent makes only it, and so task 0, slower. */
} RttGenProfile;

typedef struct {
  RttGenProfile profile;  /* workload shape */
  guint32 seed;           /* PRNG seed */
  guint32 ring_size;      /* target ring bytes */
  guint32 drain_every;    /* drain after a random 0..drain_every-1 operations (0/1: always) */
  guint32 sync_interval;  /* bytes between syncs (0: library default) */
  gboolean counter;       /* the tracer reads the clock as a counter register (its fast
                           * path) instead of through a timestamp callback */
  guint slow_percent;     /* RTT_GEN_RIG: function 9 takes this much longer (0: as built) */
} RttGenOptions;

typedef struct {
  GByteArray *stream;     /* every byte the host drained, in order */
  GArray *expected;       /* ProbeEvent: what the decoder must output for `stream` */
  guint32 drops;          /* records the target dropped */
  guint64 n_events;       /* hook calls made */
} RttGenResult;

/* rtt_gen_run:
 * Initialises the tracer (a global: not thread-safe), performs @n_ops workload operations
 * (each one or a few hook calls), drains the ring to the end and returns the stream and the
 * expected Events. Free with rtt_gen_result_free(). */
RttGenResult *rtt_gen_run (const RttGenOptions *options, guint n_ops);

/* rtt_gen_function: the entry address of workload function @index (0..95) of a run with
 * @options (the addresses depend on the profile and the seed only). */
guint32 rtt_gen_function (const RttGenOptions *options, guint index);

void rtt_gen_result_free (RttGenResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RttGenResult, rtt_gen_result_free)
