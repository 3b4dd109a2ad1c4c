/* store-schema-fleet.c — the schema migration that gives every session a fleet identity
 * (issue 30: many benches, one shared PostgreSQL store; docs/fleet.md).
 *
 * A bench's SQLite file stays the first home of its sessions; `orti-profd push` copies
 * finished ones to a team's PostgreSQL server. For that each session needs
 *   uuid          a globally unique key, made when the session row is made (a trigger, so
 *                 every writer gets one), kept by the push: a copy of the file pushed from
 *                 another machine is recognised and stored once;
 *   host, probe   the bench: the machine the daemon ran on and the debug adapter OpenOCD
 *                 drove (target, the OpenOCD target name, was there from version 1);
 *   elf_build_id  the GNU build id of the ELF (NULL when the link made none; elf_sha256
 *                 identifies the file either way);
 *   build_label   the user's name for the build, NULL when not given;
 * and session_tags (key=value pairs). Table pushes is the store-and-forward
 * record: which session went to which shared store (the store's own id, from its
 * orti_store table) under which id there, and when. It never leaves the file.
 * Sessions stored before get a uuid each; their bench is unknown (NULL).
 */
#include "store-private.h"

/* A random version-4 UUID (RFC 4122 §4.4) in lower-case text, in plain SQL: fresh for each
 * row it is evaluated for. */
#define UUID_SQL \
  "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||\n" \
  "  substr(hex(randomblob(2)), 2) || '-' || substr('89AB', 1 + (abs(random()) % 4), 1) ||\n" \
  "  substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))"

static const char migrate_sql[] =
  "ALTER TABLE sessions ADD COLUMN uuid TEXT;\n"
  "ALTER TABLE sessions ADD COLUMN host TEXT;\n"
  "ALTER TABLE sessions ADD COLUMN probe TEXT;\n"
  "ALTER TABLE sessions ADD COLUMN elf_build_id TEXT;\n"
  "ALTER TABLE sessions ADD COLUMN build_label TEXT;\n"
  "UPDATE sessions SET uuid = " UUID_SQL ";\n"
  "CREATE UNIQUE INDEX sessions_uuid ON sessions (uuid);\n"
  "CREATE TRIGGER sessions_uuid AFTER INSERT ON sessions WHEN NEW.uuid IS NULL\n"
  "BEGIN UPDATE sessions SET uuid = " UUID_SQL " WHERE id = NEW.id; END;\n"
  "CREATE TABLE session_tags (\n"
  "  session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  key TEXT NOT NULL, value TEXT NOT NULL,\n"
  "  PRIMARY KEY (session_id, key)) WITHOUT ROWID;\n"
  "CREATE TABLE pushes (\n"
  "  session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  store TEXT NOT NULL,\n"       /* the shared store's id (its orti_store.id) */
  "  remote_id INTEGER NOT NULL,\n" /* the session's id there */
  "  pushed_at TEXT NOT NULL,\n"    /* ISO 8601 UTC */
  "  PRIMARY KEY (session_id, store)) WITHOUT ROWID;\n";

gboolean
store__migrate_fleet (sqlite3 *db, GError **error)
{
  return store__exec (db, migrate_sql, error);
}
