/* store-test-ingest.c — helper process for test-store-faults: ingests through a real
 * StoreWriter until killed or until the disk refuses.
 *
 *   store-test-ingest ingest DB
 *     begins a session and pushes events forever (event i: ts = 10·i, a = i, one core),
 *     1000 every 2 ms, printing "committed N" each time the writer's committed count grows.
 *   store-test-ingest fill DB LIMIT_BYTES
 *     limits the size of every file it writes to LIMIT_BYTES (RLIMIT_FSIZE, SIGXFSZ
 *     ignored so writes fail with EFBIG like a full disk), then ingests until a write
 *     fails; prints the error on stderr and exits 1 (3 if nothing ever failed).
 */
#include "store.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define BATCH 1000

static int
ingest (const char *path, guint64 max_events, gulong pause_us)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  if (w == NULL) {
    fprintf (stderr, "store-test-ingest: %s\n", error->message);
    return 2;
  }
  StoreSessionInfo info = { .name = "fault", .source_kind = "test", .tick_rate_hz = 1e8 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  gboolean ok = id > 0 && store_writer_add_task (w, id, 1, "Task_A", &error);
  ProbeEvent batch[BATCH];
  guint64 next = 0, reported = 0;
  while (ok && next < max_events) {
    for (guint i = 0; i < BATCH; i++, next++)
      batch[i] = (ProbeEvent) { .ts = next * 10, .a = (guint32) next, .b = (guint32) (next & 1),
                                .core = 0, .kind = next % 3 == 0 ? PROBE_EVENT_TASK_SWITCH
                                                                 : PROBE_EVENT_FUNC_ENTER };
    ok = store_writer_push_events (w, id, batch, BATCH, &error);
    if (pause_us > 0)
      g_usleep (pause_us);
    guint64 c = store_writer_committed_events (w);
    if (c != reported) {
      printf ("committed %" G_GUINT64_FORMAT "\n", c);
      fflush (stdout);
      reported = c;
    }
  }
  if (ok)
    ok = store_writer_flush (w, &error);
  if (!ok)
    fprintf (stderr, "store-test-ingest: %s\n", error->message);
  g_clear_error (&error);
  gboolean closed = store_writer_close (w, &error);
  if (!closed && ok)
    fprintf (stderr, "store-test-ingest: %s\n", error->message);
  return ok && closed ? 3 : 1;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "ingest") == 0)
    return ingest (argv[2], G_MAXUINT64, 2000);
  if (argc == 4 && strcmp (argv[1], "fill") == 0) {
    struct rlimit lim = { 0 };
    lim.rlim_cur = lim.rlim_max = strtoull (argv[3], NULL, 10);
    signal (SIGXFSZ, SIG_IGN);
    if (setrlimit (RLIMIT_FSIZE, &lim) != 0) {
      perror ("setrlimit");
      return 2;
    }
    return ingest (argv[2], 200000000, 0);
  }
  fprintf (stderr, "usage: store-test-ingest ingest DB | fill DB LIMIT_BYTES\n");
  return 2;
}
