/* test-capture.c — capture files: round trip, and every kind of damage reported with the byte
 * offset while the records before it stay readable. */
#include "probe.h"

#include <glib/gstdio.h>
#include <string.h>

typedef struct {
  char *dir;
  char *path;
} Fixture;

static void
fixture_set_up (Fixture *fx, gconstpointer data)
{
  fx->dir = g_dir_make_tmp ("orti-cap-XXXXXX", NULL);
  fx->path = g_build_filename (fx->dir, "c.ocap", NULL);
}

static void
fixture_tear_down (Fixture *fx, gconstpointer data)
{
  g_unlink (fx->path);
  g_rmdir (fx->dir);
  g_free (fx->path);
  g_free (fx->dir);
}

/* Writes 100 records of growing size; returns the file contents. */
static GBytes *
write_sample (const char *path, guint64 *offsets)
{
  g_autoptr (GError) error = NULL;
  ProbeCaptureInfo info = { .source = PROBE_SOURCE_RTT, .tick_hz = 25000000, .start_unix_us = 1234567 };
  memset (info.orti_sha256, 0xAB, 32);
  info.metadata = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (info.metadata, "timestamp", "target");
  g_hash_table_insert (info.metadata, "openocd", "0.12.0");
  ProbeCaptureWriter *w = probe_capture_writer_new (path, &info, &error);
  g_assert_no_error (error);
  g_hash_table_unref (info.metadata);
  guint64 off = 0;
  for (guint i = 0; i < 100; i++) {
    guint8 buf[200];
    for (guint k = 0; k < i * 2; k++)
      buf[k] = (guint8) (i + k);
    g_assert_true (probe_capture_writer_add (w, i == 50 ? PROBE_CAPTURE_GAP : PROBE_CAPTURE_DATA,
                                             (guint16) (i % 3), 1000 + i, buf, i * 2, &error));
    g_assert_no_error (error);
    (void) off;
  }
  g_assert_true (probe_capture_writer_close (w, &error));
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  /* record offsets: after the header, each record is 16 + len + 4 */
  gsize hdr = len;
  for (guint i = 0; i < 100; i++)
    hdr -= 20 + i * 2;
  guint64 o = hdr;
  for (guint i = 0; i < 100; i++) {
    offsets[i] = o;
    o += 20 + i * 2;
  }
  return g_bytes_new (contents, len);
}

/* Reads @path; returns the number of good records and sets *error at the first damage. */
static guint
read_all (const char *path, GError **error)
{
  g_autoptr (ProbeCaptureReader) r = probe_capture_reader_open (path, error);
  if (r == NULL)
    return 0;
  guint n = 0;
  ProbeCaptureRecord rec;
  ProbeCaptureStatus st;
  while ((st = probe_capture_reader_next (r, &rec, error)) == PROBE_CAPTURE_RECORD) {
    g_assert_cmpuint (rec.len, ==, n * 2);
    g_assert_cmpint (rec.host_time_us, ==, 1000 + n);
    g_assert_cmpuint (rec.channel, ==, n % 3);
    g_assert_cmpuint (rec.type, ==, n == 50 ? PROBE_CAPTURE_GAP : PROBE_CAPTURE_DATA);
    for (guint k = 0; k < rec.len; k++)
      g_assert_cmpuint (rec.data[k], ==, (guint8) (n + k));
    n++;
  }
  return n;
}

static void
test_round_trip (Fixture *fx, gconstpointer data)
{
  guint64 offsets[100];
  g_autoptr (GBytes) b = write_sample (fx->path, offsets);
  g_assert_cmpuint (g_bytes_get_size (b), ==, offsets[99] + 20 + 99 * 2);
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeCaptureReader) r = probe_capture_reader_open (fx->path, &error);
  g_assert_no_error (error);
  const ProbeCaptureInfo *info = probe_capture_reader_get_info (r);
  g_assert_cmpuint (info->source, ==, PROBE_SOURCE_RTT);
  g_assert_cmpuint (info->tick_hz, ==, 25000000);
  g_assert_cmpint (info->start_unix_us, ==, 1234567);
  g_assert_cmpuint (info->orti_sha256[31], ==, 0xAB);
  g_assert_cmpstr (g_hash_table_lookup (info->metadata, "timestamp"), ==, "target");
  g_assert_cmpstr (g_hash_table_lookup (info->metadata, "openocd"), ==, "0.12.0");
  g_assert_cmpuint (read_all (fx->path, &error), ==, 100);
  g_assert_no_error (error);
}

static void
test_truncated (Fixture *fx, gconstpointer data)
{
  guint64 offsets[100];
  g_autoptr (GBytes) b = write_sample (fx->path, offsets);
  gsize len;
  const guint8 *all = g_bytes_get_data (b, &len);
  /* cut the file at every length: either a header error, or k complete records and an error
   * naming where it was truncated (or a clean end exactly at a record boundary) */
  for (gsize cut = 0; cut < len; cut += (cut < 200 ? 1 : 13)) {
    g_assert_true (g_file_set_contents (fx->path, (const char *) all, (gssize) cut, NULL));
    g_autoptr (GError) error = NULL;
    guint n = read_all (fx->path, &error);
    guint expect = 0;
    gboolean boundary = FALSE;
    for (guint i = 0; i < 100; i++) {
      guint64 end = offsets[i] + 20 + i * 2;
      if (end <= cut)
        expect = i + 1;
      if (end == cut)
        boundary = TRUE;
    }
    if (cut < offsets[0]) {
      g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
      continue;
    }
    g_assert_cmpuint (n, ==, expect);
    if (boundary || cut == offsets[0]) {
      g_assert_no_error (error);
    } else {
      g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
      g_autofree char *where = g_strdup_printf ("truncated at byte %zu", cut);
      g_assert_nonnull (strstr (error->message, where));
    }
  }
}

static void
test_corrupt (Fixture *fx, gconstpointer data)
{
  guint64 offsets[100];
  g_autoptr (GBytes) b = write_sample (fx->path, offsets);
  gsize len;
  g_autofree guint8 *copy = g_memdup2 (g_bytes_get_data (b, &len), g_bytes_get_size (b));
  /* flip one payload byte of record 70: 70 records good, error names record 70's offset */
  copy[offsets[70] + 16 + 5] ^= 0x40;
  g_assert_true (g_file_set_contents (fx->path, (const char *) copy, (gssize) len, NULL));
  g_autoptr (GError) error = NULL;
  g_assert_cmpuint (read_all (fx->path, &error), ==, 70);
  g_autofree char *where = g_strdup_printf ("corrupt record at byte %" G_GUINT64_FORMAT, offsets[70]);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, where));
  g_clear_error (&error);

  /* not a capture at all */
  g_assert_true (g_file_set_contents (fx->path, "SQLite format 3\0 and more bytes here.....", 40, NULL));
  g_assert_null (probe_capture_reader_open (fx->path, &error));
  g_assert_nonnull (strstr (error->message, "not an orti-profd capture file"));
  g_clear_error (&error);

  /* a newer version is refused by number */
  copy[8] = 9;
  g_assert_true (g_file_set_contents (fx->path, (const char *) copy, (gssize) len, NULL));
  g_assert_null (probe_capture_reader_open (fx->path, &error));
  g_assert_nonnull (strstr (error->message, "version 9 is not supported"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/probe/capture/round-trip", Fixture, NULL, fixture_set_up, test_round_trip, fixture_tear_down);
  g_test_add ("/probe/capture/truncated", Fixture, NULL, fixture_set_up, test_truncated, fixture_tear_down);
  g_test_add ("/probe/capture/corrupt", Fixture, NULL, fixture_set_up, test_corrupt, fixture_tear_down);
  return g_test_run ();
}
