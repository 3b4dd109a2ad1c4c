/* orti-parser.y — pure bison grammar of ORTI/KOIL files (../shared/orti-corpus/GRAMMAR.md §2),
 * with the tolerance rules T1–T12 of §5, each accepted with a warning.
 *
 * The actions build the model directly (orti_doc__* in orti-doc.c); semantic values that own
 * memory (declarations, ENUM lists) have %destructors so error recovery does not leak.
 * Recovery: `error ';'` for one declaration or definition, `error '}'` for a whole block, so
 * one bad line never loses the rest of the file. Sections may come in any order at the top
 * level (the model checks that VERSION and IMPLEMENTATION are present).
 */
%define api.pure full
%define api.prefix {orti_doc_yy}
%define parse.error verbose
%locations
%expect 0
%param {void *scanner}
%parse-param {OrtiParseCtx *ctx}

%code requires {
#include "orti-doc-private.h"
}

%code provides {
int orti_doc_yylex (ORTI_DOC_YYSTYPE *lval, ORTI_DOC_YYLTYPE *lloc, void *scanner);
void orti_doc_yyerror (ORTI_DOC_YYLTYPE *lloc, void *scanner, OrtiParseCtx *ctx, const char *msg);
}

%code {
#include <string.h>

#define W(loc, ...) orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, (loc).first_line, \
                                    (loc).first_column, __VA_ARGS__)
#define E(loc, ...) orti_doc__diag (ctx, ORTI_SEVERITY_ERROR, (loc).first_line, \
                                    (loc).first_column, __VA_ARGS__)
#define WEND(loc, ...) orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, (loc).last_line, \
                                       (loc).last_column + 1, __VA_ARGS__)
#define INTERN(s, loc) orti_doc__intern (ctx, (s), (loc).first_line, (loc).first_column)
#define STORE(s, loc) orti_doc__store (ctx, (s), (loc).first_line, (loc).first_column)

/* Adds the definition `@name[@index] = value;` (@name at @nloc); @formula is the value stored,
 * @vloc the value token(s). The value's location is that of its first character inside the
 * quotes when the stored text is that token verbatim (one string on one line, nothing
 * repaired), so a column inside the formula maps onto the file; else none (file NULL). */
static void
add_def (OrtiParseCtx *ctx, const char *name, int index, const char *formula, gboolean quoted,
         ORTI_DOC_YYLTYPE nloc, ORTI_DOC_YYLTYPE vloc)
{
  OrtiLocation at = { NULL, 0, 0 };
  gsize width = (gsize) (vloc.last_column - vloc.first_column + 1);
  if (vloc.first_line == vloc.last_line && (quoted ? width == strlen (formula) + 2
                                                   : width == strlen (formula))) {
    at.file = ctx->doc->filename;
    at.line = (guint) vloc.first_line;
    at.column = (guint) vloc.first_column + (quoted ? 1 : 0);
  }
  orti_doc__add_def (ctx, name, index, formula, nloc.first_line, nloc.first_column, &at);
}

static OrtiSlice
slice_minus (OrtiParseCtx *ctx, OrtiSlice num)
{
  OrtiSlice minus = { "-", 1 };
  return orti_doc__concat (ctx, minus, num);
}
}

%union {
  OrtiSlice str;        /* IDENT, STRING, NUMBER, keywords: text of the token */
  OrtiDecl *decl;       /* a declaration being built */
  OrtiEnumList *list;   /* an ENUM element list being built */
  OrtiEnumElement *elem;
  int num;
  struct { OrtiSlice text; gboolean quoted; } value;
}

%token END 0 "end of file"
%token <str> IDENT "name" STRING "string" NUMBER "number"
%token <str> KW_VERSION "VERSION" KW_KOIL "KOIL" KW_OSSEMANTICS "OSSEMANTICS"
%token <str> KW_IMPLEMENTATION "IMPLEMENTATION" KW_CTYPE "CTYPE" KW_ENUM "ENUM"
%token <str> KW_STRING "STRING" KW_TOTRACE "TOTRACE"
%token INVALID "invalid character"

%type <str> string name type_name ctype_opt desc_opt decl_desc
%type <decl> attr_type
%type <list> enum_list
%type <elem> enum_element
%type <num> totrace_opt index_opt array_opt
%type <value> enum_value def_value
%type <str> elem_ref_opt

%destructor { orti_doc__decl_free ($$); } <decl>
%destructor { orti_doc__enum_list_free ($$); } <list>
%destructor { g_free ($$); } <elem>

%%

file:
    %empty
  | file section
  ;

section:
    version_section
  | impl_section
  | object_def
  | error '}' semi_opt
  | error ';'
  ;

semi_opt:
    %empty
  | ';'
  ;

/* ---- VERSION --------------------------------------------------------------------------- */

version_section:
    KW_VERSION '{' version_items '}' semi_opt
      {
        if (ctx->have_version)
          E (@1, "second VERSION section");
        ctx->have_version = TRUE;
      }
  ;

version_items:
    %empty
  | version_items version_item
  ;

version_item:
    KW_KOIL '=' string ';'
      { ctx->doc->koil = STORE ($3, @3); }
  | KW_OSSEMANTICS '=' string ',' string ';'
      {
        ctx->doc->os_semantics = STORE ($3, @3);
        ctx->doc->os_semantics_version = STORE ($5, @5);
      }
  | error ';'
  ;

/* ---- IMPLEMENTATION (declaration section) ---------------------------------------------- */

impl_section:
    KW_IMPLEMENTATION name
      {
        if (ctx->have_impl)
          E (@1, "second IMPLEMENTATION section");
        ctx->have_impl = TRUE;
        ctx->impl_loc.line = @1.first_line;
        ctx->impl_loc.column = @1.first_column;
        ctx->doc->implementation = INTERN ($2, @2);
      }
    '{' decl_specs '}' semi_opt
  ;

decl_specs:
    %empty
  | decl_specs decl_spec
  ;

decl_spec:
    name
      { ctx->cur_type = orti_doc__type (ctx, INTERN ($1, @1), @1.first_line, @1.first_column); }
    '{' attr_decls '}' decl_desc decl_semi
      {
        ctx->cur_type = NULL;
      }
  ;

decl_desc:
    %empty
      { $$.p = NULL; $$.len = 0; /* T10: description is optional, silently */ }
  | ',' string
      { $$ = $2; }
  ;

decl_semi:
    ';'
  | %empty
      { WEND (@$, "missing ';' after object type declaration (T6)"); }
  ;

attr_decls:
    %empty
  | attr_decls attr_decl
  ;

attr_decl:
    totrace_opt attr_type name array_opt desc_opt ';'
      {
        $2->name = INTERN ($3, @3);
        $2->loc.file = ctx->doc->filename;
        $2->loc.line = @3.first_line;
        $2->loc.column = @3.first_column;
        $2->totrace = $1;
        $2->is_array = $4;
        if ($5.p != NULL)
          $2->description = STORE ($5, @5);
        if ($1 && $2->kind != ORTI_KIND_ENUM)
          W (@1, "TOTRACE on a %s attribute (T8)", $2->kind == ORTI_KIND_CTYPE ? "CTYPE" : "STRING");
        orti_doc__add_decl (ctx, g_steal_pointer (&$2));
      }
  | error ';'
  ;

array_opt:
    %empty        { $$ = 0; }
  | '[' ']'       { $$ = 1; }
  ;

desc_opt:
    %empty        { $$.p = NULL; $$.len = 0; }
  | ',' string    { $$ = $2; }
  ;

totrace_opt:
    %empty        { $$ = 0; }
  | KW_TOTRACE    { $$ = 1; }
  ;

attr_type:
    KW_CTYPE ctype_opt
      {
        $$ = g_new0 (OrtiDecl, 1);
        $$->kind = ORTI_KIND_CTYPE;
        $$->ctype = $2.p != NULL ? STORE ($2, @2) : NULL;
      }
  | KW_STRING
      {
        $$ = g_new0 (OrtiDecl, 1);
        $$->kind = ORTI_KIND_STRING;
      }
  | KW_ENUM ctype_opt '[' enum_list ']'
      {
        $$ = g_new0 (OrtiDecl, 1);
        $$->kind = ORTI_KIND_ENUM;
        $$->ctype = $2.p != NULL ? STORE ($2, @2) : NULL;
        if ($4->elements->len == 0)
          W (@3, "empty ENUM list (T3)");
        else if ($4->last_was_comma)
          orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, $4->comma_loc.line, $4->comma_loc.column,
                          "trailing ',' in ENUM list (T1)");
        $$->elements = g_steal_pointer (&$4->elements);
        orti_doc__enum_list_free ($4);
      }
  ;

ctype_opt:
    %empty        { $$.p = NULL; $$.len = 0; }
  | string        { $$ = $1; }
  ;

enum_list:
    %empty
      {
        $$ = g_new0 (OrtiEnumList, 1);
        $$->elements = g_ptr_array_new_with_free_func (g_free);
      }
  | enum_list enum_element
      {
        $$ = $1;
        if ($$->elements->len > 0 && !$$->last_was_comma)
          W (@2, "missing ',' between ENUM elements (T2)");
        g_ptr_array_add ($$->elements, $2);
        $$->last_was_comma = FALSE;
      }
  | enum_list ','
      {
        $$ = $1;
        if ($$->elements->len == 0 || $$->last_was_comma)
          E (@2, "empty ENUM element");
        $$->last_was_comma = TRUE;
        $$->comma_loc.line = @2.first_line;
        $$->comma_loc.column = @2.first_column;
      }
  ;

enum_element:
    string elem_ref_opt '=' enum_value
      {
        $$ = g_new0 (OrtiEnumElement, 1);
        $$->name = (char *) STORE ($1, @1);
        $$->ref = $2.p != NULL ? (char *) INTERN ($2, @2) : NULL;
        $$->value = (char *) STORE ($4.text, @4);
        $$->quoted = $4.quoted;
        $$->loc.file = ctx->doc->filename;
        $$->loc.line = @1.first_line;
        $$->loc.column = @1.first_column;
      }
  ;

elem_ref_opt:
    %empty        { $$.p = NULL; $$.len = 0; }
  | ':' name      { $$ = $2; }
  ;

enum_value:
    NUMBER        { $$.text = $1; $$.quoted = FALSE; }
  | STRING        { $$.text = $1; $$.quoted = TRUE; }
  | IDENT         { $$.text = $1; $$.quoted = FALSE; W (@1, "unquoted ENUM value '%.*s' (T4)", (int) $1.len, $1.p); }
  | '-' NUMBER    { $$.text = slice_minus (ctx, $2); $$.quoted = FALSE; W (@1, "unquoted negative ENUM value (T4)"); }
  ;

/* ---- information section ---------------------------------------------------------------- */

object_def:
    type_name name '{'
      {
        orti_doc__begin_object (ctx, INTERN ($1, @1), STORE ($2, @2),
                                @1.first_line, @1.first_column);
      }
    attr_defs '}' object_end
      { ctx->cur_obj = NULL; }
  ;

object_end:
    ';'
  | %empty
      { WEND (@$, "missing ';' after object definition (T6)"); }
  ;

attr_defs:
    %empty
  | attr_defs attr_def
  ;

attr_def:
    name index_opt '=' def_value ';'
      {
        add_def (ctx, INTERN ($1, @1), $2, STORE ($4.text, @4), $4.quoted, @1, @4);
      }
  | name index_opt '=' def_value
      {
        WEND (@4, "missing ';' after attribute definition (T6)");
        add_def (ctx, INTERN ($1, @1), $2, STORE ($4.text, @4), $4.quoted, @1, @4);
      }
  | error ';'
  ;

index_opt:
    %empty        { $$ = -1; }
  | '[' NUMBER ']'
      {
        char buf[32];
        g_snprintf (buf, sizeof buf, "%.*s", (int) MIN ($2.len, 31), $2.p);
        guint64 v = g_ascii_strtoull (buf, NULL, 0);
        if (v > 4096) {
          E (@2, "index %s out of range (at most 4096); definition ignored", buf);
          $$ = -2;
        } else {
          $$ = (int) v;
        }
      }
  ;

def_value:
    string        { $$.text = $1; $$.quoted = TRUE; }
  | NUMBER        { $$.text = $1; $$.quoted = FALSE; W (@1, "unquoted number '%.*s' as value (T5)", (int) $1.len, $1.p); }
  | IDENT         { $$.text = $1; $$.quoted = FALSE; W (@1, "unquoted name '%.*s' as value (T4)", (int) $1.len, $1.p); }
  | '-' NUMBER    { $$.text = slice_minus (ctx, $2); $$.quoted = FALSE; W (@1, "unquoted negative number as value (T4)"); }
  ;

/* ---- words ------------------------------------------------------------------------------- */

string:
    STRING        { $$ = $1; }
  | string STRING
      {
        W (@2, "adjacent strings concatenated (T7)");
        $$ = orti_doc__concat (ctx, $1, $2);
      }
  ;

/* Object types at the top level: any word but the two section keywords. */
type_name:
    IDENT | KW_KOIL | KW_OSSEMANTICS | KW_CTYPE | KW_ENUM | KW_STRING | KW_TOTRACE
  ;

/* Names: any word, keywords included (nothing like OS, TASK or SIZE is reserved). */
name:
    type_name | KW_VERSION | KW_IMPLEMENTATION
  ;

%%

void
orti_doc_yyerror (ORTI_DOC_YYLTYPE *lloc, void *scanner, OrtiParseCtx *ctx, const char *msg)
{
  if (ctx->bad_char >= 0 && strstr (msg, "unexpected invalid character") != NULL) {
    int c = ctx->bad_char;
    if (c >= 0x20 && c < 0x7f)
      orti_doc__diag (ctx, ORTI_SEVERITY_ERROR, lloc->first_line, lloc->first_column,
                      "%s ('%c')", msg, c);
    else
      orti_doc__diag (ctx, ORTI_SEVERITY_ERROR, lloc->first_line, lloc->first_column,
                      "%s (byte 0x%02x)", msg, (unsigned) c);
  } else {
    orti_doc__diag (ctx, ORTI_SEVERITY_ERROR, lloc->first_line, lloc->first_column, "%s", msg);
  }
}
