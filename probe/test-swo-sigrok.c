/* test-swo-sigrok.c — a sigrok session file of the SWO pin as a byte stream (swo-sigrok.c):
 * ../shared/swo-captures' STM32F105 logic capture decodes, through Debian's sigrok-cli, to
 * exactly the README's UART bytes of it (the TPIU frames whose ITM stream test-swo.c counts:
 * 393 PC samples, 16 exceptions, 14 overflows), at a baud rate found from its pulses or
 * given; a wrong channel, a wrong rate and a missing sigrok-cli are refused, naming them. The
 * bit-time finder on synthetic waveforms. Skips what needs the capture or sigrok-cli when
 * they are absent. */
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "probe-swo-sigrok.h"
#include "probe.h"

static char *
shared_path (const char *name)
{
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  char *path = g_build_filename (shared != NULL ? shared : "../shared", "swo-captures", name,
                                 NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_autofree char *msg = g_strdup_printf ("%s absent (ORTI_SHARED_DIR)", path);
    g_test_skip (msg);
    g_free (path);
    return NULL;
  }
  return path;
}

static gboolean
have_cli (void)
{
  g_autofree char *cli = g_find_program_in_path ("sigrok-cli");
  if (cli == NULL)
    g_test_skip ("sigrok-cli is not installed (scripts/deps)");
  return cli != NULL;
}

/* The capture's SWO channel at the rate found, and at 8 Mbaud given: the README's bytes. */
static void
test_stm32 (void)
{
  g_autofree char *sr = shared_path ("stm32f105_trace_example.sr");
  g_autofree char *bin = shared_path ("stm32f105_swo_tpiu_DERIVED.bin");
  if (sr == NULL || bin == NULL || !have_cli ())
    return;
  int fd = open (sr, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (probe_swo_sigrok_is (fd));
  close (fd);
  fd = open (bin, O_RDONLY | O_CLOEXEC);
  g_assert_false (probe_swo_sigrok_is (fd));
  close (fd);
  g_autofree char *want = NULL;
  gsize want_len = 0;
  g_assert_true (g_file_get_contents (bin, &want, &want_len, NULL));
  g_assert_cmpuint (want_len, ==, 7856);
  for (guint given = 0; given < 2; given++) {
    g_auto (ProbeSwoSigrokInfo) info = { 0 };
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) got = probe_swo_sigrok_decode (sr, given ? "SWO" : NULL,
                                                      given ? 8000000 : 0, &info, &error);
    g_assert_no_error (error);
    gsize len;
    const guint8 *data = g_bytes_get_data (got, &len);
    g_assert_cmpmem (data, len, want, want_len);
    g_assert_cmpstr (info.channel, ==, "SWO");
    g_assert_cmpuint (info.samplerate, ==, 24000000);
    g_assert_cmpuint (info.frame_errors, ==, 0);
    g_assert_true (info.baud_found == !given);
    /* found: 3 samples a bit, within a UART's tolerance of 8 Mbaud */
    g_assert_cmpfloat (fabs ((double) info.baud - 8e6), <=, 0.02 * 8e6);
  }
}

/* A channel the file does not have, a rate that is not the pin's, no sigrok-cli: errors that
 * name them. */
static void
test_errors (void)
{
  g_autofree char *sr = shared_path ("stm32f105_trace_example.sr");
  if (sr == NULL || !have_cli ())
    return;
  g_auto (ProbeSwoSigrokInfo) info = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) b = probe_swo_sigrok_decode (sr, "TRACESWO", 0, &info, &error);
  g_assert_null (b);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "no logic channel named \"TRACESWO\""));
  g_assert_nonnull (strstr (error->message, "PC9, 3, SWO"));
  g_clear_error (&error);
  probe_swo_sigrok_info_clear (&info);
  b = probe_swo_sigrok_decode (sr, "SWO", 4000000, &info, &error);
  g_assert_null (b);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "at 4000000 baud"));
  g_assert_nonnull (strstr (error->message, "framing errors"));
  g_clear_error (&error);
  probe_swo_sigrok_info_clear (&info);
  /* the pin of another channel: PC9 */
  b = probe_swo_sigrok_decode (sr, "PC9", 8000000, &info, &error);
  g_assert_null (b);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_clear_error (&error);
  probe_swo_sigrok_info_clear (&info);
  g_autofree char *path = g_strdup (g_getenv ("PATH"));
  g_setenv ("PATH", "/nonexistent", TRUE);
  b = probe_swo_sigrok_decode (sr, NULL, 0, &info, &error);
  g_setenv ("PATH", path, TRUE);
  g_assert_null (b);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "install Debian's sigrok-cli"));
}

/* A UART waveform of random bytes at @spb samples a bit (a fraction: the edges fall where the
 * sampling finds them), idle high between bytes, on bit 2 of 2-byte samples, with a glitch
 * every 500 bytes: the bit time found within 1 %. */
static void
test_bit_samples (void)
{
  static const double rates[] = { 3.0, 4.37, 12.0, 16.6 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  for (guint r = 0; r < G_N_ELEMENTS (rates); r++) {
    double spb = rates[r];
    g_autoptr (GByteArray) s = g_byte_array_new ();
    double t = 0;
    gsize n = 0;
    for (guint byte = 0; byte < 3000; byte++) {
      guint v = (guint) g_rand_int_range (rand, 0, 256);
      guint frame = (v << 1) | (1u << 9) | (byte % 500 == 0 ? 0x400u : 0); /* start, 8, stop */
      guint idle = (guint) g_rand_int_range (rand, 0, 3);
      for (guint b = 0; b < 10 + idle; b++) {
        int level = b < 10 ? (frame >> b) & 1 : 1;
        t += spb;
        for (; (double) n < t; n++) {
          guint8 u[2] = { (guint8) (g_rand_int (rand) & 0xFB) | (guint8) (level << 2),
                          (guint8) g_rand_int (rand) };
          g_byte_array_append (s, u, 2);
        }
      }
    }
    double got = probe_swo_sigrok_bit_samples (s->data, s->len / 2, 2, 2);
    g_assert_cmpfloat (fabs (got - spb), <=, 0.01 * spb);
  }
  /* a pin that never changes has no bit time */
  guint8 flat[64] = { 0 };
  g_assert_cmpfloat (probe_swo_sigrok_bit_samples (flat, 64, 1, 0), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/swo-sigrok/stm32", test_stm32);
  g_test_add_func ("/swo-sigrok/errors", test_errors);
  g_test_add_func ("/swo-sigrok/bit-samples", test_bit_samples);
  return g_test_run ();
}
