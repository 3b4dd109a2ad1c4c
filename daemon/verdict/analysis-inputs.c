/* analysis-inputs.c — the task set of a stored session, per core, with where each input came
 * from (analysis.h). Sources, strongest first for each input:
 *
 *   C (execution time)  budgets `wcet`; else the largest net time of a job the session
 *                       measured (job_max_us, plus its resolution for a sampled source), plus
 *                       the kernel's dispatch cost the trace shows per job; an extended task
 *                       that never ended a job: its longest stretch between two waits, when
 *                       none was preempted. ISRs: net_max_us (+ resolution).
 *   T (arrivals)        the ALARM that activates it (ORTI, cycle known offline and its
 *                       counter's tick given), budgets `period`; else measured: the long-run
 *                       period of its activations in the trace, else its shortest period
 *                       (a sporadic task: then no jitter). ISRs: the shortest interval.
 *   J (release jitter)  budgets `jitter`; else the spread of its activations around their
 *                       period in the trace; else the shortening of the shortest interval
 *                       below an ALARM's cycle; else 0 (T is then the shortest interval).
 *   D (deadline)        budgets `deadline` (a number, or `period`); else T.
 *   priority            budgets `priority`; else the ORTI (a constant PRIORITY or the
 *                       vendor's static priority, or PRIORITY in the ELF's initial data when
 *                       that differs between tasks); else unknown: not analysed. ISRs: budgets
 *                       `priority`, else unknown (every ISR above every task, and ISRs of
 *                       unknown priority interfering with each other both ways).
 *   preemptability      budgets `schedule` (FULL / NON); else the ORTI's vs_Schedule; else
 *                       preemptable (OSEK's default, stated).
 *   blocking            the longest critical section each task ran (GetResource's return to
 *                       ReleaseResource's call in the trace) against the highest ceiling of
 *                       the ORTI's RESOURCEs (unknown ceilings lock out everything); without
 *                       traced resource calls none is assumed and said; budgets `blocking`
 *                       adds a given term (e.g. interrupt locks).
 * A value nothing gives is unknown, with the reason; the engine then leaves the item (and
 * everything it interferes with) unanalysed. */
#include "analysis.h"
#include "analysis-trace.h"
#include "check-db.h"
#include "osek-config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

G_DEFINE_QUARK (orti-analysis-error-quark, analysis_error)

const char *
analysis_from_name (AnalysisFrom from)
{
  static const char *const names[] = { "unknown", "measured", "orti", "given", "assumed",
                                       "what-if" };
  return from < G_N_ELEMENTS (names) ? names[from] : "unknown";
}

static void
input_clear (AnalysisInput *in)
{
  g_free (in->detail);
}

static void
item_free (gpointer p)
{
  AnalysisItem *it = p;
  g_free (it->name);
  input_clear (&it->priority);
  input_clear (&it->wcet);
  input_clear (&it->period);
  input_clear (&it->jitter);
  input_clear (&it->deadline);
  input_clear (&it->blocking);
  g_free (it->schedule_detail);
  g_free (it->observed_job);
  g_free (it);
}

static void
section_clear (gpointer p)
{
  input_clear (&((AnalysisSection *) p)->length);
}

void
analysis_inputs_free (AnalysisInputs *inputs)
{
  if (inputs == NULL)
    return;
  g_ptr_array_unref (inputs->items);
  g_array_unref (inputs->sections);
  g_free (inputs->order_detail);
  g_ptr_array_unref (inputs->notes);
  g_ptr_array_unref (inputs->what_if);
  g_free (inputs);
}

G_GNUC_PRINTF (4, 5) static void
input_set (AnalysisInput *in, AnalysisFrom from, gint64 value, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_free (in->detail);
  in->detail = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  in->from = from;
  in->value = value;
}

G_GNUC_PRINTF (2, 3) static void
note (AnalysisInputs *inputs, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_ptr_array_add (inputs->notes, g_strdup_vprintf (fmt, ap));
  va_end (ap);
}

/* µs (a view's unit) to ns, rounded to the safe side */
static gint64
ns_up (double us)
{
  return (gint64) ceil (us * 1e3 - 1e-6);
}

static gint64
ns_down (double us)
{
  return (gint64) floor (us * 1e3 + 1e-6);
}

/* ---- the budgets file's inputs ---------------------------------------------------------- */

/* The keys the analysis reads from a budgets file (docs/analysis.md); others are check's. */
typedef struct {
  gboolean has_wcet, has_period, has_jitter, has_priority, has_blocking, has_deadline;
  double wcet, period, jitter, blocking, deadline; /* µs */
  gboolean deadline_is_period;
  gint64 priority;
  int schedule;               /* -1 not given, 0 FULL, 1 NON */
} GivenInputs;

/* given__number: key @key of @group as a finite non-negative number (µs, or a priority). */
static gboolean
given__number (GKeyFile *kf, const char *path, const char *group, const char *key,
               gboolean *has, double *out, GError **error)
{
  g_autofree char *text = g_key_file_get_value (kf, group, key, NULL);
  if (text == NULL)
    return TRUE;
  g_strstrip (text);
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v) || v < 0) {
    g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT,
                 "%s: [%s] %s = '%s': expected a finite number ≥ 0", path, group, key, text);
    return FALSE;
  }
  *has = TRUE;
  *out = v;
  return TRUE;
}

/* given__load: the analysis keys of each `task NAME` / `isr NAME` group of @path (group →
 * GivenInputs *). */
static GHashTable *
given__load (const char *path, GError **error)
{
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (path == NULL)
    return g_steal_pointer (&out);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &local)) {
    g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT, "%s: %s", path, local->message);
    return NULL;
  }
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  for (guint i = 0; groups[i] != NULL; i++) {
    if (!g_str_has_prefix (groups[i], "task ") && !g_str_has_prefix (groups[i], "isr "))
      continue;
    GivenInputs *g = g_new0 (GivenInputs, 1);
    g->schedule = -1;
    g_hash_table_insert (out, g_strdup (groups[i]), g);
    double prio = 0;
    if (!given__number (kf, path, groups[i], "wcet", &g->has_wcet, &g->wcet, error) ||
        !given__number (kf, path, groups[i], "period", &g->has_period, &g->period, error) ||
        !given__number (kf, path, groups[i], "jitter", &g->has_jitter, &g->jitter, error) ||
        !given__number (kf, path, groups[i], "blocking", &g->has_blocking, &g->blocking, error) ||
        !given__number (kf, path, groups[i], "priority", &g->has_priority, &prio, error))
      return NULL;
    g->priority = (gint64) prio;
    g_autofree char *deadline = g_key_file_get_value (kf, groups[i], "deadline", NULL);
    if (deadline != NULL && (*g_strstrip (deadline) == '\0' || strcmp (deadline, "period") == 0))
      g->deadline_is_period = TRUE;
    else if (!given__number (kf, path, groups[i], "deadline", &g->has_deadline, &g->deadline,
                             error))
      return NULL;
    g_autofree char *schedule = g_key_file_get_value (kf, groups[i], "schedule", NULL);
    if (schedule != NULL) {
      g_strstrip (schedule);
      if (g_ascii_strcasecmp (schedule, "FULL") == 0)
        g->schedule = 0;
      else if (g_ascii_strcasecmp (schedule, "NON") == 0)
        g->schedule = 1;
      else {
        g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT,
                     "%s: [%s] schedule = '%s': expected FULL or NON", path, groups[i], schedule);
        return NULL;
      }
    }
  }
  return g_steal_pointer (&out);
}

/* ---- what the ORTI file says ------------------------------------------------------------- */

typedef struct {
  gboolean has_priority;
  gint64 priority;
  char *priority_detail;   /* where from, or why unknown */
  double cycle_us;         /* the shortest known cycle of an ALARM activating it, or NAN */
  char *cycle_detail;      /* which ALARM, or why not known */
  OsekSchedule schedule;
  char *schedule_text;
} OrtiTask;

static void
orti_task_free (gpointer p)
{
  OrtiTask *t = p;
  g_free (t->priority_detail);
  g_free (t->cycle_detail);
  g_free (t->schedule_text);
  g_free (t);
}

/* orti__tasks: name → OrtiTask * for every TASK of @doc. */
static GHashTable *
orti__tasks (AnalysisInputs *inputs, OrtiDoc *doc, OrtiElf *elf, GHashTable *counter_tick_us)
{
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, orti_task_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, elf, -1, &error);
  if (watch == NULL)
    note (inputs, "%s: %s: no priorities from it", orti_doc_get_filename (doc), error->message);
  /* PRIORITY in the ELF's initial data means something only where the tasks differ: the same
   * value for all (0 in .bss) is a priority set at run time */
  g_autoptr (GHashTable) initial = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  gboolean initial_differs = FALSE;
  gint64 first = 0;
  for (guint i = 0; watch != NULL && i < orti_watch_get_n_tasks (watch); i++) {
    const OrtiWatchTask *wt = orti_watch_get_task (watch, i);
    gint64 v = 0;
    if (wt->has_static_priority || wt->priority == NULL || wt->priority->plan == NULL ||
        elf == NULL || orti_elf_is_relocatable (elf) ||
        !orti_plan_eval (wt->priority->plan, orti_elf_read_initial, elf, &v, NULL))
      continue;
    if (g_hash_table_size (initial) == 0)
      first = v;
    else if (v != first)
      initial_differs = TRUE;
    g_hash_table_insert (initial, (gpointer) wt->name, g_memdup2 (&v, sizeof v));
  }
  GPtrArray *objs = orti_doc_get_objects (doc, "TASK");
  for (guint i = 0; objs != NULL && i < objs->len; i++) {
    OrtiObject *obj = g_ptr_array_index (objs, i);
    OrtiTask *t = g_new0 (OrtiTask, 1);
    t->cycle_us = NAN;
    const char *name = orti_object_get_name (obj);
    OrtiLocation loc = orti_object_get_location (obj);
    const char *text = NULL;
    t->schedule = osek_config_task_schedule (obj, &text);
    t->schedule_text = text != NULL ? g_strdup_printf ("%s:%u: vs_Schedule \"%s\"", loc.file,
                                                       loc.line, text) : NULL;
    for (guint k = 0; watch != NULL && k < orti_watch_get_n_tasks (watch); k++) {
      const OrtiWatchTask *wt = orti_watch_get_task (watch, k);
      if (strcmp (wt->name, name) != 0)
        continue;
      const gint64 *iv = g_hash_table_lookup (initial, name);
      if (wt->has_static_priority) {
        t->has_priority = TRUE;
        t->priority = wt->static_priority;
        t->priority_detail = g_strdup_printf ("%s:%u: TASK %s, a constant priority", loc.file,
                                              loc.line, name);
      } else if (iv != NULL && initial_differs) {
        t->has_priority = TRUE;
        t->priority = *iv;
        t->priority_detail = g_strdup_printf ("%s:%u: PRIORITY \"%s\" in the ELF's initial "
                                              "data", loc.file, loc.line,
                                              wt->priority->formula);
      } else if (wt->priority != NULL) {
        t->priority_detail = g_strdup_printf ("%s:%u: PRIORITY \"%s\" is set at run time%s",
                                              loc.file, loc.line, wt->priority->formula,
                                              elf == NULL ? " (no ELF)" : " (the same value "
                                              "for every task in the ELF's initial data)");
      }
    }
    if (t->priority_detail == NULL)
      t->priority_detail = g_strdup_printf ("%s:%u: TASK %s has no priority the file states",
                                            loc.file, loc.line, name);
    g_hash_table_insert (out, (gpointer) name, t);
  }
  g_autoptr (GArray) alarms = osek_config_alarms (doc, elf, counter_tick_us);
  for (guint a = 0; a < alarms->len; a++) {
    const OsekAlarm *al = &g_array_index (alarms, OsekAlarm, a);
    OrtiTask *t = g_hash_table_lookup (out, al->task);
    if (t == NULL || al->sets_event)
      continue;
    g_autofree char *why = NULL;
    if (isnan (al->cycle_ticks))
      why = g_strdup_printf ("ALARM %s: cycle unknown (%s)", al->name, al->why_unknown);
    else if (isnan (al->cycle_us))
      why = g_strdup_printf ("ALARM %s: %g ticks of %s, whose tick is unknown (--counter-tick "
                             "%s=DURATION)", al->name, al->cycle_ticks,
                             al->counter != NULL ? al->counter : "its counter",
                             al->counter != NULL ? al->counter : "COUNTER");
    if (why != NULL) {
      if (isnan (t->cycle_us)) {
        g_free (t->cycle_detail);
        t->cycle_detail = g_steal_pointer (&why);
      }
      continue;
    }
    if (isnan (t->cycle_us) || al->cycle_us < t->cycle_us) {
      t->cycle_us = al->cycle_us;
      g_free (t->cycle_detail);
      t->cycle_detail = g_strdup_printf ("%s:%u: ALARM %s, %g ticks of %s (%s)", al->loc.file,
                                         al->loc.line, al->name, al->cycle_ticks,
                                         al->counter != NULL ? al->counter : "its counter",
                                         al->cycle_from);
    }
  }
  return out;
}

/* ---- the session -------------------------------------------------------------------------- */

typedef struct {
  const AnalysisSources *src;
  AnalysisInputs *inputs;
  double tick_hz;
  guint64 first_tick;
  gboolean sampled;
  GHashTable *given;        /* "task NAME" → GivenInputs * */
  GHashTable *orti;         /* task name → OrtiTask *, or NULL */
  AnalysisTrace *trace;     /* or NULL */
} Loader;

/* loader__at: "123.456 ms into session N" for tick @ts (newly allocated). */
static char *
loader__at (const Loader *l, guint64 ts)
{
  return g_strdup_printf ("%.3f ms into session %" G_GINT64_FORMAT,
                          (double) (ts - MIN (ts, l->first_tick)) * 1e3 / l->tick_hz,
                          l->src->session);
}

static double
ticks_to_us (const Loader *l, double ticks)
{
  return ticks * 1e6 / l->tick_hz;
}

static gboolean
loader__session (Loader *l, GError **error)
{
  g_autoptr (sqlite3_stmt) st = check_db_prepare (
    l->src->db, "SELECT tick_rate_hz, first_tick, sample_rate_hz IS NOT NULL, "
                "(SELECT count(*) FROM cores WHERE session_id = ?1) FROM sessions WHERE id = ?1",
    error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_int64 (st, 1, l->src->session);
  if (sqlite3_step (st) != SQLITE_ROW) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "no session %" G_GINT64_FORMAT,
                 l->src->session);
    return FALSE;
  }
  l->tick_hz = sqlite3_column_double (st, 0);
  l->first_tick = (guint64) sqlite3_column_int64 (st, 1);
  l->sampled = sqlite3_column_int (st, 2) != 0;
  l->inputs->n_cores = MAX (1, (guint) sqlite3_column_int (st, 3));
  if (!(l->tick_hz > 0)) {
    g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_SESSION,
                 "session %" G_GINT64_FORMAT " has no tick rate: its times cannot be analysed",
                 l->src->session);
    return FALSE;
  }
  return TRUE;
}

/* loader__service: the id of OS service @name in the session, or G_MAXUINT32. */
static guint32
loader__service (Loader *l, const char *name)
{
  g_autoptr (sqlite3_stmt) st = check_db_prepare (
    l->src->db, "SELECT service FROM services WHERE session_id = ?1 AND name = ?2", NULL);
  if (st == NULL)
    return G_MAXUINT32;
  sqlite3_bind_int64 (st, 1, l->src->session);
  sqlite3_bind_text (st, 2, name, -1, SQLITE_STATIC);
  return sqlite3_step (st) == SQLITE_ROW ? (guint32) sqlite3_column_int64 (st, 0) : G_MAXUINT32;
}

/* loader__dispatch: the dispatch cost of @core in ns (0 when the trace does not show it),
 * and its detail. */
static gint64
loader__dispatch (const Loader *l, guint core, char **detail)
{
  const AnalysisTraceCore *c = l->trace != NULL && core < l->trace->cores->len
                                 ? &g_array_index (l->trace->cores, AnalysisTraceCore, core)
                                 : NULL;
  if (c == NULL || c->dispatches == 0) {
    *detail = NULL;
    return 0;
  }
  double us = ticks_to_us (l, (double) c->dispatch_max);
  g_autofree char *at = loader__at (l, c->dispatch_at);
  *detail = g_strdup_printf ("dispatch %.3f µs (the longest of %u, at %s)", us, c->dispatches,
                             at);
  return ns_up (us);
}

/* loader__wcet: C of task @it from @given, the session's row, the trace. */
static void
loader__task_wcet (Loader *l, AnalysisItem *it, const GivenInputs *g, double job_max_us,
                   double bound_us, gboolean extended, double slice_max_us, gint64 preemptions,
                   const char *why_unknown)
{
  g_autofree char *dispatch = NULL;
  gint64 d = loader__dispatch (l, it->core, &dispatch);
  g_autofree char *plus = dispatch != NULL ? g_strdup_printf (" + %s", dispatch) : g_strdup ("");
  const AnalysisTraceTask *tt = l->trace != NULL ? analysis_trace_get_task (l->trace,
                                                                             (guint32) it->id)
                                                 : NULL;
  if (g != NULL && g->has_wcet) {
    input_set (&it->wcet, ANALYSIS_FROM_GIVEN, ns_up (g->wcet), "budgets wcet %g µs", g->wcet);
    if (!isnan (job_max_us) && job_max_us > g->wcet)
      note (l->inputs, "%s: session %" G_GINT64_FORMAT " measured a job of %.3f µs, longer "
            "than the given wcet %g µs", it->name, l->src->session, job_max_us, g->wcet);
  } else if (!isnan (job_max_us)) {
    g_autofree char *job = NULL;
    if (tt != NULL && tt->has_net && fabs (ticks_to_us (l, (double) tt->net_max) - job_max_us)
                                       <= MAX (bound_us, 1.0 / l->tick_hz * 1e6) + 1e-3) {
      g_autofree char *at = loader__at (l, tt->net_act);
      job = g_strdup_printf (", the job activated %s", at);
    }
    g_autofree char *res = bound_us > 0 ? g_strdup_printf (" + resolution %.3f µs", bound_us)
                                        : g_strdup ("");
    input_set (&it->wcet, ANALYSIS_FROM_MEASURED, ns_up (job_max_us + bound_us) + d,
               "job_max %.3f µs%s%s in session %" G_GINT64_FORMAT "%s", job_max_us, res, plus,
               l->src->session, job != NULL ? job : "");
  } else if (extended && preemptions == 0 && !isnan (slice_max_us)) {
    input_set (&it->wcet, ANALYSIS_FROM_MEASURED, ns_up (slice_max_us + bound_us) + d,
               "an extended task that ended no job: its longest run between two waits, "
               "slice_max %.3f µs%s, none preempted, in session %" G_GINT64_FORMAT,
               slice_max_us, plus, l->src->session);
  } else {
    input_set (&it->wcet, ANALYSIS_FROM_UNKNOWN, 0, "no job's net time known in session %"
               G_GINT64_FORMAT "%s%s; give `wcet` in [task %s]", l->src->session,
               why_unknown != NULL ? ": " : "", why_unknown != NULL ? why_unknown : "", it->name);
  }
}

/* loader__task_arrivals: T and J of task @it. */
static void
loader__task_arrivals (Loader *l, AnalysisItem *it, const GivenInputs *g, const OrtiTask *ot,
                       double period_min_us, double bound_us, gboolean extended)
{
  const AnalysisTraceTask *tt = l->trace != NULL ? analysis_trace_get_task (l->trace,
                                                                             (guint32) it->id)
                                                 : NULL;
  double mean = NAN;
  guint64 min_ticks = 0;
  gboolean traced = tt != NULL && analysis_trace_mean_period (tt, &mean, &min_ticks);
  double period_ticks = NAN;
  if (g != NULL && g->has_period) {
    input_set (&it->period, ANALYSIS_FROM_GIVEN, ns_down (g->period), "budgets period %g µs",
               g->period);
    period_ticks = g->period * l->tick_hz / 1e6;
  } else if (ot != NULL && !isnan (ot->cycle_us)) {
    input_set (&it->period, ANALYSIS_FROM_ORTI, ns_down (ot->cycle_us), "%s = %g µs",
               ot->cycle_detail, ot->cycle_us);
    period_ticks = ot->cycle_us * l->tick_hz / 1e6;
  } else if (traced) {
    input_set (&it->period, ANALYSIS_FROM_MEASURED, ns_down (ticks_to_us (l, mean)),
               "its %u activations, every %.3f µs over the session (the shortest %.3f µs), "
               "session %" G_GINT64_FORMAT "%s%s", tt->releases->len, ticks_to_us (l, mean),
               ticks_to_us (l, (double) min_ticks), l->src->session,
               ot != NULL && ot->cycle_detail != NULL ? "; " : "",
               ot != NULL && ot->cycle_detail != NULL ? ot->cycle_detail : "");
    period_ticks = mean;
  } else if (!isnan (period_min_us)) {
    /* sporadic: the shortest interval seen between its jobs, no jitter on top */
    input_set (&it->period, ANALYSIS_FROM_MEASURED, ns_down (period_min_us - bound_us),
               "its shortest period, period_min %.3f µs%s, in session %" G_GINT64_FORMAT
               "%s (a sporadic task: no jitter)", period_min_us,
               bound_us > 0 ? " − resolution" : "", l->src->session,
               extended ? " (between its runs: an extended task)" : "");
    input_set (&it->jitter, ANALYSIS_FROM_MEASURED, 0, "none: T is its shortest interval");
    return;
  } else {
    input_set (&it->period, ANALYSIS_FROM_UNKNOWN, 0, "%s%sno period measured in session %"
               G_GINT64_FORMAT "; give `period` in [task %s]",
               ot != NULL && ot->cycle_detail != NULL ? ot->cycle_detail : "",
               ot != NULL && ot->cycle_detail != NULL ? "; " : "", l->src->session, it->name);
    input_set (&it->jitter, ANALYSIS_FROM_UNKNOWN, 0, "no period");
    return;
  }
  guint64 j = 0;
  if (g != NULL && g->has_jitter)
    input_set (&it->jitter, ANALYSIS_FROM_GIVEN, ns_up (g->jitter), "budgets jitter %g µs",
               g->jitter);
  else if (tt != NULL && analysis_trace_release_jitter (tt, period_ticks, &j))
    input_set (&it->jitter, ANALYSIS_FROM_MEASURED, ns_up (ticks_to_us (l, (double) j)),
               "the spread of its %u activations around that period, session %" G_GINT64_FORMAT,
               tt->releases->len, l->src->session);
  else if (!isnan (period_min_us) && period_min_us - bound_us < it->period.value / 1e3)
    input_set (&it->jitter, ANALYSIS_FROM_MEASURED,
               it->period.value - ns_down (period_min_us - bound_us),
               "its shortest period %.3f µs%s is that much shorter, session %" G_GINT64_FORMAT
               " (its activations are not in the trace)", period_min_us,
               bound_us > 0 ? " − resolution" : "", l->src->session);
  else
    input_set (&it->jitter, ANALYSIS_FROM_ASSUMED, 0, "none seen (its activations are not in "
               "the trace)");
}

/* loader__deadline_blocking: D (given, else the period: the engine's default when T is
 * known, also after a what-if changed T) and the given blocking of @it. */
static void
loader__deadline_blocking (AnalysisItem *it, const GivenInputs *g)
{
  if (g != NULL && g->has_deadline)
    input_set (&it->deadline, ANALYSIS_FROM_GIVEN, ns_down (g->deadline),
               "budgets deadline %g µs", g->deadline);
  else
    input_set (&it->deadline, ANALYSIS_FROM_UNKNOWN, 0, "the period");
  if (g != NULL && g->has_blocking)
    input_set (&it->blocking, ANALYSIS_FROM_GIVEN, ns_up (g->blocking),
               "budgets blocking %g µs", g->blocking);
  else
    input_set (&it->blocking, ANALYSIS_FROM_ASSUMED, 0, "none beyond critical sections");
}

static gboolean
loader__tasks (Loader *l, GError **error)
{
  /* a task's core: where it ran most (task_core_stats), else from its id's core bits */
  g_autoptr (sqlite3_stmt) st = check_db_prepare (
    l->src->db,
    "SELECT t.task, t.task_value, t.jobs, t.slices, t.preemptions, t.activations, "
    "  t.job_max_us, t.period_min_us, t.response_max_us, t.time_bound_us, t.slice_max_us, "
    "  (SELECT c.core FROM task_core_stats c WHERE c.session_id = t.session_id "
    "     AND c.task_value = t.task_value ORDER BY c.run_total_us DESC LIMIT 1), "
    "  t.waits "
    "FROM task_stats t WHERE t.session_id = ?1 ORDER BY t.task_value", error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_int64 (st, 1, l->src->session);
  while (sqlite3_step (st) == SQLITE_ROW) {
    const char *name = (const char *) sqlite3_column_text (st, 0);
    if (name == NULL || strcmp (name, "idle") == 0)
      continue;
    AnalysisItem *it = g_new0 (AnalysisItem, 1);
    it->name = g_strdup (name);
    it->kind = RTA_KIND_TASK;
    it->id = sqlite3_column_int64 (st, 1);
    it->core = sqlite3_column_type (st, 11) != SQLITE_NULL
                 ? (guint) sqlite3_column_int64 (st, 11)
                 : l->inputs->n_cores > 1 ? (guint) ((it->id >> 16) & 0xFF) : 0;
    g_ptr_array_add (l->inputs->items, it);
    g_autofree char *group = g_strdup_printf ("task %s", name);
    const GivenInputs *g = g_hash_table_lookup (l->given, group);
    const OrtiTask *ot = l->orti != NULL ? g_hash_table_lookup (l->orti, name) : NULL;
    double bound = l->sampled ? check_db_double (st, 9) : 0;
    if (isnan (bound))
      bound = 0; /* sampled without a bound: the per-job figures are NULL too */
    gint64 jobs = sqlite3_column_int64 (st, 2), activations = sqlite3_column_int64 (st, 5);
    gboolean extended = jobs == 0 && activations <= 1 && sqlite3_column_int64 (st, 3) > 1;
    gint64 preemptions = sqlite3_column_type (st, 4) == SQLITE_NULL ? -1
                                                                     : sqlite3_column_int64 (st, 4);
    loader__task_wcet (l, it, g, check_db_double (st, 6), bound, extended,
                       check_db_double (st, 10), preemptions,
                       jobs == 0 ? "it ended no job" : NULL);
    double period_min = check_db_double (st, 7);
    if (extended && isnan (period_min)) {
      /* its runs between waits: the shortest interval between their starts */
      g_autoptr (sqlite3_stmt) sl = check_db_prepare (
        l->src->db, "SELECT min(d) FROM (SELECT start - lag(start) OVER (ORDER BY start) AS d "
                    "FROM slices WHERE session_id = ?1 AND task = ?2 AND flags & 1 = 0)", error);
      if (sl == NULL)
        return FALSE;
      sqlite3_bind_int64 (sl, 1, l->src->session);
      sqlite3_bind_int64 (sl, 2, it->id);
      if (sqlite3_step (sl) == SQLITE_ROW && sqlite3_column_type (sl, 0) != SQLITE_NULL)
        period_min = ticks_to_us (l, sqlite3_column_double (sl, 0));
    }
    loader__task_arrivals (l, it, g, ot, period_min, bound, extended);
    /* priority */
    if (g != NULL && g->has_priority)
      input_set (&it->priority, ANALYSIS_FROM_GIVEN, g->priority, "budgets priority %"
                 G_GINT64_FORMAT, g->priority);
    else if (ot != NULL && ot->has_priority)
      input_set (&it->priority, ANALYSIS_FROM_ORTI, ot->priority, "%s", ot->priority_detail);
    else
      input_set (&it->priority, ANALYSIS_FROM_UNKNOWN, 0, "%s; give `priority` in [task %s]",
                 ot != NULL ? ot->priority_detail : "no ORTI file", name);
    /* preemptability */
    if (g != NULL && g->schedule >= 0) {
      it->non_preemptive = g->schedule == 1;
      it->schedule_detail = g_strdup_printf ("budgets schedule %s", g->schedule ? "NON" : "FULL");
    } else if (ot != NULL && ot->schedule != OSEK_SCHEDULE_UNKNOWN) {
      it->non_preemptive = ot->schedule == OSEK_SCHEDULE_NON;
      it->schedule_detail = g_strdup (ot->schedule_text);
    } else {
      it->schedule_detail = g_strdup ("preemptable (OSEK FULL): assumed, the file does not say");
    }
    loader__deadline_blocking (it, g);
    /* what the session observed */
    it->observed_us = check_db_double (st, 8);
    it->observed_bound_us = bound;
    if (!isnan (it->observed_us)) {
      const AnalysisTraceTask *tt = l->trace != NULL
                                      ? analysis_trace_get_task (l->trace, (guint32) it->id)
                                      : NULL;
      if (tt != NULL && tt->has_response) {
        g_autofree char *at = loader__at (l, tt->response_act);
        it->observed_job = g_strdup_printf ("session %" G_GINT64_FORMAT ", %s, the job activated "
                                            "at %s (response %.3f µs)", l->src->session, name,
                                            at, ticks_to_us (l, (double) tt->response_max));
      } else {
        it->observed_job = g_strdup_printf ("session %" G_GINT64_FORMAT ", %s (its jobs' "
                                            "instants are not in the stored events: the "
                                            "response is first switch-in to end)",
                                            l->src->session, name);
      }
    }
  }
  return TRUE;
}

static gboolean
loader__isrs (Loader *l, GError **error)
{
  g_autoptr (sqlite3_stmt) st = check_db_prepare (
    l->src->db, "SELECT isr, isr_value, count, net_max_us, period_min_us, time_bound_us "
                "FROM isr_stats WHERE session_id = ?1 ORDER BY isr_value", error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_int64 (st, 1, l->src->session);
  while (sqlite3_step (st) == SQLITE_ROW) {
    const char *name = (const char *) sqlite3_column_text (st, 0);
    AnalysisItem *it = g_new0 (AnalysisItem, 1);
    it->name = g_strdup (name != NULL ? name : "?");
    it->kind = RTA_KIND_ISR;
    it->id = sqlite3_column_int64 (st, 1);
    it->core = l->inputs->n_cores > 1 ? (guint) ((it->id >> 16) & 0xFF) : 0;
    it->observed_us = NAN;
    g_ptr_array_add (l->inputs->items, it);
    g_autofree char *group = g_strdup_printf ("isr %s", it->name);
    const GivenInputs *g = g_hash_table_lookup (l->given, group);
    double bound = l->sampled ? check_db_double (st, 5) : 0, net = check_db_double (st, 3),
           period = check_db_double (st, 4);
    if (isnan (bound))
      bound = 0;
    gint64 count = sqlite3_column_int64 (st, 2);
    if (g != NULL && g->has_wcet)
      input_set (&it->wcet, ANALYSIS_FROM_GIVEN, ns_up (g->wcet), "budgets wcet %g µs", g->wcet);
    else if (!isnan (net))
      input_set (&it->wcet, ANALYSIS_FROM_MEASURED, ns_up (net + bound),
                 "net_max %.3f µs%s over %" G_GINT64_FORMAT " entries, session %" G_GINT64_FORMAT,
                 net, bound > 0 ? " + resolution" : "", count, l->src->session);
    else
      input_set (&it->wcet, ANALYSIS_FROM_UNKNOWN, 0, "no instance's net time known in session %"
                 G_GINT64_FORMAT "; give `wcet` in [isr %s]", l->src->session, it->name);
    if (g != NULL && g->has_period)
      input_set (&it->period, ANALYSIS_FROM_GIVEN, ns_down (g->period), "budgets period %g µs",
                 g->period);
    else if (!isnan (period))
      input_set (&it->period, ANALYSIS_FROM_MEASURED, ns_down (period - bound),
                 "its shortest interval, period_min %.3f µs%s, session %" G_GINT64_FORMAT,
                 period, bound > 0 ? " − resolution" : "", l->src->session);
    else
      input_set (&it->period, ANALYSIS_FROM_UNKNOWN, 0, "%" G_GINT64_FORMAT " entries in session %"
                 G_GINT64_FORMAT ": no interval; give `period` in [isr %s]", count,
                 l->src->session, it->name);
    if (g != NULL && g->has_jitter)
      input_set (&it->jitter, ANALYSIS_FROM_GIVEN, ns_up (g->jitter), "budgets jitter %g µs",
                 g->jitter);
    else
      input_set (&it->jitter, ANALYSIS_FROM_MEASURED, 0, "none: T is its shortest interval");
    if (g != NULL && g->has_priority)
      input_set (&it->priority, ANALYSIS_FROM_GIVEN, g->priority, "budgets priority %"
                 G_GINT64_FORMAT " (larger is more urgent)", g->priority);
    else
      input_set (&it->priority, ANALYSIS_FROM_UNKNOWN, 0, "not known: above every task, and "
                 "interrupting every other ISR and interrupted by each");
    loader__deadline_blocking (it, g);
    it->schedule_detail = g_strdup ("an ISR");
  }
  return TRUE;
}

/* loader__sections: each task's longest traced critical section, against the highest ceiling
 * of the ORTI's resources of each kind. */
static void
loader__sections (Loader *l)
{
  g_autoptr (GArray) res = l->src->orti != NULL ? osek_config_resources (l->src->orti) : NULL;
  gboolean any_task = FALSE, any_isr = FALSE, unknown = res == NULL || res->len == 0;
  gint64 task_ceiling = G_MININT64, isr_ceiling = G_MININT64;
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; res != NULL && i < res->len; i++) {
    const OsekResource *r = &g_array_index (res, OsekResource, i);
    g_string_append_printf (names, "%s%s", names->len > 0 ? ", " : "", r->name);
    switch (r->kind) {
    case OSEK_CEILING_TASK:
      any_task = TRUE;
      task_ceiling = MAX (task_ceiling, l->inputs->lower_is_more_urgent ? -r->ceiling
                                                                        : r->ceiling);
      break;
    case OSEK_CEILING_ISR:
      any_isr = TRUE;
      isr_ceiling = MAX (isr_ceiling, r->ceiling);
      break;
    case OSEK_CEILING_SCHEDULER:
      any_task = TRUE;
      task_ceiling = G_MAXINT64;
      break;
    default:
      unknown = TRUE;
      break;
    }
  }
  if (l->trace == NULL || !l->trace->has_resources) {
    if (res != NULL && res->len > 0)
      note (l->inputs, "resources %s: no critical section was traced (GetResource / "
            "ReleaseResource are not in session %" G_GINT64_FORMAT "'s events): no blocking by "
            "them is assumed", names->str, l->src->session);
    return;
  }
  for (guint i = 0; i < l->inputs->items->len; i++) {
    AnalysisItem *it = g_ptr_array_index (l->inputs->items, i);
    const AnalysisTraceTask *tt = it->kind == RTA_KIND_TASK
                                    ? analysis_trace_get_task (l->trace, (guint32) it->id) : NULL;
    if (tt == NULL || tt->sections == 0)
      continue;
    double us = ticks_to_us (l, (double) tt->section_max);
    g_autofree char *at = loader__at (l, tt->section_at);
    for (int k = 0; k < 2; k++) {
      if (k == 1 && !any_isr)
        continue;
      AnalysisSection s = { .item = i, .ceiling_kind = k == 0 ? RTA_KIND_TASK : RTA_KIND_ISR };
      s.ceiling = k == 1 ? isr_ceiling : unknown || !any_task ? RTA_PRIORITY_UNKNOWN
                                       : task_ceiling;
      input_set (&s.length, ANALYSIS_FROM_MEASURED, ns_up (us),
                 "the longest of its %u critical sections, %.3f µs from %s; ceiling %s", tt->sections,
                 us, at, k == 1 ? "the highest ISR level of the ORTI's resources"
                 : s.ceiling == RTA_PRIORITY_UNKNOWN ? "unknown (assumed to lock out every task)"
                 : "the highest of the ORTI's resources (which one it held is not traced)");
      g_array_append_val (l->inputs->sections, s);
    }
  }
}

/* items by core, ISRs first, else in the session's order (the sort is stable) */
static int
loader__by_core (gconstpointer a, gconstpointer b)
{
  const AnalysisItem *x = *(AnalysisItem *const *) a, *y = *(AnalysisItem *const *) b;
  if (x->core != y->core)
    return x->core < y->core ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind == RTA_KIND_ISR ? -1 : 1;
  return 0;
}

AnalysisInputs *
analysis_inputs_load (const AnalysisSources *src, GError **error)
{
  g_autoptr (AnalysisInputs) inputs = g_new0 (AnalysisInputs, 1);
  inputs->session = src->session;
  inputs->items = g_ptr_array_new_with_free_func (item_free);
  inputs->sections = g_array_new (FALSE, TRUE, sizeof (AnalysisSection));
  g_array_set_clear_func (inputs->sections, section_clear);
  inputs->notes = g_ptr_array_new_with_free_func (g_free);
  inputs->what_if = g_ptr_array_new_with_free_func (g_free);
  /* OSEK numbers 0 as the lowest priority: a larger number is more urgent */
  inputs->order_detail = g_strdup ("a larger number is more urgent (OSEK's order)");
  Loader l = { .src = src, .inputs = inputs };
  g_autoptr (GHashTable) given = given__load (src->budgets_path, error);
  if (given == NULL || !loader__session (&l, error))
    return NULL;
  l.given = given;
  g_autoptr (GHashTable) orti = src->orti != NULL
                                  ? orti__tasks (inputs, src->orti, src->elf, src->counter_tick_us)
                                  : NULL;
  l.orti = orti;
  g_autoptr (AnalysisTrace) trace = analysis_trace_scan (
    src->db, src->session, loader__service (&l, "GetResource"),
    loader__service (&l, "ReleaseResource"), error);
  if (trace == NULL)
    return NULL;
  l.trace = trace->events > 0 ? trace : NULL;
  if (!loader__tasks (&l, error) || !loader__isrs (&l, error))
    return NULL;
  if (inputs->items->len == 0) {
    g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_SESSION,
                 "session %" G_GINT64_FORMAT " holds no task to analyse", src->session);
    return NULL;
  }
  g_ptr_array_sort (inputs->items, loader__by_core);
  loader__sections (&l);
  if (l.trace == NULL)
    note (inputs, "session %" G_GINT64_FORMAT " keeps no raw events: release jitter, the "
          "kernel's dispatch cost and critical sections are not measured", src->session);
  else if (!trace->has_activations)
    note (inputs, "session %" G_GINT64_FORMAT "'s source records no activations: release "
          "instants, jitter and the dispatch cost are not measured, a response is from a job's "
          "first switch-in", src->session);
  /* a budgets group that names nothing in the session is an error, not a silent no-op */
  GHashTableIter iter;
  gpointer key;
  g_hash_table_iter_init (&iter, given);
  while (g_hash_table_iter_next (&iter, &key, NULL)) {
    const char *group = key, *name = strchr (group, ' ') + 1;
    RtaKind kind = g_str_has_prefix (group, "isr ") ? RTA_KIND_ISR : RTA_KIND_TASK;
    gboolean found = FALSE;
    for (guint i = 0; i < inputs->items->len && !found; i++) {
      const AnalysisItem *it = g_ptr_array_index (inputs->items, i);
      found = it->kind == kind && strcmp (it->name, name) == 0;
    }
    if (!found) {
      GivenInputs *g = g_hash_table_lookup (given, group);
      if (g->has_wcet || g->has_period || g->has_jitter || g->has_priority || g->has_blocking ||
          g->schedule >= 0)
        note (inputs, "%s: [%s] names nothing session %" G_GINT64_FORMAT " ran: its inputs are "
              "not used", src->budgets_path, group, src->session);
    }
  }
  return g_steal_pointer (&inputs);
}
