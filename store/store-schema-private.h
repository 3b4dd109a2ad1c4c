/* store-schema-private.h — what the schema's files share: store-schema.c (the history, the
 * migrations from schema 4 on, upgrade and description) and store-schema-v1.c (schema 1 to 3:
 * the first schema, the packed events view and its decoding in plain SQL). Not installed;
 * only store/ includes it. */
#pragma once

#include "store-private.h"
#include "store-schema-views.h"

/* store-schema-v1.c */
gboolean store__migrate_0_to_1 (sqlite3 *db, GError **error);
gboolean store__migrate_1_to_2 (sqlite3 *db, GError **error);
gboolean store__migrate_2_to_3 (sqlite3 *db, GError **error);
