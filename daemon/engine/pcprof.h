/* pcprof.h — the PC-sample profile: a statistical function profile with no instrumentation
 * (seed 001's gprof histogram, seed 004's Monte Carlo profiler), per task, ISR and idle.
 *
 * A source samples the PC of one core (the poll source reads DWT_PCSR, the SWO source decodes
 * DWT periodic PC-sample packets); the session tells the accumulator which context the slicer
 * says was running then: pcprof_add (pp, kind, id, pc, sleeping). The accumulator attributes
 * each PC through the ELF's address map (orti.h OrtiAddrMap): function symbol, source line,
 * inlined frames. It knows nothing of probes, the slicer's state or the store.
 *
 * Counts and memory. Per context it keeps one counter per distinct PC the map places in a
 * function (so memory is bounded by the code size times the number of contexts, never by the
 * number of samples), one "unknown" counter for PCs in no function (gaps, data, outside the
 * text, no ELF) and, for the core's idle context, one "sleeping" counter. Everything else
 * (per function, per inlined function, per line, per inline stack) is derived from the PC
 * counts when asked (pcprof_get_rows), so a sample costs one map lookup and one increment.
 *
 * The statistic (docs/pc-sampling.md). Of N samples, n fell in a row: its share of the sampled
 * time is estimated as n / N, with a 99 % confidence interval (pcprof_share), and its time as
 * share × the sampled span, with the interval scaled alike (pcprof_estimate). The interval is
 * the Wilson score interval for a binomial proportion, with its small-count side replaced by
 * the exact Clopper–Pearson bound when n ≤ 8 or N − n ≤ 8 (plain Wilson at 99 % covers the
 * truth only 89 % of the time when N·p ≈ 0.1; test-pcprof measures this).
 * What it assumes: the N samples are independent draws of "where is the PC now", each taken
 * at a moment whose phase relative to the code's periodic behaviour is random. A sampler that
 * is periodic and commensurate with the firmware's periods (seed 004: a profiler driven by the
 * same 1 ms tick as the OS sees the tick's work "right on or between every timer interrupt")
 * breaks it: the samples then see the same few phases and the estimate can be far outside its
 * interval however many samples are taken. The sources avoid it: the poll source's samples are
 * timed by the host (USB/TCP latency jitters them by far more than any firmware period); the
 * SWO source picks the DWT sample period so that it shares no large common factor with the OS
 * tick period in core cycles (and dithers it), so the sampling phase sweeps the whole tick.
 */
#pragma once

#include <glib.h>

#include "orti.h"
#include "slicer.h"

G_BEGIN_DECLS

/* The two-sided 99 % quantile of the standard normal distribution. */
#define PCPROF_Z99 2.5758293035489004
/* Row context kind of rows merged over all contexts. */
#define PCPROF_ALL_CONTEXTS 0xff

typedef struct _Pcprof Pcprof;

/* pcprof_new:
 * An empty profile of the PC samples of core @core, attributed with @map (a reference is
 * taken; NULL: no ELF, every PC is unknown). */
Pcprof *pcprof_new (OrtiAddrMap *map, guint core);
void pcprof_free (Pcprof *pp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Pcprof, pcprof_free)

/* pcprof_add:
 * Counts one sample: @pc ran in context (@kind, @id) (SlicerContextKind: a task id, an ISR2
 * id, or the core for idle). @sleeping: the core was asleep (WFI/WFE; DWT's "sleeping"
 * packet carries no PC): the sample counts as idle — in the idle context of the profile's
 * core, whatever context is passed — under the pseudo entry "sleeping"; @pc is ignored. */
void pcprof_add (Pcprof *pp, SlicerContextKind kind, guint32 id, guint64 pc, gboolean sleeping);

guint64 pcprof_get_total (Pcprof *pp);    /* N: every sample added */
guint64 pcprof_get_unknown (Pcprof *pp);  /* samples whose PC is in no function */
guint64 pcprof_get_sleeping (Pcprof *pp); /* samples taken while the core slept */
OrtiAddrMap *pcprof_get_map (Pcprof *pp); /* borrowed; NULL when none */
guint pcprof_get_core (Pcprof *pp);

/* What a row of pcprof_get_rows() is keyed by (besides its context). */
typedef enum {
  PCPROF_BY_CONTEXT,  /* one row per context: its samples, all kinds */
  PCPROF_BY_FUNCTION, /* ELF function: inlined code counts for the function it was inlined
                       * into (the "caller" view) */
  PCPROF_BY_LEAF,     /* the innermost function DWARF names at the PC: inlined code under its
                       * own name (the "inlined" view) */
  PCPROF_BY_STACK,    /* function + innermost DWARF scope: the inline chain (folded stacks) */
  PCPROF_BY_LINE,     /* function + source line */
  PCPROF_BY_PC,       /* the PC itself */
} PcprofKey;

typedef enum {
  PCPROF_ROW_CODE = 0,    /* PCs in a function */
  PCPROF_ROW_UNKNOWN = 1, /* PCs in no function */
  PCPROF_ROW_SLEEPING = 2,/* the core slept */
} PcprofRowKind;

/* One row: a count and what it is keyed by. Fields the key does not determine are
 * ORTI_ADDR_NONE (indexes) or 0 (pc). */
typedef struct {
  guint64 samples;    /* n */
  guint64 pc;         /* BY_PC: the PC; BY_FUNCTION: the function's start */
  guint32 ctx_id;     /* task / ISR2 id, or the core for idle; 0 when merged */
  guint32 function;   /* BY_FUNCTION, BY_STACK, BY_LINE, BY_PC: OrtiAddrFunction index */
  guint32 leaf;       /* BY_LEAF, BY_STACK, BY_PC: name id of the innermost function */
  guint32 scope;      /* BY_STACK, BY_PC: innermost OrtiAddrScope (NONE: no DWARF) */
  guint32 line;       /* BY_LINE, BY_PC: OrtiAddrLine index (NONE: no line info) */
  guint8 ctx_kind;    /* SlicerContextKind, or PCPROF_ALL_CONTEXTS when merged */
  guint8 kind;        /* PcprofRowKind; UNKNOWN and SLEEPING rows have no key fields */
  guint8 key;         /* the PcprofKey the row was made for */
} PcprofRow;

/* pcprof_get_rows:
 * The profile keyed by @key, per context (@per_context) or merged over contexts, as a new
 * GArray of PcprofRow: each context's UNKNOWN and SLEEPING samples as rows of their own,
 * sorted by samples (descending), then context, kind and key. Rows with 0 samples are left
 * out. The sum of the rows' samples is pcprof_get_total(). O(distinct PCs). */
GArray *pcprof_get_rows (Pcprof *pp, PcprofKey key, gboolean per_context);

/* What a row stands for, in names (for the exports: web.h WebSampledRow takes these fields
 * as they are, plus the context's name, which only the session knows). */
typedef struct {
  const char *function;      /* the row's function: the ELF function (BY_FUNCTION, BY_STACK,
                              * BY_LINE, BY_PC), the innermost function's own name (BY_LEAF);
                              * "(unknown)" / "(sleeping)" for those rows; NULL for BY_CONTEXT */
  char *inlined;             /* BY_STACK, BY_PC in inlined code: the inlined functions below
                              * @function, outermost first, ';' separated
                              * ("os_task_cpu_ticks;os_irq_save"); NULL otherwise. Owned */
  const char *function_file; /* the file @function is declared in, NULL: unknown */
  const char *file;          /* the row's source line (BY_LINE, BY_PC), NULL: unknown */
  guint line;                /* 0: unknown */
  guint64 address;           /* the ELF function's start, 0 when none */
  guint64 pc;                /* BY_PC: the PC, else 0 */
  gboolean pseudo;           /* an UNKNOWN or SLEEPING row */
} PcprofNames;

/* pcprof_describe_row: fills @out with the names of @row (a row of @pp's rows; strings owned
 * by the address map except @out->inlined). Clear with pcprof_names_clear(). */
void pcprof_describe_row (Pcprof *pp, const PcprofRow *row, PcprofNames *out);
void pcprof_names_clear (PcprofNames *names);

/* A share of the samples with its interval. */
typedef struct {
  double share;  /* n / N */
  double lo, hi; /* 99 % confidence interval, 0 <= lo <= share <= hi <= 1 */
} PcprofShare;

/* pcprof_share:
 * The share n / N of @n samples out of @total and its 99 % interval (see the file comment).
 * FALSE when @total is 0 or @n > @total: then share 0 and the interval [0, 1] (nothing
 * known). Pure; about 1 µs, up to ~100 µs when n or N − n ≤ 8 (exact bound). */
gboolean pcprof_share (guint64 n, guint64 total, PcprofShare *out);

/* An estimated time with its interval. */
typedef struct {
  double time;   /* share × span */
  double lo, hi; /* the share's 99 % interval × span */
} PcprofEstimate;

/* pcprof_estimate:
 * The time @n of @total samples stand for in a sampled span of @span (any unit: seconds,
 * ticks): share × span with the share's interval scaled alike. FALSE as pcprof_share (then
 * 0 with [0, span]). */
gboolean pcprof_estimate (guint64 n, guint64 total, double span, PcprofEstimate *out);

G_END_DECLS
