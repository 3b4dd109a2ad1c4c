/* probe-rtt.h — RTT: the stream decoder of the orti-trace byte stream (rtt-decoder.c, pure)
 * and the link that reads the target library's up-channel through OpenOCD (rtt-link.c). */
#pragma once

#include <glib.h>

#include "probe-event.h"
#include "probe-openocd.h"

G_BEGIN_DECLS

/* ---- RTT stream decoder ----------------------------------------------------------------
 * Decodes the orti-trace byte stream (docs/event-format.md; written by probe/target/) into
 * Events. A pure byte pump: bytes in, Events out through a callback, no I/O. Any split of
 * the input gives the same Events. It joins a stream mid-way at the next sync record (where
 * its Events start: no gap),
 * resynchronises after corrupt bytes (PROBE_EVENT_GAP, b = PROBE_GAP_DECODE), turns the
 * target's drop records into PROBE_EVENT_GAP (a = records lost, b = PROBE_GAP_TARGET_DROP),
 * each GAP at the time of the last record decoded before the loss (the records after it carry
 * the time the stream resumed: the core's state between is unknown),
 * keeps a shadow call stack per task to name the function of each exit, and extends the
 * target's 32-bit tick counter to 64 bits. */

/* Errors: PROBE_ERROR (top of this header), PROBE_ERROR_FORMAT_VERSION for streams of an
 * unknown format version. */

/* Highest orti-trace format version probe_decoder_feed() accepts. */
#define PROBE_DECODER_FORMAT_VERSION 2

typedef struct {
  guint16 core;        /* core for Events until a stream header names one (0) */
  guint32 max_depth;   /* shadow stack depth kept per task (0: 256) */
} ProbeDecoderOptions;

#define PROBE_DECODER_OPTIONS_INIT { 0, 0 }

/* Counters since probe_decoder_new(); plain data. */
typedef struct {
  guint64 bytes;            /* bytes fed */
  guint64 records;          /* records decoded (including headers and syncs) */
  guint64 events;           /* Events delivered */
  guint64 headers;          /* stream header records accepted */
  guint64 syncs;            /* sync records accepted */
  guint64 sync_mismatches;  /* syncs that contradicted the decoded state (gap emitted) */
  guint64 resyncs;          /* times the decoder lost sync on an invalid record */
  guint64 skipped_bytes;    /* bytes discarded while hunting for a sync */
  guint64 target_drops;     /* records the target reported as dropped (ring full) */
  guint64 exits_unmatched;  /* function exits with no known entry (a = PROBE_ID_ANY) */
  guint64 backlog_events;   /* Events of the backlog (probe_decoder_set_backlog; delivered
                             * only when kept) */
  guint64 backlog_drops;    /* records the target dropped before the Events started (a
                             * discarded backlog) */
} ProbeDecoderStats;

typedef struct _ProbeDecoder ProbeDecoder;

/* Receives @n_events (> 0) Events; the array is only valid during the call. */
typedef void (*ProbeEventsFunc) (const ProbeEvent *events, gsize n_events, gpointer user_data);

/* probe_decoder_new:
 * Returns a decoder waiting for a stream header or sync record. @options may be NULL
 * (defaults). Free with probe_decoder_free(). */
ProbeDecoder *probe_decoder_new (const ProbeDecoderOptions *options);

/* probe_decoder_free: frees @decoder (NULL is ignored). */
void probe_decoder_free (ProbeDecoder *decoder);

/* probe_decoder_feed:
 * Decodes @len bytes at @data (a record may span calls) and delivers the resulting Events to
 * @func in order, in batches, before returning. Returns FALSE with PROBE_ERROR_FORMAT_VERSION
 * when a valid header or sync names a format version other than PROBE_DECODER_FORMAT_VERSION;
 * the decoder then stays failed and every later call fails the same way. */
gboolean probe_decoder_feed (ProbeDecoder *decoder, const guint8 *data, gsize len,
                             ProbeEventsFunc func, gpointer user_data, GError **error);

/* probe_decoder_set_backlog:
 * The next @bytes bytes fed are a backlog (what a ring held before the host attached). Unless
 * @keep, they are decoded for the stream's state (time base, running task, shadow stacks) but
 * give no Events: the Events start with the first record after them, with a TASK_SWITCH
 * naming the task running then (none when no task is: the state is then unknown until the
 * next switch) at its time or, when that record reports a loss (a drop, or the decoder had to
 * hunt for a sync), at the sync that follows — a loss that began before the start is no gap
 * of the Events (its drops count as backlog_drops). @bytes 0: the next record starts the
 * Events so. With @keep the backlog's Events are delivered as any others (a loss between it
 * and the start is a gap as any other); only where the start is gets noted. */
void probe_decoder_set_backlog (ProbeDecoder *decoder, guint64 bytes, gboolean keep);

/* probe_decoder_get_start: after probe_decoder_set_backlog, TRUE and the time the stream after
 * the backlog starts at (the session's own span) once a record after it was decoded; FALSE
 * before. */
gboolean probe_decoder_get_start (ProbeDecoder *decoder, guint64 *ts);

/* probe_decoder_get_stats: the counters so far (never NULL). */
const ProbeDecoderStats *probe_decoder_get_stats (ProbeDecoder *decoder);

/* probe_decoder_get_stream_info:
 * Returns TRUE and the tick rate (Hz, 0 if the target did not say), core and format version
 * of the last stream header seen; FALSE (outputs untouched) when none was seen yet. Any
 * output pointer may be NULL. */
gboolean probe_decoder_get_stream_info (ProbeDecoder *decoder, guint32 *tick_hz, guint16 *core,
                                        guint *version);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeDecoder, probe_decoder_free)

/* RTT link (rtt-link.c): the target library's up-channel, through OpenOCD.               */

typedef enum {
  PROBE_RTT_AUTO,   /* DRAIN, falling back to SERVER when DRAIN cannot work */
  PROBE_RTT_DRAIN,  /* read_memory/write_memory of the ring ourselves: one round trip a drain */
  PROBE_RTT_SERVER, /* OpenOCD's `rtt server` TCP port (capped at 1 KiB per channel per poll) */
} ProbeRttMethod;

typedef struct {
  ProbeRttMethod method;
  const char *target;          /* OpenOCD target, NULL: current */
  guint64 info_address;        /* orti_trace_info (ELF symbol), 0: unknown — the library's init
                                * status and tick rate, read before the stream (source only) */
  guint64 cb_address;          /* control block address when known (ELF symbol), else 0 … */
  guint64 search_start;        /* … search for the ID in this range */
  guint64 search_size;
  guint channel;               /* up channel carrying the event stream */
  const char *host;            /* SERVER: OpenOCD host (NULL: 127.0.0.1) */
  guint16 server_port;         /* SERVER: port for `rtt server start` */
  guint polling_interval_ms;   /* SERVER: `rtt polling_interval` (0: 1 ms) */
  gboolean keep_backlog;       /* source: what the ring holds at the first attach is part of the
                                * session (its pre-attach span); FALSE: decoded for the stream's
                                * state only, the session starts at the attach */
} ProbeRttConfig;

/* DRAIN: the ring bytes a link has received but not yet released on the target (RdOff still
 * at @rd_off; the host has the bytes up to @upto; equal: nothing held). Each drain releases
 * the previous drain's bytes before it reads, so a lost reply loses nothing. */
typedef struct {
  guint64 desc;                /* up-buffer descriptor the offsets belong to (0: none) */
  guint32 buf, size;           /* its buffer and size, as located */
  guint32 rd_off;              /* RdOff as the last drain left it on the target */
  guint32 upto;                /* the host has received the bytes up to here */
  guint32 last_word;           /* rd_off 0: the last aligned little-endian word wholly in the
                                * held range, as received (a re-initialised block differs) */
} ProbeRttHeld;

typedef struct _ProbeRttLink ProbeRttLink;
/* @oc is borrowed and must outlive the link. */
ProbeRttLink *probe_rtt_link_new (ProbeOpenocd *oc, const ProbeRttConfig *cfg);
void probe_rtt_link_free (ProbeRttLink *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeRttLink, probe_rtt_link_free)
/* Find the control block and the channel's buffer. PROBE_ERROR_NOT_FOUND while the firmware
 * has not initialised it (retry later); call again after a target reset. */
gboolean probe_rtt_link_locate (ProbeRttLink *r, GError **error);
/* Locate if needed and start (SERVER: setup, start, server start, connect). */
gboolean probe_rtt_link_start (ProbeRttLink *r, GError **error);
/* Append newly arrived bytes to @out (SERVER waits up to @wait_ms for data; DRAIN does one
 * round trip: it releases the previous drain's bytes, then reads). PROBE_ERROR_NOT_FOUND: the
 * block went away (reset): locate again. On any error nothing is appended, and DRAIN has
 * released nothing it did not deliver. */
gboolean probe_rtt_link_step (ProbeRttLink *r, GByteArray *out, guint wait_ms,
                                GError **error);
/* DRAIN: releases the last drain's bytes on the target (RdOff = where it ended, if RdOff is
 * still where it began); nothing else: TRUE. FALSE with the link's error (still held). */
gboolean probe_rtt_link_release (ProbeRttLink *r, GError **error);
/* The held range, for the link of the next connection (probe_rtt_link_set_held before its
 * locate, which keeps it only for the same descriptor, buffer and size): a drain that never
 * reached the target then repeats nothing. */
void probe_rtt_link_get_held (ProbeRttLink *r, ProbeRttHeld *held);
void probe_rtt_link_set_held (ProbeRttLink *r, const ProbeRttHeld *held);
/* probe_rtt_drain_script: the DRAIN script (rtt-link.c): releases [@rd_off, @upto) as
 * described above when they differ (from offset 0 only if the last aligned word wholly inside
 * still is @last_word), then reads at most @max_bytes of the ring of @size bytes at @buf whose
 * descriptor is at @desc, through OpenOCD target @target (NULL: current). Its
 * result: "B E" (RdOff where the read began and ended) then per part "S N w0 w1 …" (S bytes
 * of word w0 to skip, N bytes, little-endian 32-bit words). Newly allocated. */
char *probe_rtt_drain_script (const char *target, guint64 desc, guint32 buf, guint32 size,
                              guint32 max_bytes, guint32 rd_off, guint32 upto,
                              guint32 last_word);
/* probe_rtt_link_pending: the bytes the located ring holds now, from RdOff to WrOff (what a
 * reader attaching now would read first). */
gboolean probe_rtt_link_pending (ProbeRttLink *r, guint32 *bytes, GError **error);
/* probe_rtt_link_unread: the bytes the located ring holds now that this link has not received
 * yet (probe_rtt_link_pending less the drain's held range): how far probe_rtt_link_get_bytes
 * must still grow to have everything the target has written so far. */
gboolean probe_rtt_link_unread (ProbeRttLink *r, guint32 *bytes, GError **error);
/* SERVER: stops OpenOCD's rtt server; DRAIN: probe_rtt_link_release. */
gboolean probe_rtt_link_stop (ProbeRttLink *r, GError **error);
ProbeRttMethod probe_rtt_link_get_method (ProbeRttLink *r);
guint64 probe_rtt_link_get_control_block (ProbeRttLink *r);
guint64 probe_rtt_link_get_bytes (ProbeRttLink *r);

G_END_DECLS
