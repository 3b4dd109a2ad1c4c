/* export-btf.c — a stored session's raw events as a BTF trace (export-trace.h).
 *
 * BTF (TA BTF specification 2.1.5) is CSV: a header of `#` parameter lines, then one line per
 * event, `Time,Source,SourceInstance,TargetType,Target,TargetInstance,Event[,Note]`, in time
 * order. Tasks are processes `T` and ISR2s processes `I`, started, preempted and resumed by
 * their core (`Core_N` or the cores table's name); functions are runnables `R`, run by the
 * process they were called in. Instances count from 1 per entity.
 *
 * The raw events drive a per-process state machine (BTF's process states):
 *   task_activate    activate (source: the stimulus STI_<task>); a task still running or
 *                    ready keeps the activation queued: its next start is the next instance
 *   task_switch      the task switched out: preempt (unless it terminated or waits); the task
 *                    switched in: start (a new instance), resume (after a preempt), or
 *                    release + resume (after a wait)
 *   task_terminate   terminate (runnables still open terminate first, innermost first)
 *   task_wait        wait (its runnables suspend)
 *   isr_enter        the process it interrupts is preempted; activate + start of the ISR
 *   isr_exit         terminate; the process below resumes
 *   func_enter/exit  runnable start / terminate; a process preempted or waiting suspends its
 *                    open runnables, and resumes them when it resumes
 * A gap (data lost on a core) is not bridged: what was open on the core is left without its
 * end (its true end is unknown) and the core starts afresh; each gap is listed in the header
 * as a comment (`# gap …`), as are the tick rate and events --keep-raw pruned.
 * Names have `,` and line breaks replaced by `_` (BTF has no quoting).
 */
#include "export-trace.h"

#include <math.h>
#include <string.h>

#define OUT_CHUNK 65536

enum { P_SUSPENDED, P_READY, P_RUNNING, P_PREEMPTED, P_WAITING };

typedef struct {
  guint32 fn, inst;
} Call;

typedef struct {
  gboolean isr;
  guint32 value;
  guint32 instance;  /* the current instance (0: none yet) */
  guint32 activated; /* instances activated so far (≥ instance while one is queued) */
  int state;         /* P_* */
  GArray *calls;     /* Call: its open runnables, outermost first */
} Proc;

typedef struct {
  ExportTraceSession s;
  GOutputStream *out;
  GString *buf;
  GError *error;          /* writing failed */
  GHashTable *procs;      /* (isr << 32 | value) → Proc */
  GHashTable *runnables;  /* function → instances so far */
  GPtrArray *cores;       /* core → GPtrArray of Proc (the base task, or NULL, then ISRs) */
  GArray *orphans;        /* per core: a GArray of Call outside any known process */
} Btf;

static void
proc_free (Proc *p)
{
  g_array_unref (p->calls);
  g_free (p);
}

static void
flush (Btf *b)
{
  if (b->buf->len == 0 || b->error != NULL)
    return;
  g_output_stream_write_all (b->out, b->buf->str, b->buf->len, NULL, NULL, &b->error);
  g_string_truncate (b->buf, 0);
}

/* @name with what BTF cannot hold replaced. */
static void
put_name (GString *g, const char *name)
{
  for (const char *c = name; *c != '\0'; c++)
    g_string_append_c (g, (*c == ',' || *c == '\n' || *c == '\r') ? '_' : *c);
}

static guint64
to_ns (const Btf *b, guint64 ticks)
{
  return (guint64) llroundl ((long double) ticks * 1e9L / (long double) b->s.rate);
}

static const char *
proc_name (Btf *b, const Proc *p)
{
  return export_trace_name (&b->s, p->isr ? b->s.isrs : b->s.tasks, p->value);
}

/* One line: TIME,SOURCE,SI,TYPE,TARGET,TI,EVENT. */
static void
line (Btf *b, guint64 ts, const char *source, guint32 si, const char *type, const char *target,
      guint32 ti, const char *event)
{
  g_string_append_printf (b->buf, "%" G_GUINT64_FORMAT ",", to_ns (b, ts));
  put_name (b->buf, source);
  g_string_append_printf (b->buf, ",%u,%s,", si, type);
  put_name (b->buf, target);
  g_string_append_printf (b->buf, ",%u,%s\n", ti, event);
  if (b->buf->len >= OUT_CHUNK)
    flush (b);
}

static void
proc_line (Btf *b, guint64 ts, guint16 core, const Proc *p, const char *event)
{
  line (b, ts, export_trace_core_name (&b->s, core), 0, p->isr ? "I" : "T", proc_name (b, p),
        p->instance, event);
}

static void
runnables_line (Btf *b, guint64 ts, const Proc *p, const char *event, gboolean innermost_first)
{
  for (guint k = 0; k < p->calls->len; k++) {
    guint i = innermost_first ? p->calls->len - 1 - k : k;
    const Call *c = &g_array_index (p->calls, Call, i);
    line (b, ts, proc_name (b, p), p->instance, "R",
          export_trace_name (&b->s, b->s.functions, c->fn), c->inst, event);
  }
}

static Proc *
proc_get (Btf *b, gboolean isr, guint32 value)
{
  gint64 key = (gint64) isr << 32 | value;
  Proc *p = g_hash_table_lookup (b->procs, &key);
  if (p == NULL) {
    p = g_new0 (Proc, 1);
    p->isr = isr;
    p->value = value;
    p->calls = g_array_new (FALSE, FALSE, sizeof (Call));
    g_hash_table_insert (b->procs, g_memdup2 (&key, sizeof key), p);
  }
  return p;
}

/* The stack of core @core: [0] the base task (NULL: idle or unknown), then the ISRs. */
static GPtrArray *
core_stack (Btf *b, guint16 core)
{
  while (b->cores->len <= core) {
    GPtrArray *st = g_ptr_array_new ();
    g_ptr_array_add (st, NULL);
    g_ptr_array_add (b->cores, st);
    GArray *orphans = g_array_new (FALSE, FALSE, sizeof (Call));
    g_array_append_val (b->orphans, orphans);
  }
  return b->cores->pdata[core];
}

static Proc *
core_top (Btf *b, guint16 core)
{
  GPtrArray *st = core_stack (b, core);
  return st->pdata[st->len - 1];
}

/* @p leaves the CPU without ending: preempt (P_PREEMPTED) or wait (P_WAITING). */
static void
proc_leave (Btf *b, guint64 ts, guint16 core, Proc *p, int state)
{
  if (p == NULL || p->state != P_RUNNING)
    return;
  runnables_line (b, ts, p, "suspend", TRUE);
  proc_line (b, ts, core, p, state == P_WAITING ? "wait" : "preempt");
  p->state = state;
}

/* @p gets the CPU: start (a new instance), resume, or release + resume. */
static void
proc_enter (Btf *b, guint64 ts, guint16 core, Proc *p)
{
  if (p == NULL || p->state == P_RUNNING)
    return;
  if (p->state == P_PREEMPTED || p->state == P_WAITING) {
    if (p->state == P_WAITING)
      proc_line (b, ts, core, p, "release");
    proc_line (b, ts, core, p, "resume");
    runnables_line (b, ts, p, "resume", FALSE);
  } else {
    p->instance++;
    p->activated = MAX (p->activated, p->instance);
    proc_line (b, ts, core, p, "start");
  }
  p->state = P_RUNNING;
}

/* @p ends: its open runnables terminate (innermost first), then it does. */
static void
proc_terminate (Btf *b, guint64 ts, guint16 core, Proc *p)
{
  if (p->state == P_RUNNING || p->state == P_PREEMPTED) {
    runnables_line (b, ts, p, "terminate", TRUE);
    proc_line (b, ts, core, p, "terminate");
  }
  g_array_set_size (p->calls, 0);
  p->state = p->activated > p->instance ? P_READY : P_SUSPENDED;
}

static void
activate (Btf *b, guint64 ts, Proc *p)
{
  p->activated++;
  g_autofree char *sti = g_strdup_printf ("STI_%s", proc_name (b, p));
  line (b, ts, sti, p->activated, p->isr ? "I" : "T", proc_name (b, p), p->activated,
        "activate");
  if (p->state == P_SUSPENDED)
    p->state = P_READY;
}

static void
task_switch (Btf *b, const ProbeEvent *e)
{
  GPtrArray *st = core_stack (b, e->core);
  Proc *old = st->pdata[0];
  Proc *next = e->a == PROBE_TASK_IDLE ? NULL : proc_get (b, FALSE, e->a);
  /* a switch to the task that had the CPU is a new instance when that one ended or waited
   * (a task that terminates with an activation pending, ChainTask to itself) */
  if (old == next && (next == NULL || next->state == P_RUNNING || st->len > 1))
    return;
  proc_leave (b, e->ts, e->core, old, P_PREEMPTED);
  st->pdata[0] = next;
  if (st->len == 1) /* under an ISR it waits for the ISR's end */
    proc_enter (b, e->ts, e->core, next);
  else if (next != NULL && next->state != P_RUNNING && next->state != P_WAITING
           && next->state != P_PREEMPTED)
    next->state = P_READY;
}

static void
isr_enter (Btf *b, const ProbeEvent *e)
{
  Proc *p = proc_get (b, TRUE, e->a);
  proc_leave (b, e->ts, e->core, core_top (b, e->core), P_PREEMPTED);
  activate (b, e->ts, p);
  proc_enter (b, e->ts, e->core, p);
  g_ptr_array_add (core_stack (b, e->core), p);
}

static void
isr_exit (Btf *b, const ProbeEvent *e)
{
  GPtrArray *st = core_stack (b, e->core);
  guint at = st->len; /* the ISR that ends: the innermost one of that id */
  for (guint i = st->len; i-- > 1;)
    if (e->a == PROBE_ID_ANY || ((Proc *) st->pdata[i])->value == e->a) {
      at = i;
      break;
    }
  if (at == st->len)
    return; /* its entry was not seen (before the session or a gap) */
  while (st->len > at) { /* nested ones whose exit was not seen end with it */
    proc_terminate (b, e->ts, e->core, st->pdata[st->len - 1]);
    g_ptr_array_set_size (st, st->len - 1);
  }
  proc_enter (b, e->ts, e->core, core_top (b, e->core));
}

static GArray *
calls_of (Btf *b, guint16 core, Proc **owner)
{
  *owner = core_top (b, core);
  return *owner != NULL ? (*owner)->calls : g_array_index (b->orphans, GArray *, core);
}

static void
func_enter (Btf *b, const ProbeEvent *e)
{
  Proc *p;
  GArray *calls = calls_of (b, e->core, &p);
  guint *n = g_hash_table_lookup (b->runnables, GUINT_TO_POINTER (e->a));
  if (n == NULL) {
    n = g_new0 (guint, 1);
    g_hash_table_insert (b->runnables, GUINT_TO_POINTER (e->a), n);
  }
  Call c = { e->a, ++*n };
  g_array_append_val (calls, c);
  line (b, e->ts, p != NULL ? proc_name (b, p) : export_trace_core_name (&b->s, e->core),
        p != NULL ? p->instance : 0, "R", export_trace_name (&b->s, b->s.functions, e->a), c.inst,
        "start");
}

static void
func_exit (Btf *b, const ProbeEvent *e)
{
  Proc *p;
  GArray *calls = calls_of (b, e->core, &p);
  if (calls->len == 0)
    return; /* its entry was not seen */
  Call c = g_array_index (calls, Call, calls->len - 1);
  g_array_set_size (calls, calls->len - 1);
  line (b, e->ts, p != NULL ? proc_name (b, p) : export_trace_core_name (&b->s, e->core),
        p != NULL ? p->instance : 0, "R", export_trace_name (&b->s, b->s.functions, c.fn), c.inst,
        "terminate");
}

/* A gap on @core: what was open there is forgotten (its end is unknown). */
static void
gap (Btf *b, guint16 core)
{
  GPtrArray *st = core_stack (b, core);
  for (guint i = 0; i < st->len; i++) {
    Proc *p = st->pdata[i];
    if (p != NULL) {
      g_array_set_size (p->calls, 0);
      p->state = P_SUSPENDED;
      p->activated = p->instance;
    }
  }
  g_ptr_array_set_size (st, 1);
  st->pdata[0] = NULL;
  g_array_set_size (g_array_index (b->orphans, GArray *, core), 0);
}

static void
event (Btf *b, const ProbeEvent *e)
{
  switch (e->kind) {
  case PROBE_EVENT_TASK_SWITCH:
    task_switch (b, e);
    break;
  case PROBE_EVENT_TASK_ACTIVATE:
    activate (b, e->ts, proc_get (b, FALSE, e->a));
    break;
  case PROBE_EVENT_TASK_TERMINATE: {
    Proc *p = proc_get (b, FALSE, e->a);
    proc_terminate (b, e->ts, e->core, p);
    break;
  }
  case PROBE_EVENT_TASK_WAIT:
    proc_leave (b, e->ts, e->core, proc_get (b, FALSE, e->a), P_WAITING);
    break;
  case PROBE_EVENT_ISR_ENTER:
    isr_enter (b, e);
    break;
  case PROBE_EVENT_ISR_EXIT:
    isr_exit (b, e);
    break;
  case PROBE_EVENT_FUNC_ENTER:
    func_enter (b, e);
    break;
  case PROBE_EVENT_FUNC_EXIT:
    func_exit (b, e);
    break;
  case PROBE_EVENT_GAP:
    gap (b, e->core);
    break;
  default: /* services, profile points, data, samples: no BTF entity of this export */
    break;
  }
}

/* The header: version, creator, date, the session, the time scale, what is missing. */
static gboolean
header (Btf *b, StoreDb *db, GError **error)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  g_string_append_printf (b->buf, "#version 2.1.5\n#creator orti-profd %s\n#creationDate %s\n"
                          "#inputFile session %" G_GINT64_FORMAT " ", ORTI_PROFD_VERSION, date,
                          b->s.id);
  put_name (b->buf, b->s.name);
  g_string_append_printf (b->buf, "\n#timeScale ns\n# target ticks: %.17g Hz\n", b->s.rate);
  if (b->s.raw_dropped > 0)
    g_string_append_printf (b->buf, "# %" G_GINT64_FORMAT " raw events up to %"
                            G_GUINT64_FORMAT " ns were pruned (--keep-raw): they are not in this trace\n",
                            b->s.raw_dropped, to_ns (b, (guint64) b->s.dropped_until));
  sqlite3 *h = store_db_handle (db);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (h, "SELECT core, start, \"end\", lost FROM gaps WHERE session_id = ? "
                          "ORDER BY start", -1, &st, NULL) != SQLITE_OK) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading the gaps: %s", sqlite3_errmsg (h));
    return FALSE;
  }
  sqlite3_bind_int64 (st, 1, b->s.id);
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    g_string_append_printf (b->buf, "# gap on core %d from %" G_GUINT64_FORMAT " to %"
                            G_GUINT64_FORMAT " ns, %" G_GINT64_FORMAT " records lost: what was "
                            "open on the core then has no end in this trace\n",
                            sqlite3_column_int (st, 0),
                            to_ns (b, (guint64) sqlite3_column_int64 (st, 1)),
                            to_ns (b, (guint64) sqlite3_column_int64 (st, 2)),
                            (gint64) sqlite3_column_int64 (st, 3));
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading the gaps: %s", sqlite3_errmsg (h));
    return FALSE;
  }
  return TRUE;
}

static void
btf_clear (Btf *b)
{
  export_trace_session_clear (&b->s);
  g_clear_pointer (&b->procs, g_hash_table_unref);
  g_clear_pointer (&b->runnables, g_hash_table_unref);
  if (b->cores != NULL)
    for (guint i = 0; i < b->cores->len; i++) {
      g_ptr_array_unref (b->cores->pdata[i]);
      g_array_unref (g_array_index (b->orphans, GArray *, i));
    }
  g_clear_pointer (&b->cores, g_ptr_array_unref);
  g_clear_pointer (&b->orphans, g_array_unref);
  if (b->buf != NULL)
    g_string_free (b->buf, TRUE);
  g_clear_error (&b->error);
}

gboolean
export_btf_write (StoreDb *db, gint64 session, GOutputStream *out, GError **error)
{
  Btf b = { .out = out };
  if (!export_trace_session_load (&b.s, db, session, error)) {
    btf_clear (&b);
    return FALSE;
  }
  b.buf = g_string_sized_new (OUT_CHUNK + 4096);
  b.procs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) proc_free);
  b.runnables = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  b.cores = g_ptr_array_new ();
  b.orphans = g_array_new (FALSE, FALSE, sizeof (GArray *));
  g_autoptr (StoreEventReader) r = NULL;
  g_autoptr (GError) local = NULL;
  gboolean ok = header (&b, db, error) && (r = store_event_reader_new (db, session, error)) != NULL;
  ProbeEvent e;
  while (ok && b.error == NULL && store_event_reader_next (r, &e, &local))
    event (&b, &e);
  if (local != NULL) {
    g_propagate_error (error, g_steal_pointer (&local));
    ok = FALSE;
  }
  if (ok)
    flush (&b);
  if (ok && b.error != NULL) {
    g_propagate_prefixed_error (error, g_steal_pointer (&b.error), "writing the BTF trace: ");
    ok = FALSE;
  }
  btf_clear (&b);
  return ok;
}
