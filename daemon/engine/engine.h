/* engine.h — the engine room (daemon/engine/): events in, statistics out, no I/O.
 *
 * Everything a source produces is a ProbeEvent (probe.h); the engine turns a stream of them
 * into what the store keeps and the web serves, and nothing here opens a file, a socket or a
 * database:
 *   slicer.h       per-core context state machine: task slices, jobs, calls, ISR2s, profile
 *                  points, data values, gaps and repairs, with their statistics
 *   bounds.h       how far a sampled statistic can be from the truth (the 99 % interval)
 *   pcprof.h       the PC-sample profile (per function and context, with its bounds)
 *   core-merge.h   several cores' streams put into one time order before the slicer
 *   events-text.h  the text notation of events (`orti-profd slice`, the tests)
 * The session room (daemon/session/) drives it; tests link it directly (test-slicer*.c).
 * A new statistic starts in slicer.h (what it means) and its section file (how it is kept). */
#pragma once

#include "bounds.h"
#include "core-merge.h"
#include "events-text.h"
#include "pcprof.h"
#include "slicer.h"
