/* store-schema-names.c — schema migration 20 → 21: the names of tasks and functions indexed, so
 * that a question about one object across many sessions (the fleet page's trend of Task_10ms
 * over the latest 2,000 sessions of a shared store, web-routes-fleet.c) finds that object's
 * rows by its name instead of reading every session's names and statistics.
 *
 * Measured on the shared PostgreSQL store (whose indexes are these, derived at build time):
 * over 10,000 sessions of 20 tasks and 100 functions the trend's plan read the whole of
 * task_stat and tasks (a hash join of 200,000 rows each) or of function_stat and functions
 * (1,000,000 rows each), a cost that grows with every session pushed; with these indexes it
 * reads the named object's rows only (docs/fleet.md "Scale"). Each index holds the table's
 * key after the name, so the rows of a name come in session order and are found in the
 * statistics tables by their primary keys. An SQLite file gains the same indexes (one
 * definition for both stores; serve's read cache of a shared store is such a file).
 */
#include "store-private.h"

gboolean
store__migrate_names (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "CREATE INDEX tasks_name ON tasks (name, session_id, task);\n"
    "CREATE INDEX functions_name ON functions (name, session_id, address);\n", error);
}
