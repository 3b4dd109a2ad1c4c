/* out-file.c — output files written beside their path and renamed into place (out-file.h).
 * The temporary file is created 0666 less the umask, as open(2) would create the file. */
#include "out-file.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixoutputstream.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

struct _OutFile {
  char *path;           /* where it goes */
  char *tmp;            /* where it is written, NULL once committed or removed */
  int fd;               /* of tmp, owned by stream */
  GOutputStream *stream;
};

OutFile *
out_file_new (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", path, g_strerror (e));
    return NULL;
  }
  OutFile *f = g_new0 (OutFile, 1);
  f->path = g_strdup (path);
  f->tmp = g_steal_pointer (&tmp);
  f->fd = fd;
  f->stream = g_unix_output_stream_new (fd, TRUE);
  return f;
}

GOutputStream *
out_file_get_stream (OutFile *f)
{
  return f->stream;
}

gboolean
out_file_write_all (OutFile *f, const char *data, gssize len, GError **error)
{
  gsize n = len < 0 ? strlen (data) : (gsize) len;
  if (!g_output_stream_write_all (f->stream, data, n, NULL, NULL, error)) {
    g_prefix_error (error, "%s: ", f->path);
    return FALSE;
  }
  return TRUE;
}

gboolean
out_file_commit (OutFile *f, GError **error)
{
  g_return_val_if_fail (f->tmp != NULL, FALSE);
  gboolean ok = g_output_stream_flush (f->stream, NULL, error);
  if (ok && fsync (f->fd) != 0) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s", g_strerror (e));
    ok = FALSE;
  }
  if (!g_output_stream_close (f->stream, NULL, ok ? error : NULL))
    ok = FALSE;
  if (ok && g_rename (f->tmp, f->path) != 0) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s", g_strerror (e));
    ok = FALSE;
  }
  if (!ok) {
    g_prefix_error (error, "%s: ", f->path);
    g_unlink (f->tmp);
  }
  g_clear_pointer (&f->tmp, g_free);
  return ok;
}

void
out_file_free (OutFile *f)
{
  if (f == NULL)
    return;
  if (f->tmp != NULL) {
    g_output_stream_close (f->stream, NULL, NULL);
    g_unlink (f->tmp);
    g_free (f->tmp);
  }
  g_clear_object (&f->stream);
  g_free (f->path);
  g_free (f);
}
