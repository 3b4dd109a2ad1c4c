/* orti-plan.c — compiles an ORTI formula (orti-formula.y) into a read plan (orti.h section 3)
 * and evaluates it.
 *
 * Compiling resolves everything the target never changes: symbol addresses (for the chosen
 * core), DWARF types with typedef/const/volatile stripped, struct member offsets, array
 * strides, pointer and integer widths, signedness, enumerator constants. The result is a small
 * tree of plan nodes — constants, reads, C arithmetic at fixed widths — plus the list of reads
 * in the order evaluation makes them, each with its static address or the read its address
 * depends on. Evaluating walks that tree once per sample; nothing is looked up again, which is
 * what keeps OpenOCD polling cheap (TRAPS 16–17).
 *
 * C semantics kept: integer promotion to int, the usual arithmetic conversions, pointer
 * arithmetic scaled by the element size, array-to-pointer decay, short-circuit && || ?: (reads
 * in a branch not taken are not made and are flagged `conditional`), values wrapped to their
 * type's width. Simplifications, stated: `int` is 4 bytes; `long` and pointers take the ELF's
 * pointer size (4 without an ELF); plain `char` is signed; floating point and bit-fields are
 * rejected with a message.
 *
 * Symbols without DWARF type (assembler labels, stripped DWARF): an object symbol of ELF size
 * 1, 2, 4 or 8 reads as an *unsigned* integer of that size (the symbol table says nothing
 * about sign); any other size (0 for linker labels like __USTACK_CPU0_) can only have its
 * address taken (`&sym`, or a cast `*(int *)&sym`). Functions evaluate to their address.
 */
#include <string.h>

#include "orti-plan-private.h"

/* ---- compile-time C types ----------------------------------------------------------------- */

typedef enum { CT_INT, CT_PTR, CT_ARRAY, CT_STRUCT, CT_FUNC, CT_VOID, CT_UNSIZED, CT_FLOAT } CtKind;

typedef struct CType CType;
struct CType {
  CtKind kind;
  guint64 size;      /* bytes */
  gboolean is_signed;
  CType *target;     /* PTR, ARRAY: pointed-to / element type */
  Dwarf_Die die;     /* STRUCT: for member lookup; INT with is_enum: the enumeration type */
  gboolean is_enum;  /* INT: a C enum (its enumerators are the values the type names) */
};

typedef struct {
  OrtiPlan *plan;
  OrtiElf *elf;        /* may be NULL */
  int core;
  const char *text;    /* formula */
  guint ptr_size;      /* target pointer size */
  GPtrArray *types;    /* CType arena */
  guint conditional;   /* > 0 while compiling a branch that may be skipped */
  GError *error;       /* first error */
} Compiler;

/* An expression during compilation: a value, or an object in memory (its address). */
typedef struct {
  gboolean lvalue;    /* node computes the address of an object of @type */
  PNode *node;
  CType *type;
  const OrtiFNode *src;
} Operand;

static gboolean G_GNUC_PRINTF (4, 5)
fail (Compiler *c, const OrtiFNode *at, OrtiError code, const char *fmt, ...)
{
  if (c->error == NULL) {
    va_list ap;
    va_start (ap, fmt);
    g_autofree char *msg = g_strdup_vprintf (fmt, ap);
    va_end (ap);
    g_set_error (&c->error, ORTI_ERROR, code, "column %u: %s", at->start + 1, msg);
  }
  return FALSE;
}

static CType *
ctype_new (Compiler *c, CtKind kind, guint64 size, gboolean is_signed, CType *target)
{
  CType *t = g_new0 (CType, 1);
  t->kind = kind;
  t->size = size;
  t->is_signed = is_signed;
  t->target = target;
  g_ptr_array_add (c->types, t);
  return t;
}

static CType *
ctype_int (Compiler *c, guint size, gboolean is_signed)
{
  return ctype_new (c, CT_INT, size, is_signed, NULL);
}

static CType *
ctype_ptr (Compiler *c, CType *target)
{
  return ctype_new (c, CT_PTR, c->ptr_size, FALSE, target);
}

static guint64
die_udata (Dwarf_Die *die, int name, guint64 fallback)
{
  Dwarf_Attribute attr;
  Dwarf_Word w = 0;
  if (dwarf_attr_integrate (die, name, &attr) == NULL || dwarf_formudata (&attr, &w) != 0)
    return fallback;
  return w;
}

/* The C type of DWARF type @die (NULL: void), qualifiers and typedefs stripped. */
static CType *
ctype_from_die (Compiler *c, const OrtiFNode *at, Dwarf_Die *die_in, guint level)
{
  Dwarf_Die die;
  Dwarf_Attribute attr;

  if (die_in == NULL)
    return ctype_new (c, CT_VOID, 0, FALSE, NULL);
  die = *die_in;
  for (guint hops = 0;; hops++) {
    int tag = dwarf_tag (&die);
    if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
        tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
      break;
    if (hops > 64 || level > 64) {
      fail (c, at, ORTI_ERROR_ELF, "DWARF type chain too long");
      return NULL;
    }
    if (dwarf_formref_die (dwarf_attr_integrate (&die, DW_AT_type, &attr), &die) == NULL)
      return ctype_new (c, CT_VOID, 0, FALSE, NULL); /* const void */
  }

  switch (dwarf_tag (&die)) {
  case DW_TAG_base_type: {
    guint64 size = die_udata (&die, DW_AT_byte_size, 0);
    switch (die_udata (&die, DW_AT_encoding, 0)) {
    case DW_ATE_signed:
    case DW_ATE_signed_char:
      return ctype_int (c, (guint) size, TRUE);
    case DW_ATE_unsigned:
    case DW_ATE_unsigned_char:
    case DW_ATE_boolean:
      return ctype_int (c, (guint) size, FALSE);
    default:
      return ctype_new (c, CT_FLOAT, size, TRUE, NULL);
    }
  }
  case DW_TAG_enumeration_type: {
    guint64 size = die_udata (&die, DW_AT_byte_size, 4);
    gboolean is_signed = FALSE;
    Dwarf_Die under, child;
    if (dwarf_formref_die (dwarf_attr_integrate (&die, DW_AT_type, &attr), &under) != NULL) {
      CType *u = ctype_from_die (c, at, &under, level + 1);
      if (u == NULL)
        return NULL;
      is_signed = u->is_signed;
    } else if (dwarf_child (&die, &child) == 0) {
      do {
        Dwarf_Sword v = 0;
        if (dwarf_attr (&child, DW_AT_const_value, &attr) != NULL &&
            dwarf_whatform (&attr) == DW_FORM_sdata && dwarf_formsdata (&attr, &v) == 0 && v < 0)
          is_signed = TRUE;
      } while (dwarf_siblingof (&child, &child) == 0);
    }
    CType *t = ctype_int (c, (guint) size, is_signed);
    t->is_enum = TRUE;
    t->die = die;
    return t;
  }
  case DW_TAG_pointer_type:
  case DW_TAG_reference_type: {
    Dwarf_Die target;
    CType *t;
    if (level > 64) {
      fail (c, at, ORTI_ERROR_ELF, "DWARF type nested too deeply");
      return NULL;
    }
    if (dwarf_formref_die (dwarf_attr_integrate (&die, DW_AT_type, &attr), &target) != NULL)
      t = ctype_from_die (c, at, &target, level + 1);
    else
      t = ctype_new (c, CT_VOID, 0, FALSE, NULL);
    if (t == NULL)
      return NULL;
    CType *p = ctype_ptr (c, t);
    p->size = die_udata (&die, DW_AT_byte_size, c->ptr_size);
    return p;
  }
  case DW_TAG_array_type: {
    Dwarf_Die elem, child;
    guint64 counts[16];
    guint n = 0;
    if (dwarf_formref_die (dwarf_attr_integrate (&die, DW_AT_type, &attr), &elem) == NULL) {
      fail (c, at, ORTI_ERROR_ELF, "DWARF array without element type");
      return NULL;
    }
    CType *t = ctype_from_die (c, at, &elem, level + 1);
    if (t == NULL)
      return NULL;
    if (dwarf_child (&die, &child) == 0) {
      do {
        if (dwarf_tag (&child) != DW_TAG_subrange_type || n == G_N_ELEMENTS (counts))
          continue;
        guint64 count = die_udata (&child, DW_AT_count, G_MAXUINT64);
        if (count == G_MAXUINT64) {
          guint64 upper = die_udata (&child, DW_AT_upper_bound, G_MAXUINT64);
          count = upper == G_MAXUINT64 ? 0 : upper + 1 - die_udata (&child, DW_AT_lower_bound, 0);
        }
        counts[n++] = count;
      } while (dwarf_siblingof (&child, &child) == 0);
    }
    if (n == 0)
      counts[n++] = 0;
    while (n > 0) {
      guint64 count = counts[--n];
      t = ctype_new (c, CT_ARRAY, count * t->size, FALSE, t);
    }
    return t;
  }
  case DW_TAG_structure_type:
  case DW_TAG_union_type:
  case DW_TAG_class_type: {
    CType *t = ctype_new (c, CT_STRUCT, die_udata (&die, DW_AT_byte_size, 0), FALSE, NULL);
    t->die = die;
    return t;
  }
  case DW_TAG_subroutine_type:
    return ctype_new (c, CT_FUNC, 1, FALSE, NULL);
  default:
    fail (c, at, ORTI_ERROR_ELF, "unsupported DWARF type (tag 0x%x)", dwarf_tag (&die));
    return NULL;
  }
}

/* Finds member @name of the struct/union @die (searching anonymous members). */
static gboolean
find_member (Compiler *c, const OrtiFNode *at, Dwarf_Die *sdie, const char *name, guint level,
             guint64 *offset, CType **type)
{
  Dwarf_Die child;
  if (level > 16 || dwarf_child (sdie, &child) != 0)
    return FALSE;
  do {
    if (dwarf_tag (&child) != DW_TAG_member)
      continue;
    const char *mname = dwarf_diename (&child);
    guint64 off = 0;
    Dwarf_Attribute attr;
    Dwarf_Die mtype;
    if (dwarf_attr (&child, DW_AT_data_member_location, &attr) != NULL) {
      Dwarf_Word w = 0;
      Dwarf_Op *ops = NULL;
      size_t nops = 0;
      if (dwarf_formudata (&attr, &w) == 0)
        off = w;
      else if (dwarf_getlocation (&attr, &ops, &nops) == 0 && nops == 1 &&
               ops[0].atom == DW_OP_plus_uconst)
        off = ops[0].number;
      else
        continue;
    }
    if (dwarf_formref_die (dwarf_attr_integrate (&child, DW_AT_type, &attr), &mtype) == NULL)
      continue;
    if (mname != NULL && strcmp (mname, name) == 0) {
      if (dwarf_hasattr (&child, DW_AT_bit_size)) {
        fail (c, at, ORTI_ERROR_FORMULA, "member '%s' is a bit-field (not supported)", name);
        return FALSE;
      }
      *offset = off;
      *type = ctype_from_die (c, at, &mtype, 0);
      return *type != NULL;
    }
    if (mname == NULL) {
      CType *anon = ctype_from_die (c, at, &mtype, 0);
      guint64 inner = 0;
      if (anon != NULL && anon->kind == CT_STRUCT &&
          find_member (c, at, &anon->die, name, level + 1, &inner, type)) {
        *offset = off + inner;
        return TRUE;
      }
    }
  } while (dwarf_siblingof (&child, &child) == 0);
  return FALSE;
}

/* ---- plan nodes ----------------------------------------------------------------------------- */


static PNode *
pnode (Compiler *c, PnKind kind, guint width, gboolean is_signed)
{
  PNode *n = g_new0 (PNode, 1);
  n->kind = kind;
  n->width = width;
  n->is_signed = is_signed;
  n->read = -1;
  n->last_read = -1;
  g_ptr_array_add (c->plan->nodes, n);
  return n;
}

static PNode *
pconst (Compiler *c, guint64 v, guint width, gboolean is_signed)
{
  PNode *n = pnode (c, PN_CONST, width, is_signed);
  n->value = orti_plan__normalize (v, width, is_signed);
  return n;
}

static void
set_children (PNode *n, PNode *a, PNode *b, PNode *d)
{
  n->a = a;
  n->b = b;
  n->c = d;
  if (a != NULL) n->last_read = MAX (n->last_read, a->last_read);
  if (b != NULL) n->last_read = MAX (n->last_read, b->last_read);
  if (d != NULL) n->last_read = MAX (n->last_read, d->last_read);
}

/* Evaluates a read-free node now (constant folding); FALSE leaves it for run time. */
static PNode *
fold (Compiler *c, PNode *n)
{
  guint64 v = 0;
  if (n->last_read >= 0 || n->kind == PN_CONST)
    return n;
  /* a division by zero folds to nothing: it stays and fails at evaluation */
  if (!orti_plan__eval_node (c->plan, n, NULL, NULL, &v, NULL))
    return n;
  return pconst (c, v, n->width, n->is_signed);
}

static PNode *
pconvert (Compiler *c, PNode *a, guint width, gboolean is_signed)
{
  if (a->width == width && a->is_signed == is_signed)
    return a;
  PNode *n = pnode (c, PN_CONVERT, width, is_signed);
  set_children (n, a, NULL, NULL);
  return fold (c, n);
}

static PNode *
pbinary (Compiler *c, OrtiFOp op, PNode *a, PNode *b, guint width, gboolean is_signed,
         gboolean op_signed)
{
  PNode *n = pnode (c, PN_BINARY, width, is_signed);
  n->op = op;
  n->op_signed = op_signed;
  set_children (n, a, b, NULL);
  return fold (c, n);
}

/* Address arithmetic: @base + @index * @stride at pointer width. */
static PNode *
paddress (Compiler *c, PNode *base, PNode *index, guint64 stride)
{
  PNode *scaled = pbinary (c, ORTI_FN_MUL, pconvert (c, index, 8, index->is_signed),
                           pconst (c, stride, 8, FALSE), 8, FALSE, FALSE);
  return pbinary (c, ORTI_FN_ADD, pconvert (c, base, 8, FALSE), scaled, c->ptr_size, FALSE,
                  FALSE);
}

/* ---- compiling ------------------------------------------------------------------------------ */

static gboolean compile (Compiler *c, const OrtiFNode *f, Operand *out);

static char *
source_text (Compiler *c, const OrtiFNode *f)
{
  return g_strndup (c->text + f->start, f->end - f->start);
}

/* Turns @op into a value: reads scalars, decays arrays and functions to addresses. */
static gboolean
rvalue (Compiler *c, Operand *op)
{
  if (!op->lvalue)
    return TRUE;
  switch (op->type->kind) {
  case CT_ARRAY:
    op->type = ctype_ptr (c, op->type->target);
    op->lvalue = FALSE;
    return TRUE;
  case CT_FUNC:
    op->type = ctype_ptr (c, op->type);
    op->lvalue = FALSE;
    return TRUE;
  case CT_STRUCT: {
    g_autofree char *what = source_text (c, op->src);
    return fail (c, op->src, ORTI_ERROR_FORMULA, "'%s' is a struct or union: name a member", what);
  }
  case CT_VOID:
  case CT_UNSIZED: {
    g_autofree char *what = source_text (c, op->src);
    return fail (c, op->src, ORTI_ERROR_SYMBOL,
                 "'%s' has no type to read (no DWARF type, ELF size %" G_GUINT64_FORMAT
                 "): take its address or cast, e.g. *(unsigned int *)&%s",
                 what, op->type->size, what);
  }
  case CT_FLOAT: {
    g_autofree char *what = source_text (c, op->src);
    return fail (c, op->src, ORTI_ERROR_FORMULA, "'%s' is floating point (not supported)", what);
  }
  case CT_INT:
  case CT_PTR:
    break;
  }
  guint width = (guint) op->type->size;
  if (width != 1 && width != 2 && width != 4 && width != 8) {
    g_autofree char *what = source_text (c, op->src);
    return fail (c, op->src, ORTI_ERROR_FORMULA, "'%s' is %u bytes wide (reads are 1, 2, 4 or 8)",
                 what, width);
  }
  OrtiPlanRead r = { 0 };
  r.width = width;
  r.is_signed = op->type->kind == CT_INT && op->type->is_signed;
  r.depends_on = op->node->last_read;
  r.address = op->node->kind == PN_CONST ? op->node->value : 0;
  r.conditional = c->conditional > 0;
  g_autofree char *what = source_text (c, op->src);
  r.what = g_string_chunk_insert (c->plan->strings, what);

  /* Memory the program cannot change (a pointer table in flash: EB's OS_kernel_ptr[],
   * constant task tables) reads the same on the target as in the ELF: read it now. */
  guint8 bytes[8];
  if (op->node->kind == PN_CONST && c->elf != NULL &&
      orti_elf_is_readonly (c->elf, r.address, width) &&
      orti_elf_read_initial (r.address, width, bytes, c->elf, NULL)) {
    guint64 v = 0;
    for (guint i = 0; i < width; i++)
      v = (v << 8) | bytes[c->plan->big_endian ? i : width - 1 - i];
    g_array_append_val (c->plan->folded, r);
    op->node = pconst (c, orti_plan__normalize (v, width, r.is_signed), width, r.is_signed);
    op->lvalue = FALSE;
    return TRUE;
  }
  g_array_append_val (c->plan->reads, r);

  PNode *n = pnode (c, PN_READ, width, r.is_signed);
  set_children (n, op->node, NULL, NULL);
  n->read = (int) c->plan->reads->len - 1;
  n->last_read = n->read;
  op->node = n;
  op->lvalue = FALSE;
  return TRUE;
}

/* A value usable in integer arithmetic: pointers count as unsigned integers. */
static gboolean
arith (Compiler *c, Operand *op)
{
  if (!rvalue (c, op))
    return FALSE;
  if (op->type->kind == CT_PTR)
    op->type = ctype_int (c, (guint) op->type->size, FALSE);
  return TRUE;
}

/* Integer promotion: anything narrower than int becomes int. */
static void
promote (Compiler *c, Operand *op)
{
  if (op->type->size < 4) {
    op->type = ctype_int (c, 4, TRUE);
    op->node = pconvert (c, op->node, 4, TRUE);
  }
}

/* The usual arithmetic conversions on two promoted integers. */
static CType *
common_type (Compiler *c, CType *a, CType *b)
{
  if (a->is_signed == b->is_signed)
    return a->size >= b->size ? a : b;
  CType *u = a->is_signed ? b : a;
  CType *s = a->is_signed ? a : b;
  if (u->size >= s->size)
    return u;
  return s;
}

static gboolean
convert_to (Compiler *c, Operand *op, CType *t)
{
  op->node = pconvert (c, op->node, (guint) t->size, t->kind == CT_INT && t->is_signed);
  op->type = t;
  return TRUE;
}

static gboolean
compile_ident (Compiler *c, const OrtiFNode *f, Operand *out)
{
  out->src = f;
  out->lvalue = FALSE;
  if (c->elf != NULL && orti_elf_lookup_symbols (c->elf, f->name)->len > 0) {
    GError *err = NULL;
    const OrtiSymbol *sym = orti_elf_lookup_symbol (c->elf, f->name, c->core, &err);
    if (sym == NULL) {
      if (c->error == NULL)
        g_set_error (&c->error, ORTI_ERROR, err->code, "column %u: %s", f->start + 1,
                     err->message);
      g_error_free (err);
      return FALSE;
    }
    out->lvalue = TRUE;
    out->node = pconst (c, sym->address, c->ptr_size, FALSE);
    if (sym->is_function) {
      out->type = ctype_new (c, CT_FUNC, 1, FALSE, NULL);
      return TRUE;
    }
    Dwarf_Die die;
    if (orti_elf__variable_type (c->elf, sym, &die)) {
      out->type = ctype_from_die (c, f, &die, 0);
      return out->type != NULL;
    }
    if (sym->size == 1 || sym->size == 2 || sym->size == 4 || sym->size == 8)
      out->type = ctype_int (c, (guint) sym->size, FALSE);
    else
      out->type = ctype_new (c, CT_UNSIZED, sym->size, FALSE, NULL);
    return TRUE;
  }
  gint64 value = 0;
  if (c->elf != NULL && orti_elf__lookup_enumerator (c->elf, f->name, &value)) {
    gboolean fits = value >= G_MININT32 && value <= G_MAXINT32;
    out->type = ctype_int (c, fits ? 4 : 8, TRUE);
    out->node = pconst (c, (guint64) value, fits ? 4 : 8, TRUE);
    return TRUE;
  }
  if (c->elf == NULL)
    return fail (c, f, ORTI_ERROR_SYMBOL, "symbol '%s' needs an ELF file", f->name);
  return fail (c, f, ORTI_ERROR_SYMBOL, "symbol '%s' is not in %s", f->name,
               orti_elf_get_path (c->elf));
}

/* The C type named in a cast or sizeof. */
static CType *
ctype_from_name (Compiler *c, const OrtiFNode *at, const OrtiFType *ft)
{
  CType *t = NULL;
  guint n_kw = ft->n_char + ft->n_short + ft->n_int + ft->n_long + ft->n_void + ft->n_bool +
               ft->n_float + ft->n_double + ft->n_signed + ft->n_unsigned;
  if (ft->name != NULL) {
    g_autofree char *key =
      ft->tag != NULL ? g_strconcat (ft->tag, " ", ft->name, NULL) : g_strdup (ft->name);
    Dwarf_Die die;
    if (n_kw > 0) {
      fail (c, at, ORTI_ERROR_FORMULA, "type '%s' combined with basic type keywords", key);
      return NULL;
    }
    if (c->elf == NULL || !orti_elf__lookup_type (c->elf, key, &die)) {
      fail (c, at, ORTI_ERROR_SYMBOL, "type '%s' is not in the ELF's DWARF", key);
      return NULL;
    }
    t = ctype_from_die (c, at, &die, 0);
    if (t == NULL)
      return NULL;
  } else if (ft->n_float > 0 || ft->n_double > 0) {
    fail (c, at, ORTI_ERROR_FORMULA, "floating-point types are not supported");
    return NULL;
  } else if (ft->n_void > 0) {
    t = ctype_new (c, CT_VOID, 0, FALSE, NULL);
  } else if (ft->n_bool > 0) {
    t = ctype_int (c, 1, FALSE);
  } else {
    guint size = 4;
    if (ft->n_char > 0)
      size = 1;
    else if (ft->n_short > 0)
      size = 2;
    else if (ft->n_long >= 2)
      size = 8;
    else if (ft->n_long == 1)
      size = c->ptr_size;
    if (n_kw == 0) {
      fail (c, at, ORTI_ERROR_FORMULA, "cast without a type");
      return NULL;
    }
    t = ctype_int (c, size, ft->n_unsigned == 0);
  }
  for (guint i = 0; i < ft->n_ptr; i++)
    t = ctype_ptr (c, t);
  return t;
}

/* Compiles both operands of a binary node to values. */
static gboolean
compile_pair (Compiler *c, const OrtiFNode *f, Operand *a, Operand *b)
{
  return compile (c, f->a, a) && compile (c, f->b, b) && rvalue (c, a) && rvalue (c, b);
}

static gboolean
is_scalar (const CType *t)
{
  return t->kind == CT_INT || t->kind == CT_PTR;
}

static gboolean
compile_binary (Compiler *c, const OrtiFNode *f, Operand *out)
{
  Operand a = { 0 }, b = { 0 };
  if (!compile_pair (c, f, &a, &b))
    return FALSE;
  if (!is_scalar (a.type) || !is_scalar (b.type))
    return fail (c, f, ORTI_ERROR_FORMULA, "operands must be numbers or pointers");

  /* pointer arithmetic */
  if ((f->op == ORTI_FN_ADD || f->op == ORTI_FN_SUB) &&
      (a.type->kind == CT_PTR || b.type->kind == CT_PTR)) {
    if (f->op == ORTI_FN_ADD && b.type->kind == CT_PTR && a.type->kind != CT_PTR) {
      Operand t = a;
      a = b;
      b = t;
    }
    guint64 stride = a.type->target != NULL ? a.type->target->size : 0;
    if (a.type->kind == CT_PTR && b.type->kind == CT_PTR) {
      if (f->op != ORTI_FN_SUB)
        return fail (c, f, ORTI_ERROR_FORMULA, "cannot add two pointers");
      PNode *diff = pbinary (c, ORTI_FN_SUB, pconvert (c, a.node, 8, FALSE),
                             pconvert (c, b.node, 8, FALSE), 8, TRUE, TRUE);
      out->node = pbinary (c, ORTI_FN_DIV, diff, pconst (c, stride > 0 ? stride : 1, 8, TRUE),
                           c->ptr_size, TRUE, TRUE);
      out->type = ctype_int (c, c->ptr_size, TRUE);
      out->lvalue = FALSE;
      out->src = f;
      return TRUE;
    }
    if (a.type->kind != CT_PTR)
      return fail (c, f, ORTI_ERROR_FORMULA, "cannot subtract a pointer from a number");
    if (stride == 0)
      return fail (c, f, ORTI_ERROR_FORMULA, "arithmetic on a pointer to an object of unknown size");
    PNode *index = b.node;
    if (f->op == ORTI_FN_SUB)
      index = pbinary (c, ORTI_FN_SUB, pconst (c, 0, 8, TRUE), pconvert (c, index, 8, TRUE), 8,
                       TRUE, TRUE);
    out->node = paddress (c, a.node, index, stride);
    out->type = a.type;
    out->lvalue = FALSE;
    out->src = f;
    return TRUE;
  }

  if (!arith (c, &a) || !arith (c, &b))
    return FALSE;
  promote (c, &a);
  promote (c, &b);
  CType *t;
  if (f->op == ORTI_FN_SHL || f->op == ORTI_FN_SHR) {
    t = a.type; /* shifts take the left operand's type */
    b.node = pconvert (c, b.node, 8, b.type->is_signed);
  } else {
    t = common_type (c, a.type, b.type);
    convert_to (c, &a, t);
    convert_to (c, &b, t);
  }
  gboolean cmp = f->op >= ORTI_FN_LT && f->op <= ORTI_FN_NE;
  out->type = cmp ? ctype_int (c, 4, TRUE) : t;
  out->node = pbinary (c, f->op, a.node, b.node, (guint) out->type->size, out->type->is_signed,
                       t->is_signed);
  out->lvalue = FALSE;
  out->src = f;
  return TRUE;
}

/* Compiles @f with reads marked conditional. */
static gboolean
compile_branch (Compiler *c, const OrtiFNode *f, Operand *out)
{
  c->conditional++;
  gboolean ok = compile (c, f, out) && rvalue (c, out);
  c->conditional--;
  return ok;
}

static gboolean
compile_logic (Compiler *c, const OrtiFNode *f, Operand *out)
{
  Operand a = { 0 }, b = { 0 }, d = { 0 };
  if (!compile (c, f->a, &a) || !rvalue (c, &a))
    return FALSE;
  if (!is_scalar (a.type))
    return fail (c, f->a, ORTI_ERROR_FORMULA, "condition must be a number or pointer");
  if (!compile_branch (c, f->b, &b))
    return FALSE;
  if (f->op == ORTI_FN_COND) {
    if (!compile_branch (c, f->c, &d))
      return FALSE;
    if (!is_scalar (b.type) || !is_scalar (d.type))
      return fail (c, f, ORTI_ERROR_FORMULA, "'?:' branches must be numbers or pointers");
    if (b.type->kind == CT_PTR && d.type->kind == CT_PTR) {
      out->type = b.type;
    } else if (b.type->kind == CT_PTR || d.type->kind == CT_PTR) {
      out->type = b.type->kind == CT_PTR ? b.type : d.type;
    } else {
      promote (c, &b);
      promote (c, &d);
      out->type = common_type (c, b.type, d.type);
    }
    convert_to (c, &b, out->type);
    convert_to (c, &d, out->type);
  } else {
    if (!is_scalar (b.type))
      return fail (c, f->b, ORTI_ERROR_FORMULA, "operand must be a number or pointer");
    out->type = ctype_int (c, 4, TRUE);
  }
  PNode *n = pnode (c, PN_COND, (guint) out->type->size,
                    out->type->kind == CT_INT && out->type->is_signed);
  n->op = f->op;
  set_children (n, a.node, b.node, f->op == ORTI_FN_COND ? d.node : NULL);
  out->node = fold (c, n);
  out->lvalue = FALSE;
  out->src = f;
  return TRUE;
}

static gboolean
compile (Compiler *c, const OrtiFNode *f, Operand *out)
{
  Operand a = { 0 }, b = { 0 };
  out->src = f;
  out->lvalue = FALSE;

  switch (f->op) {
  case ORTI_FN_NUMBER: {
    guint width = f->num_width;
    if (f->num_long && c->ptr_size > width)
      width = c->ptr_size;
    out->type = ctype_int (c, width, !f->num_unsigned);
    out->node = pconst (c, f->num, width, !f->num_unsigned);
    return TRUE;
  }
  case ORTI_FN_IDENT:
    return compile_ident (c, f, out);

  case ORTI_FN_INDEX:
    if (!compile_pair (c, f, &a, &b))
      return FALSE;
    if (b.type->kind == CT_PTR && a.type->kind == CT_INT) {
      Operand t = a;
      a = b;
      b = t;
    }
    if (a.type->kind != CT_PTR || b.type->kind != CT_INT) {
      g_autofree char *what = source_text (c, f->a);
      return fail (c, f, ORTI_ERROR_FORMULA, "'%s' is not an array or pointer", what);
    }
    if (a.type->target->size == 0 || a.type->target->kind == CT_VOID) {
      g_autofree char *what = source_text (c, f->a);
      return fail (c, f, ORTI_ERROR_FORMULA, "cannot index '%s': element size unknown", what);
    }
    out->node = paddress (c, a.node, b.node, a.type->target->size);
    out->type = a.type->target;
    out->lvalue = TRUE;
    return TRUE;

  case ORTI_FN_MEMBER:
  case ORTI_FN_ARROW: {
    if (!compile (c, f->a, &a))
      return FALSE;
    CType *st;
    if (f->op == ORTI_FN_MEMBER && a.type->kind == CT_PTR && a.type->target->kind == CT_STRUCT) {
      /* `.` on a pointer to a struct: real generators write `table[N].field` on tables of
       * pointers (Trampoline's tpl_dyn_proc_table); GDB reads through the pointer, so do we,
       * and say so */
      g_autofree char *what = source_text (c, f->a);
      g_ptr_array_add (c->plan->notes,
                       g_strdup_printf ("column %u: '%s' is a pointer: '.%s' reads through it "
                                        "as GDB does (C would need '->')", f->start + 1, what,
                                        f->name));
      if (!rvalue (c, &a))
        return FALSE;
      st = a.type->target;
    } else if (f->op == ORTI_FN_ARROW) {
      if (a.lvalue && a.type->kind == CT_STRUCT) {
        g_autofree char *what = source_text (c, f->a);
        return fail (c, f, ORTI_ERROR_FORMULA, "'%s' is not a pointer to a struct (it is a "
                     "struct: use '.')", what);
      }
      if (!rvalue (c, &a))
        return FALSE;
      if (a.type->kind != CT_PTR || a.type->target->kind != CT_STRUCT) {
        g_autofree char *what = source_text (c, f->a);
        return fail (c, f, ORTI_ERROR_FORMULA, "'%s' is not a pointer to a struct", what);
      }
      st = a.type->target;
    } else {
      if (!a.lvalue || a.type->kind != CT_STRUCT) {
        g_autofree char *what = source_text (c, f->a);
        return fail (c, f, ORTI_ERROR_FORMULA, "'%s' is not a struct or union", what);
      }
      st = a.type;
    }
    guint64 off = 0;
    CType *mt = NULL;
    if (!find_member (c, f, &st->die, f->name, 0, &off, &mt)) {
      g_autofree char *what = source_text (c, f->a);
      return fail (c, f, ORTI_ERROR_SYMBOL, "'%s' has no member '%s'", what, f->name);
    }
    out->node = paddress (c, a.node, pconst (c, off, 8, FALSE), 1);
    out->type = mt;
    out->lvalue = TRUE;
    return TRUE;
  }

  case ORTI_FN_ADDR:
    if (!compile (c, f->a, &a))
      return FALSE;
    if (!a.lvalue) {
      g_autofree char *what = source_text (c, f->a);
      return fail (c, f, ORTI_ERROR_FORMULA, "cannot take the address of '%s'", what);
    }
    out->node = a.node;
    out->type = ctype_ptr (c, a.type);
    return TRUE;

  case ORTI_FN_DEREF:
    if (!compile (c, f->a, &a) || !rvalue (c, &a))
      return FALSE;
    if (a.type->kind != CT_PTR) {
      g_autofree char *what = source_text (c, f->a);
      return fail (c, f, ORTI_ERROR_FORMULA, "'%s' is not a pointer", what);
    }
    if (a.type->target->kind == CT_VOID)
      return fail (c, f, ORTI_ERROR_FORMULA, "dereferencing a void pointer");
    out->node = a.node;
    out->type = a.type->target;
    out->lvalue = TRUE;
    return TRUE;

  case ORTI_FN_NEG:
  case ORTI_FN_PLUS:
  case ORTI_FN_BITNOT:
  case ORTI_FN_NOT:
    if (!compile (c, f->a, &a) || !rvalue (c, &a))
      return FALSE;
    if (!is_scalar (a.type))
      return fail (c, f, ORTI_ERROR_FORMULA, "operand must be a number or pointer");
    if (!arith (c, &a))
      return FALSE;
    promote (c, &a);
    out->type = f->op == ORTI_FN_NOT ? ctype_int (c, 4, TRUE) : a.type;
    if (f->op == ORTI_FN_PLUS) {
      out->node = a.node;
    } else {
      PNode *n = pnode (c, PN_UNARY, (guint) out->type->size, out->type->is_signed);
      n->op = f->op;
      set_children (n, a.node, NULL, NULL);
      out->node = fold (c, n);
    }
    return TRUE;

  case ORTI_FN_CAST: {
    CType *t = ctype_from_name (c, f, f->type);
    if (t == NULL || !compile (c, f->a, &a) || !rvalue (c, &a))
      return FALSE;
    if (!is_scalar (t))
      return fail (c, f, ORTI_ERROR_FORMULA, "can only cast to a number or pointer type");
    if (!is_scalar (a.type))
      return fail (c, f, ORTI_ERROR_FORMULA, "can only cast numbers and pointers");
    if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
      return fail (c, f, ORTI_ERROR_FORMULA, "cast to a %" G_GUINT64_FORMAT "-byte type",
                   t->size);
    out->node = pconvert (c, a.node, (guint) t->size, t->kind == CT_INT && t->is_signed);
    out->type = t;
    return TRUE;
  }

  case ORTI_FN_SIZEOF_TYPE:
  case ORTI_FN_SIZEOF_EXPR: {
    CType *t;
    if (f->op == ORTI_FN_SIZEOF_TYPE) {
      t = ctype_from_name (c, f, f->type);
    } else {
      guint n_reads = c->plan->reads->len;
      if (!compile (c, f->a, &a))
        return FALSE;
      g_array_set_size (c->plan->reads, n_reads); /* sizeof does not evaluate */
      t = a.type;
    }
    if (t == NULL)
      return FALSE;
    out->type = ctype_int (c, c->ptr_size, FALSE);
    out->node = pconst (c, t->size, c->ptr_size, FALSE);
    return TRUE;
  }

  case ORTI_FN_LAND:
  case ORTI_FN_LOR:
  case ORTI_FN_COND:
    return compile_logic (c, f, out);

  default:
    return compile_binary (c, f, out);
  }
}

/* ---- public API ----------------------------------------------------------------------------- */

static gboolean
plan_is_type (const char *name, gpointer user_data)
{
  return orti_elf__is_type_name (user_data, name);
}

/* The enumerators of DWARF enumeration type @die, in declaration order, into plan->enumerators
 * (a duplicate value keeps its first name). */
static void
collect_enumerators (OrtiPlan *plan, Dwarf_Die *die)
{
  Dwarf_Die child;
  if (dwarf_child (die, &child) != 0)
    return;
  do {
    Dwarf_Attribute attr;
    const char *name = dwarf_diename (&child);
    if (dwarf_tag (&child) != DW_TAG_enumerator || name == NULL ||
        dwarf_attr (&child, DW_AT_const_value, &attr) == NULL)
      continue;
    OrtiEnumerator e = { 0 };
    Dwarf_Sword sv = 0;
    Dwarf_Word uv = 0;
    if (dwarf_whatform (&attr) == DW_FORM_sdata && dwarf_formsdata (&attr, &sv) == 0)
      e.value = sv;
    else if (dwarf_formudata (&attr, &uv) == 0)
      e.value = (gint64) uv;
    else
      continue;
    e.name = g_string_chunk_insert_const (plan->strings, name);
    g_array_append_val (plan->enumerators, e);
  } while (dwarf_siblingof (&child, &child) == 0);
}

/* orti_plan_compile: see orti.h. */
OrtiPlan *
orti_plan_compile (const char *formula, OrtiElf *elf, int core, GError **error)
{
  g_return_val_if_fail (formula != NULL, NULL);

  g_autoptr (OrtiFTree) tree =
    orti_formula_parse (formula, elf != NULL ? plan_is_type : NULL, elf, error);
  if (tree == NULL)
    return NULL;

  g_autoptr (OrtiPlan) plan = g_new0 (OrtiPlan, 1);
  plan->formula = g_strdup (formula);
  plan->reads = g_array_new (FALSE, TRUE, sizeof (OrtiPlanRead));
  plan->folded = g_array_new (FALSE, TRUE, sizeof (OrtiPlanRead));
  plan->strings = g_string_chunk_new (128);
  plan->nodes = g_ptr_array_new_with_free_func (g_free);
  plan->big_endian = elf != NULL && orti_elf_is_big_endian (elf);
  plan->notes = g_ptr_array_new_with_free_func (g_free);
  plan->enumerators = g_array_new (FALSE, TRUE, sizeof (OrtiEnumerator));

  g_autoptr (GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
  Compiler c = {
    .plan = plan,
    .elf = elf,
    .core = core,
    .text = formula,
    .ptr_size = elf != NULL ? orti_elf_get_pointer_size (elf) : 4,
    .types = types,
  };
  Operand out = { 0 };
  if (!compile (&c, tree->root, &out) || !rvalue (&c, &out) ||
      (!is_scalar (out.type) &&
       !fail (&c, tree->root, ORTI_ERROR_FORMULA, "the formula's value is not a number"))) {
    g_propagate_error (error, c.error);
    return NULL;
  }
  plan->root = out.node;
  if (out.type->kind == CT_INT && out.type->is_enum)
    collect_enumerators (plan, &out.type->die);
  return g_steal_pointer (&plan);
}

