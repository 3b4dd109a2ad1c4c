/* tcl-list.c — split a Tcl list string into its elements (probe.h).
 *
 * OpenOCD's TCL RPC answers with Tcl strings: our wrapped commands return the two-element list
 * `code result`, and read_memory returns a list of numbers. Tcl quotes list elements in three
 * ways (Tcl_SplitList): braces `{…}` (nesting counted, no substitution, backslash-newline
 * aside), double quotes `"…"` (backslash substitution), or bare words (backslash substitution).
 * We implement exactly that, which is all OpenOCD's `list` command ever produces.
 */
#include "probe.h"

#include <string.h>

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Append the backslash sequence at *p (p points after the backslash) to @out. */
static const char *
append_backslash (GString *out, const char *p, const char *end)
{
  if (p >= end) {
    g_string_append_c (out, '\\');
    return p;
  }
  switch (*p) {
  case 'n': g_string_append_c (out, '\n'); return p + 1;
  case 't': g_string_append_c (out, '\t'); return p + 1;
  case 'r': g_string_append_c (out, '\r'); return p + 1;
  case 'a': g_string_append_c (out, '\a'); return p + 1;
  case 'b': g_string_append_c (out, '\b'); return p + 1;
  case 'f': g_string_append_c (out, '\f'); return p + 1;
  case 'v': g_string_append_c (out, '\v'); return p + 1;
  case '\n':
    /* backslash-newline plus following blanks is one space */
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
      p++;
    g_string_append_c (out, ' ');
    return p;
  default:
    g_string_append_c (out, *p);
    return p + 1;
  }
}

GPtrArray *
probe_tcl_list_split (const char *list, GError **error)
{
  g_autoptr (GPtrArray) elems = g_ptr_array_new_with_free_func (g_free);
  const char *p = list;
  const char *end = list + strlen (list);

  for (;;) {
    while (p < end && is_space (*p))
      p++;
    if (p >= end)
      break;

    g_autoptr (GString) elem = g_string_new (NULL);
    const char *start = p;
    if (*p == '{') {
      int depth = 1;
      p++;
      const char *body = p;
      while (p < end && depth > 0) {
        if (*p == '\\' && p + 1 < end)
          p += 2;
        else {
          if (*p == '{')
            depth++;
          else if (*p == '}')
            depth--;
          p++;
        }
      }
      if (depth != 0) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                     "unmatched open brace in Tcl list at offset %td", start - list);
        return NULL;
      }
      g_string_append_len (elem, body, (p - 1) - body);
      if (p < end && !is_space (*p)) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                     "list element in braces followed by \"%c\" at offset %td", *p, p - list);
        return NULL;
      }
    } else if (*p == '"') {
      p++;
      while (p < end && *p != '"') {
        if (*p == '\\')
          p = append_backslash (elem, p + 1, end);
        else
          g_string_append_c (elem, *p++);
      }
      if (p >= end) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                     "unmatched open quote in Tcl list at offset %td", start - list);
        return NULL;
      }
      p++;
      if (p < end && !is_space (*p)) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                     "list element in quotes followed by \"%c\" at offset %td", *p, p - list);
        return NULL;
      }
    } else {
      while (p < end && !is_space (*p)) {
        if (*p == '\\')
          p = append_backslash (elem, p + 1, end);
        else
          g_string_append_c (elem, *p++);
      }
    }
    g_ptr_array_add (elems, g_string_free (g_steal_pointer (&elem), FALSE));
  }
  return g_steal_pointer (&elems);
}

char *
probe_tcl_quote (const char *s)
{
  /* Braces quote everything when they balance and no backslash could escape one. */
  int depth = 0;
  gboolean braces_ok = *s != '\0';
  for (const char *p = s; *p; p++) {
    if (*p == '\\') {
      braces_ok = FALSE;
      break;
    }
    if (*p == '{')
      depth++;
    else if (*p == '}' && --depth < 0) {
      braces_ok = FALSE;
      break;
    }
  }
  if (braces_ok && depth == 0)
    return g_strdup_printf ("{%s}", s);

  GString *out = g_string_new (NULL);
  if (*s == '\0')
    g_string_append (out, "{}");
  for (const char *p = s; *p; p++) {
    if (strchr ("{}[]$\\\"; \t\n\r", *p))
      g_string_append_c (out, '\\');
    if (*p == '\n')
      g_string_append_c (out, 'n');
    else if (*p == '\r')
      g_string_append_c (out, 'r');
    else if (*p == '\t')
      g_string_append_c (out, 't');
    else
      g_string_append_c (out, *p);
  }
  return g_string_free (out, FALSE);
}
