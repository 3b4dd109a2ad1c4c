/* test-events-text.c — the text notation of events (events-text.h): every line form, exit
 * label variants, name interning, and errors as file:line:col that never lose the good lines
 * around a bad one. */
#include <glib.h>
#include <string.h>

#include "events-text.h"

static gboolean
parse1 (EventsText *et, const char *line, ProbeEvent *ev, GError **error)
{
  gboolean has = FALSE;
  gboolean ok = events_text_parse_line (et, "f.events", 3, line, strlen (line), ev, &has, error);
  if (ok)
    g_assert_true (has);
  return ok;
}

static void
test_forms (void)
{
  EventsText *et = events_text_new ();
  ProbeEvent ev;
  g_autoptr (GError) error = NULL;

  g_assert_true (parse1 (et, "5 TASK: 0 // ID of the main task", &ev, &error));
  g_assert_cmpuint (ev.ts, ==, 5);
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_TASK_SWITCH);
  g_assert_cmpuint (ev.a, ==, 0);
  g_assert_true (parse1 (et, "6 TASK:Main", &ev, &error));
  g_assert_cmpuint (ev.a, ==, EVENTS_TEXT_NAME_BASE);
  g_assert_cmpstr (events_text_lookup_name (et, EVENTS_TEXT_TASK, ev.a), ==, "Main");
  g_assert_true (parse1 (et, "7 TASK: NO_TASK", &ev, &error));
  g_assert_cmpuint (ev.a, ==, PROBE_TASK_IDLE);
  g_assert_true (parse1 (et, "7 TASK : idle", &ev, &error));
  g_assert_cmpuint (ev.a, ==, PROBE_TASK_IDLE);

  g_assert_true (parse1 (et, "10 DoMainWork", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_FUNC_ENTER);
  guint32 f = ev.a;
  g_assert_cmpuint (f, ==, EVENTS_TEXT_NAME_BASE);
  static const char *exits[] = { "DoMainWork_EXIT_", "DoMainWork_EXIT", "DoMainWork_EXIT_2",
                                 "DoMainWork_EXIT3" };
  for (guint i = 0; i < G_N_ELEMENTS (exits); i++) {
    g_autofree char *line = g_strdup_printf ("30 %s", exits[i]);
    g_assert_true (parse1 (et, line, &ev, &error));
    g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_FUNC_EXIT);
    g_assert_cmpuint (ev.a, ==, f);
  }
  /* names that only look like exits are entries */
  g_assert_true (parse1 (et, "31 _EXIT_", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_FUNC_ENTER);
  g_assert_true (parse1 (et, "31 EXITER", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_FUNC_ENTER);

  g_assert_true (parse1 (et, "40 @3 ISR: Timer", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_ISR_ENTER);
  g_assert_cmpuint (ev.core, ==, 3);
  guint32 timer = ev.a;
  g_assert_true (parse1 (et, "41 ISR_END", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_ISR_EXIT);
  g_assert_cmpuint (ev.a, ==, PROBE_ID_ANY);
  g_assert_true (parse1 (et, "41 ISR_END: Timer", &ev, &error));
  g_assert_cmpuint (ev.a, ==, timer);
  g_assert_true (parse1 (et, "42 ACTIVATE: Main", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_TASK_ACTIVATE);
  g_assert_cmpuint (ev.a, ==, EVENTS_TEXT_NAME_BASE);
  g_assert_true (parse1 (et, "43 TERMINATE: 4", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_TASK_TERMINATE);
  g_assert_true (parse1 (et, "44 SERVICE: WaitEvent", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_SERVICE_ENTER);
  g_assert_true (parse1 (et, "45 SERVICE_END", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_SERVICE_EXIT);
  g_assert_true (parse1 (et, "46 PP_BEGIN: TASK0_1", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_PP_BEGIN);
  g_assert_true (parse1 (et, "47 PP_END: TASK0_1 latch", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_PP_END);
  g_assert_cmpuint (ev.b, ==, 1);
  g_assert_true (parse1 (et, "47 PP_END: TASK0_1 0", &ev, &error));
  g_assert_cmpuint (ev.b, ==, 0);
  g_assert_true (parse1 (et, "48 DATA: light 0x10", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_DATA);
  g_assert_cmpuint (ev.b, ==, 16);
  g_assert_true (parse1 (et, "49 GAP 12", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_GAP);
  g_assert_cmpuint (ev.a, ==, 12);
  g_assert_true (parse1 (et, "50 END", &ev, &error));
  g_assert_cmpuint (ev.kind, ==, PROBE_EVENT_END);

  gboolean has = TRUE;
  g_assert_true (events_text_parse_line (et, "f", 1, "  // only a comment", 19, &ev, &has, &error));
  g_assert_false (has);
  g_assert_true (events_text_parse_line (et, "f", 1, "", 0, &ev, &has, &error));
  g_assert_false (has);

  guint32 id;
  g_assert_true (events_text_lookup_id (et, EVENTS_TEXT_FUNCTION, "DoMainWork", &id));
  g_assert_cmpuint (id, ==, f);
  g_assert_false (events_text_lookup_id (et, EVENTS_TEXT_FUNCTION, "Nope", &id));
  g_autofree char *n1 = events_text_format_id (et, EVENTS_TEXT_TASK, PROBE_TASK_IDLE);
  g_autofree char *n2 = events_text_format_id (et, EVENTS_TEXT_TASK, 7);
  g_assert_cmpstr (n1, ==, "idle");
  g_assert_cmpstr (n2, ==, "7");
  events_text_free (et);
}

static void
test_errors (void)
{
  static const struct {
    const char *line;
    const char *message; /* expected prefix */
  } cases[] = {
    { "TASK: 0", "f.events:3:1: expected a timestamp" },
    { "5x TASK: 0", "f.events:3:1: bad timestamp '5x'" },
    { "99999999999999999999999 f", "f.events:3:1: bad timestamp" },
    { "5 TASK 0", "f.events:3:7: expected ':' after TASK" },
    { "5 TASK:", "f.events:3:8: expected task name or number" },
    { "5 TASK: 0x80000000", "f.events:3:9: bad task number" },
    { "5 FOO: 1", "f.events:3:3: unknown keyword 'FOO:'" },
    { "5 f g", "f.events:3:5: unexpected 'g' at end of line" },
    { "5 @x f", "f.events:3:4: bad core number" },
    { "5 @70000 f", "f.events:3:4: bad core number" },
    { "5 -f", "f.events:3:3: expected an event" },
    { "5 PP_END: P later", "f.events:3:13: expected 'latch', 0 or 1" },
    { "5 DATA: v", "f.events:3:10: expected a value" },
    { "5 ACTIVATE: idle", "f.events:3:3: ACTIVATE needs a task" },
    { "5 GAP lots", "f.events:3:7: bad count of records lost" },
    { "5 ISR_END: ", "f.events:3:12: expected ISR name or number" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    EventsText *et = events_text_new ();
    ProbeEvent ev;
    gboolean has = FALSE;
    g_autoptr (GError) error = NULL;
    g_assert_false (events_text_parse_line (et, "f.events", 3, cases[i].line, strlen (cases[i].line),
                                            &ev, &has, &error));
    g_assert_error (error, EVENTS_TEXT_ERROR, EVENTS_TEXT_ERROR_SYNTAX);
    if (!g_str_has_prefix (error->message, cases[i].message))
      g_error ("'%s': got '%s', expected '%s…'", cases[i].line, error->message, cases[i].message);
    g_assert_false (has);
    events_text_free (et);
  }
}

static void
test_parse_keeps_good_lines (void)
{
  EventsText *et = events_text_new ();
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  static const char text[] = "5 TASK: 0\n"
                             "oops\n"
                             "10 DoMainWork\r\n"
                             "\n"
                             "15 TASK 1\n"
                             "30 DoMainWork_EXIT_"; /* no final newline */
  guint bad = events_text_parse (et, "in.txt", text, -1, ev, errors);
  g_assert_cmpuint (bad, ==, 2);
  g_assert_cmpuint (errors->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (errors, 0), ==, "in.txt:2:1: expected a timestamp (decimal ticks)");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (errors, 1), "in.txt:5:8: "));
  g_assert_cmpuint (ev->len, ==, 3);
  g_assert_cmpuint (g_array_index (ev, ProbeEvent, 2).ts, ==, 30);
  g_assert_cmpuint (g_array_index (ev, ProbeEvent, 2).kind, ==, PROBE_EVENT_FUNC_EXIT);

  /* a NUL byte is reported, not a truncation */
  static const char nul[] = "5 TASK: 0\n6 f\0g\n7 f_EXIT_\n";
  g_ptr_array_set_size (errors, 0);
  g_array_set_size (ev, 0);
  bad = events_text_parse (et, "nul.txt", nul, sizeof nul - 1, ev, errors);
  g_assert_cmpuint (bad, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (errors, 0), ==, "nul.txt:2:4: NUL byte in line");
  g_assert_cmpuint (ev->len, ==, 2);
  events_text_free (et);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/events-text/forms", test_forms);
  g_test_add_func ("/events-text/errors", test_errors);
  g_test_add_func ("/events-text/keeps-good-lines", test_parse_keeps_good_lines);
  return g_test_run ();
}
