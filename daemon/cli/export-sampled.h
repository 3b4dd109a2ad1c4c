/* export-sampled.h — a stored session's PC-sampled profile (store.h "the PC-sampled profile")
 * in the formats of web.h "sampled profiles": gmon.out, seed 001's flat profile, seed 004's
 * Monte Carlo report, folded stacks and callgrind, for `orti-profd export`.
 *
 * It reads the store's rows (a read-only StoreDb is enough), rebuilds WebSampledRow arrays and
 * hands them to the web writers with the accumulator's interval (pcprof_share), so the ±
 * columns are the same statistic the session stored. Differences from a live export from the
 * accumulator: folded stacks have no inlined frames (the store keeps functions and lines, not
 * inline chains); shares are of all the session's samples (every core, N summed), the span is
 * the longest core's. gmon.out needs the target's byte order: it is read from the session's
 * ELF (sessions.elf_path, absolute; or the ELF given with `export --elf`, checked against the
 * session's build id, else its SHA-256); the histogram covers the session's functions table.
 *
 * The same writer serves GET /api/sessions/{id}/export?format=gmon|sampled-… : the daemon
 * installs export_sampled_web in the web server's WebConfig (export_sampled_web_config), as
 * web/ may not include daemon/.
 */
#pragma once

#include "store.h"
#include "web.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* export_sampled_format_known: whether @name is one of "gmon", "sampled-flat",
 * "sampled-montecarlo", "sampled-folded", "sampled-callgrind". */
gboolean export_sampled_format_known (const char *name);

/* The formats, with the Content-Type and file suffix REST serves them with:
 * gmon (application/octet-stream, session-ID.gmon.out), the others text/plain. */
extern const WebExportKind export_sampled_kinds[];
extern const guint export_sampled_n_kinds;

/* export_sampled_write:
 * Writes the sampled profile of @session in format @name to @out; @task (name or value, NULL:
 * all) keeps one task's rows (shares stay of all samples). FALSE with STORE_ERROR_NOT_FOUND (no
 * such session), WEB_ERROR_NOT_FOUND "no PC samples in session N" (a session recorded without
 * --pc-sample), WEB_ERROR_CONFLICT naming the ELF, its build id (or SHA-256) and the option
 * to point at it (gmon for a session whose ELF is gone or was rebuilt), WEB_ERROR_CONFIG when
 * @elf (the ELF to use instead of the stored one; NULL: the stored one) is not the session's
 * build, a store or writer error. */
gboolean export_sampled_write (StoreDb *db, gint64 session, const char *name, const char *task,
                               const char *elf, GOutputStream *out, GError **error);

/* export_sampled_web: export_sampled_write as a WebExportFunc (@user_data unused). */
gboolean export_sampled_web (gpointer user_data, StoreDb *db, gint64 session, const char *format,
                             const char *task, GOutputStream *out, GError **error);

/* export_sampled_web_config: makes @wc's web server serve these formats at /export. */
void export_sampled_web_config (WebConfig *wc);

G_END_DECLS
