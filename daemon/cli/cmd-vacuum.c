/* cmd-vacuum.c — `orti-profd vacuum [--db FILE]`: rebuild the session database with SQLite's
 * VACUUM so the space of deleted sessions and pruned raw events (--keep-raw) goes back to the
 * file system, and switch an older file to incremental auto_vacuum. VACUUM holds the write
 * lock for its whole run, so it is refused while a session is running (store_db_vacuum). */
#include "command-config.h"
#include "commands.h"
#include "store.h"

#include <stdio.h>

int
cmd_vacuum (int argc, char **argv)
{
  g_autofree char *db_path = NULL;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("vacuum", "— rebuild the database to free unused space (not while a session is running)",
                      NULL,
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc > 1) {
    fprintf (stderr, "vacuum: unexpected argument \"%s\"\n", argv[1]);
    return 2;
  }
  const char *path = db_path != NULL ? db_path : "profile.db";
  gint64 before = 0, after = 0;
  if (!store_db_vacuum (path, &before, &after, &error)) {
    fprintf (stderr, "vacuum: %s\n", error->message);
    return orti_exit_status_for_error (error); /* a session running: 1; no such file: 2 */
  }
  g_autofree char *b = g_format_size_full ((guint64) before, G_FORMAT_SIZE_LONG_FORMAT);
  g_autofree char *a = g_format_size_full ((guint64) after, G_FORMAT_SIZE_LONG_FORMAT);
  printf ("%s: %s before, %s after\n", path, b, a);
  return 0;
}
