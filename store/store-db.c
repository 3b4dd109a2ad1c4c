/* store-db.c — opening a store database safely, recovering crashed sessions, deleting one.
 *
 * A user's --db may point at anything: another program's SQLite file, a damaged one, a
 * text file. Opening therefore checks the header by hand, then reads the schema with plain
 * reads, and refuses (leaving the file byte-identical) before anything could be written:
 * no WAL switch, no migration, no recovery until the file is known to be ours (or empty).
 *
 * A writer that dies (kill -9, power loss) leaves its session 'running'. Each session row
 * records the writer's pid and process start time; a read-write open marks 'running'
 * sessions whose writer process no longer exists as 'incomplete'.
 */
#include "store-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct _StoreDb {
  sqlite3 *db;        /* the connection, owned */
  StoreOpenMode mode; /* read-only connections have the authorizer installed */
  guint recovered;    /* crashed sessions marked incomplete by the open */
  guint64 max_rows;   /* store_db_query's caps (0: none) */
  gsize max_bytes;
  gint64 schema_cookie; /* PRAGMA schema_version when the schema was last compared */
  char *path;
};

G_DEFINE_QUARK (store-error-quark, store_error)

void
store__error_from_sqlite (GError **error, sqlite3 *db, int rc, const char *what)
{
  int code;
  switch (rc & 0xff) {
  case SQLITE_FULL:
  case SQLITE_IOERR:
  case SQLITE_CANTOPEN:
  case SQLITE_READONLY:
  case SQLITE_PERM:
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    code = STORE_ERROR_IO;
    break;
  case SQLITE_CORRUPT:
    code = STORE_ERROR_CORRUPT;
    break;
  case SQLITE_NOTADB:
    code = STORE_ERROR_NOT_DATABASE;
    break;
  case SQLITE_INTERRUPT:
    code = STORE_ERROR_TIMEOUT;
    break;
  case SQLITE_AUTH:
    code = STORE_ERROR_DENIED;
    break;
  default:
    code = STORE_ERROR_SQL;
  }
  const char *msg = db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc);
  int sys = db != NULL && code == STORE_ERROR_IO ? sqlite3_system_errno (db) : 0;
  int ext = db != NULL ? sqlite3_extended_errcode (db) : rc;
  const char *op = NULL;
  switch (ext) {
  case SQLITE_IOERR_WRITE: op = "write"; break;
  case SQLITE_IOERR_FSYNC: op = "fsync"; break;
  case SQLITE_IOERR_TRUNCATE: op = "truncate"; break;
  case SQLITE_IOERR_READ: op = "read"; break;
  case SQLITE_IOERR_SHORT_READ: op = "short read"; break;
  case SQLITE_IOERR_SHMSIZE: op = "growing the -shm file"; break;
  case SQLITE_IOERR_SHMMAP: op = "mapping the -shm file"; break;
  case SQLITE_IOERR_MMAP: op = "mmap"; break;
  default: break;
  }
  if (sys != 0 && op != NULL)
    g_set_error (error, STORE_ERROR, code, "%s: %s (%s: %s)", what, msg, op, g_strerror (sys));
  else if (sys != 0)
    g_set_error (error, STORE_ERROR, code, "%s: %s (%s)", what, msg, g_strerror (sys));
  else if (ext == SQLITE_IOERR_WRITE)
    g_set_error (error, STORE_ERROR, code, "%s: %s (a write failed: disk full, file size "
                 "limit or device error)", what, msg);
  else if (code == STORE_ERROR_IO)
    g_set_error (error, STORE_ERROR, code, "%s: %s (%s, SQLite code %d)", what, msg,
                 op != NULL ? op : "file system", ext);
  else
    g_set_error (error, STORE_ERROR, code, "%s: %s", what, msg);
}

gboolean
store__exec (sqlite3 *db, const char *sql, GError **error)
{
  int rc = sqlite3_exec (db, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    g_autofree char *head = g_strndup (sql, 40);
    g_strdelimit (head, "\n", ' ');
    g_autofree char *what = g_strdup_printf ("running '%s%s'", head, strlen (sql) > 40 ? "…" : "");
    store__error_from_sqlite (error, db, rc, what);
    return FALSE;
  }
  return TRUE;
}

sqlite3_stmt *
store__prepare (sqlite3 *db, const char *sql, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v3 (db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
  if (rc != SQLITE_OK) {
    store__error_from_sqlite (error, db, rc, "preparing a statement");
    return NULL;
  }
  return stmt;
}

guint64
store__process_start (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *text = NULL;
  if (pid <= 0 || !g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  /* Fields after the ")" closing the command name (which may hold spaces): " S ppid …";
   * field 3 is the state (a zombie counts as gone), field 22 the start time. */
  const char *p = strrchr (text, ')');
  if (p == NULL || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
    return 0;
  p++;
  for (int field = 3; field < 22 && p != NULL; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL)
    return 0;
  return g_ascii_strtoull (p + 1, NULL, 10);
}

/* read_magic: the first 16 bytes of @path into @magic (zero-filled past the end), read
 * through SQLite's own VFS. Never with fopen/open + close: closing any descriptor of a file
 * drops every POSIX lock this process holds on it, so a second open of a database that a
 * writer in this process has open (the daemon's REST threads open theirs while it records)
 * released the writer's locks; another process closing the file then thought itself the
 * last user, checkpointed and deleted the live -wal, and the writer's later commits (the
 * session's final statistics, its end) went to the unlinked file and were lost. The unix
 * VFS knows the file's inode: its close keeps the descriptor while the process holds
 * locks. */
static gboolean
read_magic (const char *path, char magic[16], GError **error)
{
  sqlite3_vfs *vfs = sqlite3_vfs_find (NULL);
  sqlite3_filename name = sqlite3_create_filename (path, "", "", 0, NULL);
  sqlite3_file *f = g_malloc0 ((gsize) vfs->szOsFile);
  int flags = 0;
  errno = 0;
  int rc = name == NULL ? SQLITE_NOMEM
                        : vfs->xOpen (vfs, name, f, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB,
                                      &flags);
  int e = errno;
  if (rc == SQLITE_OK) {
    rc = f->pMethods->xRead (f, magic, 16, 0); /* a short read zero-fills */
    if (rc == SQLITE_IOERR_SHORT_READ)
      rc = SQLITE_OK;
  }
  if (f->pMethods != NULL)
    f->pMethods->xClose (f);
  g_free (f);
  sqlite3_free_filename (name);
  if (rc != SQLITE_OK) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_IO, "%s: %s", path,
                 e != 0 ? g_strerror (e) : sqlite3_errstr (rc));
    return FALSE;
  }
  return TRUE;
}

/* check_header: refuses a non-empty file that does not start with the SQLite magic. */
static gboolean
check_header (const char *path, gboolean *exists, GError **error)
{
  struct stat st;
  *exists = stat (path, &st) == 0;
  if (!*exists)
    return TRUE;
  if (!S_ISREG (st.st_mode)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_DATABASE, "%s: not a regular file", path);
    return FALSE;
  }
  if (st.st_size == 0)
    return TRUE;
  char magic[16] = { 0 };
  if (!read_magic (path, magic, error))
    return FALSE;
  if (memcmp (magic, "SQLite format 3", 16) != 0) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_DATABASE,
                 "%s: not an SQLite database (no SQLite header); refusing to use it", path);
    return FALSE;
  }
  return TRUE;
}

/* query_int: the first column of the first row of @sql, or -1 with a GError. */
static gint64
query_int (sqlite3 *db, const char *sql, GError **error)
{
  g_autoptr (sqlite3_stmt) stmt = NULL;
  int rc = sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW) {
    store__error_from_sqlite (error, db, rc, "reading the database schema");
    return -1;
  }
  return sqlite3_column_int64 (stmt, 0);
}

/* recover_sessions: marks 'running' sessions whose writer is gone as incomplete. */
static gboolean
recover_sessions (sqlite3 *db, guint *recovered, GError **error)
{
  g_autoptr (sqlite3_stmt) sel = store__prepare (
    db, "SELECT id, writer_pid, writer_start FROM sessions WHERE state = 'running'", error);
  if (sel == NULL)
    return FALSE;
  g_autoptr (GArray) dead = g_array_new (FALSE, FALSE, sizeof (gint64));
  int rc;
  while ((rc = sqlite3_step (sel)) == SQLITE_ROW) {
    gint64 id = sqlite3_column_int64 (sel, 0);
    int pid = sqlite3_column_int (sel, 1);
    guint64 start = (guint64) sqlite3_column_int64 (sel, 2);
    if (store__process_start (pid) != start || start == 0)
      g_array_append_val (dead, id);
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, db, rc, "looking for crashed sessions");
    return FALSE;
  }
  if (dead->len == 0)
    return TRUE;
  g_autoptr (sqlite3_stmt) upd = store__prepare (
    db, "UPDATE sessions SET state = 'incomplete', "
        "state_reason = 'the writer stopped without ending the session (crash or kill)' "
        "WHERE id = ? AND state = 'running'", error);
  if (upd == NULL)
    return FALSE;
  for (guint i = 0; i < dead->len; i++) {
    sqlite3_bind_int64 (upd, 1, g_array_index (dead, gint64, i));
    rc = sqlite3_step (upd);
    sqlite3_reset (upd);
    if (rc != SQLITE_DONE) {
      store__error_from_sqlite (error, db, rc, "marking a crashed session incomplete");
      return FALSE;
    }
  }
  *recovered = dead->len;
  return TRUE;
}

void
store__harden (sqlite3 *db, gboolean read_only)
{
  sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, NULL);
  if (read_only) {
    sqlite3_limit (db, SQLITE_LIMIT_LENGTH, STORE_READ_MAX_LENGTH);
    sqlite3_limit (db, SQLITE_LIMIT_SQL_LENGTH, STORE_READ_MAX_SQL_LENGTH);
  }
}

/* open_hardened: @name (@path, or a URI for it) opened with @flags, extended result codes, a
 * busy timeout and store__harden; NULL with a GError naming @path. */
static sqlite3 *
open_hardened (const char *path, const char *name, int flags, gboolean read_only, GError **error)
{
  sqlite3 *raw = NULL;
  int rc = sqlite3_open_v2 (name, &raw, flags, NULL);
  g_autoptr (sqlite3) db = raw;
  if (rc != SQLITE_OK) {
    g_autofree char *what = g_strdup_printf ("%s: cannot open", path);
    store__error_from_sqlite (error, db, rc, what);
    return NULL;
  }
  sqlite3_extended_result_codes (db, 1);
  sqlite3_busy_timeout (db, 5000);
  store__harden (db, read_only);
  return g_steal_pointer (&db);
}

/* compare_schema: refuses @db (of @path, at @version) unless its schema is exactly the one
 * this build's migrations create for @version, naming the first object that differs. */
static gboolean
compare_schema (sqlite3 *db, const char *path, gint64 version, GError **error)
{
  const GPtrArray *want = store__schema_expected ((int) version, error);
  if (want == NULL)
    return FALSE;
  g_autoptr (GPtrArray) have = store__schema_describe (db, error);
  if (have == NULL) {
    g_prefix_error (error, "%s: ", path);
    return FALSE;
  }
  guint i = 0, k = 0;
  while (i < have->len || k < want->len) {
    const char *h = i < have->len ? g_ptr_array_index (have, i) : NULL;
    const char *w = k < want->len ? g_ptr_array_index (want, k) : NULL;
    gsize hn = h != NULL ? strcspn (h, "\x1f") : 0, wn = w != NULL ? strcspn (w, "\x1f") : 0;
    int order = h == NULL ? 1 : w == NULL ? -1 : strncmp (h, w, MAX (hn, wn));
    if (order == 0 && strcmp (h, w) == 0) {
      i++, k++;
      continue;
    }
    /* "TYPE NAME" of the object that differs, and how */
    const char *obj = order <= 0 ? h : w;
    gsize on = order <= 0 ? hn : wn;
    const char *how = order < 0 ? "is not part of" : order > 0 ? "is missing from" : "differs from";
    g_set_error (error, STORE_ERROR, STORE_ERROR_FOREIGN,
                 "%s: its schema is not orti-profd's: %.*s %s the schema of version %"
                 G_GINT64_FORMAT "; refusing to use it (a file changed by hand or crafted: "
                 "its views and triggers could run code)", path, (int) on, obj, how, version);
    return FALSE;
  }
  return TRUE;
}

/* side_file: whether @path's @suffix file ("-wal", "-shm") exists, and its size. */
static gboolean
side_file (const char *path, const char *suffix, gint64 *size)
{
  g_autofree char *name = g_strconcat (path, suffix, NULL);
  struct stat st;
  if (stat (name, &st) != 0)
    return FALSE;
  *size = (gint64) st.st_size;
  return TRUE;
}

/* remove_side_files: removes the -wal and -shm files a refused look at @path created (SQLite
 * creates both when it opens a file whose header says WAL, even read-only). Only when there
 * was no -wal before and the new one is empty: nothing of anyone else's is touched. (The
 * look cannot use SQLite's immutable mode instead: closing such a connection drops the
 * process's locks on the file, and a writer in the same process then lost commits.) */
static void
remove_side_files (const char *path, gboolean had_wal, gboolean had_shm)
{
  gint64 size = -1;
  if (had_wal || !side_file (path, "-wal", &size) || size != 0)
    return;
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  g_unlink (wal);
  if (!had_shm)
    g_unlink (shm);
}

/* validate_connection: reads what decides whether @path may be used, through its own hardened
 * read-only connection (views and triggers off): *@tables objects in its schema, its
 * *@version; refuses a damaged, foreign, too new or tampered file, or (@mode read-only) one
 * that needs migrating. Writes nothing to the file. */
static gboolean
validate_connection (const char *path, StoreOpenMode mode, gint64 *tables, gint64 *version,
                     GError **error)
{
  g_autoptr (sqlite3) db = open_hardened (path, path, SQLITE_OPEN_READONLY, TRUE, error);
  if (db == NULL)
    return FALSE;
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);

  /* Reads only: the schema table, then the two header fields. */
  g_autoptr (GError) local = NULL;
  gint64 app = -1;
  *version = -1;
  *tables = query_int (db, "SELECT count(*) FROM sqlite_schema", &local);
  if (*tables >= 0)
    app = query_int (db, "PRAGMA application_id", &local);
  if (local == NULL)
    *version = query_int (db, "PRAGMA user_version", &local);
  if (local != NULL) {
    if (local->code == STORE_ERROR_NOT_DATABASE || local->code == STORE_ERROR_CORRUPT)
      g_set_error (error, STORE_ERROR, local->code,
                   "%s: damaged or not an SQLite database (%s); refusing to use it", path,
                   local->message);
    else
      g_set_error (error, STORE_ERROR, local->code, "%s: %s", path, local->message);
    return FALSE;
  }
  if (*tables == 0)
    return TRUE;
  if (app != STORE_APPLICATION_ID) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_FOREIGN,
                 "%s: an SQLite database of another program (application_id %" G_GINT64_FORMAT
                 "), not an orti-profd store; refusing to use it", path, app);
    return FALSE;
  }
  if (*version > STORE_SCHEMA_VERSION) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_TOO_NEW,
                 "%s: schema version %" G_GINT64_FORMAT " is newer than this orti-profd "
                 "understands (%d); use a newer orti-profd", path, *version, STORE_SCHEMA_VERSION);
    return FALSE;
  }
  if (!compare_schema (db, path, *version, error))
    return FALSE;
  if (mode == STORE_OPEN_READ_ONLY && *version < STORE_SCHEMA_VERSION) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_TOO_OLD,
                 "%s: schema version %" G_GINT64_FORMAT " needs migrating to %d; open it "
                 "once read-write (e.g. start a session) first", path, *version,
                 STORE_SCHEMA_VERSION);
    return FALSE;
  }
  return TRUE;
}

/* validate_file: validate_connection, leaving nothing beside a file it refuses. */
static gboolean
validate_file (const char *path, StoreOpenMode mode, gint64 *tables, gint64 *version,
               GError **error)
{
  gint64 size;
  gboolean had_wal = side_file (path, "-wal", &size), had_shm = side_file (path, "-shm", &size);
  if (validate_connection (path, mode, tables, version, error))
    return TRUE;
  remove_side_files (path, had_wal, had_shm);
  return FALSE;
}

sqlite3 *
store__open_connection (const char *path, StoreOpenMode mode, gboolean one_thread,
                        guint *recovered, GError **error)
{
  gboolean exists = FALSE;
  if (recovered != NULL)
    *recovered = 0;
  if (!check_header (path, &exists, error))
    return NULL;
  if (!exists && mode == STORE_OPEN_READ_ONLY) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NO_FILE, "%s: no such database file", path);
    return NULL;
  }
  /* Everything that decides whether the file may be used is read first, by a connection
   * that can neither write nor run the file's views and triggers. */
  gint64 tables = 0, version = 0;
  if (exists && !validate_file (path, mode, &tables, &version, error))
    return NULL;
  int flags = mode == STORE_OPEN_READ_ONLY ? SQLITE_OPEN_READONLY
                                           : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (one_thread)
    flags |= SQLITE_OPEN_NOMUTEX;
  g_autoptr (sqlite3) db = open_hardened (path, path, flags, mode == STORE_OPEN_READ_ONLY, error);
  if (db == NULL)
    return NULL;
  if (mode == STORE_OPEN_READ_ONLY)
    return g_steal_pointer (&db);

  /* Ours or empty: now it may be written. */
  /* A new file: 8 KiB pages, and incremental auto_vacuum (only settable before the first
   * table) so the pages of pruned raw events can be returned to the file system. */
  if (tables == 0 &&
      !store__exec (db, "PRAGMA page_size = 8192; PRAGMA auto_vacuum = INCREMENTAL", error))
    return NULL;
  g_autoptr (GError) wal_error = NULL;
  gint64 wal_ok = query_int (db, "PRAGMA journal_mode = WAL", &wal_error);
  if (wal_ok < 0) {
    g_propagate_prefixed_error (error, g_steal_pointer (&wal_error), "%s: ", path);
    return NULL;
  }
  /* foreign keys (schema 13: every row REFERENCES its session) are enforced once migrated:
   * the migrations rebuild tables, which needs them off */
  if (!store__exec (db, "PRAGMA synchronous = FULL", error) ||
      !store__schema_upgrade (db, error) ||
      !store__exec (db, "PRAGMA foreign_keys = ON", error)) {
    g_prefix_error (error, "%s: ", path);
    return NULL;
  }
  guint n = 0;
  if (!recover_sessions (db, &n, error)) {
    g_prefix_error (error, "%s: ", path);
    return NULL;
  }
  if (recovered != NULL)
    *recovered = n;
  return g_steal_pointer (&db);
}

/* Read-only connections: what the authorizer lets through. */
static const char *const pragmas_any[] = {
  "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list",
  "integrity_check", "quick_check", "collation_list", "function_list", "module_list",
  "pragma_list", "table_list", "database_list", "compile_options", NULL,
};
static const char *const pragmas_query_only[] = {
  "user_version", "schema_version", "application_id", "page_count", "page_size",
  "freelist_count", "journal_mode", "encoding", "auto_vacuum", "data_version",
  "foreign_keys", NULL,
};

/* The SQL functions read-only connections may call: SQLite's core, date, math, window and
 * JSON functions. Left out: what reads or changes connection state or reaches outside the
 * data (load_extension, fts3_tokenizer — it hands out a library address —, changes(),
 * last_insert_rowid(), sqlite_compileoption_*, the FTS and R-Tree helpers). */
static const char *const functions_allowed[] = {
  "->", "->>", "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "avg",
  "ceil", "ceiling", "char", "coalesce", "cos", "cosh", "count", "cume_dist", "current_date",
  "current_time", "current_timestamp", "date", "datetime", "degrees", "dense_rank", "exp",
  "first_value", "floor", "format", "glob", "group_concat", "hex", "ifnull", "iif", "instr",
  "json", "json_array", "json_array_length", "json_extract", "json_group_array",
  "json_group_object", "json_insert", "json_object", "json_patch", "json_quote", "json_remove",
  "json_replace", "json_set", "json_type", "json_valid", "julianday", "lag", "last_value",
  "lead", "length", "like", "likelihood", "likely", "ln", "log", "log10", "log2", "lower",
  "ltrim", "max", "min", "mod", "nth_value", "ntile", "nullif", "percent_rank", "pi", "pow",
  "power", "printf", "quote", "radians", "random", "randomblob", "rank", "replace", "round",
  "row_number", "rtrim", "sign", "sin", "sinh", "soundex", "sqlite_source_id",
  "sqlite_version", "sqrt", "strftime", "substr", "substring", "sum", "tan", "tanh", "time",
  "total", "trim", "trunc", "typeof", "unicode", "unixepoch", "unlikely", "upper", "zeroblob",
  NULL,
};

static gboolean
in_list (const char *const *list, const char *name)
{
  for (; *list != NULL; list++)
    if (g_ascii_strcasecmp (*list, name) == 0)
      return TRUE;
  return FALSE;
}

static int
authorize_read_only (void *user_data, int action, const char *arg1, const char *arg2,
                     const char *db_name, const char *trigger)
{
  switch (action) {
  case SQLITE_SELECT:
  case SQLITE_READ:
  case SQLITE_RECURSIVE:
    return SQLITE_OK;
  case SQLITE_FUNCTION: /* arg2: the function's name */
    return arg2 != NULL && in_list (functions_allowed, arg2) ? SQLITE_OK : SQLITE_DENY;
  case SQLITE_UPDATE:
    /* Declaring an eponymous virtual table (pragma_table_info(…)) checks column access
     * on sqlite_master as an UPDATE. The connection is opened SQLITE_OPEN_READONLY and
     * store_db_query refuses statements that are not sqlite3_stmt_readonly(), so this
     * cannot become a write. */
    return arg1 != NULL && g_str_equal (arg1, "sqlite_master") && trigger == NULL
             ? SQLITE_OK : SQLITE_DENY;
  case SQLITE_PRAGMA:
    if (arg1 != NULL && (in_list (pragmas_any, arg1) ||
                         (arg2 == NULL && in_list (pragmas_query_only, arg1))))
      return SQLITE_OK;
    return SQLITE_DENY;
  default: /* writes, ATTACH/DETACH, DDL, transactions, ANALYZE, … */
    return SQLITE_DENY;
  }
}

StoreDb *
store_db_open (const char *path, StoreOpenMode mode, GError **error)
{
  guint recovered = 0;
  sqlite3 *db = store__open_connection (path, mode, FALSE, &recovered, error);
  if (db == NULL)
    return NULL;
  StoreDb *self = g_new0 (StoreDb, 1);
  self->db = db;
  self->mode = mode;
  self->recovered = recovered;
  self->path = g_strdup (path);
  self->schema_cookie = query_int (db, "PRAGMA schema_version", NULL);
  if (mode == STORE_OPEN_READ_ONLY) {
    sqlite3_set_authorizer (db, authorize_read_only, self);
    self->max_rows = STORE_READ_MAX_ROWS;
    self->max_bytes = STORE_READ_MAX_BYTES;
  }
  return self;
}

void
store_db_close (StoreDb *db)
{
  if (db == NULL)
    return;
  sqlite3_close_v2 (db->db);
  g_free (db->path);
  g_free (db);
}

sqlite3 *
store_db_handle (StoreDb *db)
{
  return db->db;
}

guint
store_db_recovered_sessions (StoreDb *db)
{
  return db->recovered;
}

gboolean
store__db_read_only (StoreDb *db)
{
  return db->mode == STORE_OPEN_READ_ONLY;
}

gboolean
store_db_recheck_schema (StoreDb *db, GError **error)
{
  gint64 cookie = query_int (db->db, "PRAGMA schema_version", error);
  if (cookie < 0) {
    g_prefix_error (error, "%s: ", db->path);
    return FALSE;
  }
  if (cookie == db->schema_cookie)
    return TRUE;
  gint64 version = query_int (db->db, "PRAGMA user_version", error);
  if (version < 0 || !compare_schema (db->db, db->path, version, error))
    return FALSE;
  db->schema_cookie = cookie;
  return TRUE;
}

void
store_db_set_result_caps (StoreDb *db, guint64 max_rows, gsize max_bytes)
{
  db->max_rows = max_rows;
  db->max_bytes = max_bytes;
}

void
store__db_result_caps (StoreDb *db, guint64 *max_rows, gsize *max_bytes)
{
  *max_rows = db->max_rows;
  *max_bytes = db->max_bytes;
}

gboolean
store_db_delete_session (StoreDb *db, gint64 id, GError **error)
{
  if (db->mode == STORE_OPEN_READ_ONLY) {
    g_set_error_literal (error, STORE_ERROR, STORE_ERROR_DENIED,
                         "deleting a session needs a read-write database");
    return FALSE;
  }
  if (!store__exec (db->db, "BEGIN IMMEDIATE", error))
    return FALSE;
  /* Inside the write lock: a writer cannot start or end the session between the look and the
   * delete. 'running' here has a live writer (the open marked crashed ones incomplete). */
  g_autoptr (sqlite3_stmt) st = store__prepare (
    db->db, "SELECT state, writer_pid FROM sessions WHERE id = ?", error);
  if (st == NULL) {
    store__exec (db->db, "ROLLBACK", NULL);
    return FALSE;
  }
  sqlite3_bind_int64 (st, 1, id);
  int rc = sqlite3_step (st);
  if (rc != SQLITE_ROW) {
    if (rc == SQLITE_DONE)
      g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND,
                   "no session with id %" G_GINT64_FORMAT, id);
    else
      store__error_from_sqlite (error, db->db, rc, "reading the session");
    store__exec (db->db, "ROLLBACK", NULL);
    return FALSE;
  }
  if (g_strcmp0 ((const char *) sqlite3_column_text (st, 0), "running") == 0) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_RUNNING, "session %" G_GINT64_FORMAT
                 " is being recorded (by process %d); stop it first", id,
                 sqlite3_column_int (st, 1));
    g_clear_pointer (&st, sqlite3_finalize);
    store__exec (db->db, "ROLLBACK", NULL);
    return FALSE;
  }
  g_clear_pointer (&st, sqlite3_finalize);
  /* every other table's rows go with it: REFERENCES sessions ON DELETE CASCADE (schema 13) */
  g_autofree char *sql = g_strdup_printf ("DELETE FROM sessions WHERE id = %" G_GINT64_FORMAT, id);
  if (!store__exec (db->db, sql, error)) {
    store__exec (db->db, "ROLLBACK", NULL);
    return FALSE;
  }
  return store__exec (db->db, "COMMIT", error);
}

gboolean
store_parse_keep_raw (const char *text, double *seconds, guint64 *bytes, GError **error)
{
  static const struct { const char *unit; double factor; gboolean time; } units[] = {
    { "s", 1, TRUE }, { "m", 60, TRUE }, { "h", 3600, TRUE }, { "d", 86400, TRUE },
    { "b", 1, FALSE }, { "kb", 1e3, FALSE }, { "mb", 1e6, FALSE }, { "gb", 1e9, FALSE },
    { "tb", 1e12, FALSE }, { "kib", 1024.0, FALSE }, { "mib", 1048576.0, FALSE },
    { "gib", 1073741824.0, FALSE }, { "tib", 1099511627776.0, FALSE },
  };
  *seconds = 0;
  *bytes = 0;
  /* digits [. digits], then a unit right after: no sign, exponent, space or hex */
  const char *p = text;
  while (g_ascii_isdigit (*p))
    p++;
  gboolean digits = p > text;
  if (*p == '.') {
    const char *f = ++p;
    while (g_ascii_isdigit (*p))
      p++;
    digits = digits && p > f;
  }
  double v = digits ? g_ascii_strtod (text, NULL) : 0;
  for (gsize i = 0; digits && v > 0 && i < G_N_ELEMENTS (units); i++) {
    gboolean match = units[i].time ? strcmp (p, units[i].unit) == 0
                                   : g_ascii_strcasecmp (p, units[i].unit) == 0;
    if (!match)
      continue;
    double x = v * units[i].factor;
    if (units[i].time && x <= 1e12) {
      *seconds = x;
      return TRUE;
    }
    if (!units[i].time && x >= 1 && x <= 9e18) {
      *bytes = (guint64) x;
      return TRUE;
    }
  }
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
               "\"%s\" is not a duration (e.g. 90s, 10m, 2h, 1d) or a size (e.g. 500MB, "
               "1GiB) above zero", text);
  return FALSE;
}

/* file_size: bytes of @path and its WAL (0 for files that do not exist). */
static gint64
file_size (const char *path)
{
  struct stat st;
  gint64 size = stat (path, &st) == 0 ? (gint64) st.st_size : 0;
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  if (stat (wal, &st) == 0)
    size += (gint64) st.st_size;
  return size;
}

gboolean
store_db_vacuum (const char *path, gint64 *size_before, gint64 *size_after, GError **error)
{
  struct stat st;
  if (stat (path, &st) != 0) {
    int e = errno;
    g_set_error (error, STORE_ERROR, e == ENOENT ? STORE_ERROR_NO_FILE : STORE_ERROR_IO, "%s: %s",
                 path, g_strerror (e));
    return FALSE;
  }
  *size_before = file_size (path);
  g_autoptr (sqlite3) db = store__open_connection (path, STORE_OPEN_READ_WRITE, FALSE, NULL,
                                                   error);
  if (db == NULL)
    return FALSE;
  /* After the open, a 'running' session has a live writer (crashed ones were closed). */
  gint64 running = query_int (db, "SELECT count(*) FROM sessions WHERE state = 'running'",
                              error);
  if (running < 0)
    return FALSE;
  if (running > 0) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_RUNNING,
                 "%s: %" G_GINT64_FORMAT " session%s running; VACUUM would hold the write "
                 "lock the running writer needs: stop it first", path, running,
                 running == 1 ? " is" : "s are");
    return FALSE;
  }
  if (!store__exec (db, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM", error) ||
      !store__exec (db, "PRAGMA wal_checkpoint(TRUNCATE)", error)) {
    g_prefix_error (error, "%s: ", path);
    return FALSE;
  }
  g_clear_pointer (&db, sqlite3_close_v2);
  *size_after = file_size (path);
  return TRUE;
}
