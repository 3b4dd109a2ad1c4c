/* web-export-private.h — the exporters' shared insides: the buffered output (Out), the
 * session's names and clock loaded once (Session), and one writer per format family:
 * web-export.c (entry points, formats, the session), web-export-functions.c (callgrind, gprof,
 * TWL, PFP), web-export-folded.c (folded stacks), web-export-perfetto.c (Perfetto / Chrome
 * trace-event JSON), web-export-csv.c (CSV tables). Not installed; only web/ includes it. */
#pragma once

#include <gio/gio.h>
#include <errno.h>
#include <sqlite3.h>
#include <string.h>

#include "web.h"
#include "store.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)
#define MAX_STACK 256   /* deepest call chain folded (deeper ones are cut at the root) */

typedef struct {
  GString *buf;        /* pending bytes */
  GOutputStream *out;  /* destination */
  GError *error;       /* first write error; later writes are dropped */
} Out;
#define hash_keys(h) web_export__hash_list ((h), TRUE)
#define hash_values(h) web_export__hash_list ((h), FALSE)

typedef struct {
  sqlite3 *db;
  gint64 id;
  char *name;            /* session name */
  char *elf;             /* ELF file name without directories, NULL: unknown */
  const char *no_calls;  /* why it has no function calls to profile (its source cannot see
                          * them: poll, SWO; or none were recorded); NULL: it has calls */
  double rate;           /* ticks per second */
  GHashTable *tasks;     /* task value → name */
  GHashTable *isrs;      /* ISR value → name */
  GHashTable *functions; /* address → name */
  GHashTable *cores;     /* core → name */
  gboolean filter;       /* only one task or ISR2 */
  gint64 task;           /* its context when filtering (web_export__context) */
  GHashTable *scratch;   /* fallback names made on demand ("0x1a") */
} ExportSession;

/* web-export.c */
void web_export__out_maybe_flush (Out *o);
void web_export__out_printf (Out *o, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
void web_export__out_puts (Out *o, const char *s);
void web_export__out_json_string (Out *o, const char *s);
void web_export__out_us (Out *o, double us);
GPtrArray * web_export__hash_list (GHashTable *h, gboolean keys);
void web_export__session_clear (ExportSession *s);
sqlite3_stmt * web_export__prepare (ExportSession *s, const char *sql, GError **error);
gboolean web_export__step (ExportSession *s, sqlite3_stmt *stmt, GError **error);
const char * web_export__task_name (ExportSession *s, gint64 task, gboolean isr);
const char * web_export__function_name (ExportSession *s, gint64 address);
gboolean web_export__session_load (ExportSession *s, StoreDb *db, const WebExportOptions *opt, GError **error);
double web_export__ticks_us (const ExportSession *s, gint64 ticks);
/* A slice's or call's context as one key: its task value, or its ISR2 id with
 * WEB_EXPORT_ISR_CONTEXT set when @flags has STORE_SLICE_ISR (a task and an ISR2 may share a
 * value). */
#define WEB_EXPORT_ISR_CONTEXT (G_GINT64_CONSTANT (1) << 32)
#define WEB_EXPORT_IDLE_TASK G_GINT64_CONSTANT (0xFFFFFFFF) /* calls.task of the idle context */
gint64 web_export__context (gint64 task, gint64 flags);
/* web_export__wanted: TRUE when @context passes the export's task filter (or there is none). */
gboolean web_export__wanted (const ExportSession *s, gint64 context);
/* web_export__context_label: the name of @context: the task's, the ISR2's, "idle" for the idle
 * context; a hex value for one the session does not name. Owned by @s. */
const char * web_export__context_label (ExportSession *s, gint64 context);
gboolean web_export__sees_calls (const ExportSession *s, const char *what, GError **error);

/* web-export-functions.c */
gboolean web_export__write_callgrind (ExportSession *s, Out *o, GError **error);
gboolean web_export__write_gprof (ExportSession *s, Out *o, GError **error);
gboolean web_export__write_twl (ExportSession *s, Out *o, GError **error);
gboolean web_export__write_pfp (ExportSession *s, Out *o, GError **error);

/* web-export-folded.c */
gboolean web_export__write_folded (ExportSession *s, Out *o, GError **error);

/* web-export-perfetto.c */
gboolean web_export__write_perfetto (ExportSession *s, Out *o, GError **error);

/* web-export-csv.c */
gboolean web_export__write_csv (StoreDb *db, ExportSession *s, const char *table, Out *o, GError **error);
