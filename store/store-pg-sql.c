/* store-pg-sql.c — SQLite's dialect of the store's SQL rewritten into PostgreSQL's
 * (store-pg-private.h), so the views, defaults and CHECKs of the PostgreSQL store are derived
 * from the SQLite schema's own text, not kept as a second copy (docs/fleet.md).
 *
 * The rewrite works on tokens, never inside string literals or quoted names, and changes only
 * what means something else in PostgreSQL:
 *   - a real literal (1e6, 100.0) is numeric there, float8 here: `::float8` is appended, so
 *     the arithmetic is the same IEEE double arithmetic as SQLite's;
 *   - x / y and x % y are NULL in SQLite when y is 0, an error in PostgreSQL: the right
 *     operand becomes NULLIF(y, 0);
 *   - an integer where a condition is expected (CASE WHEN flags & 1 THEN) is true when not
 *     0 in SQLite, an error in PostgreSQL: the condition becomes ((flags & 1) <> 0);
 *   - X'0a1b' blob literals become '\x0a1b'::bytea; == becomes =; ifnull becomes coalesce;
 *     group_concat(x, sep) becomes string_agg(x, sep) (the one-argument form is refused);
 *     CAST (… AS INTEGER/REAL/TEXT/BLOB) names PostgreSQL's bigint/float8/text/bytea.
 * Functions SQLite has and PostgreSQL lacks (printf, instr, two-argument min and max) are
 * created in the PostgreSQL schema with SQLite's meaning (store-pg-schema.c); any other
 * function a view calls must be in the list below of functions that mean the same in both,
 * else the translation fails: the build stops rather than ship a view that differs.
 */
#include "store-pg-private.h"

#include <string.h>

typedef enum {
  TOK_SPACE,   /* white space and comments */
  TOK_STRING,  /* 'text' */
  TOK_QIDENT,  /* "name" */
  TOK_BLOB,    /* X'0a1b' */
  TOK_NUMBER,
  TOK_IDENT,   /* names and keywords */
  TOK_OP,      /* operators, one or two characters */
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_COMMA,
  TOK_DOT,
  TOK_SEMI,
} TokKind;

typedef struct {
  TokKind kind;
  char *text;
} Tok;

static void
tok_clear (gpointer p)
{
  g_free (((Tok *) p)->text);
}

static void
push_tok (GArray *toks, TokKind kind, const char *start, gsize len)
{
  Tok t = { kind, g_strndup (start, len) };
  g_array_append_val (toks, t);
}

/* tokenize: @sql as tokens; NULL with a GError at an unterminated literal or comment. */
static GArray *
tokenize (const char *sql, GError **error)
{
  g_autoptr (GArray) toks = g_array_new (FALSE, FALSE, sizeof (Tok));
  g_array_set_clear_func (toks, tok_clear);
  const char *p = sql;
  while (*p != '\0') {
    const char *s = p;
    if (g_ascii_isspace (*p)) {
      while (g_ascii_isspace (*p))
        p++;
      push_tok (toks, TOK_SPACE, s, (gsize) (p - s));
    } else if (p[0] == '-' && p[1] == '-') {
      while (*p != '\0' && *p != '\n')
        p++;
      push_tok (toks, TOK_SPACE, s, (gsize) (p - s));
    } else if (p[0] == '/' && p[1] == '*') {
      const char *end = strstr (p + 2, "*/");
      if (end == NULL)
        goto unterminated;
      p = end + 2;
      push_tok (toks, TOK_SPACE, s, (gsize) (p - s));
    } else if (*p == '\'' || *p == '"' ||
               ((*p == 'x' || *p == 'X') && p[1] == '\'')) {
      TokKind kind = *p == '"' ? TOK_QIDENT : *p == '\'' ? TOK_STRING : TOK_BLOB;
      char quote = kind == TOK_QIDENT ? '"' : '\'';
      p += kind == TOK_BLOB ? 2 : 1;
      for (;;) {
        if (*p == '\0')
          goto unterminated;
        if (*p == quote && p[1] == quote)
          p += 2;
        else if (*p++ == quote)
          break;
      }
      push_tok (toks, kind, s, (gsize) (p - s));
    } else if (g_ascii_isdigit (*p) || (*p == '.' && g_ascii_isdigit (p[1]))) {
      if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        while (g_ascii_isxdigit (*p))
          p++;
      } else {
        while (g_ascii_isdigit (*p) || *p == '.')
          p++;
        if ((*p == 'e' || *p == 'E') &&
            (g_ascii_isdigit (p[1]) || ((p[1] == '+' || p[1] == '-') && g_ascii_isdigit (p[2])))) {
          p += 2;
          while (g_ascii_isdigit (*p))
            p++;
        }
      }
      push_tok (toks, TOK_NUMBER, s, (gsize) (p - s));
    } else if (g_ascii_isalpha (*p) || *p == '_' || (guchar) *p >= 0x80) {
      while (g_ascii_isalnum (*p) || *p == '_' || *p == '$' || (guchar) *p >= 0x80)
        p++;
      push_tok (toks, TOK_IDENT, s, (gsize) (p - s));
    } else if (*p == '(' || *p == ')' || *p == ',' || *p == '.' || *p == ';') {
      static const TokKind kinds[] = { TOK_LPAREN, TOK_RPAREN, TOK_COMMA, TOK_DOT, TOK_SEMI };
      push_tok (toks, kinds[strchr ("(),.;", *p) - "(),.;"], s, 1);
      p++;
    } else {
      static const char *const two[] = { "||", "<=", ">=", "<>", "!=", "==", "<<", ">>", "::" };
      gsize len = 1;
      for (gsize i = 0; i < G_N_ELEMENTS (two); i++)
        if (p[0] == two[i][0] && p[1] == two[i][1])
          len = 2;
      if (len == 1 && strchr ("+-*/%&|~<>=!", *p) == NULL) {
        g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                     "translating SQL to PostgreSQL: unexpected character '%c' at offset %d",
                     *p, (int) (p - sql));
        return NULL;
      }
      p += len;
      push_tok (toks, TOK_OP, s, len);
    }
  }
  return g_steal_pointer (&toks);

unterminated:
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
               "translating SQL to PostgreSQL: unterminated literal or comment at offset %d",
               (int) (p - sql));
  return NULL;
}

static Tok *
tok_at (GArray *toks, guint i)
{
  return i < toks->len ? &g_array_index (toks, Tok, i) : NULL;
}

static gboolean
is_word (GArray *toks, guint i, const char *word)
{
  Tok *t = tok_at (toks, i);
  return t != NULL && t->kind == TOK_IDENT && g_ascii_strcasecmp (t->text, word) == 0;
}

static gboolean
is_op (GArray *toks, guint i, const char *op)
{
  Tok *t = tok_at (toks, i);
  return t != NULL && t->kind == TOK_OP && strcmp (t->text, op) == 0;
}

static gboolean
is_kind (GArray *toks, guint i, TokKind kind)
{
  Tok *t = tok_at (toks, i);
  return t != NULL && t->kind == kind;
}

/* next_tok: the index of the first token at or after @i that is not space (toks->len: none). */
static guint
next_tok (GArray *toks, guint i)
{
  while (i < toks->len && g_array_index (toks, Tok, i).kind == TOK_SPACE)
    i++;
  return i;
}

static void
insert_tok (GArray *toks, guint at, TokKind kind, const char *text)
{
  Tok t = { kind, g_strdup (text) };
  g_array_insert_val (toks, at, t);
}

/* group_end: the index after the group opening at @i — a parenthesis to its match, CASE to
 * its END; @i itself + 1 for anything else. toks->len when unbalanced. */
static guint
group_end (GArray *toks, guint i)
{
  gboolean paren = is_kind (toks, i, TOK_LPAREN);
  if (!paren && !is_word (toks, i, "CASE"))
    return i + 1;
  int depth = 0;
  for (; i < toks->len; i++) {
    if (paren ? is_kind (toks, i, TOK_LPAREN) : is_word (toks, i, "CASE"))
      depth++;
    else if (paren ? is_kind (toks, i, TOK_RPAREN) : is_word (toks, i, "END"))
      if (--depth == 0)
        return i + 1;
  }
  return toks->len;
}

/* operand_end: the index after the operand starting at or after @i of a binary operator that
 * binds as tightly as * and /: unary signs, then a literal, a (qualified) name, a function call,
 * a parenthesised expression or a CASE, then any ::type casts. */
static guint
operand_end (GArray *toks, guint i)
{
  i = next_tok (toks, i);
  while (is_op (toks, i, "-") || is_op (toks, i, "+") || is_op (toks, i, "~"))
    i = next_tok (toks, i + 1);
  if (i >= toks->len)
    return i;
  if (is_kind (toks, i, TOK_IDENT) && !is_word (toks, i, "CASE")) {
    guint n = next_tok (toks, i + 1);
    if (is_kind (toks, n, TOK_LPAREN))
      i = group_end (toks, n);
    else {
      i = i + 1;
      while (is_kind (toks, next_tok (toks, i), TOK_DOT))
        i = next_tok (toks, next_tok (toks, i) + 1) + 1;
    }
  } else if (is_kind (toks, i, TOK_QIDENT)) {
    i = i + 1;
    while (is_kind (toks, next_tok (toks, i), TOK_DOT))
      i = next_tok (toks, next_tok (toks, i) + 1) + 1;
  } else
    i = group_end (toks, i);
  while (is_op (toks, next_tok (toks, i), "::"))
    i = next_tok (toks, next_tok (toks, i) + 1) + 1;
  return i;
}

/* Words and operators that make an expression a condition in both dialects. */
static gboolean
is_condition_tok (GArray *toks, guint i)
{
  static const char *const ops[] = { "=", "==", "<>", "!=", "<", ">", "<=", ">=" };
  static const char *const words[] = { "AND", "OR", "NOT", "IS", "IN", "LIKE", "GLOB",
                                       "BETWEEN", "EXISTS", "ISNULL", "NOTNULL", "TRUE", "FALSE" };
  for (gsize k = 0; k < G_N_ELEMENTS (ops); k++)
    if (is_op (toks, i, ops[k]))
      return TRUE;
  for (gsize k = 0; k < G_N_ELEMENTS (words); k++)
    if (is_word (toks, i, words[k]))
      return TRUE;
  return FALSE;
}

/* is_condition: whether tokens [@from, @to) form a condition (a comparison or a logical
 * expression at their top level, looking inside parentheses that enclose all of them). */
static gboolean
is_condition (GArray *toks, guint from, guint to)
{
  from = next_tok (toks, from);
  while (to > from && g_array_index (toks, Tok, to - 1).kind == TOK_SPACE)
    to--;
  if (is_kind (toks, from, TOK_LPAREN) && group_end (toks, from) == to)
    return is_condition (toks, from + 1, to - 1);
  for (guint i = from; i < to;) {
    if (is_condition_tok (toks, i))
      return TRUE;
    i = is_kind (toks, i, TOK_LPAREN) || is_word (toks, i, "CASE") ? group_end (toks, i) : i + 1;
  }
  return FALSE;
}

/* wrap_conditions: in every searched CASE (CASE WHEN …, not CASE x WHEN …), a WHEN whose
 * expression is not a condition becomes ((expr) <> 0). */
static void
wrap_conditions (GArray *toks)
{
  for (guint i = 0; i < toks->len; i++) {
    if (!is_word (toks, i, "CASE") || !is_word (toks, next_tok (toks, i + 1), "WHEN"))
      continue;
    guint end = group_end (toks, i);
    for (guint j = next_tok (toks, i + 1); j < end;) {
      if (!is_word (toks, j, "WHEN")) {
        j = is_kind (toks, j, TOK_LPAREN) || is_word (toks, j, "CASE") ? group_end (toks, j) : j + 1;
        continue;
      }
      guint k = j + 1;
      while (k < end && !is_word (toks, k, "THEN"))
        k = is_kind (toks, k, TOK_LPAREN) || is_word (toks, k, "CASE") ? group_end (toks, k) : k + 1;
      if (k < end && !is_condition (toks, j + 1, k)) {
        insert_tok (toks, k, TOK_SPACE, " ");
        insert_tok (toks, k, TOK_OP, ") <> 0)");
        insert_tok (toks, j + 1, TOK_OP, " (("); /* not TOK_LPAREN: balanced with ") <> 0)" */
        k += 3;
        end += 3;
      }
      j = k;
    }
  }
}

/* group_concat_has_separator: whether the call whose parenthesis opens at @open has two
 * arguments and no DISTINCT: group_concat(x, sep) is string_agg(x, sep) (both concatenate in
 * the order rows come, unordered unless the query orders them); SQLite's one-argument form
 * (',' between) and DISTINCT with a separator have no such twin. */
static gboolean
group_concat_has_separator (GArray *toks, guint open)
{
  guint end = group_end (toks, open) - 1, commas = 0;
  for (guint k = next_tok (toks, open + 1); k < end; k = group_end (toks, k)) {
    if (is_word (toks, k, "DISTINCT"))
      return FALSE;
    commas += is_kind (toks, k, TOK_COMMA);
  }
  return commas == 1;
}

/* Functions a view may call: the same meaning in both dialects, or created with SQLite's
 * meaning in the PostgreSQL schema (store-pg-schema.c: printf, instr, min and max of two). */
static const char *const functions_shared[] = {
  "abs", "avg", "coalesce", "count", "length", "lower", "max", "min", "nullif", "replace",
  "substr", "sum", "trim", "ltrim", "rtrim", "upper", "printf", "instr", "hex",
};

/* Words that may stand before a parenthesis without being a function call. */
static const char *const words_before_paren[] = {
  "AND", "AS", "BETWEEN", "CASE", "CAST", "CHECK", "ELSE", "EXISTS", "FROM", "IN", "IS", "JOIN",
  "KEY", "NOT", "ON", "OR", "OVER", "REFERENCES", "SELECT", "THEN", "UNION", "USING", "VALUES",
  "WHEN", "WHERE", "ALL", "DISTINCT", "BY", "RECURSIVE", "WITH", "FILTER",
};

/* Words after which a name followed by a parenthesis is a table's, not a function's. */
static const char *const words_before_table[] = {
  "ON", "INTO", "TABLE", "INDEX", "VIEW", "REFERENCES", "UPDATE",
};

static gboolean
in_list_ci (const char *const *list, gsize n, const char *word)
{
  for (gsize i = 0; i < n; i++)
    if (g_ascii_strcasecmp (list[i], word) == 0)
      return TRUE;
  return FALSE;
}

/* prev_word_in: whether the token before @i (spaces skipped) is one of @list's words. */
static gboolean
prev_word_in (GArray *toks, guint i, const char *const *list, gsize n)
{
  while (i > 0 && g_array_index (toks, Tok, i - 1).kind == TOK_SPACE)
    i--;
  return i > 0 && g_array_index (toks, Tok, i - 1).kind == TOK_IDENT &&
         in_list_ci (list, n, g_array_index (toks, Tok, i - 1).text);
}

/* Type names in CAST (x AS type), SQLite's to PostgreSQL's. */
static const char *
cast_type (const char *sqlite_type)
{
  static const char *const map[][2] = {
    { "INTEGER", "bigint" }, { "INT", "bigint" }, { "REAL", "float8" },
    { "TEXT", "text" }, { "BLOB", "bytea" }, { "NUMERIC", "numeric" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (map); i++)
    if (g_ascii_strcasecmp (map[i][0], sqlite_type) == 0)
      return map[i][1];
  return NULL;
}

char *
store__pg_translate (const char *sql, GError **error)
{
  g_autoptr (GArray) toks = tokenize (sql, error);
  if (toks == NULL)
    return NULL;

  for (guint i = 0; i < toks->len; i++) {
    Tok *t = &g_array_index (toks, Tok, i);
    if (t->kind == TOK_NUMBER && strpbrk (t->text, ".eE") != NULL &&
        !g_str_has_prefix (t->text, "0x") && !g_str_has_prefix (t->text, "0X")) {
      insert_tok (toks, i + 1, TOK_IDENT, "float8");
      insert_tok (toks, i + 1, TOK_OP, "::");
      i += 2;
    } else if (t->kind == TOK_BLOB) {
      g_autofree char *hex = g_strndup (t->text + 2, strlen (t->text) - 3);
      g_free (t->text);
      t->text = g_strdup_printf ("'\\x%s'::bytea", hex);
    } else if (t->kind == TOK_OP && strcmp (t->text, "==") == 0) {
      g_free (t->text);
      t->text = g_strdup ("=");
    } else if (t->kind == TOK_IDENT && is_kind (toks, next_tok (toks, i + 1), TOK_LPAREN) &&
               !in_list_ci (words_before_paren, G_N_ELEMENTS (words_before_paren), t->text) &&
               !prev_word_in (toks, i, words_before_table, G_N_ELEMENTS (words_before_table)) &&
               !is_kind (toks, i > 0 ? i - 1 : G_MAXUINT, TOK_DOT)) {
      if (g_ascii_strcasecmp (t->text, "ifnull") == 0) {
        g_free (t->text);
        t->text = g_strdup ("coalesce");
      } else if (g_ascii_strcasecmp (t->text, "group_concat") == 0) {
        if (!group_concat_has_separator (toks, next_tok (toks, i + 1))) {
          g_set_error_literal (error, STORE_ERROR, STORE_ERROR_SQL, "translating SQL to "
                               "PostgreSQL: group_concat() needs its separator (the second "
                               "argument) to become string_agg()");
          return NULL;
        }
        g_free (t->text);
        t->text = g_strdup ("string_agg");
      } else if (!in_list_ci (functions_shared, G_N_ELEMENTS (functions_shared), t->text)) {
        g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                     "translating SQL to PostgreSQL: function %s() has no PostgreSQL "
                     "equivalent known to store-pg-sql.c (add one, or give the object a "
                     "PostgreSQL text in store-pg-schema.c)", t->text);
        return NULL;
      }
    } else if (is_word (toks, i, "CAST") && is_kind (toks, next_tok (toks, i + 1), TOK_LPAREN)) {
      guint open = next_tok (toks, i + 1), close = group_end (toks, open) - 1;
      guint type = close;
      while (type > open && g_array_index (toks, Tok, type - 1).kind == TOK_SPACE)
        type--;
      type--;
      const char *pg = cast_type (g_array_index (toks, Tok, type).text);
      if (pg == NULL) {
        g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "translating SQL to PostgreSQL: "
                     "CAST to an unknown type %s", g_array_index (toks, Tok, type).text);
        return NULL;
      }
      Tok *tt = &g_array_index (toks, Tok, type);
      g_free (tt->text);
      tt->text = g_strdup (pg);
    }
  }
  /* division and remainder by 0: NULL, as in SQLite */
  for (guint i = 0; i < toks->len; i++) {
    if (!is_op (toks, i, "/") && !is_op (toks, i, "%"))
      continue;
    guint from = next_tok (toks, i + 1), to = operand_end (toks, i + 1);
    insert_tok (toks, to, TOK_OP, ", 0)");
    insert_tok (toks, from, TOK_OP, "NULLIF(");
    i = from; /* on into the operand: its own divisions */
  }
  wrap_conditions (toks);

  GString *out = g_string_new (NULL);
  for (guint i = 0; i < toks->len; i++)
    g_string_append (out, g_array_index (toks, Tok, i).text);
  return g_string_free (out, FALSE);
}

char *
store__pg_check_clauses (const char *create_table_sql, GError **error)
{
  g_autoptr (GArray) toks = tokenize (create_table_sql, error);
  if (toks == NULL)
    return NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint i = 0; i < toks->len; i++) {
    if (!is_word (toks, i, "CHECK"))
      continue;
    guint open = next_tok (toks, i + 1), end = group_end (toks, open);
    if (!is_kind (toks, open, TOK_LPAREN) || end > toks->len) {
      g_set_error_literal (error, STORE_ERROR, STORE_ERROR_SQL, "a CHECK without its expression");
      return NULL;
    }
    GString *expr = g_string_new (NULL);
    for (guint k = open; k < end; k++)
      g_string_append (expr, g_array_index (toks, Tok, k).text);
    g_autofree char *sqlite_expr = g_string_free (expr, FALSE);
    g_autofree char *pg = store__pg_translate (sqlite_expr, error);
    if (pg == NULL)
      return NULL;
    g_string_append_printf (out, ",\n  CHECK %s", pg);
    i = end - 1;
  }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
store__pg_has_word (const char *sql, const char *word)
{
  g_autoptr (GArray) toks = tokenize (sql, NULL);
  for (guint i = 0; toks != NULL && i < toks->len; i++)
    if (is_word (toks, i, word))
      return TRUE;
  return FALSE;
}
