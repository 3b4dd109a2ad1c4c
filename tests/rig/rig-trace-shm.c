/* rig-trace-shm.c — mapping the files the rig's processes share (the trace unit's page, QEMU's
 * PSRAM file): one helper for the plugin, jtag-sim and rig-trace-truth (see rig-trace-shm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rig-trace-shm.h"

void *rig_trace_map_file(const char *path, size_t min, int writable, size_t *size,
                         GError **error)
{
  int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", path,
                g_strerror(errno));
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  if ((size_t)st.st_size < min) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %lld bytes, %zu needed", path,
                (long long)st.st_size, min);
    close(fd);
    return NULL;
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED,
                 fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "mmap %s: %s", path,
                g_strerror(errno));
    return NULL;
  }
  if (size != NULL)
    *size = (size_t)st.st_size;
  return p;
}
