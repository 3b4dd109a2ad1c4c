/* fuzz-rtt-decoder.c — libFuzzer target for the RTT stream decoder (probe.h).
 *
 * Decodes the input whole and in slices chosen by the input's first byte, and aborts when the
 * two disagree (the decoder must be split-invariant) or when an Event has an unknown kind. */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
collect (const ProbeEvent *events, gsize n, gpointer user_data)
{
  for (gsize i = 0; i < n; i++)
    if (events[i].kind == PROBE_EVENT_NONE || events[i].kind >= PROBE_EVENT_KIND_COUNT)
      abort ();
  g_array_append_vals (user_data, events, (guint) n);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  if (size == 0)
    return 0;
  gsize slice = (gsize) data[0] % 23 + 1;
  data++;
  size--;
  g_autoptr (ProbeDecoder) whole = probe_decoder_new (NULL);
  g_autoptr (ProbeDecoder) split = probe_decoder_new (&(ProbeDecoderOptions){ .max_depth = 4 });
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GArray) b = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GError) error_a = NULL;
  gboolean ok_a = probe_decoder_feed (whole, data, size, collect, a, &error_a);
  gboolean ok_b = TRUE;
  for (gsize off = 0; off < size && ok_b; off += slice) {
    g_autoptr (GError) error_b = NULL;
    ok_b = probe_decoder_feed (split, data + off, MIN (slice, size - off), collect, b, &error_b);
    if (!ok_b && error_b == NULL)
      abort ();
  }
  if (ok_a != ok_b || (!ok_a && error_a == NULL))
    abort ();
  /* a shallower shadow stack may only turn exit names into PROBE_ID_ANY */
  if (a->len != b->len)
    abort ();
  for (guint i = 0; i < a->len; i++) {
    ProbeEvent x = g_array_index (a, ProbeEvent, i), y = g_array_index (b, ProbeEvent, i);
    if (y.kind == PROBE_EVENT_FUNC_EXIT && y.a == PROBE_ID_ANY)
      x.a = PROBE_ID_ANY;
    if (memcmp (&x, &y, sizeof x) != 0)
      abort ();
  }
  return 0;
}
