/* fuzz-slicer.c — libFuzzer target for the text front end and the slicer: the input is parsed
 * as the text notation (events-text.h) and the events fed to a slicer; the same bytes are also
 * fed as raw 24-byte ProbeEvents (core numbers folded to 0..7 to keep runs fast). Every
 * statistic is then read back. Anything but a clean run (crash, sanitizer report, leak) is a
 * bug: bad input must only become parse errors and counted anomalies. */
#include <glib.h>
#include <string.h>

#include "events-text.h"
#include "slicer.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
read_everything (Slicer *s)
{
  SlicerTaskStats t;
  SlicerCallStats c;
  SlicerPointStats p;
  SlicerDataStats d;
  SlicerCoreStats k;
  SlicerFrame frames[4];
  SlicerLogEntry log[4];
  for (gsize i = 0; i < slicer_n_tasks (s); i++) {
    slicer_get_task_stats (s, i, &t);
    slicer_get_stack (s, SLICER_CONTEXT_TASK, t.task, frames, G_N_ELEMENTS (frames));
    slicer_get_log (s, SLICER_CONTEXT_TASK, t.task, G_MAXUINT64, log, G_N_ELEMENTS (log));
  }
  for (gsize i = 0; i < slicer_n_functions (s); i++)
    slicer_get_function_stats (s, i, &c);
  for (gsize i = 0; i < slicer_n_context_functions (s); i++)
    slicer_get_context_function_stats (s, i, &c);
  for (gsize i = 0; i < slicer_n_isrs (s); i++)
    slicer_get_isr_stats (s, i, &c);
  for (gsize i = 0; i < slicer_n_services (s); i++)
    slicer_get_service_stats (s, i, &c);
  for (gsize i = 0; i < slicer_n_points (s); i++)
    slicer_get_point_stats (s, i, &p);
  for (gsize i = 0; i < slicer_n_data_values (s); i++)
    slicer_get_data_stats (s, i, &d);
  for (gsize i = 0; i < slicer_n_cores (s); i++)
    slicer_get_core_stats (s, i, &k);
  slicer_get_span (s, NULL, NULL);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.max_depth = 16;
  cfg.log_size = 4;
  cfg.max_data_values = 64;

  EventsText *et = events_text_new ();
  GArray *ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  GPtrArray *errors = g_ptr_array_new_with_free_func (g_free);
  events_text_parse (et, "fuzz", (const char *) data, (gssize) size, ev, errors);
  for (guint i = 0; i < ev->len; i++)
    g_array_index (ev, ProbeEvent, i).core &= 7;
  Slicer *s = slicer_new (&cfg);
  slicer_feed (s, (const ProbeEvent *) (gpointer) ev->data, ev->len);
  read_everything (s);
  slicer_finish (s, 0);
  read_everything (s);
  slicer_free (s);
  g_ptr_array_unref (errors);
  g_array_unref (ev);
  events_text_free (et);

  gsize n = size / sizeof (ProbeEvent);
  ProbeEvent *raw = g_new (ProbeEvent, n + 1);
  memcpy (raw, data, n * sizeof (ProbeEvent));
  for (gsize i = 0; i < n; i++)
    raw[i].core &= 7;
  s = slicer_new (&cfg);
  slicer_feed (s, raw, n);
  read_everything (s);
  slicer_finish (s, G_MAXUINT64);
  read_everything (s);
  slicer_free (s);
  g_free (raw);
  return 0;
}
