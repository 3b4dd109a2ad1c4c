/* orti-plan-private.h — the read plan's insides, shared by its compiler (orti-plan.c) and its
 * evaluator and Tcl emitter (orti-plan-eval.c). Not installed; only orti/ includes it. */
#pragma once

#include "orti-elf-private.h"
#include "orti-formula-ast.h"

typedef enum {
  PN_CONST,   /* value */
  PN_READ,    /* read width bytes at the address a */
  PN_UNARY,   /* op a */
  PN_BINARY,  /* a op b, computed with op_signed semantics */
  PN_COND,    /* a ? b : c (also && and ||, with op) */
  PN_CONVERT, /* a truncated / extended to width, is_signed */
} PnKind;

typedef struct PNode PNode;
struct PNode {
  PnKind kind;
  OrtiFOp op;          /* operator of UNARY / BINARY / COND */
  PNode *a, *b, *c;    /* operands */
  guint64 value;       /* PN_CONST */
  guint width;         /* result width in bytes */
  gboolean is_signed;  /* result signedness */
  gboolean op_signed;  /* BINARY: compare / divide / shift as signed */
  int read;            /* PN_READ: index in plan->reads */
  int last_read;       /* highest read index in this subtree, or -1 */
};

struct _OrtiPlan {
  char *formula;         /* the source text */
  GArray *reads;         /* OrtiPlanRead */
  GArray *folded;        /* OrtiPlanRead: reads of read-only memory made at compile time */
  GStringChunk *strings; /* `what` texts */
  GPtrArray *nodes;      /* PNode arena */
  PNode *root;           /* the value */
  gboolean big_endian;   /* target byte order */
  GPtrArray *notes;      /* char*: liberties taken with C (orti_plan_get_note) */
  GArray *enumerators;   /* OrtiEnumerator: the value's C enum type (names in strings) */
};

/* orti_plan__normalize: @v wrapped to @width bytes, sign-extended when @is_signed. */
guint64 orti_plan__normalize (guint64 v, guint width, gboolean is_signed);

/* orti_plan__eval_node: evaluates @n into @out (normalized to the node's width). @read NULL:
 * constant folding, where any read fails without an error. */
gboolean orti_plan__eval_node (OrtiPlan *plan, PNode *n, OrtiReadFunc read, gpointer data,
                               guint64 *out, GError **error);
