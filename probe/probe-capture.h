/* probe-capture.h — capture files (capture.c; format: docs/capture-format.md): what
 * --record writes and --replay reads. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Capture files (capture.c; format: docs/capture-format.md): --record / --replay.          */

/* Which source produced a capture. Stored in files: values are stable. */
typedef enum {
  PROBE_SOURCE_NONE = 0,
  PROBE_SOURCE_POLL = 1, /* poll samples (see the poll source) */
  PROBE_SOURCE_RTT = 2,  /* the target library's RTT byte stream (docs/event-format.md) */
  PROBE_SOURCE_TEXT = 3, /* the slicer's text notation */
  PROBE_SOURCE_SWO = 4,  /* an SWO byte stream (ITM, TPIU frames or orbflow: see the metadata) */
} ProbeSourceKind;

/* What a capture says about itself. */
typedef struct {
  ProbeSourceKind source;
  guint64 tick_hz;           /* target ticks per second (0: unknown) */
  gint64 start_unix_us;      /* wall time the recording started */
  guint8 orti_sha256[32];    /* SHA-256 of the ORTI file (zeros: none) */
  guint8 elf_sha256[32];     /* SHA-256 of the ELF (zeros: none) */
  guint32 flags;             /* source specific */
  GHashTable *metadata;      /* char* → char*, free-form (e.g. "timestamp" → "host") */
} ProbeCaptureInfo;
void probe_capture_info_clear (ProbeCaptureInfo *info);

typedef enum {
  PROBE_CAPTURE_DATA = 1,   /* bytes from the source, for its decoder */
  PROBE_CAPTURE_GAP = 2,    /* the link was lost between the neighbouring records */
  PROBE_CAPTURE_STATE = 3,  /* a target state notification: payload = ProbeTargetState byte */
  PROBE_CAPTURE_SIDE = 4,   /* written by the session beside the source's records (channel:
                             * what it holds, the session's to define); a replay hands it back
                             * through ProbeSourceSink.on_side at the same point */
  PROBE_CAPTURE_RECORD_TYPE_COUNT
} ProbeCaptureRecordType;

typedef struct {
  ProbeCaptureRecordType type;
  guint16 channel;       /* source specific (RTT channel, core) */
  gint64 host_time_us;   /* monotonic host time it was received */
  const guint8 *data;    /* payload, valid until the next call */
  gsize len;
  guint64 offset;        /* byte offset of the record in the file */
} ProbeCaptureRecord;

/* Little-endian integers in a capture's bytes (its header and records, a side record's
 * payload): probe_le_put_* writes @v at @p, probe_le_get_* reads one, whatever the host's byte
 * order and @p's alignment. */
static inline void
probe_le_put_u16 (guint8 *p, guint16 v)
{
  v = GUINT16_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static inline void
probe_le_put_u32 (guint8 *p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static inline void
probe_le_put_u64 (guint8 *p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static inline guint16
probe_le_get_u16 (const guint8 *p)
{
  guint16 v;
  memcpy (&v, p, sizeof v);
  return GUINT16_FROM_LE (v);
}

static inline guint32
probe_le_get_u32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, sizeof v);
  return GUINT32_FROM_LE (v);
}

static inline guint64
probe_le_get_u64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

typedef struct _ProbeCaptureWriter ProbeCaptureWriter;
typedef struct _ProbeCaptureReader ProbeCaptureReader;

/* probe_capture_writer_new: creates (truncates) @path and writes the header. */
ProbeCaptureWriter *probe_capture_writer_new (const char *path, const ProbeCaptureInfo *info,
                                              GError **error);
/* Appends one record (one buffered write; flushed by _flush and _close). */
gboolean probe_capture_writer_add (ProbeCaptureWriter *w, ProbeCaptureRecordType type,
                                   guint16 channel, gint64 host_time_us, const guint8 *data,
                                   gsize len, GError **error);
gboolean probe_capture_writer_flush (ProbeCaptureWriter *w, GError **error);
/* Flushes, closes and frees @w (also on error). */
gboolean probe_capture_writer_close (ProbeCaptureWriter *w, GError **error);

/* probe_capture_reader_open: reads and checks the header. Errors name the file and byte
 * offset: not a capture, unsupported version, truncated or corrupt header. */
ProbeCaptureReader *probe_capture_reader_open (const char *path, GError **error);
const ProbeCaptureInfo *probe_capture_reader_get_info (ProbeCaptureReader *r);

typedef enum {
  PROBE_CAPTURE_RECORD, /* *rec filled */
  PROBE_CAPTURE_END,    /* clean end of file */
  PROBE_CAPTURE_ERROR,  /* truncated or corrupt at a byte offset (error says which); the
                         * records returned before stay valid */
} ProbeCaptureStatus;
ProbeCaptureStatus probe_capture_reader_next (ProbeCaptureReader *r, ProbeCaptureRecord *rec,
                                              GError **error);
void probe_capture_reader_free (ProbeCaptureReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeCaptureReader, probe_capture_reader_free)

/* probe_sha256_file: SHA-256 of a file's contents. */
gboolean probe_sha256_file (const char *path, guint8 digest[32], GError **error);

G_END_DECLS
