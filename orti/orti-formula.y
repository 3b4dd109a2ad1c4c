/* orti-formula.y — the ORTI formula language: C's conditional_expression (GRAMMAR.md §3) over
 * target symbols, parsed into a syntax tree (orti-formula.h) that orti-plan.c resolves on DWARF.
 *
 * A pure parser with a small hand-written lexer (formulas are one short string: a scanner
 * generator buys nothing). Casts need the C "typedef-name" feedback: the lexer asks a callback
 * whether an identifier names a type (DWARF typedefs/base types; keywords always are).
 * Nesting is bounded twice: bison's stack (YYMAXDEPTH) and the height of every built node
 * (ORTI_FORMULA_MAX_DEPTH), so 10,000 parentheses or a 100,000-term sum fail cleanly and the
 * recursive passes over the tree stay shallow. All allocations go to the tree's arena, so
 * error recovery never leaks. Errors name the 1-based byte column inside the formula.
 */
%define api.pure full
%define api.prefix {ortif_}
%define parse.error verbose
%locations
%expect 0
%parse-param {FParser *p}
%lex-param {FParser *p}

%code requires {
#include "orti-formula-ast.h"
typedef struct FParser FParser;
typedef struct {
  int tok;          /* keyword token, or TYPE_NAME */
  const char *name; /* type or tag name */
  const char *tag;  /* "struct" … or NULL */
} FSpec;
}

%code provides {
int ortif_lex (ORTIF_STYPE *lval, ORTIF_LTYPE *lloc, FParser *p);
}

%code {
#include <string.h>

#include "orti.h"

#define YYMAXDEPTH 1000
#define YYINITDEPTH 64

struct FParser {
  const char *text;     /* the formula */
  gsize pos;            /* lexer position */
  OrtiFIsType is_type;  /* typedef-name feedback, may be NULL */
  gpointer is_type_data;
  OrtiFTree *tree;      /* receives nodes */
  guint nesting;        /* open ( and [ */
  GError *error;        /* first error */
};

static void
ortif_error (ORTIF_LTYPE *loc, FParser *p, const char *msg)
{
  if (p->error != NULL)
    return;
  if (strcmp (msg, "memory exhausted") == 0)
    msg = "formula nested too deeply";
  g_set_error (&p->error, ORTI_ERROR, ORTI_ERROR_FORMULA, "column %d: %s", loc->first_column + 1,
               msg);
}

static gpointer
arena_add (FParser *p, gpointer mem)
{
  g_ptr_array_add (p->tree->arena, mem);
  return mem;
}

/* A node spanning @loc; NULL (error set) when the tree would get too deep. */
static OrtiFNode *
fnode (FParser *p, OrtiFOp op, OrtiFNode *a, OrtiFNode *b, OrtiFNode *c, const ORTIF_LTYPE *loc)
{
  guint depth = 0;
  if (a != NULL) depth = MAX (depth, a->depth);
  if (b != NULL) depth = MAX (depth, b->depth);
  if (c != NULL) depth = MAX (depth, c->depth);
  if (depth >= ORTI_FORMULA_MAX_DEPTH) {
    ortif_error ((ORTIF_LTYPE *) loc, p, "formula nested too deeply");
    return NULL;
  }
  OrtiFNode *n = arena_add (p, g_new0 (OrtiFNode, 1));
  n->op = op;
  n->a = a;
  n->b = b;
  n->c = c;
  n->depth = depth + 1;
  n->start = (guint) loc->first_column;
  n->end = (guint) loc->last_column;
  return n;
}

#define MK(dst, op, a, b, c, loc) \
  do { (dst) = fnode (p, (op), (a), (b), (c), &(loc)); if ((dst) == NULL) YYABORT; } while (0)

static gboolean ftype_apply (FParser *p, OrtiFType *t, const FSpec *s, const ORTIF_LTYPE *loc);

static OrtiFType *
ftype_new (FParser *p)
{
  return arena_add (p, g_new0 (OrtiFType, 1));
}
}

%union {
  OrtiFNode *node;
  const char *str;
  OrtiFType *type;
  FSpec spec;
  int count;
}

%token <str> IDENT "identifier" TYPE_NAME "type name"
%token <node> NUMBER "number"
%token ARROW "->" SHL "<<" SHR ">>" LE "<=" GE ">=" EQ "==" NE "!=" ANDAND "&&" OROR "||"
%token VOID "void" CHAR "char" SHORT "short" INT "int" LONG "long" SIGNED "signed"
%token UNSIGNED "unsigned" FLOAT "float" DOUBLE "double" BOOL "_Bool" CONST "const"
%token VOLATILE "volatile" STRUCT "struct" UNION "union" ENUM "enum" SIZEOF "sizeof"
%token BAD "invalid character"
%token END 0 "end of formula"

%type <node> expr cond lor land bor bxor band eq rel shift add mul cast unary postfix primary
%type <type> type_name spec_list
%type <spec> spec
%type <str> tag_name
%type <count> pointer

%start formula

%%

formula: expr { p->tree->root = $1; }
       ;

expr: cond ;

cond: lor
    | lor '?' expr ':' cond { MK ($$, ORTI_FN_COND, $1, $3, $5, @$); }
    ;

lor: land
   | lor "||" land { MK ($$, ORTI_FN_LOR, $1, $3, NULL, @$); }
   ;

land: bor
    | land "&&" bor { MK ($$, ORTI_FN_LAND, $1, $3, NULL, @$); }
    ;

bor: bxor
   | bor '|' bxor { MK ($$, ORTI_FN_BITOR, $1, $3, NULL, @$); }
   ;

bxor: band
    | bxor '^' band { MK ($$, ORTI_FN_BITXOR, $1, $3, NULL, @$); }
    ;

band: eq
    | band '&' eq { MK ($$, ORTI_FN_BITAND, $1, $3, NULL, @$); }
    ;

eq: rel
  | eq "==" rel { MK ($$, ORTI_FN_EQ, $1, $3, NULL, @$); }
  | eq "!=" rel { MK ($$, ORTI_FN_NE, $1, $3, NULL, @$); }
  ;

rel: shift
   | rel '<' shift { MK ($$, ORTI_FN_LT, $1, $3, NULL, @$); }
   | rel '>' shift { MK ($$, ORTI_FN_GT, $1, $3, NULL, @$); }
   | rel "<=" shift { MK ($$, ORTI_FN_LE, $1, $3, NULL, @$); }
   | rel ">=" shift { MK ($$, ORTI_FN_GE, $1, $3, NULL, @$); }
   ;

shift: add
     | shift "<<" add { MK ($$, ORTI_FN_SHL, $1, $3, NULL, @$); }
     | shift ">>" add { MK ($$, ORTI_FN_SHR, $1, $3, NULL, @$); }
     ;

add: mul
   | add '+' mul { MK ($$, ORTI_FN_ADD, $1, $3, NULL, @$); }
   | add '-' mul { MK ($$, ORTI_FN_SUB, $1, $3, NULL, @$); }
   ;

mul: cast
   | mul '*' cast { MK ($$, ORTI_FN_MUL, $1, $3, NULL, @$); }
   | mul '/' cast { MK ($$, ORTI_FN_DIV, $1, $3, NULL, @$); }
   | mul '%' cast { MK ($$, ORTI_FN_MOD, $1, $3, NULL, @$); }
   ;

cast: unary
    | '(' type_name ')' cast { MK ($$, ORTI_FN_CAST, $4, NULL, NULL, @$); $$->type = $2; }
    ;

unary: postfix
     | '&' cast { MK ($$, ORTI_FN_ADDR, $2, NULL, NULL, @$); }
     | '*' cast { MK ($$, ORTI_FN_DEREF, $2, NULL, NULL, @$); }
     | '-' cast { MK ($$, ORTI_FN_NEG, $2, NULL, NULL, @$); }
     | '+' cast { MK ($$, ORTI_FN_PLUS, $2, NULL, NULL, @$); }
     | '~' cast { MK ($$, ORTI_FN_BITNOT, $2, NULL, NULL, @$); }
     | '!' cast { MK ($$, ORTI_FN_NOT, $2, NULL, NULL, @$); }
     | "sizeof" unary { MK ($$, ORTI_FN_SIZEOF_EXPR, $2, NULL, NULL, @$); }
     | "sizeof" '(' type_name ')' { MK ($$, ORTI_FN_SIZEOF_TYPE, NULL, NULL, NULL, @$); $$->type = $3; }
     ;

postfix: primary
       | postfix '[' expr ']' { MK ($$, ORTI_FN_INDEX, $1, $3, NULL, @$); }
       | postfix '.' IDENT { MK ($$, ORTI_FN_MEMBER, $1, NULL, NULL, @$); $$->name = $3; }
       | postfix '.' TYPE_NAME { MK ($$, ORTI_FN_MEMBER, $1, NULL, NULL, @$); $$->name = $3; }
       | postfix "->" IDENT { MK ($$, ORTI_FN_ARROW, $1, NULL, NULL, @$); $$->name = $3; }
       | postfix "->" TYPE_NAME { MK ($$, ORTI_FN_ARROW, $1, NULL, NULL, @$); $$->name = $3; }
       ;

primary: IDENT { MK ($$, ORTI_FN_IDENT, NULL, NULL, NULL, @$); $$->name = $1; }
       | NUMBER { $$ = $1; }
       | '(' expr ')' { $$ = $2; $$->start = (guint) @$.first_column; $$->end = (guint) @$.last_column; }
       ;

type_name: spec_list
         | spec_list pointer { $$ = $1; $$->n_ptr = (guint) $2; }
         ;

pointer: '*' { $$ = 1; }
       | pointer '*' { $$ = $1 + 1; }
       | pointer "const" { $$ = $1; }
       | pointer "volatile" { $$ = $1; }
       ;

spec_list: spec { $$ = ftype_new (p); if (!ftype_apply (p, $$, &$1, &@1)) YYABORT; }
         | spec_list spec { $$ = $1; if (!ftype_apply (p, $$, &$2, &@2)) YYABORT; }
         ;

spec: "void" { $$ = (FSpec) { VOID, NULL, NULL }; }
    | "char" { $$ = (FSpec) { CHAR, NULL, NULL }; }
    | "short" { $$ = (FSpec) { SHORT, NULL, NULL }; }
    | "int" { $$ = (FSpec) { INT, NULL, NULL }; }
    | "long" { $$ = (FSpec) { LONG, NULL, NULL }; }
    | "signed" { $$ = (FSpec) { SIGNED, NULL, NULL }; }
    | "unsigned" { $$ = (FSpec) { UNSIGNED, NULL, NULL }; }
    | "float" { $$ = (FSpec) { FLOAT, NULL, NULL }; }
    | "double" { $$ = (FSpec) { DOUBLE, NULL, NULL }; }
    | "_Bool" { $$ = (FSpec) { BOOL, NULL, NULL }; }
    | "const" { $$ = (FSpec) { CONST, NULL, NULL }; }
    | "volatile" { $$ = (FSpec) { VOLATILE, NULL, NULL }; }
    | TYPE_NAME { $$ = (FSpec) { TYPE_NAME, $1, NULL }; }
    | "struct" tag_name { $$ = (FSpec) { TYPE_NAME, $2, "struct" }; }
    | "union" tag_name { $$ = (FSpec) { TYPE_NAME, $2, "union" }; }
    | "enum" tag_name { $$ = (FSpec) { TYPE_NAME, $2, "enum" }; }
    ;

tag_name: IDENT | TYPE_NAME ;

%%

/* Adds one specifier to @t; FALSE (error set) for a second type name. */
static gboolean
ftype_apply (FParser *p, OrtiFType *t, const FSpec *s, const ORTIF_LTYPE *loc)
{
  switch (s->tok) {
  case VOID: t->n_void++; break;
  case CHAR: t->n_char++; break;
  case SHORT: t->n_short++; break;
  case INT: t->n_int++; break;
  case LONG: t->n_long++; break;
  case SIGNED: t->n_signed++; break;
  case UNSIGNED: t->n_unsigned++; break;
  case FLOAT: t->n_float++; break;
  case DOUBLE: t->n_double++; break;
  case BOOL: t->n_bool++; break;
  case TYPE_NAME:
    if (t->name != NULL) {
      ortif_error ((ORTIF_LTYPE *) loc, p, "two type names in one cast");
      return FALSE;
    }
    t->name = s->name;
    t->tag = s->tag;
    break;
  default: /* qualifiers do not change what is read */
    break;
  }
  return TRUE;
}

static const struct {
  const char *word;
  int tok;
} keywords[] = {
  { "void", VOID }, { "char", CHAR }, { "short", SHORT }, { "int", INT }, { "long", LONG },
  { "signed", SIGNED }, { "unsigned", UNSIGNED }, { "float", FLOAT }, { "double", DOUBLE },
  { "_Bool", BOOL }, { "const", CONST }, { "volatile", VOLATILE }, { "struct", STRUCT },
  { "union", UNION }, { "enum", ENUM }, { "sizeof", SIZEOF },
};

/* Lexes a C integer constant at p->pos into a NUMBER node; returns BAD on error (error set). */
static int
lex_number (FParser *p, ORTIF_STYPE *lval, ORTIF_LTYPE *lloc)
{
  const char *s = p->text + p->pos;
  guint base = 10;
  gsize i = 0;
  guint64 v = 0;
  gboolean overflow = FALSE;

  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && g_ascii_isxdigit (s[2])) {
    base = 16;
    i = 2;
  } else if (s[0] == '0') {
    base = 8;
  }
  for (;; i++) {
    int d = g_ascii_xdigit_value (s[i]);
    if (d < 0 || (guint) d >= base) {
      if (base == 8 && g_ascii_isdigit (s[i])) {
        lloc->first_column = (int) (p->pos + i);
        ortif_error (lloc, p, "invalid digit in octal constant");
        return BAD;
      }
      break;
    }
    if (v > (G_MAXUINT64 - (guint64) d) / base)
      overflow = TRUE;
    v = v * base + (guint64) d;
  }
  gboolean is_unsigned = FALSE;
  guint n_long = 0;
  for (;; i++) {
    if ((s[i] == 'u' || s[i] == 'U') && !is_unsigned)
      is_unsigned = TRUE;
    else if ((s[i] == 'l' || s[i] == 'L') && n_long < 2)
      n_long++;
    else
      break;
  }
  if (g_ascii_isalnum (s[i]) || s[i] == '_' || s[i] == '.') {
    lloc->first_column = (int) (p->pos + i);
    ortif_error (lloc, p, s[i] == '.' ? "floating-point constants are not supported"
                                      : "invalid suffix on integer constant");
    return BAD;
  }
  if (overflow) {
    ortif_error (lloc, p, "integer constant is too large");
    return BAD;
  }
  /* C's rule, simplified to int (4 bytes) and 64-bit: decimal constants stay signed unless
   * they do not fit int64; octal/hex take unsigned int when they do not fit int. */
  guint width = 4;
  if (is_unsigned ? v > G_MAXUINT32 : (v > G_MAXINT32 && (base == 10 || v > G_MAXUINT32)))
    width = 8;
  if (!is_unsigned && width == 4 && v > G_MAXINT32)
    is_unsigned = TRUE; /* hex/octal in (INT_MAX, UINT_MAX] */
  if (!is_unsigned && width == 8 && v > G_MAXINT64)
    is_unsigned = TRUE;
  p->pos += i;
  lloc->last_column = (int) p->pos;
  OrtiFNode *n = fnode (p, ORTI_FN_NUMBER, NULL, NULL, NULL, lloc);
  n->num = v;
  n->num_width = width;
  n->num_unsigned = is_unsigned;
  n->num_long = n_long > 0;
  lval->node = n;
  return NUMBER;
}

int
ortif_lex (ORTIF_STYPE *lval, ORTIF_LTYPE *lloc, FParser *p)
{
  const char *t = p->text;
  while (t[p->pos] == ' ' || t[p->pos] == '\t' || t[p->pos] == '\n' || t[p->pos] == '\r')
    p->pos++;
  lloc->first_line = lloc->last_line = 1;
  lloc->first_column = (int) p->pos;
  lloc->last_column = (int) p->pos + 1;
  char c = t[p->pos];
  if (c == '\0')
    return 0;
  if (g_ascii_isdigit (c))
    return lex_number (p, lval, lloc);
  if (g_ascii_isalpha (c) || c == '_') {
    gsize start = p->pos;
    while (g_ascii_isalnum (t[p->pos]) || t[p->pos] == '_')
      p->pos++;
    lloc->last_column = (int) p->pos;
    char *word = arena_add (p, g_strndup (t + start, p->pos - start));
    for (guint k = 0; k < G_N_ELEMENTS (keywords); k++)
      if (strcmp (word, keywords[k].word) == 0)
        return keywords[k].tok;
    lval->str = word;
    if (p->is_type != NULL && p->is_type (word, p->is_type_data))
      return TYPE_NAME;
    return IDENT;
  }
  static const struct {
    const char *op;
    int tok;
  } ops[] = {
    { "->", ARROW }, { "<<", SHL }, { ">>", SHR }, { "<=", LE }, { ">=", GE },
    { "==", EQ }, { "!=", NE }, { "&&", ANDAND }, { "||", OROR },
  };
  for (guint k = 0; k < G_N_ELEMENTS (ops); k++) {
    if (t[p->pos] == ops[k].op[0] && t[p->pos + 1] == ops[k].op[1]) {
      p->pos += 2;
      lloc->last_column = (int) p->pos;
      return ops[k].tok;
    }
  }
  if (strchr ("()[].&*-+~!/%<>^|?:", c) != NULL) {
    p->pos++;
    if (c == '(' || c == '[') {
      if (++p->nesting > ORTI_FORMULA_MAX_DEPTH) {
        ortif_error (lloc, p, "formula nested too deeply");
        return BAD;
      }
    } else if ((c == ')' || c == ']') && p->nesting > 0) {
      p->nesting--;
    }
    return c;
  }
  if ((guchar) c >= 0x20 && (guchar) c < 0x7f) {
    g_autofree char *msg = g_strdup_printf ("unexpected character '%c'", c);
    ortif_error (lloc, p, msg);
  } else {
    g_autofree char *msg = g_strdup_printf ("unexpected byte 0x%02x", (guchar) c);
    ortif_error (lloc, p, msg);
  }
  return BAD;
}

/* orti_formula_parse: see orti-formula.h. */
OrtiFTree *
orti_formula_parse (const char *text, OrtiFIsType is_type, gpointer user_data, GError **error)
{
  g_autoptr (OrtiFTree) tree = g_new0 (OrtiFTree, 1);
  tree->arena = g_ptr_array_new_with_free_func (g_free);
  FParser p = { .text = text, .is_type = is_type, .is_type_data = user_data, .tree = tree };

  int rc = ortif_parse (&p);
  if (rc != 0 || p.error != NULL || tree->root == NULL) {
    if (p.error == NULL)
      g_set_error (&p.error, ORTI_ERROR, ORTI_ERROR_FORMULA, "column %u: cannot parse formula",
                   (guint) p.pos + 1);
    g_propagate_error (error, p.error);
    return NULL;
  }
  return g_steal_pointer (&tree);
}

/* orti_formula_tree_free: frees @tree and every node and string in it; NULL is ignored. */
void
orti_formula_tree_free (OrtiFTree *tree)
{
  if (tree == NULL)
    return;
  g_ptr_array_unref (tree->arena);
  g_free (tree);
}
