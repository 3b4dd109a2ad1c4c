/* check-source.h — the store `check` and `diff` read (and pick sessions in): an SQLite file,
 * or a shared PostgreSQL store (store-pg.h), whose chosen sessions are copied into a private
 * temporary SQLite store first (store_pull). The verdict code reads SQLite only, so a session
 * gets the same verdict, byte for byte, from the bench's file and from the shared store: one
 * definition of every verdict, not two kept in step.
 *
 * A session is picked by its id, as the newest, or as the newest with a build label (the
 * sessions' build_label, `run --label`): "newest" is the largest id, in the file as in the
 * shared store (whose ids follow the order of the pushes). */
#pragma once

#include "store.h"

G_BEGIN_DECLS

typedef struct {
  gint64 id;         /* >= 0: this session; < 0: the newest one (with @label when set) */
  const char *label; /* a build label: the newest session with it; NULL: any */
} CheckPick;

typedef struct _CheckSource CheckSource;

/* check_source_open:
 * Opens @db — an SQLite file (read-only), or a postgresql:// URL or conninfo (a read-only
 * connection, whose picked sessions are copied into a private SQLite store) — and resolves
 * @picks: on return each pick's id is the session's (for a file, a pick without a label is
 * left for check_db_session to resolve, with its messages). NULL with a GError naming the
 * value: STORE_ERROR_NOT_FOUND for a label no session has (or an unknown id in the shared
 * store), STORE_PG_ERROR for a server that cannot be reached, refuses the credentials, or
 * holds a schema of another version, STORE_ERROR for a file. */
CheckSource *check_source_open (const char *db, CheckPick *picks, guint n_picks, GError **error);

/* check_source_db: the store to read the picked sessions in. Owned by @source. */
StoreDb *check_source_db (CheckSource *source);

/* check_source_free: closes the store and removes a private copy; NULL is ignored. */
void check_source_free (CheckSource *source);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CheckSource, check_source_free)

G_END_DECLS
