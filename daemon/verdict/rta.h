/* rta.h — fixed-priority preemptive response-time analysis of one core's task set (issue #31).
 *
 * Pure arithmetic over integers in one time unit the caller chooses (orti-profd uses
 * nanoseconds): no database, no ORTI, no I/O. analysis-inputs.c builds the sets from a
 * session's measurements, the ORTI and a budgets file; this module only iterates.
 *
 * The model (docs/analysis.md says it for users):
 * - One core, fixed priorities, preemptive (OSEK FULL tasks) or non-preemptive (OSEK NON
 *   tasks, which ISRs still interrupt). Every ISR is above every task; among ISRs a known
 *   priority orders them, and an ISR whose priority is not known is taken to interrupt every
 *   other ISR and to be interrupted by every other (safe both ways).
 * - Each item (task or ISR) has an execution time C per job, a minimum inter-arrival time T,
 *   a release jitter J and a deadline D (relative to the activation, default T), and may be
 *   blocked for B: given explicitly (e.g. the kernel's interrupt locks), by the longest
 *   critical section of a lower item on a resource whose ceiling is at or above its priority
 *   (OSEK's immediate priority ceiling), or by a lower non-preemptive task's whole job. Only
 *   one such blocking counts (the ceiling protocol blocks at most once per busy period).
 * - Tasks of equal priority are served FIFO by OSEK; FIFO order is not modelled: an equal
 *   task is counted as if it could preempt. The bound stays safe and may be pessimistic.
 * - Preemptive items: Lehoczky's busy-period analysis with Tindell's release jitter, which
 *   covers deadlines beyond the period and several pending activations (OSEK's activation
 *   count > 1):   w(q) = B + (q+1)C + Σ_{j ∈ hp} ⌈(w(q) + J_j) / T_j⌉ C_j,
 *   R = max_q w(q) − qT + J, over q = 0, 1, … until w(q) ≤ (q+1)T − J.
 * - Non-preemptive tasks (Davis, Burns, Bril, Lukkien 2007): the q-th job starts at
 *   s(q) = B + qC + Σ_{j ∈ hp} (⌊(s + J_j)/T_j⌋ + 1) C_j (a job released at the instant the
 *   task would start still goes first), then runs C with only ISRs interrupting; the jobs of
 *   the level-i busy period are all examined.
 * - A busy period that never ends (the load at and above the item's level exceeds one core)
 *   makes the bound RTA_UNBOUNDED; an item without a known T cannot be analysed
 *   (RTA_NO_ARRIVAL) and makes every item below it unanalysable too (its interference is not
 *   known).
 * Results per item: the bound, slack (D − R), the blocking used and by whom, the busy period,
 * and the sensitivity: the largest extra execution time the item can take with every item of
 * the set still meeting its deadline. Per set: the critical scaling factor, the largest k
 * such that every C × k still meets every deadline.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RTA_KIND_TASK = 0,
  RTA_KIND_ISR = 1,
} RtaKind;

#define RTA_PRIORITY_UNKNOWN G_MININT64 /* an ISR whose priority is not known */

/* One schedulable item of a core. Times in the caller's unit. */
typedef struct {
  const char *name;        /* borrowed; for messages */
  RtaKind kind;
  gint64 priority;         /* larger = more urgent (callers turn the ORTI's order round when
                            * a smaller number is more urgent); an ISR may be UNKNOWN */
  gboolean non_preemptive; /* a task no other task preempts (OSEK SCHEDULE = NON) */
  guint64 wcet;            /* C: execution time per job, any modelled overhead included */
  guint64 period;          /* T: minimum inter-arrival time; 0: not known */
  guint64 jitter;          /* J: release jitter */
  guint64 deadline;        /* D, from the activation; 0: D = T */
  guint64 blocking;        /* given blocking beyond what resources and NON tasks give */
} RtaItem;

typedef enum {
  RTA_OK = 0,          /* bounded and R ≤ D */
  RTA_MISS,            /* bounded and R > D */
  RTA_UNBOUNDED,       /* the busy period at its level never ends: no bound */
  RTA_NO_ARRIVAL,      /* its own or a more urgent item's T is unknown: not analysed */
} RtaStatus;

typedef struct {
  RtaStatus status;
  guint64 response;        /* worst-case response bound (RTA_OK, RTA_MISS) */
  guint64 deadline;        /* D used */
  gint64 slack;            /* D − R (RTA_OK, RTA_MISS) */
  guint64 blocking;        /* B used */
  gint blocked_by;         /* index of the item whose section or job gives B beyond the
                            * given part; −1: none */
  guint64 busy_period;     /* length of the examined level-i busy period (first job's) */
  guint jobs;              /* jobs of the item in that busy period (≥ 1) */
  guint worst_job;         /* the job (0-based) whose response is the bound */
  gboolean has_sensitivity;/* FALSE: the set already misses a deadline, or is not analysed */
  guint64 sensitivity;     /* largest extra C of this item keeping every deadline: exact, or
                            * at most 0.01 % below it (the search stops there, on the safe
                            * side) */
} RtaResult;

typedef struct _RtaSet RtaSet;

/* rta_set_new: an empty set. */
RtaSet *rta_set_new (void);
void rta_set_free (RtaSet *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtaSet, rta_set_free)

/* rta_set_add: copies @item (its name is borrowed) and returns its index. */
guint rta_set_add (RtaSet *self, const RtaItem *item);
guint rta_set_n_items (const RtaSet *self);
const RtaItem *rta_set_get (const RtaSet *self, guint index);

/* rta_set_add_resource: a resource with ceiling (@kind, @ceiling) — the most urgent item that
 * uses it — and returns its index. */
guint rta_set_add_resource (RtaSet *self, RtaKind kind, gint64 ceiling);

/* rta_set_add_section: item @item holds resource @resource for at most @length at a time. */
void rta_set_add_section (RtaSet *self, guint item, guint resource, guint64 length);

/* rta_set_analyse:
 * Response-time bound of every item into @out (rta_set_n_items() entries, by index), with
 * sensitivities when @with_sensitivity. Returns the critical scaling factor (≥ 0; the search
 * stops at 1000), or a negative value when the set is not analysable (an item without T or
 * with an unbounded busy period). Never fails. */
double rta_set_analyse (const RtaSet *self, RtaResult *out, gboolean with_sensitivity);

/* rta_status_name: "ok", "miss", "unbounded", "no_arrival". */
const char *rta_status_name (RtaStatus status);

G_END_DECLS
