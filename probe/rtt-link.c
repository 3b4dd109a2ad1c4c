/* rtt-link.c — read the target library's RTT up-channel through OpenOCD (probe.h, "RTT
 * source"), two ways:
 *
 *  DRAIN  — we read the SEGGER RTT up-buffer descriptor and the bytes between RdOff and WrOff
 *           with read_memory inside one Tcl script: one round trip per drain, no
 *           1 KiB-per-poll cap (OpenOCD's rtt code reads at most 1024 bytes per channel per
 *           poll: ../shared/notes/openocd.md). RdOff is never advanced past bytes the host has
 *           not received: the script of drain k+1 first releases what drain k read (writes
 *           RdOff = where drain k ended, only if RdOff still holds where drain k started and
 *           WrOff still lies beyond), then reads. A lost reply (timeout, dropped connection
 *           after the script ran) therefore loses nothing — the next script reads the same
 *           bytes again — and a script that never ran repeats nothing, since the held range
 *           is handed from link to link across a reconnect (probe_rtt_link_get_held). The cost:
 *           the target gets the space of a drain's bytes back one drain later.
 *           probe_rtt_link_stop() releases the last drain's bytes.
 *  SERVER — OpenOCD's own `rtt setup/start` + `rtt server start PORT CH`; we read the TCP port.
 *           `rtt polling_interval` is only sent after `rtt start` (sent before `rtt setup` it
 *           crashes OpenOCD 0.12). OpenOCD advances RdOff itself when it reads, so bytes it
 *           read but could not send us before a lost connection are lost.
 *
 * Control block (SEGGER RTT layout, 32-bit target): char acID[16] = "SEGGER RTT"; i32
 * MaxNumUpBuffers; i32 MaxNumDownBuffers; then up-buffer descriptors of 24 bytes {sName,
 * pBuffer, SizeOfBuffer, WrOff, RdOff, Flags}. The ID must occur exactly once in the searched
 * range. When the firmware has not initialised it yet, locate() fails with
 * PROBE_ERROR_NOT_FOUND and the caller retries; after a target reset the caller calls locate()
 * again (the block may have moved or been re-initialised).
 */
#include "probe.h"

#include <gio/gio.h>
#include <string.h>

#define RTT_ID "SEGGER RTT"
#define RTT_DESC_SIZE 24
#define RTT_MAX_DRAIN 16384 /* bytes per round trip (OpenOCD returns one list element per byte) */

struct _ProbeRttLink {
  ProbeOpenocd *oc;           /* borrowed */
  ProbeRttConfig cfg;
  char *target;
  ProbeRttMethod method;      /* in use */
  guint64 cb;                 /* control block address (0: not located) */
  guint64 desc;               /* up-buffer descriptor address */
  guint32 buf, size;          /* up buffer address and size */
  ProbeRttHeld held;          /* DRAIN: bytes received but not yet released on the target */
  GSocketConnection *server;  /* SERVER: connection to OpenOCD's rtt server port */
  guint16 server_port;
  guint64 bytes;              /* bytes received */
  guint64 round_trips;        /* drains or reads */
};

ProbeRttLink *
probe_rtt_link_new (ProbeOpenocd *oc, const ProbeRttConfig *cfg)
{
  ProbeRttLink *r = g_new0 (ProbeRttLink, 1);
  r->oc = oc;
  r->cfg = *cfg;
  r->target = g_strdup (cfg->target);
  r->cfg.target = r->target;
  r->method = cfg->method == PROBE_RTT_SERVER ? PROBE_RTT_SERVER : PROBE_RTT_DRAIN;
  return r;
}

static void
server_close (ProbeRttLink *r)
{
  if (r->server) {
    g_io_stream_close (G_IO_STREAM (r->server), NULL, NULL);
    g_clear_object (&r->server);
  }
}

void
probe_rtt_link_free (ProbeRttLink *r)
{
  if (r == NULL)
    return;
  server_close (r);
  g_free (r->target);
  g_free (r);
}

ProbeRttMethod
probe_rtt_link_get_method (ProbeRttLink *r)
{
  return r->method;
}

guint64
probe_rtt_link_get_control_block (ProbeRttLink *r)
{
  return r->cb;
}

/* Find "SEGGER RTT" in [start, start+size): exactly one occurrence. */
static gboolean
search_id (ProbeRttLink *r, guint64 start, guint64 size, guint64 *found, GError **error)
{
  const guint chunk = 4096;
  guint n_found = 0;
  guint64 first = 0;
  guint8 prev_tail[16] = { 0 };
  guint prev_len = 0;
  for (guint64 off = 0; off < size; off += chunk) {
    guint n = (guint) MIN (chunk, size - off) / 4;
    guint64 words[1024];
    if (!probe_openocd_read_memory (r->oc, r->target, start + off, 32, n, words, error))
      return FALSE;
    guint8 bytes[16 + 4096];
    memcpy (bytes, prev_tail, prev_len);
    for (guint i = 0; i < n; i++)
      for (int k = 0; k < 4; k++)
        bytes[prev_len + 4 * i + k] = (guint8) (words[i] >> (8 * k)); /* little endian target */
    guint len = prev_len + 4 * n;
    for (guint i = 0; i + sizeof RTT_ID <= len; i++)
      if (memcmp (bytes + i, RTT_ID, sizeof RTT_ID) == 0) { /* includes the NUL */
        if (n_found++ == 0)
          first = start + off - prev_len + i;
      }
    prev_len = MIN (len, sizeof RTT_ID - 1);
    memcpy (prev_tail, bytes + len - prev_len, prev_len);
  }
  if (n_found == 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND,
                 "no RTT control block (\"" RTT_ID "\") in 0x%08" G_GINT64_MODIFIER "x–0x%08"
                 G_GINT64_MODIFIER "x yet", start, start + size);
    return FALSE;
  }
  if (n_found > 1) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "the RTT ID \"" RTT_ID "\" occurs %u times in 0x%08" G_GINT64_MODIFIER
                 "x–0x%08" G_GINT64_MODIFIER "x; give the control block address", n_found, start,
                 start + size);
    return FALSE;
  }
  *found = first;
  return TRUE;
}

gboolean
probe_rtt_link_locate (ProbeRttLink *r, GError **error)
{
  guint64 cb = r->cfg.cb_address;
  r->cb = 0;
  if (cb == 0 && !search_id (r, r->cfg.search_start, r->cfg.search_size, &cb, error))
    return FALSE;

  guint64 head[6];
  if (!probe_openocd_read_memory (r->oc, r->target, cb, 32, 6, head, error))
    return FALSE;
  char id[17] = { 0 };
  for (int i = 0; i < 16; i++)
    id[i] = (char) (head[i / 4] >> (8 * (i % 4)));
  if (strcmp (id, RTT_ID) != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND,
                 "no RTT control block at 0x%08" G_GINT64_MODIFIER "x yet (ID not written)", cb);
    return FALSE;
  }
  guint32 max_up = (guint32) head[4];
  if (max_up == 0 || max_up > 64 || r->cfg.channel >= max_up) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "RTT control block at 0x%08" G_GINT64_MODIFIER "x has %u up channels; channel %u "
                 "requested", cb, max_up, r->cfg.channel);
    return FALSE;
  }
  guint64 desc = cb + 24 + (guint64) r->cfg.channel * RTT_DESC_SIZE;
  guint64 d[6];
  if (!probe_openocd_read_memory (r->oc, r->target, desc, 32, 6, d, error))
    return FALSE;
  if (d[1] == 0 || d[2] == 0 || d[3] >= d[2] || d[4] >= d[2]) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND,
                 "RTT up channel %u at 0x%08" G_GINT64_MODIFIER "x is not initialised yet "
                 "(buffer 0x%08" G_GINT64_MODIFIER "x, size %" G_GUINT64_FORMAT ")",
                 r->cfg.channel, desc, d[1], d[2]);
    return FALSE;
  }
  r->cb = cb;
  r->desc = desc;
  r->buf = (guint32) d[1];
  r->size = (guint32) d[2];

  /* a held range from the link before (probe_rtt_link_set_held) stays only for this very
   * buffer */
  if (r->held.desc != desc || r->held.buf != r->buf || r->held.size != r->size ||
      r->held.rd_off >= r->size || r->held.upto >= r->size)
    r->held = (ProbeRttHeld) { 0 };
  return TRUE;
}

char *
probe_rtt_drain_script (const char *target, guint64 desc, guint32 buf, guint32 size,
                        guint32 max_bytes, guint32 rd_off, guint32 upto, guint32 last_word)
{
  g_autofree char *t = target ? g_strdup_printf ("%s ", target) : g_strdup ("");
  /* The release of the held range [rd_off, upto): only when the target's RdOff still is
   * rd_off (else the script of a lost reply did it already, or the target re-initialised the
   * block, or another reader moved RdOff: never clobber those) and WrOff still lies at or
   * beyond upto (a block re-initialised since holds fewer bytes than that). A re-initialised
   * block shows RdOff 0: a range held from 0 is released only if its last whole word still
   * holds what was received (a restarted stream has written other bytes there). */
  g_autofree char *release = NULL;
  g_autofree char *same = NULL;
  guint32 word = ((buf + upto) & ~3u) - 4; /* the last aligned word wholly in [buf, buf+upto) */
  if (rd_off == 0 && upto >= 4 && word >= buf)
    same = g_strdup_printf ("[lindex [%sread_memory 0x%x 32 1] 0] == %u", t, word, last_word);
  if (rd_off != upto && rd_off < size && upto < size)
    release = g_strdup_printf (
        "if {$_r == %u && ($_w - %u + %u) %% %u >= %u} {if {%s} "
        "{%swrite_memory 0x%" G_GINT64_MODIFIER "x 32 %u; set _r %u}}; ",
        rd_off, rd_off, size, size, (upto - rd_off + size) % size, same ? same : "1", t,
        desc + 16, upto, upto);
  /* Then the bytes from RdOff to WrOff, in two parts when the ring wraps, as aligned 32-bit
   * words (a part at ring address A of N bytes comes back as "S N w0 w1 …" with S = A & 3
   * leading bytes to skip): a quarter of the bus transfers and reply text of 8-bit reads, and
   * no reliance on byte lanes of unaligned 8-bit MEM-AP reads (the rig's simulated probe
   * returns whole words there). At most @max_bytes. The reply starts with where the read
   * began and ended: "B E S N w0 … S N w0 …". RdOff is not written after the read. */
  return g_strdup_printf (
      "set _o [%sread_memory 0x%" G_GINT64_MODIFIER "x 32 2]; "
      "set _w [lindex $_o 0]; set _r [lindex $_o 1]; "
      "if {$_w >= %u || $_r >= %u} {error \"RTT offsets out of range: $_o\"}; "
      "%s"
      "set _b $_r; set _d {}; set _l %u; "
      "while {$_r != $_w && $_l > 0} { "
      "if {$_w > $_r} {set _n [expr {$_w - $_r}]} else {set _n [expr {%u - $_r}]}; "
      "if {$_n > $_l} {set _n $_l}; "
      "set _a [expr {0x%x + $_r}]; set _s [expr {$_a & 3}]; "
      "append _d { } $_s { } $_n { } [%sread_memory [expr {$_a - $_s}] 32 "
      "[expr {($_s + $_n + 3) / 4}]]; "
      "set _r [expr {($_r + $_n) %% %u}]; set _l [expr {$_l - $_n}]}; "
      "set _d \"$_b $_r$_d\"",
      t, desc + 12, size, size, release ? release : "", max_bytes, size, buf, t, size);
}

/* Skips blanks, then one number into @v; FALSE at the end of @p or on anything else. */
static gboolean
next_number (const char **p, guint64 *v)
{
  while (**p == ' ')
    (*p)++;
  char *end;
  *v = g_ascii_strtoull (*p, &end, 0);
  if (end == *p)
    return FALSE;
  *p = end;
  return TRUE;
}

/* One drain script of at most @max_bytes (0: only the release) through r->oc: the bytes
 * appended to @out, the held range moved on. Nothing is appended unless the whole reply was
 * understood (its bytes are then still unreleased on the target and the next drain reads them
 * again). */
static gboolean
drain_run (ProbeRttLink *r, guint32 max_bytes, GByteArray *out, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *script = probe_rtt_drain_script (r->target, r->desc, r->buf, r->size,
                                                    max_bytes, r->held.rd_off, r->held.upto,
                                                    r->held.last_word);
  g_autofree char *answer = probe_openocd_call (r->oc, script, &local);
  r->round_trips++;
  if (answer == NULL) {
    if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD)) {
      /* the block went away (reset, re-init): the caller locates it again (the held range
       * stays: the next script's release checks RdOff first) */
      r->cb = 0;
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND, "RTT drain failed: %s",
                   local->message);
      return FALSE;
    }
    g_propagate_error (error, g_steal_pointer (&local));
    return FALSE;
  }
  /* "B E" then the parts "S N w0 w1 …" (see probe_rtt_drain_script), parsed quickly */
  const char *p = answer;
  guint64 began, ended;
  if (!next_number (&p, &began) || !next_number (&p, &ended) || began >= r->size ||
      ended >= r->size) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "RTT drain: unexpected \"%.40s\"",
                 answer);
    return FALSE;
  }
  g_autoptr (GByteArray) got = g_byte_array_new ();
  guint8 bytes[RTT_MAX_DRAIN + 8];
  for (;;) {
    guint64 skip, n;
    if (!next_number (&p, &skip)) {
      if (*p == '\0')
        break;
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "RTT drain: unexpected \"%.20s\"",
                   p);
      return FALSE;
    }
    if (!next_number (&p, &n) || skip > 3 || n > RTT_MAX_DRAIN) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                   "RTT drain: bad part header %" G_GUINT64_FORMAT " \"%.20s\"", skip, p);
      return FALSE;
    }
    guint64 want = (skip + n + 3) / 4;
    for (guint64 k = 0; k < want; k++) {
      guint64 v;
      if (!next_number (&p, &v) || v > 0xffffffffu) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "RTT drain: unexpected \"%.20s\"",
                     p);
        return FALSE;
      }
      for (int b = 0; b < 4; b++)
        bytes[4 * k + (guint64) b] = (guint8) (v >> (8 * b)); /* little-endian target */
    }
    g_byte_array_append (got, bytes + skip, (guint) n);
  }
  if (got->len != (ended - began + r->size) % r->size) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "RTT drain: %u bytes from RdOff %"
                 G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT " in a ring of %u", got->len, began,
                 ended, r->size);
    return FALSE;
  }
  g_byte_array_append (out, got->data, got->len);
  r->bytes += got->len;
  /* the target's RdOff is at began now; we hold [began, ended) until the next script */
  r->held = (ProbeRttHeld) { .desc = r->desc, .buf = r->buf, .size = r->size,
                             .rd_off = (guint32) began, .upto = (guint32) ended };
  guint32 word = ((r->buf + (guint32) ended) & ~3u) - 4; /* as probe_rtt_drain_script */
  if (began == 0 && ended >= 4 && word >= r->buf) { /* got holds the ring's [0, ended) */
    const guint8 *w = got->data + (word - r->buf);
    r->held.last_word = (guint32) w[0] | (guint32) w[1] << 8 | (guint32) w[2] << 16 |
                        (guint32) w[3] << 24;
  }
  return TRUE;
}

/* A drain that read more than a quarter of the ring releases it at once, in a second (short)
 * round trip: held until the next drain, those bytes would leave the firmware that much less
 * room, and a ring this full is about to drop records (measured on the rig's 256-byte ring
 * under `stress`: records received per 5 s session, old single-script drain ~9500, released
 * only by the next drain ~5100, with this ~6600). Never for rings of 4 × RTT_MAX_DRAIN bytes
 * or more. A failure of that release is not this drain's: its bytes are delivered, the next
 * step meets the broken link, and the next drain's script releases them anyway. */
static gboolean
drain_step (ProbeRttLink *r, GByteArray *out, GError **error)
{
  if (!drain_run (r, RTT_MAX_DRAIN, out, error))
    return FALSE;
  guint32 held = (r->held.upto - r->held.rd_off + r->size) % r->size;
  if (held > r->size / 4) {
    g_autoptr (GError) ignored = NULL;
    g_autoptr (GByteArray) none = g_byte_array_new ();
    drain_run (r, 0, none, &ignored);
  }
  return TRUE;
}

static gboolean
server_start (ProbeRttLink *r, GError **error)
{
  /* no port configured: take a free one (`rtt server start 0` would bind a random port we
   * could not learn) */
  r->server_port = r->cfg.server_port ? r->cfg.server_port : probe_free_loopback_port (error);
  if (r->server_port == 0) {
    g_prefix_error (error, "no free TCP port for OpenOCD's RTT server: ");
    return FALSE;
  }
  /* setup with the located block (exactly once in a 24-byte range), start, verify channels */
  g_autofree char *setup = g_strdup_printf ("rtt setup 0x%" G_GINT64_MODIFIER "x 32 {" RTT_ID "}",
                                            r->cb);
  g_autofree char *a = probe_openocd_call (r->oc, setup, error);
  if (a == NULL)
    return FALSE;
  g_autofree char *b = probe_openocd_call (r->oc, "rtt start", error);
  if (b == NULL)
    return FALSE;
  g_autofree char *c = probe_openocd_call (r->oc, "rtt channels", error);
  if (c == NULL)
    return FALSE;
  g_autofree char *d = g_strdup_printf ("rtt polling_interval %u",
                                        r->cfg.polling_interval_ms ? r->cfg.polling_interval_ms : 1);
  g_autofree char *e = probe_openocd_call (r->oc, d, error);
  if (e == NULL)
    return FALSE;
  g_autofree char *start = g_strdup_printf ("rtt server start %u %u", r->server_port,
                                            r->cfg.channel);
  g_autofree char *f = probe_openocd_call (r->oc, start, error);
  if (f == NULL)
    return FALSE;
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_socket_client_set_enable_proxy (client, FALSE);
  g_socket_client_set_timeout (client, 5);
  r->server = g_socket_client_connect_to_host (client, r->cfg.host ? r->cfg.host : "127.0.0.1",
                                               r->server_port, NULL, error);
  if (r->server == NULL) {
    g_prefix_error (error, "cannot connect to OpenOCD's RTT server port %u: ",
                    r->server_port);
    return FALSE;
  }
  g_socket_set_timeout (g_socket_connection_get_socket (r->server), 0);
  g_socket_set_blocking (g_socket_connection_get_socket (r->server), FALSE);
  return TRUE;
}

static gboolean
server_step (ProbeRttLink *r, GByteArray *out, guint wait_ms, GError **error)
{
  GSocket *s = g_socket_connection_get_socket (r->server);
  guint8 buf[16384];
  g_autoptr (GError) local = NULL;
  if (!g_socket_condition_timed_wait (s, G_IO_IN, (gint64) wait_ms * 1000, NULL, &local))
    return TRUE; /* nothing within the wait: not an error */
  gssize n = g_socket_receive (s, (char *) buf, sizeof buf, NULL, &local);
  r->round_trips++;
  if (n < 0 && g_error_matches (local, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return TRUE;
  if (n <= 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "OpenOCD's RTT server closed the connection%s%s",
                 local ? ": " : "", local ? local->message : "");
    server_close (r);
    return FALSE;
  }
  g_byte_array_append (out, buf, (guint) n);
  r->bytes += (guint64) n;
  return TRUE;
}

gboolean
probe_rtt_link_start (ProbeRttLink *r, GError **error)
{
  if (r->cb == 0 && !probe_rtt_link_locate (r, error))
    return FALSE;
  if (r->method == PROBE_RTT_SERVER && r->server == NULL)
    return server_start (r, error);
  return TRUE;
}

gboolean
probe_rtt_link_step (ProbeRttLink *r, GByteArray *out, guint wait_ms, GError **error)
{
  if (r->cb == 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND, "RTT control block not located");
    return FALSE;
  }
  if (r->method == PROBE_RTT_SERVER)
    return server_step (r, out, wait_ms, error);
  return drain_step (r, out, error);
}

gboolean
probe_rtt_link_pending (ProbeRttLink *r, guint32 *bytes, GError **error)
{
  if (r->cb == 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND, "RTT control block not located");
    return FALSE;
  }
  guint64 off[2]; /* WrOff, RdOff */
  if (!probe_openocd_read_memory (r->oc, r->target, r->desc + 12, 32, 2, off, error))
    return FALSE;
  if (off[0] >= r->size || off[1] >= r->size) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND, "RTT offsets out of range: WrOff %"
                 G_GUINT64_FORMAT ", RdOff %" G_GUINT64_FORMAT " in a ring of %u", off[0], off[1],
                 r->size);
    return FALSE;
  }
  *bytes = (guint32) ((off[0] - off[1] + r->size) % r->size);
  return TRUE;
}

gboolean
probe_rtt_link_unread (ProbeRttLink *r, guint32 *bytes, GError **error)
{
  guint32 pending;
  if (!probe_rtt_link_pending (r, &pending, error))
    return FALSE;
  guint32 held = r->method == PROBE_RTT_DRAIN && r->size
                 ? (r->held.upto - r->held.rd_off + r->size) % r->size : 0;
  *bytes = pending > held ? pending - held : 0;
  return TRUE;
}

gboolean
probe_rtt_link_release (ProbeRttLink *r, GError **error)
{
  if (r->method != PROBE_RTT_DRAIN || r->cb == 0 || r->held.rd_off == r->held.upto)
    return TRUE;
  g_autoptr (GByteArray) none = g_byte_array_new ();
  if (!drain_run (r, 0, none, error)) {
    g_prefix_error (error, "releasing the RTT bytes read: ");
    return FALSE;
  }
  return TRUE;
}

void
probe_rtt_link_get_held (ProbeRttLink *r, ProbeRttHeld *held)
{
  *held = r->held;
}

void
probe_rtt_link_set_held (ProbeRttLink *r, const ProbeRttHeld *held)
{
  r->held = *held;
}

gboolean
probe_rtt_link_stop (ProbeRttLink *r, GError **error)
{
  if (r->method == PROBE_RTT_DRAIN)
    return probe_rtt_link_release (r, error);
  if (r->server == NULL)
    return TRUE;
  server_close (r);
  g_autofree char *cmd = g_strdup_printf ("rtt server stop %u", r->server_port);
  g_autofree char *a = probe_openocd_call (r->oc, cmd, error);
  if (a == NULL)
    return FALSE;
  g_autofree char *b = probe_openocd_call (r->oc, "rtt stop", error);
  return b != NULL;
}

guint64
probe_rtt_link_get_bytes (ProbeRttLink *r)
{
  return r->bytes;
}
