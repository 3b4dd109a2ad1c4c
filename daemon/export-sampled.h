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
 * ELF (sessions.elf_path); the histogram covers the session's functions table.
 */
#pragma once

#include "store.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* export_sampled_format_known: whether @name is one of "gmon", "sampled-flat",
 * "sampled-montecarlo", "sampled-folded", "sampled-callgrind". */
gboolean export_sampled_format_known (const char *name);

/* export_sampled_write:
 * Writes the sampled profile of @session in format @name to @out; @task (name or value, NULL:
 * all) keeps one task's rows (shares stay of all samples). FALSE with STORE_ERROR_NOT_FOUND (no
 * such session), a G_IO_ERROR_NOT_FOUND "no PC samples" error (a session recorded without
 * --pc-sample), an error naming the ELF (gmon without a readable ELF), a store or writer
 * error. */
gboolean export_sampled_write (StoreDb *db, gint64 session, const char *name, const char *task,
                               GOutputStream *out, GError **error);

G_END_DECLS
