/* cmd-inspect.h — what the two halves of `orti-profd inspect` share (cmd-inspect.c: the command
 * and the text report; cmd-inspect-json.c: the --json document): the resolved file and the
 * helpers both render from. Private to daemon/. */
#pragma once

#include "orti.h"

#include <glib.h>

G_BEGIN_DECLS

#define CMD_INSPECT_N_WATCHED 6
#define CMD_INSPECT_N_ISR_TYPES 3
/* The watched OS attributes, in display order, and the ISR object types. */
extern const char *const cmd_inspect__watched_attrs[CMD_INSPECT_N_WATCHED];
extern const char *const cmd_inspect__isr_types[CMD_INSPECT_N_ISR_TYPES];

typedef struct {
  OrtiDoc *doc;
  const char *orti_path, *elf_path; /* as given (a session's view: inspect-evidence.h) */
  const OrtiWatchOptions *options;  /* the user's (--idle-value …) */
  OrtiElf *elf;     /* or NULL */
  int core;         /* --core, -1 when not given */
  OrtiWatch *watch; /* or NULL when it could not be resolved */
  char *watch_error;/* why not */
  GHashTable *maps; /* OrtiDecl* → OrtiValueMap*, for naming ENUM attribute values */
} Inspect;

const char *cmd_inspect__kind_name (OrtiAttrKind kind);       /* "CTYPE", "ENUM", "STRING" */
const char *cmd_inspect__state_name (OrtiTaskState st);       /* "running", … */
char *cmd_inspect__location (const OrtiLocation *loc);        /* "file:line:col", allocated */
/* The id of task/ISR @name on whichever core's @attr map knows it (*@core_out), or NULL. */
const OrtiValueName *cmd_inspect__lookup_id_any_core (Inspect *in, const char *attr,
                                                      const char *name, guint *core_out);
/* An object's attribute as shown: its formula text, its offline value (ELF initial data or a
 * constant) for CTYPE/ENUM, and for ENUM the element that value stands for (@name NULL: none). */
void cmd_inspect__attr_value (Inspect *in, OrtiObject *obj, const char *attr, const char **text,
                              gboolean *has_value, gint64 *value, const char **name);
/* The watched attributes of @core in display order (at most CMD_INSPECT_N_WATCHED). */
guint cmd_inspect__watch_attrs_of_core (Inspect *in, guint core, const OrtiWatchAttr **out);
/* The --json document of @in (@error: the failure to report, or NULL). Newly allocated. */
char *cmd_inspect__json (Inspect *in, const char *error);

G_END_DECLS
