/* test-poll-decoder.c — poll samples → Events: every channel kind, unread channels, gaps, any
 * byte split, and corrupt input. */
#include "probe.h"

#include <string.h>

static void
collect (const ProbeEvent *ev, gpointer user)
{
  g_array_append_val ((GArray *) user, *ev);
}

static gint64 task_none[] = { 0xFF };
static gint64 isr_none[] = { 0 };

static const ProbePollChannel channels[] = {
  { .kind = PROBE_POLL_TASK, .core = 0, .name = "RUNNINGTASK", .simple = TRUE,
    .none_values = task_none, .n_none_values = 1 },
  { .kind = PROBE_POLL_ISR, .core = 0, .name = "RUNNINGISR2", .simple = TRUE,
    .none_values = isr_none, .n_none_values = 1 },
  { .kind = PROBE_POLL_SERVICE, .core = 0, .name = "SERVICETRACE", .simple = TRUE,
    .entry_bit = TRUE },
  { .kind = PROBE_POLL_DATA, .core = 1, .name = "state", .simple = TRUE, .data_id = 7 },
};

/* samples: ts, valid mask, 4 values */
typedef struct { guint64 ts; guint32 valid; gint64 v[4]; } Sample;
static const Sample samples[] = {
  { 0, 0xF, { 0xFF, 0, 0, 5 } },       /* idle, no ISR, no service, state 5 */
  { 10, 0xF, { 0xFF, 0, 0, 5 } },      /* nothing changes */
  { 20, 0xF, { 2, 0, 3, 5 } },         /* task 2, inside service 2 (odd = entry) */
  { 30, 0xF, { 2, 0, 2, 6 } },         /* service 2 exit (even), state 6 */
  { 40, 0xF, { 2, 9, 2, 6 } },         /* ISR 9 enters */
  { 50, 0xD, { 99, 12, 2, 6 } },       /* task channel not read (bit 1 … mask 0xD = ch0,2,3) */
  { 60, 0xF, { 1, 12, 2, 6 } },        /* ISR 9 → 12 and task 1 (mask above skipped ch1) */
  { 70, 0xF, { 0xFF, 0, 5, 6 } },      /* idle, ISR exit, service 4 entry */
  { 80, 0xF, { 1, 0, 4, 6 } },         /* task 1 and service 4 gone: exits come first */
};

static GByteArray *
encode (void)
{
  GByteArray *b = g_byte_array_new ();
  for (gsize i = 0; i < G_N_ELEMENTS (samples); i++)
    probe_poll_record_append (b, 4, samples[i].valid, samples[i].ts, samples[i].v);
  return b;
}

static void
test_changes (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) bytes = encode ();
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (channels, 4, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_poll_decoder_feed (d, bytes->data, bytes->len, collect, ev, &error));
  g_assert_no_error (error);

  /* mask 0xD at ts 50 means channel 1 (ISR) was not read, channel 0 was read as 99 */
  const struct { guint64 ts; guint16 core, kind; guint32 a, b; } want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, 0 },
    { 0, 1, PROBE_EVENT_DATA, 7, 5 },
    { 20, 0, PROBE_EVENT_TASK_SWITCH, 2, 0 },
    { 20, 0, PROBE_EVENT_SERVICE_ENTER, 2, 0 },
    { 30, 0, PROBE_EVENT_SERVICE_EXIT, 2, 0 },
    { 30, 1, PROBE_EVENT_DATA, 7, 6 },
    { 40, 0, PROBE_EVENT_ISR_ENTER, 9, 0 },
    { 50, 0, PROBE_EVENT_TASK_SWITCH, 99, 0 },
    { 60, 0, PROBE_EVENT_ISR_EXIT, 9, 0 },
    { 60, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
    { 60, 0, PROBE_EVENT_ISR_ENTER, 12, 0 },
    { 70, 0, PROBE_EVENT_ISR_EXIT, 12, 0 },
    { 70, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, 0 },
    { 70, 0, PROBE_EVENT_SERVICE_ENTER, 4, 0 },
    { 80, 0, PROBE_EVENT_SERVICE_EXIT, 4, 0 },
    { 80, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
  };
  g_assert_cmpuint (ev->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < ev->len; i++) {
    ProbeEvent *e = &g_array_index (ev, ProbeEvent, i);
    g_assert_cmpuint (e->ts, ==, want[i].ts);
    g_assert_cmpuint (e->core, ==, want[i].core);
    g_assert_cmpstr (probe_event_kind_name (e->kind), ==, probe_event_kind_name (want[i].kind));
    g_assert_cmpuint (e->a, ==, want[i].a);
    g_assert_cmpuint (e->b, ==, want[i].b);
  }
  g_assert_cmpuint (probe_poll_decoder_get_samples (d), ==, G_N_ELEMENTS (samples));

  /* byte by byte gives the same events */
  g_autoptr (ProbePollDecoder) d2 = probe_poll_decoder_new (channels, 4, &error);
  g_autoptr (GArray) ev2 = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  for (guint i = 0; i < bytes->len; i++)
    g_assert_true (probe_poll_decoder_feed (d2, bytes->data + i, 1, collect, ev2, &error));
  g_assert_cmpuint (ev2->len, ==, ev->len);
  g_assert_cmpmem (ev2->data, ev2->len * sizeof (ProbeEvent), ev->data, ev->len * sizeof (ProbeEvent));
}

static void
test_gap_and_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (channels, 4, &error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GByteArray) b = g_byte_array_new ();
  gint64 v[4] = { 3, 0, 0, 1 };
  probe_poll_record_append (b, 4, 0xF, 100, v);
  g_assert_true (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  guint before = ev->len;
  /* after a gap the same values are re-emitted (state after a gap is unknown) */
  probe_poll_decoder_gap (d, 150, PROBE_GAP_LINK, collect, ev);
  g_byte_array_set_size (b, 0);
  probe_poll_record_append (b, 4, 0xF, 200, v);
  g_assert_true (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  ProbeEvent *gap = &g_array_index (ev, ProbeEvent, before);
  g_assert_cmpuint (gap->kind, ==, PROBE_EVENT_GAP);
  g_assert_cmpuint (gap->b, ==, PROBE_GAP_LINK);
  g_assert_cmpuint (gap->ts, ==, 150);
  g_assert_cmpuint (ev->len, ==, before * 2 + 1);

  /* time going back is refused, naming the sample */
  g_byte_array_set_size (b, 0);
  probe_poll_record_append (b, 4, 0xF, 50, v);
  g_assert_false (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "goes back in time"));
  g_clear_error (&error);

  /* a corrupt header is refused */
  g_byte_array_set_size (b, 0);
  probe_poll_record_append (b, 4, 0xF, 300, v);
  b->data[0] = 'X';
  g_assert_false (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  g_assert_nonnull (strstr (error->message, "is corrupt"));
  g_clear_error (&error);

  g_assert_null (probe_poll_decoder_new (channels, 0, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/probe/poll-decoder/changes", test_changes);
  g_test_add_func ("/probe/poll-decoder/gap-and-errors", test_gap_and_errors);
  return g_test_run ();
}
