/* orti-formula-ast.h — the syntax tree of an ORTI formula (orti-formula.y builds it, orti-plan.c
 * resolves it on DWARF). Internal to orti/. */
#pragma once

#include <glib.h>

typedef enum {
  ORTI_FN_NUMBER,   /* num, num_width, num_unsigned */
  ORTI_FN_IDENT,    /* name */
  ORTI_FN_INDEX,    /* a[b] */
  ORTI_FN_MEMBER,   /* a.name */
  ORTI_FN_ARROW,    /* a->name */
  ORTI_FN_ADDR,     /* &a */
  ORTI_FN_DEREF,    /* *a */
  ORTI_FN_NEG,      /* -a */
  ORTI_FN_PLUS,     /* +a */
  ORTI_FN_BITNOT,   /* ~a */
  ORTI_FN_NOT,      /* !a */
  ORTI_FN_CAST,     /* (type) a */
  ORTI_FN_SIZEOF_TYPE, /* sizeof (type) */
  ORTI_FN_SIZEOF_EXPR, /* sizeof a */
  ORTI_FN_MUL, ORTI_FN_DIV, ORTI_FN_MOD, ORTI_FN_ADD, ORTI_FN_SUB, ORTI_FN_SHL, ORTI_FN_SHR,
  ORTI_FN_LT, ORTI_FN_GT, ORTI_FN_LE, ORTI_FN_GE, ORTI_FN_EQ, ORTI_FN_NE,
  ORTI_FN_BITAND, ORTI_FN_BITXOR, ORTI_FN_BITOR, ORTI_FN_LAND, ORTI_FN_LOR,
  ORTI_FN_COND,     /* a ? b : c */
} OrtiFOp;

/* A C type name as written in a cast: specifiers plus pointer depth. */
typedef struct {
  guint n_unsigned, n_signed, n_char, n_short, n_int, n_long, n_void, n_bool, n_float, n_double;
  const char *name; /* typedef name, or tag for struct/union/enum */
  const char *tag;  /* "struct", "union", "enum", or NULL */
  guint n_ptr;      /* number of '*' */
} OrtiFType;

typedef struct _OrtiFNode OrtiFNode;
struct _OrtiFNode {
  OrtiFOp op;
  OrtiFNode *a, *b, *c;   /* operands (a ? b : c) */
  const char *name;       /* identifier or member name */
  guint64 num;            /* literal value */
  guint num_width;        /* literal width in bytes (4 or 8) */
  gboolean num_unsigned;  /* literal has unsigned type */
  gboolean num_long;      /* literal had an L suffix */
  OrtiFType *type;        /* cast / sizeof type */
  guint start, end;       /* byte offsets of the node's text in the formula [start, end) */
  guint depth;            /* height of the subtree */
};

/* A parsed formula; every node and string lives in the tree's arena. */
typedef struct {
  OrtiFNode *root;
  GPtrArray *arena; /* owned allocations */
} OrtiFTree;

/* Whether an identifier names a type (the C "typedef-name" lexer feedback). */
typedef gboolean (*OrtiFIsType) (const char *name, gpointer user_data);

/* Deepest allowed expression nesting; deeper formulas fail cleanly with ORTI_ERROR_FORMULA. */
#define ORTI_FORMULA_MAX_DEPTH 256

/* orti_formula_parse:
 * Parses the NUL-terminated @text. @is_type (may be NULL) says which identifiers are type names.
 * Returns the tree, or NULL with ORTI_ERROR_FORMULA "column N: message" (columns from 1). */
OrtiFTree *orti_formula_parse (const char *text, OrtiFIsType is_type, gpointer user_data,
                               GError **error);
void orti_formula_tree_free (OrtiFTree *tree);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OrtiFTree, orti_formula_tree_free)
