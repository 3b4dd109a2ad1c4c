/* test-rtt-qemu.c — the tracer as cross-compiled for a Cortex-M3, run in QEMU (mps2-an385),
 * produces a stream the host decoder reads back exactly: the harness of
 * probe/target/qemu-bench/ writes a known sequence (task 5 in, two instrumented calls, a
 * __PROFILE_ENTRY call around an orti_trace_func_enter call, with exits 1-byte, 2-byte and
 * long, a value, task 5 out) into a fresh ring and prints it; this test decodes it.
 * Usage: test-rtt-qemu QEMU ELF (meson passes both; the test is only defined when
 * qemu-system-arm and arm-none-eabi-gcc exist). */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

static void
collect (const ProbeEvent *events, gsize n, gpointer user_data)
{
  g_array_append_vals (user_data, events, (guint) n);
}

static const char *qemu_path;
static const char *elf_path;

static void
test_qemu_stream (void)
{
  const char *argv[] = { "timeout", "20", qemu_path, "-M", "mps2-an385", "-nographic", "-monitor", "none",
                         "-serial", "null", "-icount", "shift=0,sleep=off",
                         "-semihosting-config", "enable=on,target=native", "-kernel", elf_path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int wait = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &wait, &error));
  g_assert_no_error (error);
  g_spawn_check_wait_status (wait, &error);
  g_assert_no_error (error);

  g_autofree char *all = g_strconcat (out, err, NULL); /* semihosting may use either */
  g_auto (GStrv) lines = g_strsplit (all, "\n", -1);
  guint32 fn = 0, fn2 = 0, name = 0;
  g_autoptr (GByteArray) ring = g_byte_array_new ();
  for (guint i = 0; lines[i] != NULL; i++) {
    if (g_str_has_prefix (lines[i], "FN "))
      fn = (guint32) strtoul (lines[i] + 3, NULL, 16);
    if (g_str_has_prefix (lines[i], "FN2 "))
      fn2 = (guint32) strtoul (lines[i] + 4, NULL, 16);
    if (g_str_has_prefix (lines[i], "NAME "))
      name = (guint32) strtoul (lines[i] + 5, NULL, 16);
    if (g_str_has_prefix (lines[i], "RING ")) {
      const char *h = lines[i] + 5;
      for (gsize k = 0; h[k] != '\0' && h[k + 1] != '\0'; k += 2) {
        guint8 b = (guint8) (g_ascii_xdigit_value (h[k]) << 4 | g_ascii_xdigit_value (h[k + 1]));
        g_byte_array_append (ring, &b, 1);
      }
    }
  }
  g_assert_cmpuint (fn, !=, 0);
  g_assert_cmpuint (fn2, !=, 0);
  g_assert_cmpuint (name, !=, 0);
  g_assert_cmpuint (ring->len, >, 30);

  g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_decoder_feed (d, ring->data, ring->len, collect, ev, &error));
  g_assert_no_error (error);
  guint32 hz = 0;
  g_assert_true (probe_decoder_get_stream_info (d, &hz, NULL, NULL));
  g_assert_cmpuint (hz, ==, 25000000);
  const ProbeDecoderStats *st = probe_decoder_get_stats (d);
  g_assert_cmpuint (st->skipped_bytes, ==, 0);
  g_assert_cmpuint (st->syncs, ==, 1);

  const struct { guint16 kind; guint32 a, b; } want[] = {
    { PROBE_EVENT_TASK_SWITCH, 5, 0 },
    { PROBE_EVENT_FUNC_ENTER, fn, 0 }, { PROBE_EVENT_FUNC_EXIT, fn, 0 },
    { PROBE_EVENT_FUNC_ENTER, fn, 0 }, { PROBE_EVENT_FUNC_EXIT, fn, 0 },
    { PROBE_EVENT_FUNC_ENTER, name, 0 }, { PROBE_EVENT_FUNC_ENTER, fn2, 0 },
    { PROBE_EVENT_FUNC_EXIT, fn2, 0 }, { PROBE_EVENT_FUNC_EXIT, name, 0 },
    { PROBE_EVENT_DATA, 7, 0xDEADBEEFu },
    { PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, 0 },
  };
  g_assert_cmpuint (ev->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < ev->len; i++) {
    const ProbeEvent *e = &g_array_index (ev, ProbeEvent, i);
    g_assert_cmpuint (e->kind, ==, want[i].kind);
    g_assert_cmpuint (e->a, ==, want[i].a);
    g_assert_cmpuint (e->b, ==, want[i].b);
    if (i > 0)
      g_assert_cmpuint (e->ts, >=, g_array_index (ev, ProbeEvent, i - 1).ts);
  }
  /* the spins made the exits take their two-byte form (8..1023 ticks) and the long one */
  guint64 t6 = g_array_index (ev, ProbeEvent, 6).ts, t7 = g_array_index (ev, ProbeEvent, 7).ts;
  guint64 t8 = g_array_index (ev, ProbeEvent, 8).ts;
  g_assert_cmpuint (t7 - t6, >=, 8);
  g_assert_cmpuint (t7 - t6, <, 1024);
  g_assert_cmpuint (t8 - t7, >=, 1024);
  /* the board timer advanced between the first and last record */
  g_assert_cmpuint (g_array_index (ev, ProbeEvent, ev->len - 1).ts, >, g_array_index (ev, ProbeEvent, 0).ts);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 3) {
    g_printerr ("usage: %s QEMU ELF\n", argv[0]);
    return 2;
  }
  qemu_path = argv[1];
  elf_path = argv[2];
  g_test_add_func ("/probe/rtt/qemu-stream", test_qemu_stream);
  return g_test_run ();
}
