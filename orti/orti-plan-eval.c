/* orti-plan-eval.c — runs a compiled read plan (orti.h section 3): evaluation through an
 * OrtiReadFunc, the same plan as a Jim Tcl expression for OpenOCD, and the plan's accessors. The
 * compiler (orti-plan.c) builds the node tree this walks; orti-plan-private.h declares it.
 *
 * Values are computed as 64-bit words normalized to each node's width and signedness after
 * every step, which is C's integer arithmetic at that width. */
#include <string.h>

#include "orti-plan-private.h"

/* orti_plan__normalize: see orti-plan-private.h. */
guint64
orti_plan__normalize (guint64 v, guint width, gboolean is_signed)
{
  if (width >= 8)
    return v;
  guint bits = width * 8;
  v &= (G_GUINT64_CONSTANT (1) << bits) - 1;
  if (is_signed && (v >> (bits - 1)) != 0)
    v |= ~((G_GUINT64_CONSTANT (1) << bits) - 1);
  return v;
}

/* ---- evaluation ----------------------------------------------------------------------------- */

static guint64
binary_op (OrtiFOp op, guint64 a, guint64 b, gboolean sgn, gboolean *div0)
{
  gint64 sa = (gint64) a, sb = (gint64) b;
  switch (op) {
  case ORTI_FN_MUL: return a * b;
  case ORTI_FN_DIV:
  case ORTI_FN_MOD:
    if (b == 0) {
      *div0 = TRUE;
      return 0;
    }
    if (sgn) {
      if (sa == G_MININT64 && sb == -1)
        return op == ORTI_FN_DIV ? a : 0;
      return (guint64) (op == ORTI_FN_DIV ? sa / sb : sa % sb);
    }
    return op == ORTI_FN_DIV ? a / b : a % b;
  case ORTI_FN_ADD: return a + b;
  case ORTI_FN_SUB: return a - b;
  case ORTI_FN_SHL: return b >= 64 ? 0 : a << b;
  case ORTI_FN_SHR:
    if (sgn)
      return (guint64) (b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b);
    return b >= 64 ? 0 : a >> b;
  case ORTI_FN_LT: return sgn ? sa < sb : a < b;
  case ORTI_FN_GT: return sgn ? sa > sb : a > b;
  case ORTI_FN_LE: return sgn ? sa <= sb : a <= b;
  case ORTI_FN_GE: return sgn ? sa >= sb : a >= b;
  case ORTI_FN_EQ: return a == b;
  case ORTI_FN_NE: return a != b;
  case ORTI_FN_BITAND: return a & b;
  case ORTI_FN_BITXOR: return a ^ b;
  case ORTI_FN_BITOR: return a | b;
  default: return 0;
  }
}

/* Evaluates @n into @out (normalized to the node's width). @read NULL: constant folding, any
 * read fails without an error. */
gboolean
orti_plan__eval_node (OrtiPlan *plan, PNode *n, OrtiReadFunc read, gpointer data, guint64 *out,
           GError **error)
{
  guint64 a = 0, b = 0, v = 0;
  switch (n->kind) {
  case PN_CONST:
    *out = n->value;
    return TRUE;
  case PN_READ: {
    const OrtiPlanRead *r = &g_array_index (plan->reads, OrtiPlanRead, n->read);
    guint8 buf[8];
    if (read == NULL || !orti_plan__eval_node (plan, n->a, read, data, &a, error))
      return FALSE;
    if (!read (a, n->width, buf, data, error)) {
      g_prefix_error (error, "reading %s (%u bytes at 0x%" G_GINT64_MODIFIER "x) for \"%s\": ",
                      r->what, n->width, a, plan->formula);
      return FALSE;
    }
    for (guint i = 0; i < n->width; i++) {
      guint k = plan->big_endian ? i : n->width - 1 - i;
      v = (v << 8) | buf[k];
    }
    break;
  }
  case PN_CONVERT:
    if (!orti_plan__eval_node (plan, n->a, read, data, &v, error))
      return FALSE;
    break;
  case PN_UNARY:
    if (!orti_plan__eval_node (plan, n->a, read, data, &a, error))
      return FALSE;
    v = n->op == ORTI_FN_NEG ? (guint64) 0 - a : n->op == ORTI_FN_BITNOT ? ~a : (guint64) (a == 0);
    break;
  case PN_BINARY: {
    gboolean div0 = FALSE;
    if (!orti_plan__eval_node (plan, n->a, read, data, &a, error) ||
        !orti_plan__eval_node (plan, n->b, read, data, &b, error))
      return FALSE;
    v = binary_op (n->op, a, b, n->op_signed, &div0);
    if (div0) {
      g_set_error (error, ORTI_ERROR, ORTI_ERROR_EVAL, "division by zero in \"%s\"",
                   plan->formula);
      return FALSE;
    }
    break;
  }
  case PN_COND:
    if (!orti_plan__eval_node (plan, n->a, read, data, &a, error))
      return FALSE;
    if (n->op == ORTI_FN_COND) {
      if (!orti_plan__eval_node (plan, a != 0 ? n->b : n->c, read, data, &v, error))
        return FALSE;
    } else if ((n->op == ORTI_FN_LAND && a == 0) || (n->op == ORTI_FN_LOR && a != 0)) {
      v = n->op == ORTI_FN_LOR;
    } else {
      if (!orti_plan__eval_node (plan, n->b, read, data, &b, error))
        return FALSE;
      v = b != 0;
    }
    break;
  }
  *out = orti_plan__normalize (v, n->width, n->is_signed);
  return TRUE;
}


/* ---- Jim Tcl ---------------------------------------------------------------------------------- */

/* Appends @v as a Tcl integer literal of a node with @is_signed (values are kept normalized:
 * sign-extended when signed). */
static void
tcl_const (GString *out, guint64 v, gboolean is_signed)
{
  if (is_signed || (gint64) v >= 0)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) v);
  else /* an unsigned 64-bit value past Jim's signed range: its bit pattern */
    g_string_append_printf (out, "0x%" G_GINT64_MODIFIER "x", v);
}

/* Wraps the expression appended since @mark to @width / @is_signed, as normalize(). */
static void
tcl_normalize (GString *out, gsize mark, guint width, gboolean is_signed)
{
  if (width >= 8)
    return;
  guint64 mask = (G_GUINT64_CONSTANT (1) << (width * 8)) - 1;
  g_autofree char *inner = g_strdup (out->str + mark);
  g_string_truncate (out, mark);
  if (is_signed) {
    guint64 sign = G_GUINT64_CONSTANT (1) << (width * 8 - 1);
    g_string_append_printf (out, "((((%s) & %" G_GUINT64_FORMAT ") ^ %" G_GUINT64_FORMAT ") - %"
                            G_GUINT64_FORMAT ")", inner, mask, sign, sign);
  } else {
    g_string_append_printf (out, "((%s) & %" G_GUINT64_FORMAT ")", inner, mask);
  }
}

static const char *
tcl_binary_op (OrtiFOp op)
{
  switch (op) {
  case ORTI_FN_MUL: return "*";
  case ORTI_FN_DIV: return "/";
  case ORTI_FN_MOD: return "%";
  case ORTI_FN_ADD: return "+";
  case ORTI_FN_SUB: return "-";
  case ORTI_FN_SHL: return "<<";
  case ORTI_FN_SHR: return ">>";
  case ORTI_FN_LT: return "<";
  case ORTI_FN_GT: return ">";
  case ORTI_FN_LE: return "<=";
  case ORTI_FN_GE: return ">=";
  case ORTI_FN_EQ: return "==";
  case ORTI_FN_NE: return "!=";
  case ORTI_FN_BITAND: return "&";
  case ORTI_FN_BITXOR: return "^";
  case ORTI_FN_BITOR: return "|";
  default: return NULL;
  }
}

static void
tcl_node (OrtiPlan *plan, PNode *n, const char *tgt, GString *out)
{
  gsize mark = out->len;
  switch (n->kind) {
  case PN_CONST:
    tcl_const (out, n->value, n->is_signed);
    return;
  case PN_READ:
    g_string_append_printf (out, "[%sread_memory ", tgt);
    if (n->a->kind == PN_CONST)
      g_string_append_printf (out, "0x%" G_GINT64_MODIFIER "x", n->a->value);
    else {
      g_string_append (out, "[expr {");
      tcl_node (plan, n->a, tgt, out);
      g_string_append (out, "}]");
    }
    g_string_append_printf (out, " %u 1]", n->width * 8);
    if (n->is_signed)
      tcl_normalize (out, mark, n->width, TRUE);
    return;
  case PN_CONVERT:
    g_string_append_c (out, '(');
    tcl_node (plan, n->a, tgt, out);
    g_string_append_c (out, ')');
    break;
  case PN_UNARY:
    g_string_append (out, n->op == ORTI_FN_NEG ? "(-(" : n->op == ORTI_FN_BITNOT ? "(~(" : "(!(");
    tcl_node (plan, n->a, tgt, out);
    g_string_append (out, "))");
    break;
  case PN_BINARY: {
    g_autoptr (GString) a = g_string_new (NULL);
    g_autoptr (GString) b = g_string_new (NULL);
    tcl_node (plan, n->a, tgt, a);
    tcl_node (plan, n->b, tgt, b);
    if (n->op_signed && (n->op == ORTI_FN_DIV || n->op == ORTI_FN_MOD)) {
      /* Jim rounds toward minus infinity, C toward zero: when the remainder is not zero and
       * the signs differ, the quotient is one more and the remainder one divisor less (the
       * operands are evaluated twice) */
      g_autofree char *adjust = g_strdup_printf ("(((%s) %% (%s)) != 0 && ((%s) < 0) != ((%s) < 0))",
                                                 a->str, b->str, a->str, b->str);
      if (n->op == ORTI_FN_DIV)
        g_string_append_printf (out, "((%s) / (%s) + (%s ? 1 : 0))", a->str, b->str, adjust);
      else
        g_string_append_printf (out, "((%s) %% (%s) - (%s ? (%s) : 0))", a->str, b->str, adjust,
                                b->str);
    } else {
      g_string_append_printf (out, "((%s) %s (%s))", a->str, tcl_binary_op (n->op), b->str);
    }
    break;
  }
  case PN_COND:
    /* Jim evaluates ?: && || lazily, like C: reads in a branch not taken are not made */
    g_string_append (out, "((");
    tcl_node (plan, n->a, tgt, out);
    if (n->op == ORTI_FN_COND) {
      g_string_append (out, ") ? (");
      tcl_node (plan, n->b, tgt, out);
      g_string_append (out, ") : (");
      tcl_node (plan, n->c, tgt, out);
      g_string_append (out, "))");
    } else {
      g_string_append (out, n->op == ORTI_FN_LAND ? ") && (" : ") || (");
      tcl_node (plan, n->b, tgt, out);
      g_string_append (out, "))");
    }
    return; /* 0 or 1, or a branch already normalized to this node's type */
  }
  tcl_normalize (out, mark, n->width, n->is_signed);
}

/* orti_plan_to_tcl: see orti.h. */
char *
orti_plan_to_tcl (OrtiPlan *plan, const char *target)
{
  g_autofree char *tgt = target != NULL ? g_strdup_printf ("%s ", target) : g_strdup ("");
  GString *out = g_string_new (NULL);
  tcl_node (plan, plan->root, tgt, out);
  return g_string_free (out, FALSE);
}

void
orti_plan_free (OrtiPlan *plan)
{
  if (plan == NULL)
    return;
  g_clear_pointer (&plan->nodes, g_ptr_array_unref);
  g_clear_pointer (&plan->reads, g_array_unref);
  g_clear_pointer (&plan->folded, g_array_unref);
  g_clear_pointer (&plan->notes, g_ptr_array_unref);
  g_clear_pointer (&plan->enumerators, g_array_unref);
  if (plan->strings != NULL)
    g_string_chunk_free (plan->strings);
  g_free (plan->formula);
  g_free (plan);
}

const char *
orti_plan_get_formula (OrtiPlan *plan)
{
  return plan->formula;
}

guint
orti_plan_get_n_reads (OrtiPlan *plan)
{
  return plan->reads->len;
}

const OrtiPlanRead *
orti_plan_get_read (OrtiPlan *plan, guint index)
{
  g_return_val_if_fail (index < plan->reads->len, NULL);
  return &g_array_index (plan->reads, OrtiPlanRead, index);
}

guint
orti_plan_get_n_folded (OrtiPlan *plan)
{
  return plan->folded->len;
}

const OrtiPlanRead *
orti_plan_get_folded (OrtiPlan *plan, guint index)
{
  g_return_val_if_fail (index < plan->folded->len, NULL);
  return &g_array_index (plan->folded, OrtiPlanRead, index);
}

guint
orti_plan_get_n_notes (OrtiPlan *plan)
{
  return plan->notes->len;
}

const char *
orti_plan_get_note (OrtiPlan *plan, guint index)
{
  g_return_val_if_fail (index < plan->notes->len, NULL);
  return g_ptr_array_index (plan->notes, index);
}

guint
orti_plan_get_n_enumerators (OrtiPlan *plan)
{
  return plan->enumerators->len;
}

const OrtiEnumerator *
orti_plan_get_enumerator (OrtiPlan *plan, guint index)
{
  g_return_val_if_fail (index < plan->enumerators->len, NULL);
  return &g_array_index (plan->enumerators, OrtiEnumerator, index);
}

gboolean
orti_plan_is_simple_read (OrtiPlan *plan)
{
  return plan->root->kind == PN_READ && plan->root->a->kind == PN_CONST;
}

gboolean
orti_plan_is_constant (OrtiPlan *plan)
{
  return plan->reads->len == 0;
}

guint
orti_plan_get_width (OrtiPlan *plan)
{
  return plan->root->width;
}

gboolean
orti_plan_is_signed (OrtiPlan *plan)
{
  return plan->root->is_signed;
}

/* orti_plan_eval: see orti.h. The value is sign-extended when the plan is signed and
 * zero-extended otherwise. @read may be NULL for constant plans. */
gboolean
orti_plan_eval (OrtiPlan *plan, OrtiReadFunc read, gpointer user_data, gint64 *value,
                GError **error)
{
  guint64 v = 0;
  if (read == NULL && plan->reads->len > 0) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_READ, "\"%s\" reads memory but no reader was given",
                 plan->formula);
    return FALSE;
  }
  if (!orti_plan__eval_node (plan, plan->root, read, user_data, &v, error))
    return FALSE;
  *value = (gint64) v;
  return TRUE;
}

