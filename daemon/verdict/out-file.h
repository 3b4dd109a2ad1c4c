/* out-file.h — an output file that a failure leaves untouched: the bytes go to a temporary
 * file beside it (same directory, so the rename is atomic), which replaces the file only once
 * everything was written and is removed otherwise. `export -o` streams through one; `check`
 * writes its --junit and --markdown files through two and commits them together, so a failed
 * command leaves neither (exit-status.h). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _OutFile OutFile;

/* out_file_new: creates the temporary file for @path (DIR/.NAME.XXXXXX, mode 0666 less the
 * umask); NULL with a G_FILE_ERROR naming @path (a missing directory: G_FILE_ERROR_NOENT). */
OutFile *out_file_new (const char *path, GError **error);

/* out_file_get_stream: where the bytes go (owned by @f). */
GOutputStream *out_file_get_stream (OutFile *f);

/* out_file_write_all: writes @len bytes of @data (-1: a string). */
gboolean out_file_write_all (OutFile *f, const char *data, gssize len, GError **error);

/* out_file_commit: flushes, syncs and closes the temporary file and renames it to the path;
 * FALSE with a GError naming the path (the temporary file is then removed). Once only. */
gboolean out_file_commit (OutFile *f, GError **error);

/* out_file_free: removes the temporary file unless committed, and frees @f; NULL ignored. */
void out_file_free (OutFile *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OutFile, out_file_free)

G_END_DECLS
