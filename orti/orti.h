/* orti.h — orti-profd's ORTI library: read an OSEK/AUTOSAR ORTI file, resolve what it says to
 * watch against the firmware's ELF/DWARF, and compile its formulas into read plans.
 *
 * Three parts, one header:
 *  1. The document (OrtiDoc): a reentrant flex scanner and a pure bison parser for the ORTI/KOIL
 *     language (../shared/orti-corpus/GRAMMAR.md), tolerant of what real generators emit (rules
 *     T1–T12, each accepted with a warning naming file:line:col), recovering from errors so one
 *     bad declaration never loses the rest of the file. Attribute values are looked up by their
 *     declared kind (CTYPE, ENUM, STRING) — never by the attribute's name.
 *  2. The ELF (OrtiElf): symbols, DWARF types, struct members, array strides, initial data;
 *     symbols that exist once per core are told apart.
 *  3. Formulas (OrtiPlan): a second small pure bison grammar for the C-expression formulas,
 *     compiled once into a read plan (what to read, where, how wide, signed or not, in which
 *     order) and evaluated through an OrtiReadFunc, so the same plan runs offline against the
 *     ELF's initial data and live through the probe.
 * And the result a profiler needs (OrtiWatch): for each core, RUNNINGTASK, RUNNINGISR2 (or
 * RUNNINGISR) and SERVICETRACE as plan + value→name map.
 * And for PC sampling (OrtiAddrMap): a flat table built once from the ELF that maps a PC to its
 * function, source line and inlined frames with one binary search.
 *
 * Errors are GErrors in ORTI_ERROR; diagnostics about the file are compiler-style
 * "file:line:col: severity: message" strings.
 */
#pragma once

#include <gio/gio.h>
#include <glib.h>

G_BEGIN_DECLS

#define ORTI_ERROR (orti_error_quark ())
GQuark orti_error_quark (void);

typedef enum {
  ORTI_ERROR_IO,          /* the file could not be read */
  ORTI_ERROR_SYNTAX,      /* the file has syntax errors (message lists the first) */
  ORTI_ERROR_NO_OS,       /* "no running-task information in FILE" */
  ORTI_ERROR_FORMULA,     /* a formula does not parse or uses an unsupported construct */
  ORTI_ERROR_SYMBOL,      /* a symbol, member or type is not in the ELF */
  ORTI_ERROR_AMBIGUOUS,   /* a symbol exists once per core and no core was chosen */
  ORTI_ERROR_ELF,         /* the ELF/DWARF could not be read */
  ORTI_ERROR_READ,        /* a memory read failed (message names address and formula) */
  ORTI_ERROR_EVAL,        /* evaluation failed (division by zero, bad dereference width) */
  ORTI_ERROR_OPTION,      /* a value given in OrtiWatchOptions names nothing (message says which) */
} OrtiError;

/* ---------------------------------------------------------------------------------------- */
/* 1. The document                                                                           */

typedef enum {
  ORTI_SEVERITY_WARNING,
  ORTI_SEVERITY_ERROR,
} OrtiSeverity;

/* A place in a file; lines and columns count from 1. */
typedef struct {
  const char *file; /* owned by the document */
  guint line;
  guint column;
} OrtiLocation;

typedef struct {
  OrtiSeverity severity;
  OrtiLocation loc;
  char *message; /* without the location prefix */
} OrtiDiagnostic;

typedef enum {
  ORTI_KIND_CTYPE,  /* evaluate the formula, show the number */
  ORTI_KIND_ENUM,   /* evaluate the formula, map the value to an element */
  ORTI_KIND_STRING, /* do not evaluate: the formula text is the value */
} OrtiAttrKind;

/* One element of an ENUM declaration: `"name" [: ref] = value`. */
typedef struct {
  char *name;        /* display name, e.g. "NO_TASK" */
  char *ref;         /* object referred to with ':' (NULL if none) */
  char *value;       /* value text: a number ("0xFFFF", "-1") or a formula ("&OS_taskTable[3]") */
  gboolean quoted;   /* the value was written as a STRING (formula) rather than a bare token */
  OrtiLocation loc;
} OrtiEnumElement;

typedef struct _OrtiDecl OrtiDecl; /* an attribute declaration in the IMPLEMENTATION section */
typedef struct _OrtiObject OrtiObject; /* an object of the information section */
typedef struct _OrtiDoc OrtiDoc;

/* orti_doc_parse_file:
 * Parses @path. Returns a document (also when the file has recoverable syntax errors: see
 * orti_doc_get_n_errors()), or NULL with ORTI_ERROR_IO when the file cannot be read, or
 * ORTI_ERROR_SYNTAX when nothing usable could be parsed (empty file, binary data). Memory is
 * bounded by a small multiple of the file size. */
OrtiDoc *orti_doc_parse_file (const char *path, GError **error);

/* orti_doc_parse_data:
 * As orti_doc_parse_file() for @len bytes at @data (need not be NUL terminated); @filename is
 * used in diagnostics. */
OrtiDoc *orti_doc_parse_data (const char *data, gsize len, const char *filename, GError **error);

OrtiDoc *orti_doc_ref (OrtiDoc *doc);
void orti_doc_unref (OrtiDoc *doc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OrtiDoc, orti_doc_unref)

const char *orti_doc_get_filename (OrtiDoc *doc);
const char *orti_doc_get_koil_version (OrtiDoc *doc);        /* "2.2", or NULL */
const char *orti_doc_get_os_semantics (OrtiDoc *doc);        /* "ORTI", or NULL */
const char *orti_doc_get_os_semantics_version (OrtiDoc *doc);/* "2.2", or NULL */
const char *orti_doc_get_implementation (OrtiDoc *doc);      /* IMPLEMENTATION name */
/* orti_doc_get_cpu_family: the processor family the file's own words name ("ARM", "TriCore",
 * "PowerPC", "V850", "RISC-V"; "host" for a WIN32/POSIX port), NULL when they name none
 * (orti-cpu.c: a generator banner "CORTEXM/S32K34X", register names "_ARM7_R0", "e200z4"). */
const char *orti_doc_get_cpu_family (OrtiDoc *doc);

/* Diagnostics in file order (warnings for tolerated deviations, errors). Element type
 * OrtiDiagnostic*; owned by the document. */
GPtrArray *orti_doc_get_diagnostics (OrtiDoc *doc);
guint orti_doc_get_n_errors (OrtiDoc *doc);
/* "file:line:col: warning: message" — newly allocated. */
char *orti_diagnostic_to_string (const OrtiDiagnostic *diag);
/* orti_doc_errors_to_string: the file's errors (not its warnings), one line each as
 * orti_diagnostic_to_string, each after @prefix and ending in a newline; "" without errors.
 * Newly allocated. */
char *orti_doc_errors_to_string (OrtiDoc *doc, const char *prefix);

/* Object types declared in the IMPLEMENTATION section, in file order (const char*). */
GPtrArray *orti_doc_get_object_types (OrtiDoc *doc);
/* Declarations of one object type in file order (OrtiDecl*), or NULL if the type is unknown. */
GPtrArray *orti_doc_get_decls (OrtiDoc *doc, const char *object_type);
OrtiDecl *orti_doc_lookup_decl (OrtiDoc *doc, const char *object_type, const char *attr);

const char *orti_decl_get_name (OrtiDecl *decl);
OrtiAttrKind orti_decl_get_kind (OrtiDecl *decl);
const char *orti_decl_get_ctype (OrtiDecl *decl);       /* C type hint text, or NULL */
const char *orti_decl_get_description (OrtiDecl *decl); /* or NULL */
gboolean orti_decl_is_array (OrtiDecl *decl);           /* declared `ATTR[]` (per core) */
gboolean orti_decl_is_totrace (OrtiDecl *decl);
GPtrArray *orti_decl_get_elements (OrtiDecl *decl);     /* OrtiEnumElement*; empty if not ENUM */
OrtiLocation orti_decl_get_location (OrtiDecl *decl);

/* Objects of the information section of one type, in file order (OrtiObject*); an empty
 * array when there are none. */
GPtrArray *orti_doc_get_objects (OrtiDoc *doc, const char *object_type);
OrtiObject *orti_doc_lookup_object (OrtiDoc *doc, const char *object_type, const char *name);

const char *orti_object_get_type (OrtiObject *obj);
const char *orti_object_get_name (OrtiObject *obj);
OrtiLocation orti_object_get_location (OrtiObject *obj);
/* Attribute names defined in this object, in file order, without index (const char*). */
GPtrArray *orti_object_get_attr_names (OrtiObject *obj);
/* orti_object_get_formula:
 * The text defined for @attr (for index @index when the definition was `ATTR[index] = …`;
 * pass -1 for a scalar definition). Returns NULL when not defined. @loc may be NULL. */
const char *orti_object_get_formula (OrtiObject *obj, const char *attr, int index,
                                     OrtiLocation *loc);
/* orti_object_get_formula_location: where the text of @attr (@index as above) begins in the
 * file — its first character inside the quotes — when the text is exactly what the file holds
 * there (one string on one line: not concatenated, nothing repaired), so column N inside the
 * formula is file column loc.column + N - 1. FALSE otherwise (or when not defined). */
gboolean orti_object_get_formula_location (OrtiObject *obj, const char *attr, int index,
                                           OrtiLocation *loc);
/* Highest index defined for @attr plus one (0: only scalar or undefined). */
guint orti_object_get_n_indices (OrtiObject *obj, const char *attr);

/* Per core.
 * orti_doc_get_n_cores: how many cores the file describes: the size of `ATTR[]` arrays in the
 * OS object (also from vs_SMP_NUMCPU / vs_CORE_NUM), or the number of OS objects, else 1.
 * 0 when the file has no OS object. */
guint orti_doc_get_n_cores (OrtiDoc *doc);
/* orti_doc_get_os_object: the OS object describing @core (the only one, or the core-th of
 * several), or NULL. */
OrtiObject *orti_doc_get_os_object (OrtiDoc *doc, guint core);
/* orti_doc_get_os_formula:
 * The OS attribute @attr for @core, whatever form the file uses (ATTR[core] in one object,
 * ATTR in the core-th object, scalar ATTR shared by all cores). NULL when undefined. */
const char *orti_doc_get_os_formula (OrtiDoc *doc, guint core, const char *attr,
                                     OrtiLocation *loc);
/* orti_doc_get_os_formula_location: orti_object_get_formula_location() of that definition. */
gboolean orti_doc_get_os_formula_location (OrtiDoc *doc, guint core, const char *attr,
                                           OrtiLocation *loc);

/* ---------------------------------------------------------------------------------------- */
/* 2. The ELF                                                                                */

typedef struct _OrtiElf OrtiElf;

/* orti_elf_open: opens an ELF with or without DWARF (libdw). NULL + ORTI_ERROR_ELF on error. */
OrtiElf *orti_elf_open (const char *path, GError **error);
OrtiElf *orti_elf_ref (OrtiElf *elf);
void orti_elf_unref (OrtiElf *elf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OrtiElf, orti_elf_unref)

const char *orti_elf_get_path (OrtiElf *elf);
const char *orti_elf_get_machine (OrtiElf *elf); /* "ARM", "TriCore", … */
/* orti_elf_get_build_id: the GNU build-id note (NT_GNU_BUILD_ID) in lower-case hex, the id of
 * one link of the firmware whatever its path; NULL when the ELF has none (many bare-metal
 * toolchains link without --build-id). */
const char *orti_elf_get_build_id (OrtiElf *elf);
/* orti_elf_check_cpu: FALSE with ORTI_ERROR_ELF naming both when @doc's processor family is
 * known (orti_doc_get_cpu_family) and @elf is a program for another (an x86-64 build beside
 * a Cortex-M ORTI file); TRUE when it fits or nothing says otherwise. */
gboolean orti_elf_check_cpu (OrtiElf *elf, OrtiDoc *doc, GError **error);
guint orti_elf_get_pointer_size (OrtiElf *elf);  /* bytes */
gboolean orti_elf_is_big_endian (OrtiElf *elf);
/* The M-profile architecture of an ARM ELF, from its build attributes (.ARM.attributes:
 * Tag_CPU_arch and Tag_CPU_arch_profile), which decides the names of the exceptions (vector 7 is
 * SecureFault on ARMv8-M Mainline, reserved on ARMv7-M). */
typedef enum {
  ORTI_ARM_ARCH_UNKNOWN = 0, /* not ARM, no attributes, or not an M profile */
  ORTI_ARM_ARCH_V6M,         /* ARMv6-M, v6S-M (Cortex-M0, M0+, M1) */
  ORTI_ARM_ARCH_V7M,         /* ARMv7-M, v7E-M (Cortex-M3, M4, M7) */
  ORTI_ARM_ARCH_V8M_BASE,    /* ARMv8-M Baseline (Cortex-M23) */
  ORTI_ARM_ARCH_V8M_MAIN,    /* ARMv8-M Mainline (Cortex-M33, M35P) */
  ORTI_ARM_ARCH_V81M_MAIN,   /* ARMv8.1-M Mainline (Cortex-M55, M85) */
} OrtiArmArch;

/* orti_elf_get_arm_arch: @elf's M-profile architecture (UNKNOWN for other machines or
 * without attributes). */
OrtiArmArch orti_elf_get_arm_arch (OrtiElf *elf);
/* orti_arm_arch_name: "ARMv7-M", …, "unknown". */
const char *orti_arm_arch_name (OrtiArmArch arch);

/* TRUE for a relocatable (ET_REL, not linked) file: its symbol values are offsets inside their
 * sections, so orti_elf_lookup_symbol() refuses them and there is no initial data. */
gboolean orti_elf_is_relocatable (OrtiElf *elf);

/* One definition of a data or function symbol. */
typedef struct {
  const char *name;
  guint64 address;
  guint64 size;
  gboolean is_function;
  int core;            /* core this copy belongs to, or -1 when not core specific */
  const char *section; /* section name, for messages */
} OrtiSymbol;

/* orti_elf_lookup_symbols: every definition of @name (OrtiSymbol*, owned by @elf), empty if
 * none. Several entries mean the symbol exists once per core (merged multicore images). */
GPtrArray *orti_elf_lookup_symbols (OrtiElf *elf, const char *name);
/* orti_elf_lookup_symbol: the one definition of @name for @core (-1: any). Fails with
 * ORTI_ERROR_SYMBOL when absent and ORTI_ERROR_AMBIGUOUS, listing the candidates with their
 * cores and addresses, when several match. */
const OrtiSymbol *orti_elf_lookup_symbol (OrtiElf *elf, const char *name, int core,
                                          GError **error);
/* orti_elf_symbol_at: the function or object containing @address, or NULL. */
const OrtiSymbol *orti_elf_symbol_at (OrtiElf *elf, guint64 address);
/* Every function symbol, sorted by address (OrtiSymbol*). */
GPtrArray *orti_elf_get_functions (OrtiElf *elf);

/* orti_elf_is_readonly: TRUE when [@address, @address + @size) lies in a loadable segment the
 * program cannot write (no PF_W: code and constant data in flash) and the file holds its
 * bytes, so what the target holds there is what the ELF says. Formulas fold reads of such
 * memory at compile time (pointer tables in ROM, TRAPS 16). */
gboolean orti_elf_is_readonly (OrtiElf *elf, guint64 address, guint size);

/* orti_elf_is_stored: TRUE when the file holds the bytes of [@address, @address + @size) in
 * one loadable segment (code, constants, initialised data), so its initial value is the
 * file's; FALSE for .bss (zero only until the program sets it) and memory no segment loads. */
gboolean orti_elf_is_stored (OrtiElf *elf, guint64 address, guint size);

/* orti_elf_read_initial: reads @size bytes at @address from the ELF's loadable contents
 * (initialised data and code; .bss reads as zero). An OrtiReadFunc (pass the OrtiElf as
 * @user_data), so plans can be evaluated offline. */
gboolean orti_elf_read_initial (guint64 address, guint size, guint8 *buf, gpointer user_data,
                                GError **error);

/* ---------------------------------------------------------------------------------------- */
/* 3. Formulas and read plans                                                                */

/* A memory reader: fill @buf with @size bytes of target memory at @address (target byte
 * order). Return FALSE with a GError (ORTI_ERROR_READ) when the read faults. */
typedef gboolean (*OrtiReadFunc) (guint64 address, guint size, guint8 *buf, gpointer user_data,
                                  GError **error);

/* One read of a plan. A read whose address depends on earlier reads has depends_on >= 0 and
 * an address that is only known at evaluation time. */
typedef struct {
  guint64 address;     /* static address, or 0 when it depends on another read */
  guint width;         /* bytes: 1, 2, 4 or 8 */
  gboolean is_signed;
  int depends_on;      /* index of the read whose value forms this address, or -1 */
  const char *what;    /* the formula text read: "EE_stkfirst", "OS_kernel_ptr[0]",
                        * then "OS_kernel_ptr[0]->taskCurrent" */
  gboolean conditional; /* only made when a ?:, && or || takes the branch holding it */
} OrtiPlanRead;

typedef struct _OrtiPlan OrtiPlan;

/* orti_plan_compile:
 * Parses @formula (a C expression: identifiers, numbers with U/L suffixes, [] . -> & *,
 * unary - ~ !, casts to DWARF type names, arithmetic, comparison, logic, ?:) and resolves it on
 * @elf (may be NULL for constant formulas) for @core (-1: no core chosen). The plan is
 * evaluated without re-resolving anything. Errors: ORTI_ERROR_FORMULA (with the column inside
 * the formula), ORTI_ERROR_SYMBOL, ORTI_ERROR_AMBIGUOUS. Nesting depth is bounded. */
OrtiPlan *orti_plan_compile (const char *formula, OrtiElf *elf, int core, GError **error);
void orti_plan_free (OrtiPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OrtiPlan, orti_plan_free)

const char *orti_plan_get_formula (OrtiPlan *plan);
/* The reads the plan makes, in the order it makes them (at most; a ?: may skip some). */
guint orti_plan_get_n_reads (OrtiPlan *plan);
const OrtiPlanRead *orti_plan_get_read (OrtiPlan *plan, guint index);
/* Reads of read-only memory (orti_elf_is_readonly: code and constants in flash) the compiler
 * made itself from the ELF, e.g. `OS_kernel_ptr[0]` of `OS_kernel_ptr[0]->taskCurrent`: they
 * cost nothing at run time and are not among the reads above. */
guint orti_plan_get_n_folded (OrtiPlan *plan);
const OrtiPlanRead *orti_plan_get_folded (OrtiPlan *plan, guint index);
/* Liberties the compiler took with C to accept what real generators write, one sentence each,
 * starting with "column N: " (the column inside the formula). Today one kind: `.` applied to a
 * pointer to a struct (`tpl_dyn_proc_table[1].state` on a table of pointers) reads through the
 * pointer, as GDB does, where C would need `->`. A profiler shows them as notes. */
guint orti_plan_get_n_notes (OrtiPlan *plan);
const char *orti_plan_get_note (OrtiPlan *plan, guint index);

/* One enumerator of a C enum type, from DWARF. */
typedef struct {
  gint64 value;
  const char *name;  /* owned by the plan */
} OrtiEnumerator;

/* The enumerators of the C enum type the formula's value has (DWARF), in declaration order: the
 * values the kernel's variable is meant to hold. 0 when the value's type is no enum (an integer
 * typedef, a cast, arithmetic). */
guint orti_plan_get_n_enumerators (OrtiPlan *plan);
const OrtiEnumerator *orti_plan_get_enumerator (OrtiPlan *plan, guint index);

/* TRUE when the plan is exactly one read at a static address with no arithmetic, so the
 * value is the memory itself (pollers merge such reads). */
gboolean orti_plan_is_simple_read (OrtiPlan *plan);
/* TRUE when the plan reads no memory (a constant, an address-of, a function address). */
gboolean orti_plan_is_constant (OrtiPlan *plan);
/* Result width in bytes and signedness (from DWARF or the C type). */
guint orti_plan_get_width (OrtiPlan *plan);
gboolean orti_plan_is_signed (OrtiPlan *plan);

/* orti_plan_eval: evaluates @plan reading memory through @read. */
/* orti_plan_to_tcl:
 * The plan as a Jim Tcl expression (for OpenOCD's `expr {…}`) that computes the same value
 * as orti_plan_eval(), each read a `[TARGET read_memory ADDR BITS 1]` (@target NULL: the
 * current target), so a poll source evaluates pointer chases inside OpenOCD, in the same
 * batch as its other reads. C's integer semantics are kept (widths, signedness, lazy ?: && ||,
 * division toward zero); a read that faults or a division by zero makes the expression fail.
 * Newly allocated. */
char *orti_plan_to_tcl (OrtiPlan *plan, const char *target);
gboolean orti_plan_eval (OrtiPlan *plan, OrtiReadFunc read, gpointer user_data, gint64 *value,
                         GError **error);

/* ---------------------------------------------------------------------------------------- */
/* 4. What a profiler watches                                                                */

/* What a value of RUNNINGTASK or RUNNINGISR2 stands for, decided by what its label means — never
 * by a fixed list of spellings alone (orti-values.c, orti-watch.c):
 *  - NONE: nothing runs: no task (idle) for RUNNINGTASK, no ISR for RUNNINGISR2. A label that
 *    says so (NO_TASK, NONE, INVALID_ISR, "Not Running", IDLE, a named idle loop such as
 *    "IdleTask" or "OsTask_Idle_Core0"), another label of the same value, or, where the file
 *    names none, a value assumed from the ELF (the variable's initial value) or a convention,
 *    or the value the user named (OrtiWatchOptions).
 *  - TASK: the label (or its ':' reference) names a TASK object of the file. A file without
 *    TASK objects has its RUNNINGTASK labels taken as task names (basis DEFAULT).
 *  - ISR: the value is an ISR2's: the label names an ISR object (ISR, vs_ISR, _vs_ISR), or
 *    RUNNINGISR2 reading the same variable names the value (Trampoline's running id); any
 *    other RUNNINGISR2 label that is no placeholder.
 *  - OTHER: the label names no TASK and no ISR of the file ("X" once or repeated, a slot of a
 *    process the file does not name): time that is neither a task's nor idle; a profiler
 *    shows it as "other" (or as the ISR RUNNINGISR2 names at that moment), never as a task.
 *  - NAME: a plain label of any other attribute (SERVICETRACE, STATE, …): not classified. */
typedef enum {
  ORTI_MEANING_NAME = 0,
  ORTI_MEANING_TASK,
  ORTI_MEANING_ISR,
  ORTI_MEANING_NONE,
  ORTI_MEANING_OTHER,
} OrtiValueMeaning;

/* Why a meaning (or a priority order) was decided. LABEL, ALIAS and SHARED are what the file
 * says; INITIAL and DEFAULT are assumptions a profiler must state; USER is the user's. */
typedef enum {
  ORTI_BASIS_LABEL = 0, /* the element's label (or ':' reference, or a declaration's text) */
  ORTI_BASIS_ALIAS,     /* the value of another element whose label says it */
  ORTI_BASIS_SHARED,    /* RUNNINGISR2, reading the same variable as RUNNINGTASK, names it */
  ORTI_BASIS_INITIAL,   /* assumed: the variable's initial value in the ELF names nothing */
  ORTI_BASIS_DEFAULT,   /* assumed: a convention (no ISR = 0 as in ERIKA/VSTAR; OSEK's order) */
  ORTI_BASIS_USER,      /* given by the user (OrtiWatchOptions) */
} OrtiBasis;

/* One value of an ENUM attribute, evaluated. */
typedef struct {
  gint64 value;       /* evaluated element value */
  const char *name;   /* element display name ("(initial value)" for a synthetic element) */
  const char *ref;    /* ':' object reference or NULL */
  gboolean is_none;   /* meaning == ORTI_MEANING_NONE: "nothing running" */
  gboolean is_placeholder; /* the label is no name: it stands for several values ("X" for
                            * every slot a shared variable gives another meaning, TRAPS 9) or
                            * names no TASK or ISR of the file */
  gboolean resolved;  /* FALSE when the element's formula could not be evaluated */
  const char *error;  /* why not, when !resolved */
  OrtiValueMeaning meaning; /* RUNNINGTASK / RUNNINGISR2 maps of a watch: what the value is */
  const char *object; /* TASK: the TASK object's name; ISR: the ISR's name (its object's, or
                       * the label RUNNINGISR2 gives the value); else NULL */
  OrtiBasis basis;    /* why @meaning */
  gboolean assumed;   /* basis INITIAL or DEFAULT: not what the file says (inspect says so) */
  gboolean synthetic; /* no element of the file: added for an assumed or user-given value */
  const char *why;    /* one sentence: why @meaning, for inspect and notes (NULL: NAME) */
} OrtiValueName;

typedef struct _OrtiValueMap OrtiValueMap;

/* The value→name map of an ENUM declaration, elements evaluated on @elf for @core. Element
 * failures are recorded per element, never fatal. */
OrtiValueMap *orti_value_map_new (OrtiDecl *decl, OrtiElf *elf, int core);
/* orti_value_map_new_full: as orti_value_map_new(), with every element value wrapped to the
 * width (bytes) and signedness of the attribute's plan, so "-1", "0xFFFF" and "~0" match what a
 * 2-byte unsigned variable holds (@width 0: values as written). */
OrtiValueMap *orti_value_map_new_full (OrtiDecl *decl, OrtiElf *elf, int core, guint width,
                                       gboolean is_signed);
void orti_value_map_free (OrtiValueMap *map);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OrtiValueMap, orti_value_map_free)
guint orti_value_map_get_size (OrtiValueMap *map);
const OrtiValueName *orti_value_map_get (OrtiValueMap *map, guint index);
/* The element for @value, or NULL when no element has it (duplicate values: the first). */
const OrtiValueName *orti_value_map_lookup (OrtiValueMap *map, gint64 value);

/* One watched attribute on one core: of the OS object, or of one TASK object. */
typedef struct {
  const char *attr;      /* "RUNNINGTASK", "RUNNINGISR2", "RUNNINGISR", "SERVICETRACE",
                          * "RUNNINGTASKPRIORITY", "VALID"; a task's "STATE", "PRIORITY" */
  guint core;
  OrtiDecl *decl;        /* its declaration */
  const char *formula;   /* the text defined for it */
  OrtiLocation loc;      /* where it is defined */
  OrtiPlan *plan;        /* NULL when it could not be compiled: see error */
  OrtiValueMap *values;  /* NULL when not an ENUM */
  gboolean service_entry_bit; /* SERVICETRACE with the standard even/odd encoding */
  char *error;           /* why the plan is missing, or NULL */
  OrtiLocation error_loc; /* where in the file @error is: the column inside the formula mapped
                           * onto the file when the text is verbatim there, else @loc */
  OrtiLocation value_loc; /* where the formula's text begins in the file, when it is verbatim
                           * there (orti_object_get_formula_location); file NULL: not */
  int error_code;        /* the OrtiError behind @error (e.g. ORTI_ERROR_AMBIGUOUS), or -1 */
  gboolean placeholder_only; /* an ENUM whose labels are all one placeholder: names nothing */
  gboolean shares_task_variable; /* RUNNINGISR2 that reads what RUNNINGTASK of its core reads
                                  * (one running-id variable for tasks and ISRs, Trampoline):
                                  * not a source of its own */
  GArray *unlabelled;    /* OrtiEnumerator: values the variable's C enum type (DWARF) has and no
                          * element labels — a task STATE the file cannot name (Trampoline's
                          * AUTOSTART 4, READY_AND_NEW 5); NULL when none or no enum type.
                          * A profiler makes the statistics that need such a state unknown. */
  gboolean labels_incomplete; /* @unlabelled is not empty: the ELF says the kernel uses values
                               * the file does not name (values a profiler observes that no
                               * element names are its own to add) */
} OrtiWatchAttr;

/* What a profiler needs to know of a task's STATE value (vendor maps differ, TRAPS 22). */
typedef enum {
  ORTI_TASK_STATE_UNKNOWN = 0,
  ORTI_TASK_STATE_RUNNING,   /* RUNNING, EXEC */
  ORTI_TASK_STATE_READY,     /* READY, READY_SYNC/ASYNC, NEW, PREEMPTED, STACKED */
  ORTI_TASK_STATE_WAITING,   /* WAITING, WAIT_SEMAPHORE, BLOCKED (extended tasks) */
  ORTI_TASK_STATE_SUSPENDED, /* SUSPENDED, DORMANT, QUARANTINED, TERMINATED, INVALID */
} OrtiTaskState;

/* orti_task_state_from_name: the class of a STATE element by its name (case and punctuation
 * ignored), ORTI_TASK_STATE_UNKNOWN when the name says nothing we know. */
OrtiTaskState orti_task_state_from_name (const char *name);

/* A TASK object, matched by name to its RUNNINGTASK value. */
typedef struct {
  const char *name;          /* the TASK object's name */
  OrtiLocation loc;          /* where the object is defined */
  guint core;                /* its core: the one its core attribute names (vs_COREASSIGNMENT,
                              * vs_CORE, vs_CORE_ID, CORE), else the first whose RUNNINGTASK
                              * names it (0 when none does) */
  gboolean has_value;        /* a RUNNINGTASK element of the same name gives … */
  gint64 value;              /* … the value RUNNINGTASK holds while it runs */
  OrtiWatchAttr *state;      /* its STATE (NULL: not defined) */
  OrtiWatchAttr *priority;   /* its PRIORITY (NULL: not defined) */
  gboolean has_static_priority; /* a priority that never changes is known: … */
  gint64 static_priority;    /* … from a constant PRIORITY, or a constant vs_REALPRIORITY,
                              * vs_HomePriority or vs_ASSIGNEDPRIO, as the file writes it:
                              * which end is more urgent is orti_watch_get_priority_order() */
  gboolean is_idle;          /* the object is the idle loop (its RUNNINGTASK value means no
                              * task: "IdleTask" = 0): its time is idle, it has no jobs, and
                              * orti_watch_lookup_task() does not return it */
} OrtiWatchTask;

/* A note about what a watch ignores or how it reads a file ("RUNNINGISR2 reads the same
 * variable as RUNNINGTASK: …"), located at the definition it is about. */
typedef struct {
  OrtiLocation loc;
  char *message;
} OrtiWatchNote;

typedef struct _OrtiWatch OrtiWatch;

/* Which end of the PRIORITY / RUNNINGTASKPRIORITY numbers is more urgent. OSEK numbers 0 as
 * the lowest priority, but kernels write their own internal numbers (osCAN: 0 the highest). */
typedef enum {
  ORTI_PRIORITY_ORDER_UNKNOWN = 0, /* the file contradicts itself */
  ORTI_PRIORITY_HIGHER_FIRST,      /* a larger number is more urgent */
  ORTI_PRIORITY_LOWER_FIRST,       /* a smaller number is more urgent */
} OrtiPriorityOrder;

typedef struct {
  OrtiPriorityOrder order;
  OrtiBasis basis;       /* LABEL: the file says it (a priority declaration's description, such
                          * as "higher value = higher priority" or "0 = highest", or a priority
                          * ENUM whose idle / "Not Running" element sits at one end); USER;
                          * DEFAULT: the file does not say, OSEK's order is assumed (a profiler
                          * checks it against the switches it observes) */
  const char *why;       /* one sentence */
  OrtiLocation loc;      /* the declaration that says it (file NULL: none) */
} OrtiPriorityInfo;

/* What the user says where the file leaves it open (all fields optional: zero-initialise). */
typedef struct {
  const char *idle_values;   /* RUNNINGTASK values meaning "no task": "0", "0,255", "-1" or
                              * element labels ("IdleTask"); replaces what the file says or
                              * what would be assumed, on every core. NULL: from the file */
  const char *no_isr_values; /* the same for RUNNINGISR2 ("no ISR"); NULL: from the file */
  OrtiPriorityOrder priority_order; /* UNKNOWN: from the file */
} OrtiWatchOptions;

/* orti_watch_resolve:
 * What to watch, per core: RUNNINGTASK, RUNNINGISR2 (falling back to RUNNINGISR),
 * SERVICETRACE, RUNNINGTASKPRIORITY and VALID of every core the file describes, and each
 * TASK's STATE and PRIORITY (@core >= 0: only that core's ELF copies of per-core symbols are
 * used). @elf may be NULL (plans then only for constant formulas).
 * Fails with ORTI_ERROR_NO_OS ("no running-task information in FILE") when the file has no OS
 * object or no RUNNINGTASK; a formula that cannot be resolved fails only that attribute. */
OrtiWatch *orti_watch_resolve (OrtiDoc *doc, OrtiElf *elf, int core, GError **error);
/* orti_watch_resolve_full: as orti_watch_resolve() with the user's @options (NULL: none). Fails
 * also with ORTI_ERROR_OPTION when a value given names nothing ("idle value \"Foo\": not a
 * number and no RUNNINGTASK element of that name"). */
OrtiWatch *orti_watch_resolve_full (OrtiDoc *doc, OrtiElf *elf, int core,
                                    const OrtiWatchOptions *options, GError **error);
void orti_watch_free (OrtiWatch *watch);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OrtiWatch, orti_watch_free)
guint orti_watch_get_n_cores (OrtiWatch *watch);
/* The attribute @attr ("RUNNINGTASK", …) of @core, or NULL when the file does not define it. */
const OrtiWatchAttr *orti_watch_get (OrtiWatch *watch, guint core, const char *attr);
/* The TASK objects of the file, in file order (states and priorities resolved like the OS
 * attributes: a formula that fails fails only that attribute). */
guint orti_watch_get_n_tasks (OrtiWatch *watch);
const OrtiWatchTask *orti_watch_get_task (OrtiWatch *watch, guint index);
/* The task whose RUNNINGTASK value on @core is @value, or NULL (also for the idle loop). */
const OrtiWatchTask *orti_watch_lookup_task (OrtiWatch *watch, guint core, gint64 value);
/* Notes about the file (OrtiWatchNote*, owned by @watch), in the order found: what a session
 * ignores, every assumption (which value was taken for "no task" / "no ISR" and why), `.` read
 * through a pointer, STATE values the file leaves unlabelled, the priority order. */
GPtrArray *orti_watch_get_notes (OrtiWatch *watch);
/* Which end of the priority numbers is more urgent, and why (never NULL). */
const OrtiPriorityInfo *orti_watch_get_priority_order (OrtiWatch *watch);
/* orti_value_meaning_name: "task", "isr", "none", "other", "name". */
const char *orti_value_meaning_name (OrtiValueMeaning meaning);
/* orti_basis_name: "label", "alias", "shared", "initial", "default", "user". */
const char *orti_basis_name (OrtiBasis basis);
/* orti_priority_order_name: "higher-first", "lower-first", "unknown". */
const char *orti_priority_order_name (OrtiPriorityOrder order);
/* orti_label_means_idle: TRUE when @label means "nothing runs" by its words: a negation of a
 * running object (NO_TASK, NoIsr2, "Not Running (0)", INVALID_TASK, TASK_NONE), a word for
 * nothing (NONE, NULL, INVALID, EMPTY), or the idle loop (IDLE, idle_0, IdleTask,
 * OsTask_Idle_Core0, OsIdleTask_bg). Words are split at punctuation, case changes and digits;
 * "ControlIdle" or "IdleCounter" name something else. */
gboolean orti_label_means_idle (const char *label);

/* ---------------------------------------------------------------------------------------- */
/* 5. Address map: PC → function, source line, inlined frames (orti-addr.c)                  */

/* "No entry" in the indexes of an OrtiAddrRange. */
#define ORTI_ADDR_NONE G_MAXUINT32

typedef struct _OrtiAddrMap OrtiAddrMap;

/* A function of the map: an ELF function symbol with a size. */
typedef struct {
  const char *name;     /* ELF symbol name */
  guint64 start;        /* first byte; the ARM Thumb bit is cleared */
  guint64 size;         /* bytes, > 0 */
  int core;             /* as OrtiSymbol.core: -1 when not core specific */
  const char *file;     /* source file DWARF declares it in, NULL: unknown */
  guint32 name_id;      /* @name among the map's names (orti_addr_get_name) */
} OrtiAddrFunction;

/* A source line (one per distinct file + line). */
typedef struct {
  const char *file;     /* path as DWARF records it, directory joined ("/src/os.c") */
  guint line;           /* from 1 */
} OrtiAddrLine;

/* A DWARF scope: a subprogram, or an inlined subroutine inside one. */
typedef struct {
  const char *name;       /* the subprogram's name; for an inlined subroutine the inlined
                           * function's own name (its abstract origin's) */
  guint32 name_id;        /* @name among the map's names */
  guint32 parent;         /* scope it was inlined into; ORTI_ADDR_NONE for a subprogram */
  const char *call_file;  /* inlined: file and line of the call it replaces; NULL, 0 for a */
  guint call_line;        /* subprogram */
  guint depth;            /* 0: subprogram, 1: inlined into it, 2: inlined into that, … */
} OrtiAddrScope;

/* One range of the flat table: every PC in [start, end) maps to the same entries. The ranges
 * cover the whole address space; a PC no function symbol covers (a gap between functions,
 * data, outside every executable section, or past a symbol's size) has function NONE. */
typedef struct {
  guint64 start, end;   /* the last range ends at G_MAXUINT64, which it includes */
  guint32 function;     /* ELF function (orti_addr_get_function), ORTI_ADDR_NONE: unknown */
  guint32 line;         /* source line (orti_addr_get_line), ORTI_ADDR_NONE: no line info */
  guint32 scope;        /* innermost DWARF scope (orti_addr_get_scope), ORTI_ADDR_NONE: none */
  guint32 leaf;         /* name id of the innermost function: the inlined function's own name
                         * when DWARF says the PC is in inlined code, else the function's
                         * name; ORTI_ADDR_NONE when the function is unknown */
} OrtiAddrRange;

/* One frame of the inline chain at a PC, innermost first (as `addr2line -f -i` prints). */
typedef struct {
  const char *function; /* function name */
  const char *file;     /* innermost frame: the PC's line; outer frames: the call site. NULL */
  guint line;           /* and 0 when unknown */
} OrtiAddrFrame;

/* orti_addr_map_new:
 * Builds the address map of @elf once: function symbols with a size (Thumb bit cleared on
 * ARM), the DWARF line tables of every compilation unit and the subprogram / inlined
 * subroutine trees, flattened into one sorted table of ranges. Line rows and scope ranges
 * that start outside every executable section (discarded code: ld's address-0 tombstones)
 * are dropped. An ELF without DWARF gives functions only. Fails with ORTI_ERROR_ELF naming
 * the file for a relocatable (unlinked) file, an unreadable section table, a line table
 * libdw cannot read, or a file with neither function symbols nor DWARF. */
OrtiAddrMap *orti_addr_map_new (OrtiElf *elf, GError **error);
OrtiAddrMap *orti_addr_map_ref (OrtiAddrMap *map);
void orti_addr_map_unref (OrtiAddrMap *map);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OrtiAddrMap, orti_addr_map_unref)

/* orti_addr_canonical_path: @path with its "." and ".." segments folded and repeated
 * separators collapsed, lexically (no file system access: the sources need not exist here):
 * "/b/x/../../src/./os.c" → "/b/src/os.c". A ".." above an absolute root is dropped, one at
 * the start of a relative path kept ("../a/../b" → "../b"). Windows paths (a backslash
 * anywhere, or a drive letter) keep their drive and are written with backslashes. Every file
 * name the address map gives is canonical. Newly allocated; "." for an empty result. */
char *orti_addr_canonical_path (const char *path);

/* orti_addr_lookup: the range holding @pc (a binary search; never NULL). Thread safe. */
const OrtiAddrRange *orti_addr_lookup (OrtiAddrMap *map, guint64 pc);
/* orti_addr_get_frames:
 * Fills up to @max frames of the inline chain at @range, innermost first: the innermost
 * scope's function with the range's line, then each enclosing scope's function with the call
 * site of the scope inside it. Without DWARF scope, one frame: the ELF function and the line.
 * Returns the number of frames (0 when the function and the scope are unknown). */
guint orti_addr_get_frames (OrtiAddrMap *map, const OrtiAddrRange *range, OrtiAddrFrame *frames,
                            guint max);

const char *orti_addr_get_path (OrtiAddrMap *map);   /* the ELF's path */
OrtiElf *orti_addr_get_elf (OrtiAddrMap *map);       /* borrowed */
guint orti_addr_get_n_ranges (OrtiAddrMap *map);
const OrtiAddrRange *orti_addr_get_range (OrtiAddrMap *map, guint index);
guint orti_addr_get_n_functions (OrtiAddrMap *map);
const OrtiAddrFunction *orti_addr_get_function (OrtiAddrMap *map, guint32 index); /* sorted by
                                                                                    * start */
/* orti_addr_find_function: the index of the first function named @name, or ORTI_ADDR_NONE. */
guint32 orti_addr_find_function (OrtiAddrMap *map, const char *name);
guint orti_addr_get_n_lines (OrtiAddrMap *map);
const OrtiAddrLine *orti_addr_get_line (OrtiAddrMap *map, guint32 index);
guint orti_addr_get_n_scopes (OrtiAddrMap *map);
const OrtiAddrScope *orti_addr_get_scope (OrtiAddrMap *map, guint32 index);
guint orti_addr_get_n_names (OrtiAddrMap *map);
const char *orti_addr_get_name (OrtiAddrMap *map, guint32 name_id);
/* The executable sections' address ranges, sorted and merged ([low, high)). */
guint orti_addr_get_n_text_ranges (OrtiAddrMap *map);
void orti_addr_get_text_range (OrtiAddrMap *map, guint index, guint64 *low, guint64 *high);

G_END_DECLS
