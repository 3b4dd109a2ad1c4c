/* top-source.h — where `orti-profd top` reads its snapshots (top-view.h) from: the REST API of
 * a running daemon (`run --http`, `serve`; libsoup-3) or a session database read-only while a
 * session records into it (the store's views). Both answer the same rows — the REST API
 * serves the views' rows —, so one JSON reader makes the snapshot from either.
 *
 * Errors (orti_exit_status_for_error): a URL that does not parse, a database file that is
 * missing or not a store, and an unknown session (or none at all) are bad input
 * (G_IO_ERROR_INVALID_ARGUMENT, STORE_ERROR_*); a daemon that cannot be reached or answers
 * an error is a failure (G_IO_ERROR_*). */
#pragma once

#include "top-view.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct TopSource TopSource;

/* top_source_new_url:
 * Reads from the daemon at @url ("http://HOST:PORT", a trailing slash allowed; "HOST:PORT"
 * means http://HOST:PORT), sending
 * @token (NULL: none) as a bearer token. @session: the session shown, or -1 for the latest
 * running one (else the latest one) at the first read. */
TopSource *top_source_new_url (const char *url, const char *token, gint64 session,
                               GError **error);

/* top_source_new_db: reads the database @path (read-only; it must exist). @session as above. */
TopSource *top_source_new_db (const char *path, gint64 session, GError **error);

/* top_source_read: the session's figures now; NULL with @error when they cannot be read. */
TopSnapshot *top_source_read (TopSource *source, GError **error);

void top_source_free (TopSource *source);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TopSource, top_source_free)

G_END_DECLS
