/* web-export-folded.c — folded stacks (`task;caller;callee ticks`, the input of flame graph
 * tools and speedscope), from the stored calls and slices. */
#include "web-export-private.h"

typedef struct {
  gint64 parent;    /* call id, -1: none */
  guint32 function;
  guint32 task;
} CallNode;

static void
folded_add (GHashTable *lines, const char *stack, gint64 ticks)
{
  gint64 *v = g_hash_table_lookup (lines, stack);
  if (v == NULL) {
    v = g_new0 (gint64, 1);
    g_hash_table_insert (lines, g_strdup (stack), v);
  }
  *v += ticks;
}

/* Frame names may not hold ';' (the separator) or end-of-line characters. */
static void
append_frame (GString *g, const char *name)
{
  for (const char *p = name; *p; p++)
    g_string_append_c (g, (*p == ';' || *p == '\n' || *p == '\r') ? ':' : *p);
}

static gint
str_ptr_cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* "task;outer;inner SELF" per distinct stack (self ticks summed; the root frame is the task,
 * the ISR2 or "idle" the call ran in), plus "task RUN" for the
 * run time of each task or ISR outside any recorded function (run ticks from the slices
 * minus the net of its outermost calls). Lines sorted; zero lines left out. */
gboolean
web_export__write_folded (ExportSession *s, Out *o, GError **error)
{
  g_autoptr (GHashTable) nodes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  {
    g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT id, parent, task, function FROM calls "
                                                          "WHERE session_id = ?", error);
    if (st == NULL)
      return FALSE;
    while (web_export__step (s, st, error)) {
      gint64 *key = g_new (gint64, 1);
      CallNode *n = g_new (CallNode, 1);
      *key = sqlite3_column_int64 (st, 0);
      n->parent = sqlite3_column_type (st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64 (st, 1);
      n->task = (guint32) sqlite3_column_int64 (st, 2);
      n->function = (guint32) sqlite3_column_int64 (st, 3);
      g_hash_table_replace (nodes, key, n);
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }
  /* run time per task label, from the slices */
  {
    g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT task, flags & 1, sum(\"end\" - start) FROM slices "
                                                          "WHERE session_id = ? GROUP BY task, flags & 1", error);
    if (st == NULL)
      return FALSE;
    while (web_export__step (s, st, error)) {
      gint64 context = web_export__context (sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 1));
      if (!web_export__wanted (s, context))
        continue;
      g_autoptr (GString) g = g_string_new (NULL);
      append_frame (g, web_export__context_label (s, context));
      folded_add (lines, g->str, sqlite3_column_int64 (st, 2));
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }
  g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT id, parent, task, self, net, flags FROM calls "
                                                        "WHERE session_id = ? ORDER BY id", error);
  if (st == NULL)
    return FALSE;
  g_autoptr (GString) g = g_string_new (NULL);
  const char *frames[MAX_STACK];
  while (web_export__step (s, st, error)) {
    gint64 context = web_export__context (sqlite3_column_int64 (st, 2), sqlite3_column_int64 (st, 5));
    if (!web_export__wanted (s, context))
      continue;
    gint64 id = sqlite3_column_int64 (st, 0);
    const char *label = web_export__context_label (s, context);
    guint depth = 0;
    const CallNode *n = g_hash_table_lookup (nodes, &id);
    while (n != NULL && depth < MAX_STACK) {
      frames[depth++] = web_export__function_name (s, n->function);
      n = n->parent >= 0 ? g_hash_table_lookup (nodes, &n->parent) : NULL;
    }
    g_string_truncate (g, 0);
    append_frame (g, label);
    for (guint i = depth; i-- > 0;) {
      g_string_append_c (g, ';');
      append_frame (g, frames[i]);
    }
    folded_add (lines, g->str, sqlite3_column_int64 (st, 3));
    gint64 parent = sqlite3_column_type (st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64 (st, 1);
    if (parent < 0 || !g_hash_table_contains (nodes, &parent)) {
      g_string_truncate (g, 0);
      append_frame (g, label);
      folded_add (lines, g->str, -sqlite3_column_int64 (st, 4)); /* outermost: not "outside" */
    }
  }
  if (error != NULL && *error != NULL)
    return FALSE;
  g_autoptr (GPtrArray) keys = hash_keys (lines);
  g_ptr_array_sort (keys, str_ptr_cmp);
  for (guint i = 0; i < keys->len; i++) {
    gint64 v = *(gint64 *) g_hash_table_lookup (lines, keys->pdata[i]);
    if (v > 0) /* task lines can only be negative if slices and calls disagree */
      web_export__out_printf (o, "%s %" G_GINT64_FORMAT "\n", (const char *) keys->pdata[i], v);
  }
  return TRUE;
}
