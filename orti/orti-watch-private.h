/* orti-watch-private.h — what the watch (orti-watch.c, orti-watch-meaning.c) needs from the
 * value maps (orti-values.c) beyond the public API: deciding what each value means after the
 * maps were built. Not installed; only orti/ includes it. */
#pragma once

#include "orti.h"

/* orti__wrap_value: @v wrapped to @width bytes (0: as is), sign-extended when @is_signed. */
gint64 orti__wrap_value (gint64 v, guint width, gboolean is_signed);

/* The element at @index, to change its meaning (valid until the next add). */
OrtiValueName *orti_value_map__get_mutable (OrtiValueMap *map, guint index);
/* A copy of @text living as long as @map (NULL for NULL). */
const char *orti_value_map__intern (OrtiValueMap *map, const char *text);
/* orti_value_map__add_synthetic: appends an element the file does not have (resolved,
 * synthetic, meaning NAME) for an assumed or user-given value; valid until the next add. */
OrtiValueName *orti_value_map__add_synthetic (OrtiValueMap *map, gint64 value, const char *name);
/* orti_value_map__set_meaning: sets @vn's meaning, is_none, object, basis, assumed and why
 * (strings copied into @map). */
void orti_value_map__set_meaning (OrtiValueMap *map, OrtiValueName *vn, OrtiValueMeaning meaning,
                                  const char *object, OrtiBasis basis, const char *why);

struct _OrtiWatch {
  OrtiDoc *doc;     /* keeps decls, formulas and locations alive */
  guint n_cores;
  GPtrArray *attrs; /* OrtiWatchAttr* (OS attributes) */
  GPtrArray *tasks; /* OrtiWatchTask* */
  GPtrArray *notes; /* OrtiWatchNote* */
  OrtiPriorityInfo priority;
  char *priority_why; /* priority.why */
};

/* orti_watch__add_note: a note at @loc (the first of several identical ones only). */
void orti_watch__add_note (OrtiWatch *watch, OrtiLocation loc, const char *fmt, ...)
  G_GNUC_PRINTF (3, 4);

/* orti_watch__decide_values (orti-watch-meaning.c): what every RUNNINGTASK and RUNNINGISR2 value
 * of every core stands for (OrtiValueMeaning), the user's @options applied and, where the file
 * names no "nothing runs" value, the one assumed from the ELF's initial data (@elf, @core) or a
 * convention, each assumption a note. FALSE with ORTI_ERROR_OPTION when a value of @options
 * names nothing. Before the tasks are resolved. */
gboolean orti_watch__decide_values (OrtiWatch *watch, OrtiElf *elf, int core,
                                    const OrtiWatchOptions *options, GError **error);

/* orti_watch__decide_priority_order (orti-watch-meaning.c): watch->priority from @options, else
 * from what the file's priority declarations say, else OSEK's order assumed; a note. */
void orti_watch__decide_priority_order (OrtiWatch *watch, const OrtiWatchOptions *options);
