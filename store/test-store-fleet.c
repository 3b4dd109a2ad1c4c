/* test-store-fleet.c — schema 16, each session's fleet identity (store-schema-fleet.c): a
 * uuid for every session, new or migrated, unique and of RFC 4122 version 4's form; the push
 * record and the tags leave with their session. */
#include "test-store-util.h"

/* is_uuid4: @s is a random (version 4, variant 10) UUID in lower-case text. */
static gboolean
is_uuid4 (const char *s)
{
  for (const char *p = s; *p != '\0'; p++)
    if (g_ascii_isupper (*p))
      return FALSE;
  return g_uuid_string_is_valid (s) && s[14] == '4' && strchr ("89ab", s[19]) != NULL;
}

/* New sessions get a uuid from the trigger, each its own. */
static void
test_new_sessions (Fixture *f, gconstpointer data)
{
  store_test_make_session (f->path, "one");
  store_test_make_session (f->path, "two");
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autofree char *a = query_cell (db, "SELECT uuid FROM sessions WHERE id = 1");
  g_autofree char *b = query_cell (db, "SELECT uuid FROM sessions WHERE id = 2");
  g_assert_true (is_uuid4 (a));
  g_assert_true (is_uuid4 (b));
  g_assert_cmpstr (a, !=, b);
  /* the bench is unknown until the recording says it */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions WHERE host IS NULL AND "
                                  "probe IS NULL AND build_label IS NULL"), ==, 2);
}

/* The committed version-2 file migrated: its sessions get distinct uuids. */
static void
test_migrated (Fixture *f, gconstpointer data)
{
  if (!fixture_copy_v2 (f))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), >=, 2);
  g_assert_cmpint (query_int (db, "SELECT count(DISTINCT uuid) = count(*) FROM sessions"), ==, 1);
  g_autofree char *u = query_cell (db, "SELECT uuid FROM sessions ORDER BY id LIMIT 1");
  g_assert_true (is_uuid4 (u));
  /* a copied uuid is refused: the index is unique */
  g_autoptr (StoreResult) r = store_db_query (db, "UPDATE sessions SET uuid = (SELECT uuid FROM "
                                              "sessions ORDER BY id LIMIT 1)", 0, &error);
  g_assert_null (r);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
}

/* Tags and the push record go with their session. */
static void
test_cascade (Fixture *f, gconstpointer data)
{
  gint64 id = store_test_make_session (f->path, "tagged");
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_autofree char *sql = g_strdup_printf (
    "INSERT INTO session_tags VALUES (%" G_GINT64_FORMAT ", 'lane', 'hil-3');"
    "INSERT INTO pushes VALUES (%" G_GINT64_FORMAT ", 'store-a', 17, '2030-01-01T00:00:00Z')",
    id, id);
  g_assert_true (store__exec (store_db_handle (db), sql, &error));
  g_assert_true (store_db_delete_session (db, id, &error));
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM session_tags"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM pushes"), ==, 0);
}

/* The writer records the bench and the build it is told: host, probe, build id, label, tags
 * (a later tag of the same key replacing the first); a malformed tag is refused before any
 * row is written. */
static void
test_identity (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriterOptions opts = STORE_WRITER_OPTIONS_INIT;
  StoreWriter *w = store_writer_new (f->path, &opts, &error);
  g_assert_no_error (error);
  const char *tags[] = { "lane=hil 3", "ecu=brake=front", "lane=hil-4", NULL };
  StoreSessionInfo info = { .name = "identified", .tick_rate_hz = 1e6, .host = "bench-07",
                            .probe = "cmsis-dap", .elf_build_id = "0a1b2c", .build_label = "v2.3.1",
                            .tags = tags };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  const char *bad[] = { "nokey", NULL };
  StoreSessionInfo wrong = { .name = "bad tag", .tick_rate_hz = 1e6, .tags = bad };
  g_assert_cmpint (store_writer_begin_session (w, &wrong, &error), ==, -1);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
  g_assert_nonnull (strstr (error->message, "nokey"));
  g_clear_error (&error);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), ==, 1);
  g_autofree char *who = query_cell (db, "SELECT host || '|' || probe || '|' || elf_build_id || "
                                         "'|' || build_label FROM sessions");
  g_assert_cmpstr (who, ==, "bench-07|cmsis-dap|0a1b2c|v2.3.1");
  g_autofree char *t = query_cell (db, "SELECT group_concat(key || '=' || value, ';') FROM "
                                       "(SELECT * FROM session_tags ORDER BY key)");
  g_assert_cmpstr (t, ==, "ecu=brake=front;lane=hil-4");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/store/fleet/new-sessions", Fixture, NULL, fixture_setup, test_new_sessions, fixture_teardown);
  g_test_add ("/store/fleet/migrated", Fixture, NULL, fixture_setup, test_migrated, fixture_teardown);
  g_test_add ("/store/fleet/identity", Fixture, NULL, fixture_setup, test_identity, fixture_teardown);
  g_test_add ("/store/fleet/cascade", Fixture, NULL, fixture_setup, test_cascade, fixture_teardown);
  return g_test_run ();
}
