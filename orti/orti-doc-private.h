/* orti-doc-private.h — internals of the ORTI document (orti.h section 1) shared by the flex
 * scanner (orti-lexer.l), the bison parser (orti-parser.y) and the model (orti-doc.c).
 *
 * The parser writes straight into the model through the orti_doc__* builder functions below;
 * nothing is kept in globals. Text lives in one GStringChunk per document (names interned,
 * formulas appended), so a 10 MB file costs a few allocations per object, not per token.
 */
#pragma once

#include "orti.h"

G_BEGIN_DECLS

#define ORTI_DOC_MAX_TOKEN (64 * 1024)  /* longest string or word accepted, in bytes */
#define ORTI_DOC_MAX_ERRORS 100         /* parsing stops after this many errors */
#define ORTI_DOC_MAX_WARNINGS 1000      /* further warnings are counted, not stored */

/* A piece of text: points into the scan buffer or into the document's string chunk. Not NUL
 * terminated. */
typedef struct {
  const char *p; /* first byte */
  gsize len;     /* length in bytes */
} OrtiSlice;

/* Key of a definition: interned attribute name and index. */
typedef struct {
  const char *name; /* attribute name */
  int index;        /* -1 for scalar */
} OrtiDefKey;

/* One `ATTR[index] = formula;` of an object. */
typedef struct {
  const char *name;    /* interned attribute name */
  const char *formula; /* value text, quotes removed */
  int index;           /* -1 for a scalar definition */
  OrtiLocation loc;    /* of the attribute name */
  OrtiLocation value_loc; /* of the formula's first character when the text maps 1:1 onto the
                           * file (orti_object_get_formula_location), else file NULL */
} OrtiAttrDef;

struct _OrtiDecl {
  const char *name;        /* attribute name (interned) */
  OrtiAttrKind kind;       /* CTYPE, ENUM or STRING */
  const char *ctype;       /* C type hint, or NULL */
  const char *description; /* or NULL */
  gboolean is_array;       /* declared `ATTR[]` */
  gboolean totrace;        /* declared TOTRACE */
  GPtrArray *elements;     /* OrtiEnumElement* (g_free), NULL when not ENUM */
  OrtiLocation loc;        /* of the attribute name */
};

struct _OrtiObject {
  const char *type;     /* object type (interned) */
  const char *name;     /* object name */
  OrtiLocation loc;     /* of the object type word */
  GArray *defs;         /* OrtiAttrDef, file order */
  GHashTable *def_pos;  /* OrtiDefKey* → position in defs + 1; only for objects with many defs */
  GPtrArray *attr_names;/* built on first orti_object_get_attr_names() call */
};

/* An object type: its declarations and its objects. */
typedef struct {
  const char *name;        /* interned */
  gboolean declared;       /* has a declaration_spec in IMPLEMENTATION */
  OrtiLocation loc;        /* of the first declaration_spec (or first object) */
  GPtrArray *decls;        /* OrtiDecl* (owned), file order */
  GHashTable *decl_by_name;/* name → OrtiDecl* */
  GPtrArray *objects;      /* OrtiObject* (owned), file order */
  GHashTable *obj_by_name; /* name → first OrtiObject* of that name */
} OrtiType;

/* An ENUM list while it is being parsed (a bison semantic value with a %destructor). */
typedef struct {
  GPtrArray *elements;     /* OrtiEnumElement* (g_free) */
  gboolean last_was_comma; /* the list so far ends with ',' */
  OrtiLocation comma_loc;  /* where that ',' is */
} OrtiEnumList;

/* The scanner's and parser's state (flex "extra"). */
typedef struct {
  OrtiDoc *doc;
  guint line;            /* position of the next byte */
  guint column;
  gboolean stop;         /* too many errors: the scanner returns end of file */
  gboolean have_version; /* sections seen */
  gboolean have_impl;
  OrtiType *cur_type;    /* declaration_spec or object being parsed */
  OrtiObject *cur_obj;
  int bad_char;          /* byte of the last invalid-character token, -1 if none */
  OrtiLocation comment_loc; /* where the open block comment started */
  OrtiLocation impl_loc;    /* of the IMPLEMENTATION keyword */
} OrtiParseCtx;

struct _OrtiDoc {
  gint ref_count;
  char *filename;
  GStringChunk *text;      /* all names and formulas */
  const char *koil;        /* VERSION values, or NULL */
  const char *os_semantics;
  const char *os_semantics_version;
  const char *implementation;
  GPtrArray *diagnostics;  /* OrtiDiagnostic* */
  guint n_errors;
  guint n_warnings;
  guint n_warnings_dropped;/* beyond ORTI_DOC_MAX_WARNINGS */
  GHashTable *types;       /* name → OrtiType* */
  GPtrArray *type_names;   /* declared types, file order (const char*) */
  GPtrArray *empty;        /* returned for "no such objects / elements" */
  const char *cpu_family;  /* what the file's words name (orti-cpu.c), or NULL */
};

/* orti__cpu_family_of_text: the processor family @len bytes of ORTI text name ("ARM",
 * "TriCore", "PowerPC", "V850", "RISC-V", "host"), or NULL (orti-cpu.c). */
const char *orti__cpu_family_of_text (const char *text, gsize len);

/* Builder API used by the parser (all locations point into @doc's filename). */
void orti_doc__diag (OrtiParseCtx *ctx, OrtiSeverity sev, guint line, guint column,
                     const char *fmt, ...) G_GNUC_PRINTF (5, 6);
const char *orti_doc__intern (OrtiParseCtx *ctx, OrtiSlice s, guint line, guint column);
const char *orti_doc__store (OrtiParseCtx *ctx, OrtiSlice s, guint line, guint column);
OrtiSlice orti_doc__concat (OrtiParseCtx *ctx, OrtiSlice a, OrtiSlice b);
OrtiType *orti_doc__type (OrtiParseCtx *ctx, const char *name, guint line, guint column);
void orti_doc__add_decl (OrtiParseCtx *ctx, OrtiDecl *decl);
void orti_doc__begin_object (OrtiParseCtx *ctx, const char *type, const char *name,
                             guint line, guint column);
void orti_doc__add_def (OrtiParseCtx *ctx, const char *name, int index, const char *formula,
                        guint line, guint column, const OrtiLocation *value_loc);
void orti_doc__decl_free (OrtiDecl *decl);
void orti_doc__enum_list_free (OrtiEnumList *list);

G_END_DECLS
