/* test-exit-status.c — one exit-status policy for every command (exit-status.h, README "Exit
 * status"), as a table of cases per command run on the built executable (argv[1]): 0 ok, 1 the
 * work failed or its result is negative, 2 bad input, 3 undecided. A case may also name a
 * file that must not exist afterwards (a failed command leaves no output and creates no
 * database) and words its stderr must hold.
 *
 * The database is written through the store (example-db.h): session 1 exact with calls (RTT),
 * 2 sampled (poll, its loads with bounds), 3 SWO (no calls, a higher load); session 1 of a
 * second database is left running by this process (its live writer). argv[2] is an x86-64 program (orti/
 * test-orti-target); the rig's demo ORTI file and ELF are used when built (cases skipped
 * otherwise). */
#include "example-db.h"
#include "store.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

static char *exe, *x86_elf; /* absolute: the commands run in dir */
static char *dir;

typedef struct {
  const char *args[16]; /* after the executable; "@X" are replaced (subst) */
  int status;
  const char *absent;   /* "@X/…": a file that must not exist afterwards, or NULL */
  const char *says;     /* stderr holds this, or NULL */
  const char *prints;   /* stdout holds this, or NULL */
} Case;

typedef struct {
  const char *command;  /* for the message */
  Case cases[16];
} Table;

/* "@DB" and friends → paths of this run (newly allocated; NULL: the case cannot run here). */
static char *
subst (const char *arg)
{
  static const struct { const char *name, *file; } files[] = {
    { "@DB", "profile.db" }, { "@RUNNING", "running.db" }, { "@NOTDB", "notes.txt" },
    { "@PASS", "pass.ini" }, { "@VIOLATED", "violated.ini" }, { "@UNDECIDED", "undecided.ini" },
    { "@BADINI", "bad.ini" }, { "@EVENTS", "events.txt" }, { "@BADEVENTS", "bad-events.txt" },
    { "@BADORT", "bad.ort" }, { "@BADCAP", "bad.ocap" }, { "@OUT", "out" },
    { "@NODIR", "no/such/dir/out" }, { "@NEWDB", "new.db" }, { "@DERIVED", "derived.ini" },
    { "@CONF", "orti-profd.conf" }, { "@APPELF", "app.elf" }, { "@MOVED", "moved.elf" },
  };
  if (strcmp (arg, "@X86") == 0)
    return g_strdup (x86_elf);
  if (strcmp (arg, "@EXE") == 0)
    return g_strdup (exe);
  if (strcmp (arg, "@ORTI") == 0 || strcmp (arg, "@ELF") == 0) {
    g_autofree char *p = strcmp (arg, "@ORTI") == 0
      ? g_build_filename (g_getenv ("ORTI_SOURCE_DIR"), "tests", "rig", "firmware", "demo.ort", NULL)
      : g_build_filename (g_getenv ("ORTI_BUILD_DIR"), "tests", "rig", "firmware", "demo.elf", NULL);
    return g_file_test (p, G_FILE_TEST_EXISTS) ? g_steal_pointer (&p) : NULL;
  }
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++) {
    gsize n = strlen (files[i].name);
    if (strncmp (arg, files[i].name, n) == 0 && !g_ascii_isalpha (arg[n]))
      return g_strdup_printf ("%s/%s%s", dir, files[i].file, arg + n);
  }
  if (strcmp (arg, "@PORT") == 0 || strcmp (arg, "@BUSY") == 0) { /* closed / taken port */
    static guint16 closed, busy;
    static GSocketListener *holder;
    if (holder == NULL) {
      holder = g_socket_listener_new ();
      busy = g_socket_listener_add_any_inet_port (holder, NULL, NULL);
      GSocketListener *probe = g_socket_listener_new ();
      closed = g_socket_listener_add_any_inet_port (probe, NULL, NULL);
      g_socket_listener_close (probe);
      g_object_unref (probe);
    }
    return g_strdup_printf ("127.0.0.1:%u", strcmp (arg, "@PORT") == 0 ? closed : busy);
  }
  return g_strdup (arg);
}

static void
run_case (const char *command, const Case *c)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (exe));
  g_autoptr (GString) shown = g_string_new ("orti-profd");
  for (guint i = 0; c->args[i] != NULL; i++) {
    char *a = subst (c->args[i]);
    if (a == NULL) {
      g_test_message ("%s: skipped (no %s in this build)", command, c->args[i]);
      return;
    }
    g_ptr_array_add (argv, a);
    g_string_append_printf (shown, " %s", c->args[i]);
  }
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &wait_status, &error));
  int status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  if (status != c->status)
    g_error ("%s: %s: exit status %d, not %d; stderr: %s", command, shown->str, status,
             c->status, err);
  if (c->says != NULL && strstr (err, c->says) == NULL)
    g_error ("%s: %s: stderr lacks \"%s\": %s", command, shown->str, c->says, err);
  if (c->prints != NULL && strstr (out, c->prints) == NULL)
    g_error ("%s: %s: stdout lacks \"%s\": %s", command, shown->str, c->prints, out);
  if (c->absent != NULL) {
    g_autofree char *p = subst (c->absent);
    if (g_file_test (p, G_FILE_TEST_EXISTS))
      g_error ("%s: %s: left %s behind", command, shown->str, p);
    g_autofree char *wal = g_strconcat (p, "-wal", NULL);
    g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  }
  g_test_message ("%s: %s: exit status %d", command, shown->str, status);
}

static const Table tables[] = {
  { "orti-profd", {
    { { NULL }, 2 },
    { { "frobnicate" }, 2, NULL, "unknown command" },
    { { "--version" }, 0 },
    { { "--help" }, 0 },
  } },
  { "run", {
    { { "--orti", "@ORTI", "--elf", "@ELF", "--source", "bogus", "--db", "@NEWDB" }, 2, "@NEWDB" },
    { { "--orti", "@ORTI", "--elf", "@ELF", "--http", "bogus", "--openocd", "@PORT", "--db",
        "@NEWDB" }, 2, "@NEWDB", "is not ADDR:PORT" },
    { { "--orti", "@ORTI", "--elf", "@ELF", "--openocd", "@PORT", "--http", "none", "--db",
        "@NEWDB" }, 1, "@NEWDB", "Is OpenOCD running?" },
    { { "--orti", "@ORTI", "--elf", "@ELF", "--openocd", "@PORT", "--http", "@BUSY", "--db",
        "@NEWDB" }, 1, "@NEWDB", "cannot listen" },
    { { "--orti", "@ORTI", "--elf", "@ELF", "--replay", "@OUT/none.ocap", "--http", "none",
        "--db", "@NEWDB" }, 2, "@NEWDB", "cannot open capture file" },
    { { "--orti", "@ORTI", "--elf", "@ELF", "--replay", "@BADCAP", "--http", "none", "--db",
        "@NEWDB" }, 2, "@NEWDB", "not an orti-profd capture file" },
    { { "--orti", "@BADORT", "--elf", "@ELF", "--openocd", "@PORT", "--db", "@NEWDB" }, 2,
      "@NEWDB", "error" },
    { { "--orti", "@ORTI", "--elf", "@X86", "--openocd", "@PORT", "--db", "@NEWDB" }, 2,
      "@NEWDB", "os_running_task" },
    { { "--orti", "@ORTI", "--elf", "@ELF", "--openocd", "@PORT", "--http", "none", "--db",
        "@NOTDB" }, 2, NULL, "not an SQLite database" },
    { { "--orti", "@ORTI", "--elf", "@ELF", "--budgets", "@BADINI", "--db", "@NEWDB" }, 2,
      "@NEWDB" },
  } },
  { "inspect", {
    { { "inspect", "--orti", "@ORTI", "--elf", "@ELF" }, 0 },
    { { "inspect", "--orti", "@OUT/none.ort" }, 2 },
    { { "inspect", "--orti", "@BADORT" }, 2, NULL, "error" },
    { { "inspect", "--orti", "@ORTI", "--elf", "@X86" }, 2, NULL, "cannot be read on" },
    { { "inspect", "--orti", "@ORTI", "--elf", "@OUT/none.elf" }, 2 },
    { { "inspect", "--bogus" }, 2 },
  } },
  { "sql", {
    { { "sql", "--db", "@DB", "SELECT count(*) FROM sessions" }, 0 },
    { { "sql", "--db", "@DB", "SELEKT 1" }, 2, NULL, "syntax error" },
    { { "sql", "--db", "@DB", "DELETE FROM sessions" }, 2 },
    { { "sql", "--db", "@OUT/none.db", "SELECT 1" }, 2, "@OUT/none.db", "no such database file" },
    { { "sql", "--db", "@NOTDB", "SELECT 1" }, 2 },
    { { "sql", "--db", "@DB" }, 2 },
    { { "sql", "--db", "@DB", "--timeout", "50", "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL "
        "SELECT i + 1 FROM c) SELECT max(i) FROM c" }, 1 },
    /* --db from the configuration file, as for every command */
    { { "sql", "--config", "@CONF", "--csv", "SELECT group_concat(name) FROM sessions" }, 0, NULL,
      NULL, "exact,sampled,swo" },
    { { "sql", "--config", "@OUT/none.conf", "SELECT 1" }, 2, NULL, "none.conf" },
  } },
  { "sessions", {
    { { "sessions", "--db", "@DB" }, 0 },
    { { "sessions", "--db", "@NOTDB" }, 2 },
    { { "sessions", "--db", "@OUT/none.db" }, 2, "@OUT/none.db" },
    { { "sessions", "extra" }, 2 },
    { { "sessions", "--config", "@CONF" }, 0, NULL, NULL, "(5 rows)" },
  } },
  { "delete-session", {
    { { "delete-session", "--db", "@DB", "99" }, 2, NULL, "no session with id 99" },
    { { "delete-session", "--db", "@DB", "x" }, 2 },
    { { "delete-session", "--db", "@OUT/none.db", "1" }, 2, "@OUT/none.db" },
    { { "delete-session", "--db", "@RUNNING", "1" }, 1, NULL, "is being recorded" },
  } },
  { "vacuum", {
    { { "vacuum", "--db", "@RUNNING" }, 1, NULL, "running" },
    { { "vacuum", "--db", "@OUT/none.db" }, 2, "@OUT/none.db" },
    { { "vacuum", "--db", "@NOTDB" }, 2 },
    { { "vacuum", "--db", "@DB" }, 0 },
  } },
  { "export", {
    { { "export", "--db", "@DB", "--session", "1", "--format", "callgrind", "-o", "@OUT/cg" }, 0 },
    { { "export", "--db", "@DB", "--session", "9", "--format", "perfetto", "-o", "@OUT/x" }, 2,
      "@OUT/x", "no session 9" },
    { { "export", "--db", "@DB", "--session", "1", "--format", "bogus", "-o", "@OUT/x" }, 2,
      "@OUT/x" },
    { { "export", "--db", "@DB", "--session", "1", "--format", "csv", "--table", "nope", "-o",
        "@OUT/x" }, 2, "@OUT/x" },
    { { "export", "--db", "@DB", "--session", "2", "--format", "callgrind", "-o", "@OUT/x" }, 1,
      "@OUT/x", "the poll source sees no function calls" },
    { { "export", "--db", "@DB", "--session", "3", "--format", "twl", "-o", "@OUT/x" }, 1,
      "@OUT/x", "the SWO source sees no function calls" },
    { { "export", "--db", "@DB", "--session", "3", "--format", "pfp", "-o", "@OUT/x" }, 1,
      "@OUT/x", "no function calls" },
    { { "export", "--db", "@DB", "--session", "3", "--format", "gprof", "-o", "@OUT/x" }, 1,
      "@OUT/x" },
    { { "export", "--db", "@DB", "--session", "1", "--format", "perfetto", "-o", "@NODIR" }, 2,
      "@NODIR" },
    { { "export", "--db", "@DB", "--session", "1", "--format", "sampled-flat", "-o", "@OUT/x" },
      2, "@OUT/x", "no PC samples" },
    { { "export", "--db", "@NOTDB", "--session", "1", "--format", "perfetto" }, 2 },
    /* gmon.out needs the session's ELF: where it was recorded (an absolute path), or, moved,
     * given with --elf and checked against the build id the session recorded */
    { { "export", "--db", "@DB", "--session", "4", "--format", "gmon", "-o", "@OUT/4.gmon" }, 0 },
    { { "export", "--db", "@DB", "--session", "5", "--format", "gmon", "-o", "@OUT/x" }, 1,
      "@OUT/x", "--elf FILE" },
    { { "export", "--db", "@DB", "--session", "5", "--format", "gmon", "--elf", "@APPELF", "-o",
        "@OUT/5.gmon" }, 0 },
    { { "export", "--db", "@DB", "--session", "5", "--format", "gmon", "--elf", "@EXE", "-o",
        "@OUT/x" }, 2, "@OUT/x", "but session 5 was recorded with build id" },
    { { "export", "--db", "@DB", "--session", "1", "--format", "perfetto", "--elf", "@APPELF" },
      2 },
  } },
  { "serve", {
    { { "serve", "--db", "@DB", "--http", "bogus" }, 2 },
    { { "serve", "--db", "@DB", "--http", "@BUSY" }, 1, NULL, "cannot listen" },
    { { "serve", "--db", "@OUT/none.db" }, 2, "@OUT/none.db" },
    { { "serve", "--db", "@NOTDB", "--http", "127.0.0.1:0" }, 2 },
    { { "serve", "--db", "@DB", "--budgets", "@BADINI", "--http", "127.0.0.1:0" }, 2 },
  } },
  { "check", {
    { { "check", "--db", "@DB", "--session", "1", "--budgets", "@PASS", "--junit", "@OUT/j.xml" },
      0 },
    { { "check", "--db", "@DB", "--session", "1", "--budgets", "@VIOLATED" }, 1 },
    { { "check", "--db", "@DB", "--session", "2", "--budgets", "@UNDECIDED" }, 3 },
    { { "check", "--db", "@DB", "--session", "9", "--budgets", "@PASS" }, 2, NULL, "no session 9" },
    { { "check", "--db", "@DB", "--session", "1", "--budgets", "@BADINI" }, 2 },
    { { "check", "--db", "@OUT/none.db", "--budgets", "@PASS" }, 2, "@OUT/none.db" },
    /* an output that cannot be written: neither file is left */
    { { "check", "--db", "@DB", "--session", "1", "--budgets", "@PASS", "--junit",
        "@OUT/j2.xml", "--markdown", "@NODIR" }, 2, "@OUT/j2.xml" },
    { { "check", "--db", "@DB", "--session", "1", "--derive-budgets", "@DERIVED" }, 0 },
    { { "check", "--db", "@DB", "--session", "9", "--derive-budgets", "@OUT/d2.ini" }, 2,
      "@OUT/d2.ini" },
    { { "check", "--db", "@DB" }, 2 },
  } },
  { "diff", {
    { { "diff", "--db", "@DB", "1", "1" }, 0 },
    { { "diff", "--db", "@DB", "1", "3" }, 1 }, /* exact both: 25 % → 40 % */
    { { "diff", "--db", "@DB", "1", "9" }, 2, NULL, "no session 9" },
    { { "diff", "--db", "@DB", "1", "2", "--threshold", "-1" }, 2 },
    { { "diff", "--db", "@DB", "1" }, 2 },
  } },
  { "slice", {
    { { "slice", "--events", "@EVENTS" }, 0 },
    { { "slice", "--events", "@BADEVENTS" }, 2 },
    { { "slice", "--events", "@OUT/none.txt" }, 2 },
    { { "slice" }, 2 },
  } },
  { "top", { /* stdout is a pipe here: one plain screen */
    { { "top", "--db", "@DB", "--session", "2" }, 0, NULL, NULL, "LOAD %" },
    { { "top", "--db", "@RUNNING" }, 0, NULL, NULL, "running" },
    { { "top", "--db", "@OUT/none.db" }, 2, "@OUT/none.db", "no such database file" },
    { { "top", "--db", "@NOTDB" }, 2 },
    { { "top", "--db", "@DB", "--session", "99" }, 2, NULL, "no session 99" },
    { { "top", "--url", "@PORT" }, 1, NULL, "Could not connect" },
    { { "top", "--url", "ftp://x" }, 2, NULL, "not an http" },
    { { "top", "--db", "@DB", "--url", "@PORT" }, 2, NULL, "give one of" },
    { { "top" }, 2, NULL, "give one of" },
  } },
};

static void
test_table (gconstpointer data)
{
  const Table *t = data;
  for (guint i = 0; i < G_N_ELEMENTS (t->cases) && (i == 0 || t->cases[i].args[0] != NULL); i++)
    run_case (t->command, &t->cases[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 3) {
    g_printerr ("usage: %s ORTI-PROFD X86-64-PROGRAM\n", argv[0]);
    return 2;
  }
  exe = g_canonicalize_filename (argv[1], NULL);
  x86_elf = g_canonicalize_filename (argv[2], NULL);
  dir = g_dir_make_tmp ("exit-status-XXXXXX", NULL);
  example_db_write (dir, x86_elf, FALSE);
  /* a database whose session 1 this process is recording */
  g_autofree char *running = g_build_filename (dir, "running.db", NULL);
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (running, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "recording", .tick_rate_hz = 1e6 };
  g_assert_cmpint (store_writer_begin_session (w, &info, &error), ==, 1);
  g_assert_true (store_writer_flush (w, &error));

  for (gsize i = 0; i < G_N_ELEMENTS (tables); i++) {
    g_autofree char *name = g_strdup_printf ("/exit-status/%s", tables[i].command);
    g_test_add_data_func (name, &tables[i], test_table);
  }
  int ret = g_test_run ();
  g_assert_true (store_writer_close (w, NULL));
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL));
  g_free (dir);
  g_free (exe);
  g_free (x86_elf);
  return ret;
}
