/* export-ctf.c — a stored session's raw events as a CTF 1.8 trace (export-trace.h).
 *
 * The directory holds the TSDL `metadata` (plain text) and one binary stream file per core,
 * `stream_CORE_N` (N counts from 0: a core whose arrival order goes back in time — a target
 * reset — continues in a new file, as a stream's times must not decrease). Little endian,
 * every field byte aligned:
 *   packet header   uint32 magic 0xC1FC1FC1, uint32 stream_id 0
 *   packet context  timestamp_begin, timestamp_end (clock), content_size, packet_size (bits;
 *                   equal: no padding), cpu_id (the core)
 *   event header    uint32 id (the event kind, probe.h), uint64 timestamp (clock)
 * The clock `target` counts the target's ticks when the tick rate is a whole number of Hz
 * (freq = the rate), else nanoseconds. One event class per kind of the store's event_kinds
 * table, named as there (the `events` view's kind_name): task kinds carry the task value and
 * name, ISR kinds the ISR2's, func_enter/func_exit the function's address and name (and the
 * call site), gap the records lost and the reason, every other kind its two payload words.
 * Packets hold up to 64 KiB of events.
 *
 * The trace is written into a new directory beside DIR (.NAME.XXXXXX) and swapped in only
 * when complete (renameat2 RENAME_EXCHANGE over an earlier export), so a failure leaves DIR
 * as it was and an export with nothing to write creates nothing (exit-status.h).
 */
#include "export-trace.h"

#include <errno.h>
#include <fcntl.h> /* renameat2 (meson defines _GNU_SOURCE) */
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CTF_MAGIC 0xC1FC1FC1u
#define PACKET_HEAD 44 /* bytes of the packet header and context */
#define PACKET_MAX 65536

typedef struct {
  FILE *f;
  char *path;
  guint n;             /* files of the core so far */
  GByteArray *packet;  /* the packet being made (header and context filled at its end) */
  guint64 first, last; /* clock values of its first and last events */
  guint64 prev;        /* the previous event's clock value in this file */
  gboolean any;
} CoreStream;

typedef struct {
  ExportTraceSession s;
  char *dir;
  gboolean ticks;        /* the clock counts ticks (else ns) */
  GPtrArray *streams;    /* core → CoreStream (NULL until it has events) */
  GHashTable *kinds;     /* kind → name (event_kinds) */
  GError *error;
} Ctf;

static void
put32 (GByteArray *a, guint32 v)
{
  guint8 b[4] = { v, v >> 8, v >> 16, v >> 24 };
  g_byte_array_append (a, b, 4);
}

static void
put64 (GByteArray *a, guint64 v)
{
  put32 (a, (guint32) v);
  put32 (a, (guint32) (v >> 32));
}

static void
set64 (GByteArray *a, guint at, guint64 v)
{
  for (guint i = 0; i < 8; i++)
    a->data[at + i] = (guint8) (v >> (8 * i));
}

static void
put_string (GByteArray *a, const char *s)
{
  g_byte_array_append (a, (const guint8 *) s, (guint) strlen (s) + 1);
}

static guint64
clock_value (const Ctf *c, guint64 ticks)
{
  return c->ticks ? ticks : (guint64) llroundl ((long double) ticks * 1e9L / (long double) c->s.rate);
}

static gboolean
file_failed (Ctf *c, const char *path, const char *what)
{
  if (c->error == NULL)
    g_set_error (&c->error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s %s: %s", what,
                 path, g_strerror (errno));
  return FALSE;
}

/* Ends @cs's packet: header and context filled in, written to its file. */
static gboolean
packet_end (Ctf *c, CoreStream *cs, guint16 core)
{
  if (cs->packet->len == PACKET_HEAD)
    return TRUE;
  guint64 bits = (guint64) cs->packet->len * 8;
  guint8 *d = cs->packet->data;
  guint32 head[2] = { CTF_MAGIC, 0 };
  for (guint i = 0; i < 8; i++)
    d[i] = (guint8) (head[i / 4] >> (8 * (i % 4)));
  set64 (cs->packet, 8, cs->first);
  set64 (cs->packet, 16, cs->last);
  set64 (cs->packet, 24, bits);
  set64 (cs->packet, 32, bits);
  for (guint i = 0; i < 4; i++)
    d[40 + i] = (guint8) (core >> (8 * i));
  if (fwrite (d, 1, cs->packet->len, cs->f) != cs->packet->len)
    return file_failed (c, cs->path, "writing");
  g_byte_array_set_size (cs->packet, PACKET_HEAD);
  cs->any = FALSE;
  return TRUE;
}

static gboolean
stream_close (Ctf *c, CoreStream *cs, guint16 core)
{
  gboolean ok = cs->f == NULL || packet_end (c, cs, core);
  if (cs->f != NULL && fclose (cs->f) != 0 && ok)
    ok = file_failed (c, cs->path, "closing");
  cs->f = NULL;
  return ok;
}

/* The next file of @core's stream. */
static gboolean
stream_open (Ctf *c, CoreStream *cs, guint16 core)
{
  g_free (cs->path);
  g_autofree char *base = g_strdup_printf ("stream_%u_%u", core, cs->n++);
  cs->path = g_build_filename (c->dir, base, NULL);
  cs->f = g_fopen (cs->path, "wb");
  if (cs->f == NULL)
    return file_failed (c, cs->path, "creating");
  g_byte_array_set_size (cs->packet, PACKET_HEAD);
  cs->any = FALSE;
  return TRUE;
}

static CoreStream *
stream_of (Ctf *c, guint16 core)
{
  if (c->streams->len <= core)
    g_ptr_array_set_size (c->streams, core + 1);
  CoreStream *cs = c->streams->pdata[core];
  if (cs == NULL) {
    cs = g_new0 (CoreStream, 1);
    cs->packet = g_byte_array_new ();
    c->streams->pdata[core] = cs;
    if (!stream_open (c, cs, core))
      return NULL;
  }
  return cs;
}

static void
event (Ctf *c, const ProbeEvent *e)
{
  CoreStream *cs = stream_of (c, e->core);
  if (cs == NULL)
    return;
  guint64 t = clock_value (c, e->ts);
  if (cs->f != NULL && t < cs->prev && (!stream_close (c, cs, e->core)
                                        || !stream_open (c, cs, e->core)))
    return;
  cs->prev = t;
  if (!cs->any) {
    cs->first = t;
    cs->any = TRUE;
  }
  cs->last = t;
  GByteArray *p = cs->packet;
  put32 (p, e->kind);
  put64 (p, t);
  switch (e->kind) {
  case PROBE_EVENT_TASK_SWITCH:
  case PROBE_EVENT_TASK_ACTIVATE:
  case PROBE_EVENT_TASK_TERMINATE:
  case PROBE_EVENT_TASK_WAIT:
    put32 (p, e->a);
    put_string (p, e->a == PROBE_TASK_IDLE ? "idle" : export_trace_name (&c->s, c->s.tasks, e->a));
    break;
  case PROBE_EVENT_ISR_ENTER:
  case PROBE_EVENT_ISR_EXIT:
    put32 (p, e->a);
    put_string (p, e->a == PROBE_ID_ANY ? "any" : export_trace_name (&c->s, c->s.isrs, e->a));
    break;
  case PROBE_EVENT_FUNC_ENTER:
  case PROBE_EVENT_FUNC_EXIT:
    put32 (p, e->a);
    put_string (p, e->a == PROBE_ID_ANY ? "any"
                                         : export_trace_name (&c->s, c->s.functions, e->a));
    if (e->kind == PROBE_EVENT_FUNC_ENTER)
      put32 (p, e->b);
    break;
  default: /* gap: lost, reason; the others: a, b */
    put32 (p, e->a);
    put32 (p, e->b);
    break;
  }
  if (p->len >= PACKET_MAX)
    packet_end (c, cs, e->core);
}

/* The TSDL of the trace: types, the trace, env, clock, stream and one class per kind. */
static char *
metadata (Ctf *c)
{
  GString *m = g_string_new ("/* CTF 1.8 */\n\n");
  g_string_append (m,
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n"
    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
    "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint32_t stream_id;\n\t};\n};\n\n");
  g_autofree char *name = g_strescape (c->s.name, NULL);
  g_string_append_printf (m, "env {\n\tdomain = \"orti-profd\";\n\ttracer_name = \"orti-profd\";\n"
                          "\ttracer_version = \"%s\";\n\tsession = %" G_GINT64_FORMAT ";\n"
                          "\tsession_name = \"%s\";\n\ttick_rate_hz = \"%.17g\";\n"
                          "\traw_events_pruned = %" G_GINT64_FORMAT ";\n};\n\n",
                          ORTI_PROFD_VERSION, c->s.id, name, c->s.rate, c->s.raw_dropped);
  g_string_append_printf (m, "clock {\n\tname = target;\n\tdescription = \"%s\";\n"
                          "\tfreq = %" G_GUINT64_FORMAT ";\n\tprecision = 1;\n\toffset = 0;\n"
                          "\tabsolute = false;\n};\n\n",
                          c->ticks ? "target ticks" : "target time in ns (from its ticks)",
                          c->ticks ? (guint64) c->s.rate : (guint64) 1000000000);
  g_string_append (m,
    "typealias integer { size = 64; align = 8; signed = false; map = clock.target.value; } "
    ":= uint64_clock_t;\n\n"
    "stream {\n\tid = 0;\n"
    "\tpacket.context := struct {\n\t\tuint64_clock_t timestamp_begin;\n"
    "\t\tuint64_clock_t timestamp_end;\n\t\tuint64_t content_size;\n"
    "\t\tuint64_t packet_size;\n\t\tuint32_t cpu_id;\n\t};\n"
    "\tevent.header := struct {\n\t\tuint32_t id;\n\t\tuint64_clock_t timestamp;\n\t};\n};\n");
  for (guint k = 0; k < 256; k++) {
    const char *kname = g_hash_table_lookup (c->kinds, GUINT_TO_POINTER (k));
    if (kname == NULL)
      continue;
    const char *fields;
    switch (k) {
    case PROBE_EVENT_TASK_SWITCH:
    case PROBE_EVENT_TASK_ACTIVATE:
    case PROBE_EVENT_TASK_TERMINATE:
    case PROBE_EVENT_TASK_WAIT:
      fields = "uint32_t task; string task_name;";
      break;
    case PROBE_EVENT_ISR_ENTER:
    case PROBE_EVENT_ISR_EXIT:
      fields = "uint32_t isr; string isr_name;";
      break;
    case PROBE_EVENT_FUNC_ENTER:
      fields = "uint32_t function; string function_name; uint32_t call_site;";
      break;
    case PROBE_EVENT_FUNC_EXIT:
      fields = "uint32_t function; string function_name;";
      break;
    case PROBE_EVENT_GAP:
      fields = "uint32_t lost; uint32_t reason;";
      break;
    default:
      fields = "uint32_t a; uint32_t b;";
      break;
    }
    g_autofree char *kesc = g_strescape (kname, NULL);
    g_string_append_printf (m, "\nevent {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n"
                            "\tfields := struct { %s };\n};\n", kesc, k, fields);
  }
  return g_string_free (m, FALSE);
}

static gboolean
load_kinds (Ctf *c, StoreDb *db, GError **error)
{
  sqlite3 *h = store_db_handle (db);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (h, "SELECT kind, name FROM event_kinds", -1, &st, NULL) != SQLITE_OK) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading event_kinds: %s",
                 sqlite3_errmsg (h));
    return FALSE;
  }
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    if (sqlite3_column_int (st, 0) >= 0 && sqlite3_column_int (st, 0) < 256)
      g_hash_table_replace (c->kinds, GINT_TO_POINTER (sqlite3_column_int (st, 0)),
                            g_strdup ((const char *) sqlite3_column_text (st, 1)));
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading event_kinds: %s",
                 sqlite3_errmsg (h));
    return FALSE;
  }
  return TRUE;
}

/* Whether @dir holds only what an export writes (metadata, stream_*): the files an export
 * over it may drop. FALSE with G_FILE_ERROR_INVAL naming the first other entry. */
static gboolean
dir_is_export (const char *dir, GError **error)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, error);
  if (d == NULL)
    return FALSE;
  const char *n;
  while ((n = g_dir_read_name (d)) != NULL)
    if (strcmp (n, "metadata") != 0 && !g_str_has_prefix (n, "stream_")) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s holds %s, which no CTF export "
                   "wrote: give a new or empty directory", dir, n);
      return FALSE;
    }
  return TRUE;
}

/* Removes directory @dir and the files in it (an export's: no subdirectories). */
static gboolean
remove_dir (const char *dir, GError **error)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, error);
  if (d == NULL)
    return FALSE;
  const char *n;
  while ((n = g_dir_read_name (d)) != NULL) {
    g_autofree char *path = g_build_filename (dir, n, NULL);
    if (g_unlink (path) != 0) {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "removing %s: %s",
                   path, g_strerror (errno));
      return FALSE;
    }
  }
  if (g_rmdir (dir) != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "removing %s: %s", dir,
                 g_strerror (errno));
    return FALSE;
  }
  return TRUE;
}

/* A new directory beside @dir for the trace being written (mode 0777 less the umask); NULL
 * with a GFileError naming it (a missing parent: G_FILE_ERROR_NOENT). */
static char *
temp_dir_beside (const char *dir, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *base = g_path_get_basename (dir);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.XXXXXX", parent, base);
  if (g_mkdtemp (tmp) == NULL) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "creating %s: %s",
                 dir, g_strerror (errno));
    return NULL;
  }
  mode_t mask = umask (0);
  umask (mask);
  if (g_chmod (tmp, 0777 & ~mask) != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "creating %s: %s",
                 dir, g_strerror (errno));
    g_rmdir (tmp);
    return NULL;
  }
  return g_steal_pointer (&tmp);
}

/* Puts the complete trace @tmp in @dir's place: renamed there, or exchanged with an earlier
 * export, whose files are then removed. */
static gboolean
commit_dir (const char *tmp, const char *dir, gboolean exists, GError **error)
{
  if (!exists ? g_rename (tmp, dir) != 0
              : renameat2 (AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "renaming %s to %s: %s",
                 tmp, dir, g_strerror (errno));
    return FALSE;
  }
  return !exists || remove_dir (tmp, error); /* tmp now holds the earlier export */
}

gboolean
export_ctf_write_dir (StoreDb *db, gint64 session, const char *dir_arg, GError **error)
{
  g_autofree char *dir = g_strdup (dir_arg); /* "DIR/" is DIR: its temporary goes beside it */
  for (gsize n = strlen (dir); n > 1 && dir[n - 1] == '/'; n--)
    dir[n - 1] = '\0';
  Ctf c = { 0 };
  c.streams = g_ptr_array_new ();
  c.kinds = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_autoptr (StoreEventReader) r = NULL;
  /* nothing is created before the session, its events and @dir are known good */
  gboolean exists = g_file_test (dir, G_FILE_TEST_EXISTS);
  gboolean ok = export_trace_session_load (&c.s, db, session, error) && load_kinds (&c, db, error);
  if (ok && exists && !g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, "%s is not a directory", dir);
    ok = FALSE;
  }
  ok = ok && (!exists || dir_is_export (dir, error))
       && (r = store_event_reader_new (db, session, error)) != NULL
       && (c.dir = temp_dir_beside (dir, error)) != NULL;
  if (ok) {
    c.ticks = c.s.rate == floor (c.s.rate) && c.s.rate < 9.2e18;
    g_autofree char *meta = metadata (&c);
    g_autofree char *path = g_build_filename (c.dir, "metadata", NULL);
    ok = g_file_set_contents (path, meta, -1, error);
  }
  g_autoptr (GError) local = NULL;
  ProbeEvent e;
  while (ok && c.error == NULL && store_event_reader_next (r, &e, &local))
    event (&c, &e);
  if (local != NULL) {
    g_propagate_error (error, g_steal_pointer (&local));
    ok = FALSE;
  }
  for (guint i = 0; i < c.streams->len; i++) {
    CoreStream *cs = c.streams->pdata[i];
    if (cs == NULL)
      continue;
    stream_close (&c, cs, (guint16) i);
    g_byte_array_unref (cs->packet);
    g_free (cs->path);
    g_free (cs);
  }
  if (ok && c.error != NULL) {
    g_propagate_error (error, g_steal_pointer (&c.error));
    ok = FALSE;
  }
  g_clear_error (&c.error);
  if (ok)
    ok = commit_dir (c.dir, dir, exists, error);
  else if (c.dir != NULL)
    remove_dir (c.dir, NULL); /* a failure leaves nothing of this export */
  g_ptr_array_unref (c.streams);
  g_hash_table_unref (c.kinds);
  export_trace_session_clear (&c.s);
  g_free (c.dir);
  return ok;
}
