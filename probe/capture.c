/* capture.c — capture files: the raw byte stream of any source, recorded for replay (probe.h,
 * "Capture files"; the format is specified in docs/capture-format.md).
 *
 * A capture is a header (source kind, tick rate, SHA-256 of the ORTI and ELF files, start time,
 * free-form key=value metadata) followed by records {type, channel, host time, payload}, each
 * with a CRC-32 so a truncated or corrupt file is detected at the exact record it breaks, and
 * everything before it is still returned. Records are appended with one write each and the
 * file is flushed on close; a crash loses at most the record being written.
 *
 * The reader is a pull API over a GInputStream-free FILE*, reading one record at a time, so
 * replaying a capture needs memory for one record only.
 */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CAPTURE_MAGIC "ORTICAP\x1a"
#define CAPTURE_VERSION 1u
#define CAPTURE_MAX_RECORD (64u * 1024u * 1024u) /* refuse records larger than this */
#define CAPTURE_MAX_META (1u * 1024u * 1024u)

/* CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320), table built on first use. */
static guint32 crc_table[256];

static void
crc_init (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    for (guint32 i = 0; i < 256; i++) {
      guint32 c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      crc_table[i] = c;
    }
    g_once_init_leave (&done, 1);
  }
}

static guint32
crc_update (guint32 crc, const guint8 *p, gsize n)
{
  crc = ~crc;
  while (n--)
    crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

void
probe_capture_info_clear (ProbeCaptureInfo *info)
{
  g_clear_pointer (&info->metadata, g_hash_table_unref);
  memset (info, 0, sizeof *info);
}

/* ---- writer ------------------------------------------------------------------------------ */

struct _ProbeCaptureWriter {
  FILE *f;
  char *path;
  guint64 records; /* records written */
  guint64 bytes;   /* file size so far */
};

/* Fixed header layout (little endian), 112 bytes, then metadata, then a CRC of both:
 *   0 magic[8]  8 u16 version  10 u16 source kind  12 u32 metadata length
 *  16 u64 tick_hz  24 i64 start (Unix µs)  32 sha256 ORTI[32]  64 sha256 ELF[32]
 *  96 u32 flags  100 u32 reserved[3]
 * metadata: "key=value\n" lines (UTF-8); then u32 CRC-32 of header + metadata. */
#define HEADER_FIXED 112

ProbeCaptureWriter *
probe_capture_writer_new (const char *path, const ProbeCaptureInfo *info, GError **error)
{
  crc_init ();
  g_autoptr (GString) meta = g_string_new (NULL);
  if (info->metadata) {
    g_autoptr (GList) keys = g_hash_table_get_keys (info->metadata);
    keys = g_list_sort (keys, (GCompareFunc) g_strcmp0);
    for (GList *l = keys; l; l = l->next) {
      const char *k = l->data, *v = g_hash_table_lookup (info->metadata, k);
      if (strchr (k, '=') || strchr (k, '\n') || strchr (v, '\n')) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                     "capture metadata key \"%s\" or its value contains '=' or a newline", k);
        return NULL;
      }
      g_string_append_printf (meta, "%s=%s\n", k, v);
    }
  }
  FILE *f = fopen (path, "wb");
  if (f == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot create capture file %s: %s", path,
                 g_strerror (errno));
    return NULL;
  }
  guint8 h[HEADER_FIXED] = { 0 };
  memcpy (h, CAPTURE_MAGIC, 8);
  probe_le_put_u16 (h + 8, CAPTURE_VERSION);
  probe_le_put_u16 (h + 10, (guint16) info->source);
  probe_le_put_u32 (h + 12, (guint32) meta->len);
  probe_le_put_u64 (h + 16, info->tick_hz);
  probe_le_put_u64 (h + 24, (guint64) info->start_unix_us);
  memcpy (h + 32, info->orti_sha256, 32);
  memcpy (h + 64, info->elf_sha256, 32);
  probe_le_put_u32 (h + 96, info->flags);
  guint32 crc = crc_update (0, h, sizeof h);
  crc = crc_update (crc, (const guint8 *) meta->str, meta->len);
  guint8 c[4];
  probe_le_put_u32 (c, crc);
  if (fwrite (h, 1, sizeof h, f) != sizeof h || fwrite (meta->str, 1, meta->len, f) != meta->len ||
      fwrite (c, 1, 4, f) != 4 || fflush (f) != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot write capture file %s: %s", path,
                 g_strerror (errno));
    fclose (f);
    return NULL;
  }
  ProbeCaptureWriter *w = g_new0 (ProbeCaptureWriter, 1);
  w->f = f;
  w->path = g_strdup (path);
  w->bytes = sizeof h + meta->len + 4;
  return w;
}

/* Record layout: u8 type, u8 reserved, u16 channel, u32 length, u64 host time (µs, monotonic),
 * payload[length], u32 CRC-32 of the 16 header bytes and the payload. */
#define RECORD_HEADER 16

gboolean
probe_capture_writer_add (ProbeCaptureWriter *w, ProbeCaptureRecordType type, guint16 channel,
                          gint64 host_time_us, const guint8 *data, gsize len, GError **error)
{
  if (len > CAPTURE_MAX_RECORD) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "capture record of %zu bytes is larger than the %u byte limit", len,
                 CAPTURE_MAX_RECORD);
    return FALSE;
  }
  guint8 h[RECORD_HEADER] = { 0 };
  h[0] = (guint8) type;
  probe_le_put_u16 (h + 2, channel);
  probe_le_put_u32 (h + 4, (guint32) len);
  probe_le_put_u64 (h + 8, (guint64) host_time_us);
  guint32 crc = crc_update (crc_update (0, h, sizeof h), data, len);
  guint8 c[4];
  probe_le_put_u32 (c, crc);
  if (fwrite (h, 1, sizeof h, w->f) != sizeof h || (len && fwrite (data, 1, len, w->f) != len) ||
      fwrite (c, 1, 4, w->f) != 4) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot write capture file %s: %s", w->path,
                 g_strerror (errno));
    return FALSE;
  }
  w->records++;
  w->bytes += sizeof h + len + 4;
  return TRUE;
}

gboolean
probe_capture_writer_flush (ProbeCaptureWriter *w, GError **error)
{
  if (fflush (w->f) != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot write capture file %s: %s", w->path,
                 g_strerror (errno));
    return FALSE;
  }
  return TRUE;
}

gboolean
probe_capture_writer_close (ProbeCaptureWriter *w, GError **error)
{
  gboolean ok = TRUE;
  if (w == NULL)
    return TRUE;
  if (fflush (w->f) != 0 || fclose (w->f) != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot write capture file %s: %s", w->path,
                 g_strerror (errno));
    ok = FALSE;
  }
  g_free (w->path);
  g_free (w);
  return ok;
}

/* ---- reader ------------------------------------------------------------------------------ */

struct _ProbeCaptureReader {
  FILE *f;
  char *path;
  ProbeCaptureInfo info;
  guint64 offset;     /* byte offset of the next record */
  GByteArray *payload; /* the last record's payload */
};

static gboolean
read_exact (ProbeCaptureReader *r, void *buf, gsize n, guint64 pos, guint64 start,
            const char *what, GError **error)
{
  /* @pos: file offset of this read; @start: offset of the header or record it belongs to */
  gsize got = fread (buf, 1, n, r->f);
  if (got == n)
    return TRUE;
  if (ferror (r->f))
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "%s: read error at byte %" G_GUINT64_FORMAT ": %s",
                 r->path, pos + got, g_strerror (errno));
  else
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: truncated at byte %" G_GUINT64_FORMAT " (in the %s starting at byte %"
                 G_GUINT64_FORMAT ")",
                 r->path, pos + got, what, start);
  return FALSE;
}

ProbeCaptureReader *
probe_capture_reader_open (const char *path, GError **error)
{
  crc_init ();
  FILE *f = fopen (path, "rb");
  if (f == NULL) { /* a G_FILE_ERROR: a missing capture is the user's input, not the probe's */
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                 "cannot open capture file %s: %s", path, g_strerror (e));
    return NULL;
  }
  g_autoptr (ProbeCaptureReader) r = g_new0 (ProbeCaptureReader, 1);
  r->f = f;
  r->path = g_strdup (path);
  r->payload = g_byte_array_new ();

  guint8 h[HEADER_FIXED];
  gsize got = fread (h, 1, 8, f);
  if (got < 8 || memcmp (h, CAPTURE_MAGIC, 8) != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: not an orti-profd capture file (bad magic at byte 0)", path);
    return NULL;
  }
  if (!read_exact (r, h + 8, sizeof h - 8, 8, 0, "header", error))
    return NULL;
  guint16 version = probe_le_get_u16 (h + 8);
  if (version != CAPTURE_VERSION) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: capture format version %u is not supported (this build reads version %u)",
                 path, version, CAPTURE_VERSION);
    return NULL;
  }
  guint32 meta_len = probe_le_get_u32 (h + 12);
  if (meta_len > CAPTURE_MAX_META) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: corrupt header at byte 12: metadata length %u", path, meta_len);
    return NULL;
  }
  g_autofree char *meta = g_malloc (meta_len + 1);
  if (!read_exact (r, meta, meta_len, sizeof h, 0, "header", error))
    return NULL;
  meta[meta_len] = '\0';
  guint8 c[4];
  if (!read_exact (r, c, 4, sizeof h + meta_len, 0, "header", error))
    return NULL;
  guint32 crc = crc_update (crc_update (0, h, sizeof h), (const guint8 *) meta, meta_len);
  if (crc != probe_le_get_u32 (c)) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: corrupt header (checksum mismatch over bytes 0–%u)", path,
                 HEADER_FIXED + meta_len + 3);
    return NULL;
  }
  r->info.source = probe_le_get_u16 (h + 10);
  r->info.tick_hz = probe_le_get_u64 (h + 16);
  r->info.start_unix_us = (gint64) probe_le_get_u64 (h + 24);
  memcpy (r->info.orti_sha256, h + 32, 32);
  memcpy (r->info.elf_sha256, h + 64, 32);
  r->info.flags = probe_le_get_u32 (h + 96);
  r->info.metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto (GStrv) lines = g_strsplit (meta, "\n", -1);
  for (char **l = lines; *l; l++) {
    char *eq = strchr (*l, '=');
    if (eq)
      g_hash_table_insert (r->info.metadata, g_strndup (*l, eq - *l), g_strdup (eq + 1));
  }
  r->offset = sizeof h + meta_len + 4;
  return g_steal_pointer (&r);
}

const ProbeCaptureInfo *
probe_capture_reader_get_info (ProbeCaptureReader *r)
{
  return &r->info;
}

ProbeCaptureStatus
probe_capture_reader_next (ProbeCaptureReader *r, ProbeCaptureRecord *rec, GError **error)
{
  guint8 h[RECORD_HEADER];
  guint64 at = r->offset;
  gsize got = fread (h, 1, sizeof h, r->f);
  if (got == 0 && feof (r->f))
    return PROBE_CAPTURE_END;
  if (got != sizeof h) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: truncated at byte %" G_GUINT64_FORMAT " (in the record starting at byte %"
                 G_GUINT64_FORMAT ")", r->path, at + got, at);
    return PROBE_CAPTURE_ERROR;
  }
  guint32 len = probe_le_get_u32 (h + 4);
  if (len > CAPTURE_MAX_RECORD || h[0] == 0 || h[0] >= PROBE_CAPTURE_RECORD_TYPE_COUNT) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: corrupt record at byte %" G_GUINT64_FORMAT " (type %u, length %u)", r->path,
                 at, h[0], len);
    return PROBE_CAPTURE_ERROR;
  }
  g_byte_array_set_size (r->payload, len);
  if (len && !read_exact (r, r->payload->data, len, at + sizeof h, at, "record", error))
    return PROBE_CAPTURE_ERROR;
  guint8 c[4];
  if (!read_exact (r, c, 4, at + sizeof h + len, at, "record", error))
    return PROBE_CAPTURE_ERROR;
  if (crc_update (crc_update (0, h, sizeof h), r->payload->data, len) != probe_le_get_u32 (c)) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "%s: corrupt record at byte %" G_GUINT64_FORMAT " (checksum mismatch)", r->path,
                 at);
    return PROBE_CAPTURE_ERROR;
  }
  r->offset = at + sizeof h + len + 4;
  rec->type = h[0];
  rec->channel = probe_le_get_u16 (h + 2);
  rec->host_time_us = (gint64) probe_le_get_u64 (h + 8);
  rec->data = r->payload->data;
  rec->len = len;
  rec->offset = at;
  return PROBE_CAPTURE_RECORD;
}

void
probe_capture_reader_free (ProbeCaptureReader *r)
{
  if (r == NULL)
    return;
  if (r->f)
    fclose (r->f);
  probe_capture_info_clear (&r->info);
  g_byte_array_unref (r->payload);
  g_free (r->path);
  g_free (r);
}

gboolean
probe_sha256_file (const char *path, guint8 digest[32], GError **error)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  FILE *f = fopen (path, "rb");
  if (f == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot open %s: %s", path,
                 g_strerror (errno));
    return FALSE;
  }
  guint8 buf[65536];
  size_t n;
  while ((n = fread (buf, 1, sizeof buf, f)) > 0)
    g_checksum_update (sum, buf, n);
  gboolean bad = ferror (f);
  fclose (f);
  if (bad) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot read %s", path);
    return FALSE;
  }
  gsize dlen = 32;
  g_checksum_get_digest (sum, digest, &dlen);
  return TRUE;
}
