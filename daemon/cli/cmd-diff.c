/* cmd-diff.c — `orti-profd diff A B | --label A --label B [--db FILE|URL] [--threshold PCT]
 * [--json|--markdown]`: what
 * changed between two stored sessions, per task, ISR, function and profile point, by the one
 * comparison rule the dashboard's compare page shows too (compare.h: load, net time,
 * maximum and count; sampled figures with their bounds; regressions, "within bounds",
 * "through callees", "outlier"); entries only one session has; each session's ELF path and
 * SHA-256. --label picks the newest session of each of two builds; --db may name a shared
 * PostgreSQL store, whose two sessions are copied out and compared by the same code as a
 * file's (check-source.h). This file is the command: options, and the text and markdown
 * tables.
 *
 * Exit status (docs/check.md): 1 when a regression — an increase of load, net time or
 * maximum — exceeds the threshold (percent of A's value; any increase from 0 counts), 0
 * otherwise, 2 on bad input (usage, an unreadable database, an unknown session id). */
#include "verdict.h"
#include "command-config.h"
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char *
diff__change_text (const CompareMetric *m)
{
  if (isnan (m->change))
    return g_strdup ("");
  if (isinf (m->change))
    return g_strdup (m->change > 0 ? "+∞ %" : "-∞ %");
  return g_strdup_printf ("%+.1f %%", m->change);
}

static char *
diff__session_line (const char *label, const CheckSession *s)
{
  return g_strdup_printf ("%s: session %" G_GINT64_FORMAT "%s%s%s, ELF %s%s%s", label, s->id,
                          s->name != NULL ? " (" : "", s->name != NULL ? s->name : "",
                          s->name != NULL ? ")" : "", s->elf_path != NULL ? s->elf_path : "unknown",
                          s->elf_sha256 != NULL ? " sha256 " : "",
                          s->elf_sha256 != NULL ? s->elf_sha256 : "");
}

/* diff__changed: whether a row is worth showing: a regression, a known measure of a new or
 * vanished entry, or a measure that moved */
static gboolean
diff__changed (const CompareEntry *e, const CompareMetric *m)
{
  if (strcmp (e->status, "both") != 0)
    return !isnan (m->a) || !isnan (m->b);
  return m->regression || m->within_bounds || (!isnan (m->change) && m->change != 0) ||
         isnan (m->a) != isnan (m->b);
}

static char *
diff__to_text (const CheckSession *sa, const CheckSession *sb, GPtrArray *entries,
               gboolean markdown, guint regressions, double threshold)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *la = diff__session_line ("A", sa), *lb = diff__session_line ("B", sb);
  if (markdown)
    g_string_append_printf (out, "### orti-profd diff: %u regression%s over %g %%\n\n- %s\n- %s\n\n"
                                 "| kind | name | status | measure | A | B | change | |\n"
                                 "|---|---|---|---|---|---|---|---|\n",
                            regressions, regressions == 1 ? "" : "s", threshold, la, lb);
  else
    g_string_append_printf (out, "%s\n%s\n%-9s %-28s %-9s %-13s %12s %12s %10s\n", la, lb,
                            "KIND", "NAME", "STATUS", "MEASURE", "A", "B", "CHANGE");
  for (guint i = 0; i < entries->len; i++) {
    const CompareEntry *e = g_ptr_array_index (entries, i);
    for (guint j = 0; j < e->n_metrics; j++) {
      const CompareMetric *m = &e->metrics[j];
      if (!diff__changed (e, m))
        continue;
      g_autofree char *a = check_db_format (m->a), *b = check_db_format (m->b);
      g_autofree char *change = diff__change_text (m);
      g_autofree char *name_md = markdown ? check_markdown_escape (e->name) : NULL;
      if (markdown)
        g_string_append_printf (out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
                                budget_kind_name (e->kind), name_md, e->status, m->metric, a, b,
                                change, m->regression        ? "**regression**"
                                        : m->through_callees ? "through callees"
                                        : m->outlier         ? "outlier"
                                        : m->within_bounds   ? "within bounds"
                                                             : "");
      else
        g_string_append_printf (out, "%-9s %-28s %-9s %-13s %12s %12s %10s%s\n",
                                budget_kind_name (e->kind), e->name, e->status, m->metric, a, b,
                                change, m->regression        ? "  REGRESSION"
                                        : m->through_callees ? "  (through callees)"
                                        : m->outlier         ? "  (outlier)"
                                        : m->within_bounds   ? "  (within bounds)"
                                                             : "");
    }
  }
  if (!markdown)
    g_string_append_printf (out, "%u regression%s over %g %%\n", regressions,
                            regressions == 1 ? "" : "s", threshold);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* diff__session_arg: @arg as a session id; -1 when it is not a non-negative integer. */
static gint64
diff__session_arg (const char *arg)
{
  guint64 v = 0;
  if (!g_ascii_string_to_unsigned (arg, 10, 0, G_MAXINT64, &v, NULL))
    return -1;
  return (gint64) v;
}

int
cmd_diff (int argc, char **argv)
{
  g_autofree char *db_path = NULL;
  g_auto (GStrv) labels = NULL;
  double threshold = COMPARE_THRESHOLD_DEFAULT;
  gboolean json = FALSE, markdown = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db), or a shared store's postgresql:// URL", "FILE|URL" },
    { "label", 0, 0, G_OPTION_ARG_STRING_ARRAY, &labels, "Twice, in place of A B: the newest session of each build label (run --label)", "LABEL" },
    { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &threshold, "Regression threshold in percent of A (default 10)", "PCT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown, "Print a markdown summary", NULL },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("diff", "A B — compare two stored sessions",
                      "Exit status: 1 when an increase of load, net p99 (or average) or maximum exceeds the\n"
                      "threshold, 0 otherwise, 2 bad input. See docs/check.md; e.g.\n"
                      "  orti-profd diff 3 4 --threshold 5\n"
                      "  orti-profd diff --db postgresql://ci@db/orti --label nightly-811 --label nightly-812\n",
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  guint n_labels = labels != NULL ? g_strv_length (labels) : 0;
  if (n_labels > 0 && (n_labels != 2 || argc != 1)) {
    fprintf (stderr, "diff: expected --label A --label B and no session ids, got %u label%s "
             "and %d argument%s\n", n_labels, n_labels == 1 ? "" : "s", argc - 1,
             argc == 2 ? "" : "s");
    return 2;
  }
  if (n_labels == 0 && argc != 3) {
    fprintf (stderr, "diff: expected two session ids A B (or --label A --label B), got %d "
             "arguments\n", argc - 1);
    return 2;
  }
  if (json && markdown) {
    fprintf (stderr, "diff: --json and --markdown exclude each other\n");
    return 2;
  }
  if (!isfinite (threshold) || threshold < 0) {
    fprintf (stderr, "diff: --threshold %g: must be a non-negative number\n", threshold);
    return 2;
  }
  CheckPick picks[2] = { { -1, NULL }, { -1, NULL } };
  for (int i = 0; i < 2; i++) {
    if (n_labels > 0) {
      picks[i].label = labels[i];
      continue;
    }
    picks[i].id = diff__session_arg (argv[i + 1]);
    if (picks[i].id < 0) {
      fprintf (stderr, "diff: session %s '%s': not a session id\n", i == 0 ? "A" : "B", argv[i + 1]);
      return 2;
    }
  }
  g_autoptr (CheckSource) source = check_source_open (db_path != NULL ? db_path : "./profile.db",
                                                      picks, 2, &error);
  if (source == NULL) {
    fprintf (stderr, "diff: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_autoptr (CompareResult) r = compare_sessions (check_source_db (source), picks[0].id,
                                                  picks[1].id, threshold, &error);
  if (r == NULL) {
    fprintf (stderr, "diff: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_autofree char *text = json ? compare_result_to_json (r)
                               : diff__to_text (r->a, r->b, r->entries, markdown, r->regressions,
                                                threshold);
  fputs (text, stdout);
  return r->regressions > 0 ? 1 : 0;
}
