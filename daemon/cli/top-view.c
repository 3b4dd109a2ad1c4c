/* top-view.c — the lines of `orti-profd top`'s screen from a snapshot (top-view.h). Widths are
 * counted in characters (UTF-8 aware), so "—" and "±" take one column each. */
#include "top-view.h"

#include <math.h>
#include <string.h>

static void
top_core_clear (gpointer core)
{
  g_free (((TopCore *) core)->name);
}

TopSnapshot *
top_snapshot_new (void)
{
  TopSnapshot *s = g_new0 (TopSnapshot, 1);
  s->duration_s = NAN;
  s->events = s->gaps = s->dropped = s->anomalies = s->reads_failed = -1;
  s->rows = g_ptr_array_new ();
  s->cores = g_array_new (FALSE, TRUE, sizeof (TopCore));
  g_array_set_clear_func (s->cores, top_core_clear);
  return s;
}

static void
top_row_free (TopRow *row)
{
  g_free (row->name);
  g_free (row);
}

void
top_snapshot_free (TopSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;
  g_ptr_array_foreach (snapshot->rows, (GFunc) (void (*) (void)) top_row_free, NULL);
  g_ptr_array_unref (snapshot->rows);
  g_array_unref (snapshot->cores);
  g_free (snapshot->name);
  g_free (snapshot->state);
  g_free (snapshot->source);
  g_free (snapshot);
}

void
top_snapshot_carry_history (TopSnapshot *now, const TopSnapshot *before)
{
  for (guint i = 0; i < now->rows->len; i++) {
    TopRow *row = g_ptr_array_index (now->rows, i);
    row->n_history = 0;
    for (guint j = 0; before != NULL && j < before->rows->len; j++) {
      const TopRow *old = g_ptr_array_index (before->rows, j);
      if (old->kind == row->kind && g_strcmp0 (old->name, row->name) == 0) {
        memcpy (row->history, old->history, sizeof row->history);
        row->n_history = old->n_history;
        break;
      }
    }
    if (row->n_history == TOP_HISTORY) {
      memmove (row->history, row->history + 1, (TOP_HISTORY - 1) * sizeof row->history[0]);
      row->n_history--;
    }
    row->history[row->n_history++] = row->load;
  }
}

/* --- cells ------------------------------------------------------------------------------- */

typedef struct {
  gboolean utf8;
  const char *unknown; /* "—" or "-" */
  const char *pm;      /* "±" or "+-" */
  const char *micro;   /* "µs" or "us" */
} TopGlyphs;

/* Appends @text padded with spaces to @width characters (right-aligned when @right). A
 * longer left-aligned text is cut to @width; a right-aligned one (a number) is never cut: it
 * pushes the rest of the line right, after one space that keeps it apart from the cell before. */
static void
top_cell (GString *out, const char *text, guint width, gboolean right)
{
  glong len = g_utf8_strlen (text, -1);
  if (right && (guint) len >= width) {
    g_string_append_c (out, ' ');
    g_string_append (out, text);
    return;
  }
  if ((guint) len > width) {
    const char *end = g_utf8_offset_to_pointer (text, width);
    g_string_append_len (out, text, end - text);
    return;
  }
  if (right)
    for (guint i = (guint) len; i < width; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, text);
  if (!right)
    for (guint i = (guint) len; i < width; i++)
      g_string_append_c (out, ' ');
}

static char *
top_percent (double v, const TopGlyphs *g)
{
  return isnan (v) ? g_strdup (g->unknown) : g_strdup_printf ("%.2f", v);
}

static char *
top_count (gint64 v, const TopGlyphs *g)
{
  return v < 0 ? g_strdup (g->unknown) : g_strdup_printf ("%" G_GINT64_FORMAT, v);
}

/* A duration in µs in the unit that keeps it short: "812.4 µs", "1.235 ms", "2.500 s". */
static char *
top_duration (double us, const TopGlyphs *g)
{
  if (isnan (us))
    return g_strdup (g->unknown);
  if (us < 1000.0)
    return g_strdup_printf ("%.1f %s", us, g->micro);
  if (us < 1e6)
    return g_strdup_printf ("%.3f ms", us / 1e3);
  return g_strdup_printf ("%.3f s", us / 1e6);
}

/* The row's loads as a sparkline of @width characters at most (the newest last), scaled to
 * the largest of them; an unknown load is a space. */
static void
top_sparkline (GString *out, const TopRow *row, guint width, const TopGlyphs *g)
{
  static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
  static const char ascii[] = "_.:-=+*#";
  guint first = row->n_history > width ? row->n_history - width : 0;
  double max = 0;
  for (guint i = first; i < row->n_history; i++)
    if (!isnan (row->history[i]) && row->history[i] > max)
      max = row->history[i];
  for (guint i = first; i < row->n_history; i++) {
    double v = row->history[i];
    if (isnan (v)) {
      g_string_append_c (out, ' ');
      continue;
    }
    int level = max > 0 ? (int) lround (v / max * 7.0) : 0;
    level = CLAMP (level, 0, 7);
    if (g->utf8)
      g_string_append (out, blocks[level]);
    else
      g_string_append_c (out, ascii[level]);
  }
}

/* --- order ------------------------------------------------------------------------------- */

/* NAN sorts after every number, highest first otherwise. */
static int
top_compare_desc (double a, double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) - isnan (b);
  return a > b ? -1 : a < b ? 1 : 0;
}

static int
top_compare_rows (gconstpointer pa, gconstpointer pb, gpointer user_data)
{
  const TopRow *a = *(TopRow *const *) pa, *b = *(TopRow *const *) pb;
  TopSort sort = GPOINTER_TO_INT (user_data);
  int c = 0;
  if (sort == TOP_SORT_LOAD)
    c = top_compare_desc (a->load, b->load);
  else if (sort == TOP_SORT_P99)
    c = top_compare_desc (a->p99_us, b->p99_us);
  if (c == 0)
    c = g_utf8_collate (a->name, b->name);
  return c != 0 ? c : (int) a->kind - (int) b->kind;
}

/* --- screen ------------------------------------------------------------------------------ */

static const char *const top_sort_names[] = { "load", "name", "p99" };

/* Cuts @line to @width characters and adds it to @lines. */
static void
top_line (GPtrArray *lines, GString *line, guint width)
{
  glong len = g_utf8_strlen (line->str, -1);
  if ((guint) len > width)
    g_string_truncate (line, g_utf8_offset_to_pointer (line->str, width) - line->str);
  while (line->len > 0 && line->str[line->len - 1] == ' ')
    g_string_truncate (line, line->len - 1);
  g_ptr_array_add (lines, g_strdup (line->str));
  g_string_truncate (line, 0);
}

char **
top_view_render (const TopSnapshot *s, const TopViewOptions *options)
{
  TopGlyphs g = { options->utf8, options->utf8 ? "—" : "-", options->utf8 ? "±" : "+-",
                  options->utf8 ? "µs" : "us" };
  guint width = MAX (options->width, 40u), height = MAX (options->height, 8u);
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) line = g_string_new (NULL);
  const char *dot = options->utf8 ? " · " : " | ";

  g_autofree char *events = top_count (s->events, &g);
  g_autofree char *duration = isnan (s->duration_s) ? g_strdup (g.unknown)
                                                     : g_strdup_printf ("%.1f s", s->duration_s);
  g_string_append_printf (line, "orti-profd top%ssession %" G_GINT64_FORMAT " \"%s\" %s%s%s%s%s%s%s events",
                          dot, s->session, s->name != NULL ? s->name : "", s->state != NULL ? s->state : g.unknown,
                          dot, s->source != NULL ? s->source : g.unknown, dot, duration, dot, events);
  top_line (lines, line, width);

  g_autofree char *gaps = top_count (s->gaps, &g), *dropped = top_count (s->dropped, &g);
  g_autofree char *anomalies = top_count (s->anomalies, &g);
  g_string_append_printf (line, "gaps %s%sdropped/overflow %s%sanomalies %s", gaps, dot, dropped, dot,
                          anomalies);
  if (s->reads_failed >= 0)
    g_string_append_printf (line, "%sreads failed %" G_GINT64_FORMAT, dot, s->reads_failed);
  top_line (lines, line, width);

  const TopCore *core = NULL;
  if (s->cores->len > 0) {
    core = &g_array_index (s->cores, TopCore, MIN (options->core_index, s->cores->len - 1));
    g_autofree char *load = top_percent (core->load, &g), *bound = top_percent (core->load_bound, &g);
    g_autofree char *unknown = top_percent (core->unknown, &g);
    g_string_append_printf (line, "core %" G_GINT64_FORMAT " \"%s\" (%u/%u): load %s %s %s %%%sunseen %s %%",
                            core->core, core->name != NULL ? core->name : "",
                            MIN (options->core_index, s->cores->len - 1) + 1, s->cores->len, load, g.pm,
                            bound, dot, unknown);
  } else {
    g_string_append_printf (line, "core %s: no statistics yet", g.unknown);
  }
  top_line (lines, line, width);
  g_string_append_printf (line, "sort: %s%skeys: l load, n name, p p99, c core, q quit",
                          top_sort_names[options->sort], dot);
  top_line (lines, line, width);
  if (options->status != NULL)
    g_string_append (line, options->status);
  top_line (lines, line, width);

  /* the table: KIND NAME LOAD% ±BOUND JOBS P99 ±BOUND HISTORY */
  top_cell (line, "KIND", 5, FALSE);
  top_cell (line, "NAME", 20, FALSE);
  top_cell (line, "LOAD %", 8, TRUE);
  top_cell (line, g.utf8 ? "± %" : "+- %", 9, TRUE);
  top_cell (line, "JOBS", 9, TRUE);
  top_cell (line, "P99", 11, TRUE);
  top_cell (line, g.utf8 ? "± P99" : "+- P99", 12, TRUE);
  g_string_append (line, "  HISTORY");
  top_line (lines, line, width);

  g_autoptr (GPtrArray) shown = g_ptr_array_new ();
  for (guint i = 0; i < s->rows->len; i++) {
    TopRow *row = g_ptr_array_index (s->rows, i);
    if (core == NULL || row->cores == 0 || core->core >= 64 || (row->cores >> core->core) & 1)
      g_ptr_array_add (shown, row);
  }
  g_ptr_array_sort_with_data (shown, top_compare_rows, GINT_TO_POINTER (options->sort));
  guint room = height - lines->len;
  guint fit = shown->len <= room ? shown->len : room - 1;
  for (guint i = 0; i < fit; i++) {
    const TopRow *row = g_ptr_array_index (shown, i);
    g_autofree char *load = top_percent (row->load, &g), *lb = top_percent (row->load_bound, &g);
    g_autofree char *jobs = top_count (row->jobs, &g), *p99 = top_duration (row->p99_us, &g);
    g_autofree char *pb = top_duration (row->p99_bound_us, &g);
    g_autofree char *bound = g_strdup_printf ("%s %s", g.pm, lb);
    g_autofree char *p99_bound = g_strdup_printf ("%s %s", g.pm, pb);
    top_cell (line, row->kind == TOP_ROW_TASK ? "task" : "isr", 5, FALSE);
    top_cell (line, row->name, 19, FALSE);
    g_string_append_c (line, ' ');
    top_cell (line, load, 8, TRUE);
    top_cell (line, bound, 9, TRUE);
    top_cell (line, jobs, 9, TRUE);
    top_cell (line, p99, 11, TRUE);
    top_cell (line, p99_bound, 12, TRUE);
    g_string_append (line, "  ");
    guint used = 5 + 20 + 8 + 9 + 9 + 11 + 12 + 2;
    if (width > used)
      top_sparkline (line, row, MIN (width - used, TOP_HISTORY), &g);
    top_line (lines, line, width);
  }
  if (fit < shown->len) {
    g_string_append_printf (line, "%s %u more (enlarge the terminal)", g.utf8 ? "…" : "...",
                            shown->len - fit);
    top_line (lines, line, width);
  }
  if (shown->len == 0) {
    g_string_append (line, "no task or ISR2 statistics yet");
    top_line (lines, line, width);
  }
  g_ptr_array_add (lines, NULL);
  return (char **) g_ptr_array_steal (lines, NULL);
}
