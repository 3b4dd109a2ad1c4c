/* test-multicore-replay.c — a synthetic AMP capture of 6 and of 16 cores (probe/rtt-test-amp:
 * one real tracer stream per core, interleaved in time, one record channel per core) replayed
 * through a real Session into a real store, checked against the generator's truth (issue 19):
 * every Event stored, each task's run time, jobs and preemptions, each core's task time and
 * timeline (slices), the task that migrates between cores 0 and 1, the cross-core activation
 * latency per pair of cores and the bounds it puts on their clocks' offsets, and the live view's per-core state beyond the 8 cores it once
 * held; and a capture whose other cores' first drains came late (the replay waits for every
 * core's first record). The ORTI file is written here: one OS object with `RUNNINGTASK[]` per core (ORTI 2.3
 * style) naming the tasks; a replay needs no ELF. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "rtt-test-amp.h"
#include "session.h"
#include "store.h"
#include "test-store-util.h"

#define TICK_HZ 1000000u /* 1 tick = 1 µs: the views' µs are ticks */
#define FRAMES 200

/* An N-core ORTI 2.3 file naming the generator's tasks. */
static char *
write_orti (const char *dir, guint n)
{
  GString *s = g_string_new ("VERSION { KOIL = \"2.3\"; OSSEMANTICS = \"ORTI\", \"2.3\"; };\n"
                             "IMPLEMENTATION AmpTest {\n  OS {\n    TOTRACE ENUM \"unsigned char\" [\n"
                             "      \"NO_TASK\" = 0xFF,\n      \"M\" = 127");
  static const char kinds[] = "ABCDX";
  for (guint c = 0; c < n; c++)
    for (guint k = 0; k < 5; k++)
      g_string_append_printf (s, ",\n      \"%c%u\" = %u", kinds[k], c, RTT_AMP_TASK (c, k));
  g_string_append (s, "\n    ] RUNNINGTASK[], \"Running task\";\n  }, \"OS\";\n};\nOS os {\n");
  for (guint c = 0; c < n; c++)
    g_string_append_printf (s, "  RUNNINGTASK[%u] = \"*(unsigned char *)0x%08x\";\n", c,
                            0x20000000u + c);
  g_string_append (s, "};\n");
  char *path = g_build_filename (dir, "amp.ort", NULL);
  g_assert_true (g_file_set_contents (path, s->str, -1, NULL));
  g_string_free (s, TRUE);
  return path;
}

/* Replays @capture with @orti through a real Session into a new store at @db_path; the session's
 * id, and its live view at the end in *@live. */
static gint64
replay_into (const char *orti, const char *capture, const char *db_path, SessionLive *live)
{
  g_autoptr (GError) error = NULL;
  SessionConfig cfg = { .orti_path = orti, .core = -1, .source = SESSION_SOURCE_REPLAY,
                        .replay_path = capture, .name = "amp" };
  g_autoptr (Session) s = session_new (&cfg, &error);
  g_assert_no_error (error);
  StoreWriter *w = store_writer_new (db_path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (session_start (s, w, &error));
  g_assert_no_error (error);
  g_assert_true (session_wait (s, &error));
  g_assert_no_error (error);
  session_get_live (s, live);
  gint64 id = session_get_id (s);
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  return id;
}

/* The one integer @sql (printf format) gives; -1 for NULL. */
G_GNUC_PRINTF (2, 3) static gint64
db_int (StoreDb *db, const char *fmt, ...)
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
  const StoreCell *c = &g_array_index ((GArray *) g_ptr_array_index (r->rows, 0), StoreCell, 0);
  return c->text ? g_ascii_strtoll (c->text, NULL, 10) : -1;
}

static int
u64_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* The percentile the slicer's histogram answers with lies at or above the exact one, within
 * its bucket's relative width (2^-5 at the default hist_bits). */
static void
assert_percentile (gint64 got, GArray *sorted, double pct)
{
  guint rank = (guint) ceil (pct / 100.0 * sorted->len);
  guint64 exact = g_array_index (sorted, guint64, MAX (rank, 1) - 1);
  g_assert_cmpint (got, >=, (gint64) exact);
  g_assert_cmpint (got, <=, (gint64) (exact + exact / 32 + 1));
}

/* @data: cores | DRAIN (the capture as per-core drains of 1 ms each: core 0's bytes of a window,
 * then core 1's, …, so the session must put the cores back in time order itself) | LATE (and
 * core 0's first LATE_RECORDS drains recorded before any other core's, as a live session whose
 * first drains of the other cores came late records them: its "rtt.streams" metadata makes the
 * replay wait for every core's first record). */
#define DRAIN 0x100u
#define LATE 0x200u
#define LATE_RECORDS 190 /* of FRAMES: more Events than the session feeds the merge at once */

/* Rewrites the capture at @path: channel 0's first @n records first, the rest as they were;
 * metadata rtt.streams = @streams, as a live per-core RTT session records it. */
static void
start_others_late (const char *path, guint n, guint streams)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeCaptureReader) r = probe_capture_reader_open (path, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) meta = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (meta, "rtt.streams", g_strdup_printf ("%u", streams));
  ProbeCaptureInfo info = *probe_capture_reader_get_info (r);
  info.metadata = meta;
  g_autoptr (GPtrArray) first = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GPtrArray) rest = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) rest_channel = g_array_new (FALSE, FALSE, sizeof (guint16));
  ProbeCaptureRecord rec;
  while (probe_capture_reader_next (r, &rec, &error) == PROBE_CAPTURE_RECORD) {
    g_assert_cmpint (rec.type, ==, PROBE_CAPTURE_DATA);
    GBytes *b = g_bytes_new (rec.data, rec.len);
    if (rec.channel == 0 && first->len < n) {
      g_ptr_array_add (first, b);
    } else {
      g_ptr_array_add (rest, b);
      g_array_append_val (rest_channel, rec.channel);
    }
  }
  g_assert_no_error (error);
  g_autofree char *tmp = g_strconcat (path, ".late", NULL);
  ProbeCaptureWriter *w = probe_capture_writer_new (tmp, &info, &error);
  g_assert_no_error (error);
  gint64 t = 0;
  for (guint i = 0; i < first->len + rest->len; i++) {
    gboolean early = i < first->len;
    GBytes *b = g_ptr_array_index (early ? first : rest, early ? i : i - first->len);
    guint16 ch = early ? 0 : g_array_index (rest_channel, guint16, i - first->len);
    gsize len;
    const guint8 *data = g_bytes_get_data (b, &len);
    g_assert_true (probe_capture_writer_add (w, PROBE_CAPTURE_DATA, ch, t++, data, len, &error));
  }
  g_assert_true (probe_capture_writer_close (w, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
}

static void
test_replay (gconstpointer data)
{
  guint n = GPOINTER_TO_UINT (data) & 0xFF;
  guint64 drain = GPOINTER_TO_UINT (data) & DRAIN ? 1000 : 0;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-amp-XXXXXX", &error);
  g_assert_no_error (error);
  RttAmpOptions opt = { .n_cores = n, .n_frames = FRAMES, .tick_hz = TICK_HZ };
  g_autoptr (RttAmpResult) gen = rtt_amp_run (&opt);
  g_autofree char *capture = g_build_filename (dir, "amp.ocap", NULL);
  g_assert_true (rtt_amp_write_capture (gen, capture, TICK_HZ, 4096, drain, &error));
  g_assert_no_error (error);
  if (GPOINTER_TO_UINT (data) & LATE)
    start_others_late (capture, LATE_RECORDS, n);
  g_autofree char *orti = write_orti (dir, n);
  g_autofree char *db_path = g_build_filename (dir, "profile.db", NULL);

  SessionLive live;
  gint64 id = replay_into (orti, capture, db_path, &live);
  g_assert_cmpuint (live.n_cores, ==, n);
  for (guint c = 0; c < n; c++)
    g_assert_cmpuint (live.running[c], ==, PROBE_TASK_IDLE); /* every core ends idle */

  g_autoptr (StoreDb) db = store_db_open (db_path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (db_int (db, "SELECT event_count FROM sessions WHERE id = %" G_GINT64_FORMAT, id),
                   ==, (gint64) gen->n_events);
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM anomalies WHERE session_id = %" G_GINT64_FORMAT, id),
                   ==, 0);
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM gaps WHERE session_id = %" G_GINT64_FORMAT, id),
                   ==, 0);

  /* per task: run time, jobs, preemptions; the name from the ORTI file */
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM task_stats WHERE session_id = %" G_GINT64_FORMAT,
                           id), ==, gen->tasks->len);
  for (guint i = 0; i < gen->tasks->len; i++) {
    const RttAmpTask *t = &g_array_index (gen->tasks, RttAmpTask, i);
    const char *where = "FROM task_stats WHERE session_id = %" G_GINT64_FORMAT " AND task_value = %u";
    g_autofree char *run = g_strconcat ("SELECT CAST(round(run_total_us) AS INTEGER) ", where, NULL);
    g_autofree char *jobs = g_strconcat ("SELECT jobs ", where, NULL);
    g_autofree char *pre = g_strconcat ("SELECT preemptions ", where, NULL);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    g_assert_cmpint (db_int (db, run, id, t->task), ==, (gint64) t->run_time);
    g_assert_cmpint (db_int (db, jobs, id, t->task), ==, (gint64) t->jobs);
    g_assert_cmpint (db_int (db, pre, id, t->task), ==, (gint64) t->preemptions);
#pragma GCC diagnostic pop
  }
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM task_stats WHERE session_id = %" G_GINT64_FORMAT
                           " AND task = 'X%u' AND task_value = %u", id, n - 1, RTT_AMP_TASK (n - 1, 4)),
                   ==, 1);

  /* per core: core_stats and the timeline's slices */
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM core_stats WHERE session_id = %" G_GINT64_FORMAT,
                           id), ==, n);
  guint64 end = 0; /* the session ends at its last event: every core's span runs to it */
  for (guint c = 0; c < n; c++)
    end = MAX (end, gen->core_last[c]);
  for (guint c = 0; c < n; c++) {
    g_assert_cmpint (db_int (db, "SELECT CAST(round(task_us) AS INTEGER) FROM core_stats WHERE "
                             "session_id = %" G_GINT64_FORMAT " AND core = %u", id, c),
                     ==, (gint64) gen->core_task_time[c]);
    g_assert_cmpint (db_int (db, "SELECT CAST(round(span_us) AS INTEGER) FROM core_stats WHERE "
                             "session_id = %" G_GINT64_FORMAT " AND core = %u", id, c),
                     ==, (gint64) (end - gen->core_first[c]));
    g_assert_cmpint (db_int (db, "SELECT CAST(round(idle_us) AS INTEGER) FROM core_stats WHERE "
                             "session_id = %" G_GINT64_FORMAT " AND core = %u AND unknown_us = 0",
                             id, c), ==, (gint64) (end - gen->core_first[c] - gen->core_task_time[c]));
    g_assert_cmpint (db_int (db, "SELECT sum(\"end\" - start) FROM slices WHERE session_id = %"
                             G_GINT64_FORMAT " AND core = %u", id, c),
                     ==, (gint64) gen->core_task_time[c]);
    /* only this core's own tasks (and M on cores 0 and 1) have slices on it */
    g_assert_cmpint (db_int (db, "SELECT count(*) FROM slices WHERE session_id = %" G_GINT64_FORMAT
                             " AND core = %u AND task NOT BETWEEN %u AND %u AND task != %u", id, c,
                             RTT_AMP_TASK (c, 0), RTT_AMP_TASK (c, 4), RTT_AMP_TASK_M), ==, 0);
    g_assert_cmpint (db_int (db, "SELECT count(DISTINCT task) FROM slices WHERE session_id = %"
                             G_GINT64_FORMAT " AND core = %u", id, c), ==, c < 2 ? 6 : 5);
  }
  /* M migrates: half its jobs on core 0, half on core 1, one slice each */
  for (guint c = 0; c < 2; c++)
    g_assert_cmpint (db_int (db, "SELECT count(*) FROM slices WHERE session_id = %" G_GINT64_FORMAT
                             " AND core = %u AND task = %u", id, c, RTT_AMP_TASK_M), ==, FRAMES / 2);

  /* per task and core (task_core_stats): a task bound to a core has one row, its whole run
   * time; M has a row on cores 0 and 1 with half its jobs each; each core's rows add up to
   * its task time */
  for (guint i = 0; i < gen->tasks->len; i++) {
    const RttAmpTask *t = &g_array_index (gen->tasks, RttAmpTask, i);
    if (t->core < 0)
      continue;
    g_assert_cmpint (db_int (db, "SELECT count(*) FROM task_core_stats WHERE session_id = %"
                             G_GINT64_FORMAT " AND task_value = %u", id, t->task), ==, 1);
    g_assert_cmpint (db_int (db, "SELECT CAST(round(run_total_us) AS INTEGER) FROM task_core_stats "
                             "WHERE session_id = %" G_GINT64_FORMAT " AND task_value = %u AND "
                             "core = %d", id, t->task, t->core), ==, (gint64) t->run_time);
    g_assert_cmpint (db_int (db, "SELECT jobs FROM task_core_stats WHERE session_id = %"
                             G_GINT64_FORMAT " AND task_value = %u", id, t->task), ==,
                     (gint64) t->jobs);
  }
  for (guint c = 0; c < 2; c++)
    g_assert_cmpint (db_int (db, "SELECT jobs FROM task_core_stats WHERE session_id = %"
                             G_GINT64_FORMAT " AND task_value = %u AND core = %u", id,
                             RTT_AMP_TASK_M, c), ==, FRAMES / 2);
  for (guint c = 0; c < n; c++)
    g_assert_cmpint (db_int (db, "SELECT CAST(round(sum(run_total_us)) AS INTEGER) FROM "
                             "task_core_stats WHERE session_id = %" G_GINT64_FORMAT " AND core = %u",
                             id, c), ==, (gint64) gen->core_task_time[c]);

  /* cross-core activation latency: core c's D activates X of core c + 1 */
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM cross_core_latency WHERE session_id = %"
                           G_GINT64_FORMAT, id), ==, n);
  for (guint c = 0; c < n; c++) {
    guint to = (c + 1) % n;
    GArray *lat = gen->latency[c][to];
    g_assert_nonnull (lat);
    g_array_sort (lat, u64_cmp);
    guint64 sum = 0;
    for (guint i = 0; i < lat->len; i++)
      sum += g_array_index (lat, guint64, i);
    const char *pair = " FROM cross_core_latency WHERE session_id = %" G_GINT64_FORMAT
                       " AND from_core = %u AND core = %u";
    g_autofree char *count = g_strconcat ("SELECT count", pair, NULL);
    g_autofree char *min = g_strconcat ("SELECT CAST(round(min_us) AS INTEGER)", pair, NULL);
    g_autofree char *max = g_strconcat ("SELECT CAST(round(max_us) AS INTEGER)", pair, NULL);
    g_autofree char *avg = g_strconcat ("SELECT CAST(round(avg_us * 1000) AS INTEGER)", pair, NULL);
    g_autofree char *p50 = g_strconcat ("SELECT CAST(round(p50_us) AS INTEGER)", pair, NULL);
    g_autofree char *p99 = g_strconcat ("SELECT CAST(round(p99_us) AS INTEGER)", pair, NULL);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    g_assert_cmpint (db_int (db, count, id, c, to), ==, lat->len);
    g_assert_cmpint (db_int (db, min, id, c, to), ==, (gint64) g_array_index (lat, guint64, 0));
    g_assert_cmpint (db_int (db, max, id, c, to), ==,
                     (gint64) g_array_index (lat, guint64, lat->len - 1));
    g_assert_cmpint (db_int (db, avg, id, c, to), ==, (gint64) llround (1000.0 * sum / lat->len));
    assert_percentile (db_int (db, p50, id, c, to), lat, 50);
    assert_percentile (db_int (db, p99, id, c, to), lat, 99);
#pragma GCC diagnostic pop
  }
  /* the clock offsets the latencies bound (core_skew, pairs by lower core): c → c + 1 only, so
   * core c + 1's clock − core c's is at most the smallest latency c → c + 1, with no lower
   * bound; the pair (0, n − 1) has only n − 1 → 0: a lower bound, minus its smallest latency */
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM core_skew WHERE session_id = %"
                           G_GINT64_FORMAT, id), ==, n);
  for (guint c = 0; c < n; c++) {
    guint to = (c + 1) % n, lo = MIN (c, to), hi = MAX (c, to);
    gint64 smallest = (gint64) g_array_index (gen->latency[c][to], guint64, 0); /* sorted */
    g_assert_cmpint (db_int (db, "SELECT CAST(round(%s) AS INTEGER) FROM core_skew WHERE "
                             "session_id = %" G_GINT64_FORMAT " AND core = %u AND other_core = %u",
                             c < to ? "offset_max_us" : "offset_min_us", id, lo, hi),
                     ==, c < to ? smallest : -smallest);
    g_assert_cmpint (db_int (db, "SELECT %s FROM core_skew WHERE session_id = %" G_GINT64_FORMAT
                             " AND core = %u AND other_core = %u",
                             c < to ? "offset_min_us" : "offset_max_us", id, lo, hi), ==, -1);
  }
  store_db_close (g_steal_pointer (&db));
  remove_tmp_dir (dir);
}

static const char *profd; /* the built orti-profd (argv[1]) */

/* --target-per-core: more targets than the ORTI file has cores fails before any connection,
 * naming both counts; a name that is no OpenOCD target name (it would go into Tcl) fails
 * naming it. */
static void
test_target_per_core_config (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-amp-XXXXXX", &error);
  g_autofree char *orti = write_orti (dir, 2);
  const char *three[] = { "cpu0", "cpu1", "cpu2" };
  SessionConfig cfg = { .orti_path = orti, .core = -1, .source = SESSION_SOURCE_POLL,
                        .core_targets = three, .n_core_targets = 3 };
  g_autoptr (Session) s = session_new (&cfg, &error);
  g_assert_null (s);
  g_assert_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "names 3 targets but"));
  g_assert_nonnull (strstr (error->message, "describes 2 cores"));
  if (profd != NULL) {
    g_autofree char *err = NULL;
    int status = 0;
    const char *argv[] = { profd, "run", "--orti", orti, "--target-per-core", "cpu0,cpu 1",
                           "--http", "none", "--quiet", "--db", "/nonexistent/x.db", NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                 NULL, NULL, &err, &status, &error));
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (err, "--target-per-core: \"cpu 1\" (core 1) is not an OpenOCD "
                                   "target name"));
    /* the same from a config file ([orti-profd] target_per_core) */
    g_autofree char *conf = g_build_filename (dir, "profd.conf", NULL);
    g_assert_true (g_file_set_contents (conf, "[orti-profd]\ntarget_per_core = cpu0,cpu$1\n", -1,
                                        NULL));
    g_autofree char *err2 = NULL;
    const char *argv2[] = { profd, "run", "--orti", orti, "--config", conf, "--http", "none",
                            "--quiet", "--db", "/nonexistent/x.db", NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv2, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                 NULL, NULL, &err2, &status, &error));
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (err2, "\"cpu$1\" (core 1) is not an OpenOCD target name"));
    g_unlink (conf);
    /* one ORTI file per core, but the file describes two: refused, naming it */
    g_autofree char *err3 = NULL;
    const char *argv3[] = { profd, "run", "--orti", orti, "--orti", orti, "--http", "none",
                            "--quiet", "--db", "/nonexistent/x.db", NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv3, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                 NULL, NULL, &err3, &status, &error));
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (err3, "describes 2 cores: with one ORTI file per core"));
  }
  g_unlink (orti);
  g_rmdir (dir);
}

/* One PC sample as docs/capture-format.md lays out a side record's (channel 1), appended. */
static void
side_sample (GByteArray *b, guint64 ts, guint32 pc, guint32 flags, guint32 ctx, guint16 core,
             guint8 kind, guint8 unknown)
{
  guint8 x[24];
  for (guint k = 0; k < 8; k++)
    x[k] = (guint8) (ts >> (8 * k));
  for (guint k = 0; k < 4; k++) {
    x[8 + k] = (guint8) (pc >> (8 * k));
    x[12 + k] = (guint8) (flags >> (8 * k));
    x[16 + k] = (guint8) (ctx >> (8 * k));
  }
  x[20] = (guint8) core;
  x[21] = (guint8) (core >> 8);
  x[22] = kind;
  x[23] = unknown;
  g_byte_array_append (b, x, sizeof x);
}

/* A side record's head: the sampler's stall share, an f64. */
static GByteArray *
side_head (double stalled)
{
  GByteArray *b = g_byte_array_new ();
  guint64 bits;
  memcpy (&bits, &stalled, 8);
  for (guint k = 0; k < 8; k++) {
    guint8 x = (guint8) (bits >> (8 * k));
    g_byte_array_append (b, &x, 1);
  }
  return b;
}

/* An RTT capture with side records (an RTT session's PC samples, --record): a replay adds the
 * samples to its sampled profile as recorded, takes the last stall share, and skips a side
 * channel it does not know. */
static void
test_side_pc_samples (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-amp-XXXXXX", &error);
  g_assert_no_error (error);
  RttAmpOptions opt = { .n_cores = 2, .n_frames = 20, .tick_hz = TICK_HZ };
  g_autoptr (RttAmpResult) gen = rtt_amp_run (&opt);
  g_autofree char *plain = g_build_filename (dir, "plain.ocap", NULL);
  g_assert_true (rtt_amp_write_capture (gen, plain, TICK_HZ, 4096, 0, &error));
  g_autofree char *orti = write_orti (dir, 2);
  g_autofree char *capture = g_build_filename (dir, "side.ocap", NULL);
  {
    g_autoptr (ProbeCaptureReader) r = probe_capture_reader_open (plain, &error);
    g_assert_no_error (error);
    ProbeCaptureWriter *w = probe_capture_writer_new (capture, probe_capture_reader_get_info (r),
                                                      &error);
    g_assert_no_error (error);
    g_autoptr (GByteArray) first = side_head (0.5), unknown = side_head (0.0),
                           last = side_head (0.25);
    side_sample (first, 100, 0x1000, 0, RTT_AMP_TASK (0, 0), 0, 0 /* task */, 0);
    side_sample (first, 200, 0x1004, PROBE_PC_SLEEPING, 0, 0, 2 /* idle */, 0);
    side_sample (first, 300, 0x1000, 0, RTT_AMP_TASK (0, 0), 0, 0, 0);
    ProbeCaptureRecord rec;
    guint n = 0;
    while (probe_capture_reader_next (r, &rec, &error) == PROBE_CAPTURE_RECORD) {
      g_assert_true (probe_capture_writer_add (w, rec.type, rec.channel, rec.host_time_us,
                                               rec.data, rec.len, &error));
      if (n++ == 0) {
        g_assert_true (probe_capture_writer_add (w, PROBE_CAPTURE_SIDE, 1, 0, first->data,
                                                 first->len, &error));
        g_assert_true (probe_capture_writer_add (w, PROBE_CAPTURE_SIDE, 9, 0, unknown->data,
                                                 unknown->len, &error));
      }
    }
    g_assert_no_error (error);
    g_assert_true (probe_capture_writer_add (w, PROBE_CAPTURE_SIDE, 1, 0, last->data, last->len,
                                             &error));
    g_assert_true (probe_capture_writer_close (w, &error));
    g_assert_no_error (error);
  }
  g_autofree char *db_path = g_build_filename (dir, "profile.db", NULL);
  SessionLive live;
  gint64 id = replay_into (orti, capture, db_path, &live);
  g_autoptr (StoreDb) db = store_db_open (db_path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (db_int (db, "SELECT event_count FROM sessions WHERE id = %" G_GINT64_FORMAT, id),
                   ==, (gint64) gen->n_events);
  g_assert_cmpint (db_int (db, "SELECT samples * 1000 + sleeping * 100 + first_tick FROM "
                           "sampled_profile WHERE session_id = %" G_GINT64_FORMAT " AND core = 0",
                           id), ==, 3000 + 100 + 100);
  g_assert_cmpint (db_int (db, "SELECT last_tick FROM sampled_profile WHERE session_id = %"
                           G_GINT64_FORMAT, id), ==, 300);
  /* (no ELF: the PCs are in no function) */
  g_assert_cmpint (db_int (db, "SELECT samples FROM sampled_function_stat WHERE session_id = %"
                           G_GINT64_FORMAT " AND context_kind = 0 AND context = %u AND "
                           "function = '(unknown)'", id, RTT_AMP_TASK (0, 0)), ==, 2);
  g_assert_cmpint (db_int (db, "SELECT CAST(samples_stalled * 100 AS INTEGER) FROM sessions "
                           "WHERE id = %" G_GINT64_FORMAT, id), ==, 25);
  store_db_close (g_steal_pointer (&db));
  remove_tmp_dir (dir);
}

/* A capture whose rtt.streams is not a stream count is refused, naming the file and the value. */
static void
test_bad_streams_metadata (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-amp-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *orti = write_orti (dir, 2);
  g_autofree char *capture = g_build_filename (dir, "bad.ocap", NULL);
  static const char *const bad[] = { "x", "0", "65", "2x" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GHashTable) meta = g_hash_table_new (g_str_hash, g_str_equal);
    g_hash_table_insert (meta, (gpointer) "rtt.streams", (gpointer) bad[i]);
    ProbeCaptureInfo info = { .source = PROBE_SOURCE_RTT, .tick_hz = TICK_HZ, .metadata = meta };
    ProbeCaptureWriter *w = probe_capture_writer_new (capture, &info, &error);
    g_assert_no_error (error);
    g_assert_true (probe_capture_writer_close (w, &error));
    SessionConfig cfg = { .orti_path = orti, .core = -1, .source = SESSION_SOURCE_REPLAY,
                          .replay_path = capture };
    g_autoptr (Session) s = session_new (&cfg, &error);
    g_assert_null (s);
    g_assert_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG);
    g_autofree char *value = g_strdup_printf ("rtt.streams \"%s\"", bad[i]);
    g_assert_nonnull (strstr (error->message, capture));
    g_assert_nonnull (strstr (error->message, value));
    g_clear_error (&error);
  }
  g_unlink (capture);
  g_unlink (orti);
  g_rmdir (dir);
}

/* An SWO capture of several cores whose metadata does not fit is refused, naming the file and
 * the key: swo.cores that is no count or not the ORTI's cores (at session_new), a core without
 * its clock rate (at session_start, where the decoder is made). */
static void
test_bad_swo_metadata (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-amp-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *orti = write_orti (dir, 2);
  g_autofree char *capture = g_build_filename (dir, "bad-swo.ocap", NULL);
  g_autofree char *db_path = g_build_filename (dir, "profile.db", NULL);
  static const struct {
    const char *cores, *cpu_hz1; /* swo.cores; swo.1.cpu_hz (NULL: absent) */
    gboolean at_start;           /* refused by session_start, not session_new */
    const char *names;           /* what the message quotes */
  } cases[] = {
    { "3", "25000000", FALSE, "swo.cores \"3\"" },
    { "x", "25000000", FALSE, "swo.cores \"x\"" },
    { "1", "25000000", FALSE, "swo.cores \"1\"" },
    { "2", NULL, TRUE, "swo.1.cpu_hz \"\"" },
    { "2", "0", TRUE, "swo.1.cpu_hz \"0\"" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GHashTable) meta = g_hash_table_new (g_str_hash, g_str_equal);
    g_hash_table_insert (meta, (gpointer) "swo.cores", (gpointer) cases[i].cores);
    g_hash_table_insert (meta, (gpointer) "swo.0.cpu_hz", (gpointer) "25000000");
    if (cases[i].cpu_hz1)
      g_hash_table_insert (meta, (gpointer) "swo.1.cpu_hz", (gpointer) cases[i].cpu_hz1);
    ProbeCaptureInfo info = { .source = PROBE_SOURCE_SWO, .tick_hz = TICK_HZ, .metadata = meta };
    ProbeCaptureWriter *w = probe_capture_writer_new (capture, &info, &error);
    g_assert_no_error (error);
    g_assert_true (probe_capture_writer_close (w, &error));
    SessionConfig cfg = { .orti_path = orti, .core = -1, .source = SESSION_SOURCE_REPLAY,
                          .replay_path = capture };
    g_autoptr (Session) s = session_new (&cfg, &error);
    if (cases[i].at_start) {
      g_assert_no_error (error);
      StoreWriter *sw = store_writer_new (db_path, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (session_start (s, sw, &error));
      g_assert_true (store_writer_close (sw, NULL));
    } else {
      g_assert_null (s);
    }
    g_assert_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG);
    g_assert_nonnull (strstr (error->message, capture));
    g_assert_nonnull (strstr (error->message, cases[i].names));
    g_clear_error (&error);
  }
  g_unlink (capture);
  g_unlink (db_path);
  g_unlink (orti);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  profd = argc > 1 ? argv[1] : NULL;
  g_test_add_func ("/multicore/target-per-core-config", test_target_per_core_config);
  g_test_add_func ("/multicore/replay/bad-streams-metadata", test_bad_streams_metadata);
  g_test_add_func ("/multicore/replay/bad-swo-metadata", test_bad_swo_metadata);
  g_test_add_func ("/multicore/replay/side-pc-samples", test_side_pc_samples);
  g_test_add_data_func ("/multicore/replay/6-cores", GUINT_TO_POINTER (6), test_replay);
  g_test_add_data_func ("/multicore/replay/16-cores", GUINT_TO_POINTER (16), test_replay);
  g_test_add_data_func ("/multicore/replay/6-cores-drained", GUINT_TO_POINTER (6 | DRAIN),
                        test_replay);
  g_test_add_data_func ("/multicore/replay/16-cores-drained", GUINT_TO_POINTER (16 | DRAIN),
                        test_replay);
  g_test_add_data_func ("/multicore/replay/6-cores-drained-late-start",
                        GUINT_TO_POINTER (6 | DRAIN | LATE), test_replay);
  return g_test_run ();
}
