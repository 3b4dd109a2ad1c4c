/* check-db.h — the reading `orti-profd check` and `orti-profd diff` share: finding a stored
 * session and running parameterised queries over the views on a read-only StoreDb. */
#pragma once

#include "store.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)

/* What the commands show of a session (sessions table, docs/schema.md). */
typedef struct {
  gint64 id;
  char *name;       /* may be NULL */
  char *elf_path;   /* may be NULL */
  char *elf_sha256; /* may be NULL */
  gboolean sampled; /* its source samples (sample_rate_hz not NULL): statistics without a
                     * bound column have an unknown error */
} CheckSession;

void check_session_free (CheckSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CheckSession, check_session_free)

/* check_db_session:
 * Session @id of @db, or the newest (largest id) when @id < 0. NULL with
 * STORE_ERROR_NOT_FOUND ("no session 7 in the database", "the database holds no session")
 * or STORE_ERROR_SQL. */
CheckSession *check_db_session (StoreDb *db, gint64 id, GError **error);

/* check_db_prepare: @sql prepared on @db's connection, or NULL with STORE_ERROR_SQL. */
sqlite3_stmt *check_db_prepare (StoreDb *db, const char *sql, GError **error);

/* check_db_double: column @col of the current row as a double, NAN when NULL. */
double check_db_double (sqlite3_stmt *stmt, int col);

/* check_db_format: @v with up to 3 decimals and no trailing zeros ("12.5"), "NULL" for NAN
 * (newly allocated). */
char *check_db_format (double v);

/* check_json_number: member @name = @v, null when @v is NAN or infinite (JSON has neither). */
void check_json_number (JsonBuilder *builder, const char *name, double v);

/* check_json_finish: @builder's document, pretty-printed, ending in a newline (newly
 * allocated). */
char *check_json_finish (JsonBuilder *builder);

/* check_markdown_escape: @text for a markdown table cell: '|' (which would end the cell)
 * escaped (newly allocated). */
char *check_markdown_escape (const char *text);

G_END_DECLS
