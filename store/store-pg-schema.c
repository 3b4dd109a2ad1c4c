/* store-pg-schema.c — the parts of the PostgreSQL store's schema written by hand (see
 * store-pg-private.h; the rest is derived from the SQLite migrations at build time).
 *
 * Each text here says why it cannot be derived. The functions give PostgreSQL SQLite's
 * meaning for the calls the views (and the dashboard's queries) make; they live in the store's
 * own schema, so the server's other databases and schemas see nothing of them.
 */
#include "store-pg-private.h"

/* printf: SQLite's printf() for one or two arguments — the conversions d i u x X s c f (with
 * the flags - 0 + space #, a width and a precision), %% and a NULL argument read as 0 or ''
 * as SQLite reads it. min, max of two: NULL when either is (PostgreSQL's LEAST ignores NULLs).
 * instr: 1-based position, 0 when absent. hex: upper-case hex of the value's bytes (text as
 * UTF-8, numbers as their text, as SQLite does). */
const char store__pg_functions_sql[] =
  "CREATE OR REPLACE FUNCTION sqlite_format(fmt text, args text[]) RETURNS text\n"
  "LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$\n"
  "DECLARE\n"
  "  out text := ''; i int := 1; n int := length(fmt); k int := 1;\n"
  "  c text; flags text; width int; prec int; conv text; arg text; s text; num numeric;\n"
  "  sign text;\n"
  "BEGIN\n"
  "  IF fmt IS NULL THEN RETURN NULL; END IF;\n"
  "  WHILE i <= n LOOP\n"
  "    c := substr(fmt, i, 1); i := i + 1;\n"
  "    IF c <> '%' THEN out := out || c; CONTINUE; END IF;\n"
  "    IF substr(fmt, i, 1) = '%' THEN out := out || '%'; i := i + 1; CONTINUE; END IF;\n"
  "    flags := '';\n"
  "    WHILE i <= n AND strpos('-0+ #', substr(fmt, i, 1)) > 0 LOOP\n"
  "      flags := flags || substr(fmt, i, 1); i := i + 1;\n"
  "    END LOOP;\n"
  "    width := 0;\n"
  "    WHILE substr(fmt, i, 1) ~ '^[0-9]$' LOOP\n"
  "      width := width * 10 + substr(fmt, i, 1)::int; i := i + 1;\n"
  "    END LOOP;\n"
  "    prec := NULL;\n"
  "    IF substr(fmt, i, 1) = '.' THEN\n"
  "      i := i + 1; prec := 0;\n"
  "      WHILE substr(fmt, i, 1) ~ '^[0-9]$' LOOP\n"
  "        prec := prec * 10 + substr(fmt, i, 1)::int; i := i + 1;\n"
  "      END LOOP;\n"
  "    END IF;\n"
  "    WHILE substr(fmt, i, 1) IN ('l', 'h') LOOP i := i + 1; END LOOP;\n"
  "    conv := substr(fmt, i, 1); i := i + 1;\n"
  "    arg := args[k]; k := k + 1;\n"
  "    sign := '';\n"
  "    IF conv IN ('d', 'i', 'u') THEN\n"
  "      num := trunc(coalesce(arg, '0')::numeric);\n"
  "      IF num < 0 THEN sign := '-'; num := -num;\n"
  "      ELSIF strpos(flags, '+') > 0 THEN sign := '+';\n"
  "      ELSIF strpos(flags, ' ') > 0 THEN sign := ' '; END IF;\n"
  "      s := num::text;\n"
  "    ELSIF conv IN ('x', 'X') THEN\n"
  "      s := to_hex(trunc(coalesce(arg, '0')::numeric)::bigint);\n"
  "      IF conv = 'X' THEN s := upper(s); END IF;\n"
  "      IF strpos(flags, '#') > 0 AND s <> '0' THEN sign := CASE conv WHEN 'x' THEN '0x' ELSE '0X' END; END IF;\n"
  "    ELSIF conv = 'f' THEN\n"
  "      num := round(coalesce(arg, '0')::numeric, coalesce(prec, 6));\n"
  "      IF num < 0 THEN sign := '-'; num := -num;\n"
  "      ELSIF strpos(flags, '+') > 0 THEN sign := '+'; END IF;\n"
  "      s := num::text;\n"
  "    ELSIF conv = 's' THEN\n"
  "      s := coalesce(arg, '');\n"
  "      IF prec IS NOT NULL THEN s := substr(s, 1, prec); END IF;\n"
  "    ELSIF conv = 'c' THEN\n"
  "      s := substr(coalesce(arg, ''), 1, 1);\n"
  "    ELSE\n"
  "      RAISE EXCEPTION 'printf: conversion %%% is not supported here', conv;\n"
  "    END IF;\n"
  "    IF length(sign) + length(s) < width THEN\n"
  "      IF strpos(flags, '-') > 0 THEN s := rpad(sign || s, width);\n"
  "      ELSIF strpos(flags, '0') > 0 AND conv NOT IN ('s', 'c') THEN\n"
  "        s := sign || lpad(s, width - length(sign), '0');\n"
  "      ELSE s := lpad(sign || s, width); END IF;\n"
  "    ELSE s := sign || s; END IF;\n"
  "    out := out || s;\n"
  "  END LOOP;\n"
  "  RETURN out;\n"
  "END $f$;\n"
  "CREATE OR REPLACE FUNCTION printf(fmt text) RETURNS text\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT " STORE_PG_SCHEMA ".sqlite_format(fmt, ARRAY[]::text[]) $f$;\n"
  "CREATE OR REPLACE FUNCTION printf(fmt text, a anycompatible) RETURNS text\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT " STORE_PG_SCHEMA ".sqlite_format(fmt, ARRAY[a::text]) $f$;\n"
  /* two polymorphic families, so the two arguments may differ in type (a name and a number);
   * the first stores made one family of both (store__pg_old_functions) */
  "DROP FUNCTION IF EXISTS printf(text, anycompatible, anycompatible);\n"
  "CREATE OR REPLACE FUNCTION printf(fmt text, a anyelement, b anycompatible) RETURNS text\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$\n"
  "  SELECT " STORE_PG_SCHEMA ".sqlite_format(fmt, ARRAY[a::text, b::text]) $f$;\n"
  "CREATE OR REPLACE FUNCTION min(a anycompatible, b anycompatible) RETURNS anycompatible\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$\n"
  "  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE LEAST(a, b) END $f$;\n"
  "CREATE OR REPLACE FUNCTION max(a anycompatible, b anycompatible) RETURNS anycompatible\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$\n"
  "  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE GREATEST(a, b) END $f$;\n"
  "CREATE OR REPLACE FUNCTION instr(a text, b text) RETURNS integer\n"
  "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$ SELECT strpos(a, b) $f$;\n"
  "CREATE OR REPLACE FUNCTION instr(a bytea, b bytea) RETURNS integer\n"
  "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$ SELECT position(b IN a) $f$;\n"
  "CREATE OR REPLACE FUNCTION hex(a bytea) RETURNS text\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT upper(encode(coalesce(a, ''), 'hex')) $f$;\n"
  "CREATE OR REPLACE FUNCTION hex(a text) RETURNS text\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$\n"
  "  SELECT upper(encode(convert_to(coalesce(a, ''), 'UTF8'), 'hex')) $f$;\n"
  "CREATE OR REPLACE FUNCTION hex(a bigint) RETURNS text\n"
  "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT " STORE_PG_SCHEMA ".hex(a::text) $f$;\n"
  /* the events of one packed chunk (store-private.h has the format); a truncated chunk ends
   * where its data does */
  "CREATE OR REPLACE FUNCTION decode_chunk(d bytea, n bigint, t0 bigint)\n"
  "RETURNS TABLE (seq bigint, ts bigint, kind bigint, a bigint, b bigint)\n"
  "LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $f$\n"
  "DECLARE pos int := 0; len int := length(d); h0 int; h1 int; tw int; aw int; bw int;\n"
  "  v bigint; j int;\n"
  "BEGIN\n"
  "  ts := t0; seq := 0;\n"
  "  WHILE seq < n AND pos + 2 <= len LOOP\n"
  "    h0 := get_byte(d, pos); h1 := get_byte(d, pos + 1); pos := pos + 2;\n"
  "    tw := (h0 >> 4) & 3; tw := tw + (tw = 3)::int;\n"
  "    aw := h0 >> 6; aw := aw + (aw = 3)::int;\n"
  "    bw := h1 & 3; bw := bw + (bw = 3)::int;\n"
  "    EXIT WHEN pos + tw + aw + bw > len;\n"
  "    v := 0; FOR j IN 0 .. tw - 1 LOOP v := v * 256 + get_byte(d, pos + j); END LOOP;\n"
  "    pos := pos + tw; ts := ts + v;\n"
  "    a := 0; FOR j IN 0 .. aw - 1 LOOP a := a * 256 + get_byte(d, pos + j); END LOOP;\n"
  "    pos := pos + aw;\n"
  "    b := 0; FOR j IN 0 .. bw - 1 LOOP b := b * 256 + get_byte(d, pos + j); END LOOP;\n"
  "    pos := pos + bw;\n"
  "    kind := (h0 & 15) | ((h1 >> 2) << 4);\n"
  "    RETURN NEXT;\n"
  "    seq := seq + 1;\n"
  "  END LOOP;\n"
  "END $f$;\n";

const char store__pg_store_sql[] =
  "CREATE TABLE orti_store (\n"
  "  one boolean PRIMARY KEY DEFAULT true CHECK (one),\n" /* a single row */
  "  id text NOT NULL,\n"            /* the store's own id: benches record pushes under it */
  "  version integer NOT NULL,\n"    /* the schema version (SQLite's user_version) */
  "  created_at timestamptz NOT NULL DEFAULT now(),\n"
  "  migrated_at timestamptz);\n";

const char store__pg_grants_sql[] =
  "DO $g$ BEGIN\n"
  "  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'orti_read') THEN\n"
  "    GRANT USAGE ON SCHEMA " STORE_PG_SCHEMA " TO orti_read;\n"
  "    GRANT SELECT ON ALL TABLES IN SCHEMA " STORE_PG_SCHEMA " TO orti_read;\n"
  "    ALTER DEFAULT PRIVILEGES IN SCHEMA " STORE_PG_SCHEMA " GRANT SELECT ON TABLES TO orti_read;\n"
  "  END IF;\n"
  "END $g$;\n";

/* events: SQLite decodes the packed chunks with a recursive CTE over a 256-byte lookup blob
 * (it has no byte access on blobs); PostgreSQL reads the bytes with get_byte, in
 * decode_chunk() above. Same columns, same rows. */
const StorePgOverride store__pg_overrides[] = {
  { "events", "2da46e0004fa0371f0f80be2f9d18884b52aa18b3519bca1d23089c57fbd400d",
    "CREATE VIEW events AS\n"
    "SELECT c.session_id, c.core, e.ts, e.kind,\n"
    "  (SELECT name FROM event_kinds k WHERE k.kind = e.kind) AS kind_name,\n"
    "  e.a, e.b, c.id AS chunk_id, e.seq\n"
    "FROM event_chunks c CROSS JOIN LATERAL decode_chunk(c.data, c.n, c.t0) e" },
  { NULL, NULL, NULL },
};

const char *const store__pg_partitioned[] = {
  "event_chunks", "slices", "calls", "timeline_buckets", "data_values", NULL,
};

const char *const store__pg_local_only[] = { "pushes", NULL };

const StorePgStep store__pg_hand_steps[] = {
  { 0, NULL },
};

const StorePgOldFunctions store__pg_old_functions[] = {
  /* stores made at 19 and before by the first builds: printf of two arguments with one
   * polymorphic family for both (printf('%s (core %d)', name, core) finds no common type);
   * 19 → 20 makes them again */
  { 20,
    "DROP FUNCTION printf(text, anyelement, anycompatible);\n"
    "CREATE FUNCTION printf(fmt text, a anycompatible, b anycompatible) RETURNS text\n"
    "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$\n"
    "  SELECT " STORE_PG_SCHEMA ".sqlite_format(fmt, ARRAY[a::text, b::text]) $f$;\n" },
  { 0, NULL },
};
