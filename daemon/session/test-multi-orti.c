/* test-multi-orti.c — `run` with one ORTI file per core (issue #19): two files that both number
 * their tasks from 0, a synthetic two-core poll capture replayed through a real Session into a
 * real store, per-task statistics by name and distinct per core (the session-wide ids of
 * session-watch.h: value | core << 16); the ERIKA per-core files of the shared corpus resolved
 * on the TC29x ELF (3 cores, skipped when ../shared is absent); and the errors: a file that
 * does not parse (file:line:col), a file describing several cores, --core, more files than the
 * ELF's cores, a capture recorded with another number of files. */
#include <glib/gstdio.h>
#include <string.h>

#include "session-watch.h"
#include "session.h"
#include "store.h"
#include "test-store-util.h"

#define TICK_HZ 1000000u
#define STEP 10u  /* ticks between samples */
#define SPAN 500u /* ticks the capture covers */

static const char *profd;   /* the built orti-profd (argv[1]), or NULL */
static char *shared_files; /* ORTI corpus directory, or NULL */
static char *shared_elf;   /* the TC29x merged ELF, or NULL */

/* A one-core ORTI file: tasks @t0 = 0 and @t1 = 1, NO_TASK 0xFF, RUNNINGTASK a byte at @addr. */
static char *
write_orti_values (const char *dir, const char *file, const char *t0, guint v0, const char *t1,
                   guint v1, guint32 addr)
{
  g_autofree char *text = g_strdup_printf (
    "VERSION { KOIL = \"2.3\"; OSSEMANTICS = \"ORTI\", \"2.3\"; };\n"
    "IMPLEMENTATION PerCore {\n  OS {\n    TOTRACE ENUM \"unsigned char\" [\n"
    "      \"NO_TASK\" = 0xFF, \"%s\" = %u, \"%s\" = %u\n    ] RUNNINGTASK, \"Running task\";\n"
    "  }, \"OS\";\n};\nOS os {\n  RUNNINGTASK = \"*(unsigned char *)0x%08x\";\n};\n",
    t0, v0, t1, v1, addr);
  char *path = g_build_filename (dir, file, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static char *
write_orti (const char *dir, const char *file, const char *t0, const char *t1, guint32 addr)
{
  return write_orti_values (dir, file, t0, 0, t1, 1, addr);
}

/* What runs on @core at tick @t (0xFF: nothing). Core 0: task 0 on [0, 100) and [400, 450),
 * task 1 on [200, 260); core 1: task 0 on [50, 250), task 1 on [250, 280). */
static gint64
running (guint core, guint t)
{
  if (core == 0)
    return t < 100 || (t >= 400 && t < 450) ? 0 : t >= 200 && t < 260 ? 1 : 0xFF;
  return t >= 50 && t < 250 ? 0 : t >= 250 && t < 280 ? 1 : 0xFF;
}

/* A poll capture of the two RUNNINGTASK channels (core 0's, then core 1's), a sample every
 * STEP ticks; @files: its "orti.files" metadata (0: none, as a one-file session writes). */
static char *
write_capture (const char *dir, guint files)
{
  g_autoptr (GHashTable) meta = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  if (files)
    g_hash_table_insert (meta, "orti.files", g_strdup_printf ("%u", files));
  ProbeCaptureInfo ci = { .source = PROBE_SOURCE_POLL, .tick_hz = TICK_HZ, .metadata = meta };
  char *path = g_build_filename (dir, files ? "two.ocap" : "one.ocap", NULL);
  g_autoptr (GError) error = NULL;
  ProbeCaptureWriter *cw = probe_capture_writer_new (path, &ci, &error);
  g_assert_no_error (error);
  g_autoptr (GByteArray) rec = g_byte_array_new ();
  const guint32 valid = 0x3;
  for (guint t = 0; t <= SPAN; t += STEP) {
    gint64 v[2] = { running (0, t), running (1, t) };
    g_byte_array_set_size (rec, 0);
    probe_poll_record_append (rec, 2, &valid, t, v);
    g_assert_true (probe_capture_writer_add (cw, PROBE_CAPTURE_DATA, 0, t, rec->data, rec->len,
                                             &error));
  }
  g_assert_true (probe_capture_writer_close (cw, &error));
  g_assert_no_error (error);
  return path;
}

/* The one value @sql (printf format) gives, as text (NULL for NULL). */
G_GNUC_PRINTF (2, 3) static char *
db_text (StoreDb *db, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *sql = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) r = store_db_query (db, sql, 0, &error);
  g_assert_no_error (error);
  if (r->rows->len != 1)
    g_error ("%s: %u rows", sql, r->rows->len);
  return g_strdup (g_array_index ((GArray *) g_ptr_array_index (r->rows, 0), StoreCell, 0).text);
}

/* Two files reusing task ids 0 and 1: four tasks, each with its own run time and core. */
static void
test_replay_two_files (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-multi-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *f0 = write_orti (dir, "core0.ort", "TaskA", "TaskA2", 0x20000000);
  g_autofree char *f1 = write_orti (dir, "core1.ort", "TaskB", "TaskB2", 0x20000100);
  g_autofree char *both = g_strconcat (f0, ",", f1, NULL);
  g_autofree char *capture = write_capture (dir, 2);
  g_autofree char *db_path = g_build_filename (dir, "profile.db", NULL);

  SessionConfig cfg = { .orti_path = both, .core = -1, .source = SESSION_SOURCE_REPLAY,
                        .replay_path = capture };
  g_autoptr (Session) s = session_new (&cfg, &error);
  g_assert_no_error (error);
  StoreWriter *w = store_writer_new (db_path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (session_start (s, w, &error));
  g_assert_no_error (error);
  g_assert_true (session_wait (s, &error));
  g_assert_no_error (error);
  gint64 id = session_get_id (s);
  g_assert_true (store_writer_close (w, &error));

  g_autoptr (StoreDb) db = store_db_open (db_path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  static const struct { const char *name; guint core; guint32 id; const char *run_us; } want[] = {
    { "TaskA", 0, 0x00000, "150" }, { "TaskA2", 0, 0x00001, "60" },
    { "TaskB", 1, 0x10000, "200" }, { "TaskB2", 1, 0x10001, "30" },
  };
  g_autofree char *n = db_text (db, "SELECT count(*) FROM task_stats WHERE session_id = %"
                                G_GINT64_FORMAT, id);
  g_assert_cmpstr (n, ==, "4");
  for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
    g_autofree char *value = db_text (db, "SELECT task_value FROM task_stats WHERE session_id = %"
                                      G_GINT64_FORMAT " AND task = '%s'", id, want[i].name);
    g_autofree char *expect = g_strdup_printf ("%u", want[i].id);
    g_assert_cmpstr (value, ==, expect);
    g_autofree char *run = db_text (db, "SELECT CAST(round(run_total_us) AS INTEGER) FROM "
                                    "task_stats WHERE session_id = %" G_GINT64_FORMAT
                                    " AND task = '%s'", id, want[i].name);
    g_assert_cmpstr (run, ==, want[i].run_us);
    /* its slices are on its own core only */
    g_autofree char *cores = db_text (db, "SELECT group_concat(DISTINCT core) FROM slices WHERE "
                                      "session_id = %" G_GINT64_FORMAT " AND task = %u", id,
                                      want[i].id);
    g_autofree char *core = g_strdup_printf ("%u", want[i].core);
    g_assert_cmpstr (cores, ==, core);
  }
  /* the session names both files and both digests, in core order */
  g_autofree char *name = db_text (db, "SELECT name FROM sessions WHERE id = %" G_GINT64_FORMAT, id);
  g_assert_cmpstr (name, ==, "core0.ort,core1.ort");
  g_autofree char *opath = db_text (db, "SELECT orti_path FROM sessions WHERE id = %"
                                    G_GINT64_FORMAT, id);
  g_assert_cmpstr (opath, ==, both);
  g_autofree char *sha = db_text (db, "SELECT orti_sha256 FROM sessions WHERE id = %"
                                  G_GINT64_FORMAT, id);
  g_assert_cmpuint (strlen (sha), ==, 64 + 1 + 64);
  g_assert_cmpint (sha[64], ==, ',');
  g_assert_true (strncmp (sha, sha + 65, 64) != 0); /* two different files */
  store_db_close (g_steal_pointer (&db));

  /* the command line: --orti repeated, the same session */
  if (profd != NULL) {
    g_autofree char *db2 = g_build_filename (dir, "cli.db", NULL);
    g_autofree char *err = NULL;
    int status = 0;
    const char *argv[] = { profd, "run", "--orti", f0, "--orti", f1, "--replay", capture,
                           "--db", db2, "--http", "none", "--quiet", NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                 NULL, NULL, &err, &status, &error));
    g_test_message ("%s", err);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    db = store_db_open (db2, STORE_OPEN_READ_ONLY, &error);
    g_assert_no_error (error);
    g_autofree char *b = db_text (db, "SELECT group_concat(task || '=' || task_value || ':' || "
                                  "CAST(round(run_total_us) AS INTEGER), ' ') FROM (SELECT * FROM "
                                  "task_stats ORDER BY task)");
    g_assert_cmpstr (b, ==, "TaskA=0:150 TaskA2=1:60 TaskB=65536:200 TaskB2=65537:30");
    store_db_close (g_steal_pointer (&db));
  }

  /* the same capture with one file: refused, naming the capture */
  SessionConfig one = cfg;
  one.orti_path = f0;
  g_autoptr (Session) s1 = session_new (&one, &error);
  g_assert_null (s1);
  g_assert_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, capture));
  g_assert_nonnull (strstr (error->message, "recorded with 2 ORTI files"));
  g_clear_error (&error);
  /* a one-file capture with two files: refused too */
  g_autofree char *capture1 = write_capture (dir, 0);
  SessionConfig two = cfg;
  two.replay_path = capture1;
  g_autoptr (Session) s2 = session_new (&two, &error);
  g_assert_null (s2);
  g_assert_nonnull (strstr (error->message, "recorded with one ORTI file"));
  remove_tmp_dir (dir);
}

/* The errors, each naming the file (and where in it). */
static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-multi-XXXXXX", &error);
  g_autofree char *f0 = write_orti (dir, "core0.ort", "TaskA", "TaskA2", 0x20000000);
  g_autofree char *bad = g_build_filename (dir, "bad.ort", NULL);
  g_assert_true (g_file_set_contents (bad, "VERSION { KOIL = \"2.3\"; };\n"
                                      "IMPLEMENTATION X {\n  OS { ENUM [ \"A\" = 1 ] ;\n", -1,
                                      NULL));
  g_autofree char *list = g_strconcat (f0, ",", bad, NULL);
  g_autoptr (SessionWatch) w = session_watch_new_from_option (list, NULL, -1, NULL, &error);
  g_assert_null (w);
  g_assert_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG);
  g_test_message ("%s", error->message);
  g_autofree char *where = g_strconcat (bad, ":3:", NULL);
  g_assert_true (g_str_has_prefix (error->message, where));
  g_clear_error (&error);

  /* --core with several files */
  g_autofree char *f1 = write_orti (dir, "core1.ort", "TaskB", "TaskB2", 0x20000100);
  g_autofree char *pair = g_strconcat (f0, ",", f1, NULL);
  w = session_watch_new_from_option (pair, NULL, 1, NULL, &error);
  g_assert_null (w);
  g_assert_nonnull (strstr (error->message, "file K is core K"));
  g_clear_error (&error);

  /* two files reading one variable: the same core twice */
  g_autofree char *same = write_orti (dir, "same.ort", "TaskC", "TaskC2", 0x20000000);
  g_autofree char *dup = g_strconcat (f0, ",", same, NULL);
  w = session_watch_new_from_option (dup, NULL, -1, NULL, &error);
  g_assert_null (w);
  g_assert_nonnull (strstr (error->message, "same RUNNINGTASK variable at 0x20000000"));
  g_assert_nonnull (strstr (error->message, same));
  g_clear_error (&error);

  /* a file of a per-core list that describes two cores */
  g_autofree char *multi = g_build_filename (dir, "two-core.ort", NULL);
  g_assert_true (g_file_set_contents (
    multi, "VERSION { KOIL = \"2.3\"; OSSEMANTICS = \"ORTI\", \"2.3\"; };\n"
           "IMPLEMENTATION T {\n  OS {\n    TOTRACE ENUM \"unsigned char\" [ \"NO_TASK\" = 0xFF, "
           "\"T\" = 0 ] RUNNINGTASK[], \"Running task\";\n  }, \"OS\";\n};\nOS os {\n"
           "  RUNNINGTASK[0] = \"*(unsigned char *)0x20000200\";\n"
           "  RUNNINGTASK[1] = \"*(unsigned char *)0x20000201\";\n};\n", -1, NULL));
  g_autofree char *mixed = g_strconcat (f0, ",", multi, NULL);
  w = session_watch_new_from_option (mixed, NULL, -1, NULL, &error);
  g_assert_null (w);
  g_assert_nonnull (strstr (error->message, "describes 2 cores"));
  g_assert_nonnull (strstr (error->message, multi));
  g_clear_error (&error);

  /* what one file per core resolves to without an ELF: two cores, namespaced names */
  w = session_watch_new_from_option (pair, NULL, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (w->n_cores, ==, 2);
  g_assert_cmpuint (w->channels->len, ==, 2);
  g_assert_cmpuint (g_array_index (w->channels, ProbePollChannel, 0).core, ==, 0);
  g_assert_cmpuint (g_array_index (w->channels, ProbePollChannel, 1).core, ==, 1);
  g_assert_cmpstr (g_hash_table_lookup (w->task_names, GUINT_TO_POINTER (0)), ==, "TaskA");
  g_assert_cmpstr (g_hash_table_lookup (w->task_names, GUINT_TO_POINTER (0x10000)), ==, "TaskB");
  g_assert_cmpstr (g_hash_table_lookup (w->task_names, GUINT_TO_POINTER (0x10001)), ==, "TaskB2");
  ProbeEvent ev = { .kind = PROBE_EVENT_TASK_SWITCH, .core = 1, .a = PROBE_TASK_IDLE };
  session_watch_namespace_event (w, &ev);
  g_assert_cmphex (ev.a, ==, PROBE_TASK_IDLE); /* idle stays idle */
  ev.a = 1;
  session_watch_namespace_event (w, &ev);
  g_assert_cmphex (ev.a, ==, 0x10001);
  /* an activation of a task the activating core's file has is that core's */
  ev = (ProbeEvent) { .kind = PROBE_EVENT_TASK_ACTIVATE, .core = 0, .a = 1 };
  session_watch_namespace_event (w, &ev);
  g_assert_cmphex (ev.a, ==, 1);
  session_watch_free (w);

  /* distinct ids per core (core 0: 0, 1; core 1: 2, 3): core 0 activating task 2 activates
   * core 1's (a cross-core ActivateTask); an id no file has stays the activating core's */
  g_autofree char *c0 = write_orti_values (dir, "x0.ort", "A", 0, "B", 1, 0x20000000);
  g_autofree char *c1 = write_orti_values (dir, "x1.ort", "C", 2, "D", 3, 0x20000100);
  g_autofree char *xpair = g_strconcat (c0, ",", c1, NULL);
  w = session_watch_new_from_option (xpair, NULL, -1, NULL, &error);
  g_assert_no_error (error);
  ev = (ProbeEvent) { .kind = PROBE_EVENT_TASK_ACTIVATE, .core = 0, .a = 2 };
  session_watch_namespace_event (w, &ev);
  g_assert_cmphex (ev.a, ==, 0x10002);
  ev = (ProbeEvent) { .kind = PROBE_EVENT_TASK_ACTIVATE, .core = 1, .a = 0 };
  session_watch_namespace_event (w, &ev);
  g_assert_cmphex (ev.a, ==, 0);
  ev = (ProbeEvent) { .kind = PROBE_EVENT_TASK_ACTIVATE, .core = 1, .a = 7 };
  session_watch_namespace_event (w, &ev);
  g_assert_cmphex (ev.a, ==, 0x10007);
  ev = (ProbeEvent) { .kind = PROBE_EVENT_TASK_SWITCH, .core = 0, .a = 2 }; /* a switch: own */
  session_watch_namespace_event (w, &ev);
  g_assert_cmphex (ev.a, ==, 2);
  remove_tmp_dir (dir);
}

static void
collect (const ProbeEvent *ev, gpointer user)
{
  g_array_append_val ((GArray *) user, *ev);
}

/* The poll decoder with one file per core: task 0 of core 0 and task 0 of core 1 each have a
 * STATE channel; core 1's task 0 leaving for idle while WAITING is a TASK_WAIT on core 1,
 * whatever core 0's task 0 (SUSPENDED) says. */
static void
test_decoder_state_per_core (void)
{
  static gint64 none[] = { 0xFF };
  static ProbePollValueClass states[] = { { 0, PROBE_VALUE_RUNNING }, { 1, PROBE_VALUE_READY },
                                          { 2, PROBE_VALUE_WAITING },
                                          { 3, PROBE_VALUE_SUSPENDED } };
  ProbePollChannel ch[4] = { 0 };
  for (guint c = 0; c < 2; c++) {
    ch[c] = (ProbePollChannel) { .kind = PROBE_POLL_TASK, .core = (guint16) c, .name = "task",
                                 .simple = TRUE, .address = 0x100 + c, .width = 1,
                                 .none_values = none, .n_none_values = 1 };
    ch[2 + c] = (ProbePollChannel) { .kind = PROBE_POLL_TASK_STATE, .core = (guint16) c,
                                     .name = "state", .simple = TRUE, .address = 0x200 + c,
                                     .width = 1, .classes = states, .n_classes = 4, .task = 0 };
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (ch, 4, &error);
  g_assert_no_error (error);
  g_autoptr (GByteArray) rec = g_byte_array_new ();
  const guint32 valid = 0xF;
  const gint64 v0[] = { 0xFF, 0, 3, 0 }, v1[] = { 0xFF, 0xFF, 3, 2 };
  probe_poll_record_append (rec, 4, &valid, 0, v0);
  probe_poll_record_append (rec, 4, &valid, 10, v1);
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_poll_decoder_feed (d, rec->data, rec->len, collect, events, &error));
  g_assert_no_error (error);
  guint waits = 0;
  for (guint i = 0; i < events->len; i++) {
    const ProbeEvent *ev = &g_array_index (events, ProbeEvent, i);
    g_assert_cmpuint (ev->kind, !=, PROBE_EVENT_TASK_TERMINATE);
    if (ev->kind == PROBE_EVENT_TASK_WAIT) {
      g_assert_cmpuint (ev->core, ==, 1);
      g_assert_cmpuint (ev->ts, ==, 10);
      waits++;
    }
  }
  g_assert_cmpuint (waits, ==, 1);
}

static gboolean
need_shared (void)
{
  if (shared_files != NULL && shared_elf != NULL)
    return TRUE;
  g_test_skip ("shared ORTI corpus or TC29x ELF absent (ORTI_SHARED_DIR)");
  return FALSE;
}

/* ERIKA's three per-core files on the merged TC29x ELF: three cores of channels, each core's
 * RUNNINGTASK its own copy of EE_stkfirst, every core's tasks under their own ids; a fourth
 * file is more than the ELF has cores. */
static void
test_erika (void)
{
  if (!need_shared ())
    return;
  static const char *const names[] = { "embedded_automotive_software__Base_3_master_system.orti",
                                       "embedded_automotive_software__Base_3_slave1_system.orti",
                                       "embedded_automotive_software__Base_3_slave2_system.orti" };
  static const guint64 addresses[] = { 0x70012ed0, 0x60000398, 0x500001a8 };
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < 3; k++)
    g_ptr_array_add (paths, g_build_filename (shared_files, names[k], NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (SessionWatch) w = session_watch_new_per_core ((const char *const *) paths->pdata, 3,
                                                           shared_elf, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (w->n_cores, ==, 3);
  g_assert_cmpuint (w->n_files, ==, 3);
  guint tasks_of[3] = { 0 };
  for (guint i = 0; i < w->channels->len; i++) {
    const ProbePollChannel *ch = &g_array_index (w->channels, ProbePollChannel, i);
    g_assert_cmpuint (ch->core, <, 3);
    if (ch->kind != PROBE_POLL_TASK)
      continue;
    tasks_of[ch->core]++;
    guint64 address = ch->simple ? ch->address : ch->n_reads ? ch->reads[0].address : 0;
    g_test_message ("core %u: %s", ch->core, ch->name);
    g_assert_cmphex (address, ==, addresses[ch->core]);
  }
  for (guint k = 0; k < 3; k++)
    g_assert_cmpuint (tasks_of[k], ==, 1);
  /* every core has named tasks under its own ids (ERIKA numbers each core's from 0) */
  guint named[3] = { 0 };
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, w->task_names);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    guint32 id = GPOINTER_TO_UINT (key);
    if (id < 3u << SESSION_WATCH_NS_SHIFT)
      named[id >> SESSION_WATCH_NS_SHIFT]++;
  }
  for (guint k = 0; k < 3; k++)
    g_assert_cmpuint (named[k], >, 0);
  g_assert_nonnull (g_hash_table_lookup (w->task_names, GUINT_TO_POINTER (0)));
  g_assert_nonnull (g_hash_table_lookup (w->task_names,
                                         GUINT_TO_POINTER (1u << SESSION_WATCH_NS_SHIFT)));

  g_ptr_array_add (paths, g_strdup (g_ptr_array_index (paths, 0)));
  g_autoptr (SessionWatch) w4 = session_watch_new_per_core ((const char *const *) paths->pdata, 4,
                                                            shared_elf, NULL, &error);
  g_assert_null (w4);
  g_assert_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "per-core symbols of 3 cores"));
  g_assert_nonnull (strstr (error->message, names[0]));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  profd = argc > 1 ? argv[1] : NULL;
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  if (shared != NULL) {
    char *files = g_build_filename (shared, "orti-corpus", "files", NULL);
    char *elf = g_build_filename (shared, "orti-corpus", "elf",
                                  "assignment_ECU__tc29x_multicore.elf", NULL);
    if (g_file_test (files, G_FILE_TEST_IS_DIR) && g_file_test (elf, G_FILE_TEST_IS_REGULAR)) {
      shared_files = files;
      shared_elf = elf;
    } else {
      g_free (files);
      g_free (elf);
    }
  }
  g_test_add_func ("/multi-orti/replay-two-files", test_replay_two_files);
  g_test_add_func ("/multi-orti/errors", test_errors);
  g_test_add_func ("/multi-orti/erika", test_erika);
  g_test_add_func ("/multi-orti/decoder-state-per-core", test_decoder_state_per_core);
  int status = g_test_run ();
  g_free (shared_files);
  g_free (shared_elf);
  return status;
}
