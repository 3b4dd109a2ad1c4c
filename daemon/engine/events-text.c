/* events-text.c — parser of the text notation of events (see events-text.h; seed 002 §4.3).
 *
 * A hand-written line scanner: the notation is line-oriented with a handful of keywords, and
 * a bad line must never cost the lines around it, so each line is parsed on its own and an
 * error names the file, line and column of the offending token. */
#include "events-text.h"

#include <string.h>

G_DEFINE_QUARK (events-text-error-quark, events_text_error)

struct _EventsText {
  GHashTable *ids[EVENTS_TEXT_N_SPACES]; /* name → id (GUINT_TO_POINTER) */
  GPtrArray *names[EVENTS_TEXT_N_SPACES];/* id − EVENTS_TEXT_NAME_BASE → name */
};

EventsText *
events_text_new (void)
{
  EventsText *self = g_new0 (EventsText, 1);
  for (guint i = 0; i < EVENTS_TEXT_N_SPACES; i++) {
    self->ids[i] = g_hash_table_new (g_str_hash, g_str_equal);
    self->names[i] = g_ptr_array_new_with_free_func (g_free);
  }
  return self;
}

void
events_text_free (EventsText *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < EVENTS_TEXT_N_SPACES; i++) {
    g_hash_table_unref (self->ids[i]);
    g_ptr_array_unref (self->names[i]);
  }
  g_free (self);
}

const char *
events_text_lookup_name (const EventsText *self, EventsTextSpace space, guint32 id)
{
  g_return_val_if_fail (self != NULL && space < EVENTS_TEXT_N_SPACES, NULL);
  if (id < EVENTS_TEXT_NAME_BASE || id - EVENTS_TEXT_NAME_BASE >= self->names[space]->len)
    return NULL;
  return g_ptr_array_index (self->names[space], id - EVENTS_TEXT_NAME_BASE);
}

gboolean
events_text_lookup_id (const EventsText *self, EventsTextSpace space, const char *name, guint32 *id)
{
  g_return_val_if_fail (self != NULL && space < EVENTS_TEXT_N_SPACES && name != NULL, FALSE);
  gpointer v;
  if (!g_hash_table_lookup_extended (self->ids[space], name, NULL, &v))
    return FALSE;
  if (id)
    *id = GPOINTER_TO_UINT (v);
  return TRUE;
}

char *
events_text_format_id (const EventsText *self, EventsTextSpace space, guint32 id)
{
  const char *name = events_text_lookup_name (self, space, id);
  if (name)
    return g_strdup (name);
  if (space == EVENTS_TEXT_TASK && id == PROBE_TASK_IDLE)
    return g_strdup ("idle");
  return g_strdup_printf ("%u", id);
}

static guint32
intern (EventsText *self, EventsTextSpace space, const char *name, gsize len)
{
  g_autofree char *key = g_strndup (name, len);
  gpointer v;
  if (g_hash_table_lookup_extended (self->ids[space], key, NULL, &v))
    return GPOINTER_TO_UINT (v);
  guint32 id = EVENTS_TEXT_NAME_BASE + self->names[space]->len;
  char *owned = g_steal_pointer (&key);
  g_ptr_array_add (self->names[space], owned);
  g_hash_table_insert (self->ids[space], owned, GUINT_TO_POINTER (id));
  return id;
}

typedef struct {
  const char *file;  /* for messages */
  guint line_no;
  const char *start; /* line start */
  const char *p;     /* cursor */
  const char *end;   /* line end (comment stripped) */
} Scan;

static gboolean
fail (const Scan *sc, const char *at, GError **error, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (const Scan *sc, const char *at, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, EVENTS_TEXT_ERROR, EVENTS_TEXT_ERROR_SYNTAX, "%s:%u:%u: %s", sc->file,
               sc->line_no, (guint) (at - sc->start) + 1, msg);
  return FALSE;
}

static void
skip_ws (Scan *sc)
{
  while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t' || *sc->p == '\r'))
    sc->p++;
}

static gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static gboolean
is_ident (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Reads a token of identifier characters (letters, digits, '_'); returns its length. */
static gsize
read_word (Scan *sc)
{
  const char *s = sc->p;
  while (sc->p < sc->end && is_ident (*sc->p))
    sc->p++;
  return (gsize) (sc->p - s);
}

/* Parses an unsigned number (decimal, or 0x hex when @hex_ok) of the whole word at @s. */
static gboolean
parse_number (const char *s, gsize len, gboolean hex_ok, guint64 max, guint64 *out)
{
  guint base = 10;
  if (len == 0)
    return FALSE;
  if (hex_ok && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
    len -= 2;
  }
  guint64 v = 0;
  for (gsize i = 0; i < len; i++) {
    int d = g_ascii_xdigit_value (s[i]);
    if (d < 0 || (guint) d >= base)
      return FALSE;
    if (v > (G_MAXUINT64 - (guint64) d) / base)
      return FALSE;
    v = v * base + (guint64) d;
  }
  if (v > max)
    return FALSE;
  *out = v;
  return TRUE;
}

/* Reads a name (identifier or number) of @space into *@id. */
static gboolean
read_name (EventsText *self, Scan *sc, EventsTextSpace space, const char *what, guint32 *id,
           GError **error)
{
  skip_ws (sc);
  const char *s = sc->p;
  gsize len = read_word (sc);
  if (len == 0)
    return fail (sc, s, error, "expected %s name or number", what);
  if (g_ascii_isdigit (s[0])) {
    guint64 v;
    if (!parse_number (s, len, TRUE, EVENTS_TEXT_NAME_BASE - 1, &v))
      return fail (sc, s, error, "bad %s number '%.*s' (below 0x80000000 expected)", what,
                   (int) len, s);
    *id = (guint32) v;
    return TRUE;
  }
  if (space == EVENTS_TEXT_TASK &&
      ((len == 4 && (memcmp (s, "idle", 4) == 0 || memcmp (s, "IDLE", 4) == 0)) ||
       (len == 7 && memcmp (s, "NO_TASK", 7) == 0))) {
    *id = PROBE_TASK_IDLE;
    return TRUE;
  }
  *id = intern (self, space, s, len);
  return TRUE;
}

static gboolean
expect_end (Scan *sc, GError **error)
{
  skip_ws (sc);
  if (sc->p < sc->end)
    return fail (sc, sc->p, error, "unexpected '%.*s' at end of line", (int) (sc->end - sc->p), sc->p);
  return TRUE;
}

/* Accepts an optional ": name" after ISR_END / SERVICE_END. */
static gboolean
optional_name (EventsText *self, Scan *sc, EventsTextSpace space, const char *what, guint32 *id,
               GError **error)
{
  skip_ws (sc);
  *id = PROBE_ID_ANY;
  if (sc->p < sc->end && *sc->p == ':') {
    sc->p++;
    return read_name (self, sc, space, what, id, error);
  }
  return TRUE;
}

/* The exit forms: base + "_EXIT" + optional "_" + optional digits. Returns the base length, or
 * 0 when @s is not an exit label. */
static gsize
exit_base_len (const char *s, gsize len)
{
  gsize e = len;
  while (e > 0 && g_ascii_isdigit (s[e - 1]))
    e--;
  gboolean digits = e < len;
  if (e > 0 && s[e - 1] == '_')
    e--;
  else if (!digits && !(e >= 6 && memcmp (s + e - 5, "_EXIT", 5) == 0))
    return 0;
  if (e < 6 || memcmp (s + e - 5, "_EXIT", 5) != 0)
    return 0;
  return e - 5;
}

gboolean
events_text_parse_line (EventsText *self, const char *filename, guint line_no, const char *line,
                        gsize len, ProbeEvent *out, gboolean *has_event, GError **error)
{
  g_return_val_if_fail (self != NULL && line != NULL && out != NULL && has_event != NULL, FALSE);
  Scan sc = { .file = filename ? filename : "<input>", .line_no = line_no, .start = line,
              .p = line, .end = line + len };
  *has_event = FALSE;
  memset (out, 0, sizeof *out);

  const char *nul = memchr (line, '\0', len);
  if (nul)
    return fail (&sc, nul, error, "NUL byte in line");
  for (const char *c = line; c + 1 < sc.end; c++)
    if (c[0] == '/' && c[1] == '/') {
      sc.end = c;
      break;
    }
  skip_ws (&sc);
  if (sc.p == sc.end)
    return TRUE;

  const char *s = sc.p;
  gsize n = read_word (&sc);
  guint64 ts;
  if (n == 0 || !g_ascii_isdigit (s[0]))
    return fail (&sc, s, error, "expected a timestamp (decimal ticks)");
  if (!parse_number (s, n, FALSE, G_MAXUINT64, &ts))
    return fail (&sc, s, error, "bad timestamp '%.*s'", (int) n, s);
  out->ts = ts;
  if (sc.p < sc.end && *sc.p != ' ' && *sc.p != '\t')
    return fail (&sc, sc.p, error, "expected a space after the timestamp");
  skip_ws (&sc);

  if (sc.p < sc.end && *sc.p == '@') {
    sc.p++;
    s = sc.p;
    n = read_word (&sc);
    guint64 core;
    if (!parse_number (s, n, FALSE, G_MAXUINT16, &core))
      return fail (&sc, s, error, "bad core number '%.*s' (0..65535 expected)", (int) n, s);
    out->core = (guint16) core;
    skip_ws (&sc);
  }

  s = sc.p;
  if (s == sc.end || !is_ident_start (*s))
    return fail (&sc, s, error, "expected an event (a function name or TASK:, ISR:, END, …)");
  n = read_word (&sc);
  gboolean colon = FALSE;
  const char *after = sc.p;
  skip_ws (&sc);
  if (sc.p < sc.end && *sc.p == ':') {
    colon = TRUE;
    sc.p++;
  } else {
    sc.p = after;
  }

#define KW(str) (n == strlen (str) && memcmp (s, str, n) == 0)
  if (colon) {
    EventsTextSpace space;
    const char *what;
    guint kind;
    if (KW ("TASK")) {
      kind = PROBE_EVENT_TASK_SWITCH; space = EVENTS_TEXT_TASK; what = "task";
    } else if (KW ("ACTIVATE")) {
      kind = PROBE_EVENT_TASK_ACTIVATE; space = EVENTS_TEXT_TASK; what = "task";
    } else if (KW ("TERMINATE")) {
      kind = PROBE_EVENT_TASK_TERMINATE; space = EVENTS_TEXT_TASK; what = "task";
    } else if (KW ("WAIT")) {
      kind = PROBE_EVENT_TASK_WAIT; space = EVENTS_TEXT_TASK; what = "task";
    } else if (KW ("ISR")) {
      kind = PROBE_EVENT_ISR_ENTER; space = EVENTS_TEXT_ISR; what = "ISR";
    } else if (KW ("ISR_END")) {
      kind = PROBE_EVENT_ISR_EXIT; space = EVENTS_TEXT_ISR; what = "ISR";
    } else if (KW ("SERVICE")) {
      kind = PROBE_EVENT_SERVICE_ENTER; space = EVENTS_TEXT_SERVICE; what = "service";
    } else if (KW ("SERVICE_END")) {
      kind = PROBE_EVENT_SERVICE_EXIT; space = EVENTS_TEXT_SERVICE; what = "service";
    } else if (KW ("PP_BEGIN")) {
      kind = PROBE_EVENT_PP_BEGIN; space = EVENTS_TEXT_POINT; what = "profile point";
    } else if (KW ("PP_END")) {
      kind = PROBE_EVENT_PP_END; space = EVENTS_TEXT_POINT; what = "profile point";
    } else if (KW ("PP_ALPHA")) {
      kind = PROBE_EVENT_PP_ALPHA; space = EVENTS_TEXT_POINT; what = "profile point";
    } else if (KW ("DATA")) {
      kind = PROBE_EVENT_DATA; space = EVENTS_TEXT_VARIABLE; what = "variable";
    } else {
      return fail (&sc, s, error, "unknown keyword '%.*s:'", (int) n, s);
    }
    guint32 id;
    if (space == EVENTS_TEXT_TASK && kind != PROBE_EVENT_TASK_SWITCH) {
      if (!read_name (self, &sc, space, what, &id, error))
        return FALSE;
      if (id == PROBE_TASK_IDLE)
        return fail (&sc, s, error, "%.*s needs a task, not idle", (int) n, s);
    } else if (!read_name (self, &sc, space, what, &id, error)) {
      return FALSE;
    }
    out->kind = (guint16) kind;
    out->a = id;
    if (kind == PROBE_EVENT_PP_END) {
      skip_ws (&sc);
      const char *w = sc.p;
      gsize wl = read_word (&sc);
      if (wl == 5 && memcmp (w, "latch", 5) == 0)
        out->b = 1;
      else if (wl == 1 && (w[0] == '0' || w[0] == '1'))
        out->b = (guint32) (w[0] - '0');
      else if (wl != 0)
        return fail (&sc, w, error, "expected 'latch', 0 or 1 after the profile point");
    } else if (kind == PROBE_EVENT_PP_ALPHA) {
      skip_ws (&sc);
      const char *w = sc.p;
      while (sc.p < sc.end && (g_ascii_isalnum (*sc.p) || *sc.p == '.'))
        sc.p++;
      gsize wl = (gsize) (sc.p - w);
      g_autofree char *word = g_strndup (w, wl);
      char *end = NULL;
      double alpha = g_ascii_strtod (word, &end);
      if (wl == 0 || *end != '\0' || !(alpha >= 0.0 && alpha <= 1.0))
        return fail (&sc, w, error, "expected an averaging constant from 0 to 1 after the profile point");
      out->b = (guint32) (alpha * 65536.0 + 0.5); /* 16.16 fixed point */
    } else if (kind == PROBE_EVENT_DATA) {
      skip_ws (&sc);
      const char *w = sc.p;
      gsize wl = read_word (&sc);
      guint64 v;
      if (!parse_number (w, wl, TRUE, G_MAXUINT32, &v))
        return fail (&sc, w, error, "expected a value (32-bit decimal or 0x hex) after the variable");
      out->b = (guint32) v;
    }
  } else if (KW ("ISR_END") || KW ("SERVICE_END")) {
    gboolean isr = s[0] == 'I';
    guint32 id;
    if (!optional_name (self, &sc, isr ? EVENTS_TEXT_ISR : EVENTS_TEXT_SERVICE,
                        isr ? "ISR" : "service", &id, error))
      return FALSE;
    out->kind = isr ? PROBE_EVENT_ISR_EXIT : PROBE_EVENT_SERVICE_EXIT;
    out->a = id;
  } else if (KW ("END")) {
    out->kind = PROBE_EVENT_END;
  } else if (KW ("GAP")) {
    skip_ws (&sc);
    const char *w = sc.p;
    gsize wl = read_word (&sc);
    guint64 v = 0;
    out->kind = PROBE_EVENT_GAP;
    if (wl == 4 && strncmp (w, "core", 4) == 0) { /* of this core alone */
      out->b = PROBE_GAP_CORE_ONLY;
      skip_ws (&sc);
      w = sc.p;
      wl = read_word (&sc);
    }
    if (wl && !parse_number (w, wl, FALSE, G_MAXUINT32, &v))
      return fail (&sc, w, error, "bad count of records lost '%.*s'", (int) wl, w);
    out->a = (guint32) v;
  } else if (KW ("TASK") || KW ("ISR") || KW ("ACTIVATE") || KW ("TERMINATE") || KW ("WAIT") ||
             KW ("SERVICE") || KW ("PP_BEGIN") || KW ("PP_END") || KW ("PP_ALPHA") || KW ("DATA")) {
    return fail (&sc, s + n, error, "expected ':' after %.*s", (int) n, s);
  } else {
    gsize base = exit_base_len (s, n);
    if (base) {
      out->kind = PROBE_EVENT_FUNC_EXIT;
      out->a = intern (self, EVENTS_TEXT_FUNCTION, s, base);
    } else {
      out->kind = PROBE_EVENT_FUNC_ENTER;
      out->a = intern (self, EVENTS_TEXT_FUNCTION, s, n);
    }
  }
#undef KW
  if (!expect_end (&sc, error))
    return FALSE;
  *has_event = TRUE;
  return TRUE;
}

guint
events_text_parse (EventsText *self, const char *filename, const char *text, gssize len,
                   GArray *events, GPtrArray *errors)
{
  g_return_val_if_fail (self != NULL && text != NULL && events != NULL, 0);
  gsize total = len < 0 ? strlen (text) : (gsize) len;
  const char *p = text, *end = text + total;
  guint line_no = 0, bad = 0;

  while (p < end) {
    const char *nl = memchr (p, '\n', (gsize) (end - p));
    const char *le = nl ? nl : end;
    ProbeEvent ev;
    gboolean has = FALSE;
    g_autoptr (GError) error = NULL;
    line_no++;
    if (!events_text_parse_line (self, filename, line_no, p, (gsize) (le - p), &ev, &has, &error)) {
      bad++;
      if (errors)
        g_ptr_array_add (errors, g_strdup (error->message));
    } else if (has) {
      g_array_append_val (events, ev);
    }
    p = nl ? nl + 1 : end;
  }
  return bad;
}
