/* rtt-link.c — read the target library's RTT up-channel through OpenOCD (probe.h, "RTT
 * source"), two ways:
 *
 *  DRAIN  — we read the SEGGER RTT up-buffer descriptor and the bytes between RdOff and WrOff
 *           with read_memory, and write RdOff back with write_memory, all inside one Tcl script:
 *           one round trip per drain, no 1 KiB-per-poll cap (OpenOCD's rtt code reads at most
 *           1024 bytes per channel per poll: ../shared/notes/openocd.md).
 *  SERVER — OpenOCD's own `rtt setup/start` + `rtt server start PORT CH`; we read the TCP port.
 *           `rtt polling_interval` is only sent after `rtt start` (sent before `rtt setup` it
 *           crashes OpenOCD 0.12).
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
  char *drain_script;         /* the one-round-trip drain */
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
  g_free (r->drain_script);
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

static char *
tgt_prefix (ProbeRttLink *r)
{
  return r->target ? g_strdup_printf ("%s ", r->target) : g_strdup ("");
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

  /* The drain, as one Tcl script: read WrOff/RdOff, read the bytes (in two parts when the
   * ring wraps), write RdOff back. Bytes are read as aligned 32-bit words (a part at ring
   * address A of N bytes comes back as "S N w0 w1 …" with S = A & 3 leading bytes to skip):
   * a quarter of the bus transfers and reply text of 8-bit reads, and no reliance on byte
   * lanes of unaligned 8-bit MEM-AP reads (the rig's simulated probe returns whole words
   * there). Capped at RTT_MAX_DRAIN bytes per call. */
  g_autofree char *t = tgt_prefix (r);
  g_free (r->drain_script);
  r->drain_script = g_strdup_printf (
      "set _o [%sread_memory 0x%" G_GINT64_MODIFIER "x 32 2]; "
      "set _w [lindex $_o 0]; set _r [lindex $_o 1]; "
      "if {$_w >= %u || $_r >= %u} {error \"RTT offsets out of range: $_o\"}; "
      "set _d {}; set _l %u; "
      "while {$_r != $_w && $_l > 0} { "
      "if {$_w > $_r} {set _n [expr {$_w - $_r}]} else {set _n [expr {%u - $_r}]}; "
      "if {$_n > $_l} {set _n $_l}; "
      "set _a [expr {0x%x + $_r}]; set _s [expr {$_a & 3}]; "
      "append _d { } $_s { } $_n { } [%sread_memory [expr {$_a - $_s}] 32 "
      "[expr {($_s + $_n + 3) / 4}]]; "
      "set _r [expr {($_r + $_n) %% %u}]; set _l [expr {$_l - $_n}]}; "
      "if {$_d ne {}} {%swrite_memory 0x%" G_GINT64_MODIFIER "x 32 $_r}; set _d",
      t, desc + 12, r->size, r->size, RTT_MAX_DRAIN, r->size, r->buf, t, r->size, t,
      desc + 16);
  return TRUE;
}

static gboolean
drain_step (ProbeRttLink *r, GByteArray *out, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *answer = probe_openocd_call (r->oc, r->drain_script, &local);
  r->round_trips++;
  if (answer == NULL) {
    if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD)) {
      /* the block went away (reset, re-init): the caller locates it again */
      r->cb = 0;
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND, "RTT drain failed: %s",
                   local->message);
      return FALSE;
    }
    g_propagate_error (error, g_steal_pointer (&local));
    return FALSE;
  }
  /* parse the parts "S N w0 w1 …" (see probe_rtt_link_locate) quickly */
  const char *p = answer;
  for (;;) {
    guint64 head[2];
    for (int i = 0; i < 2; i++) {
      while (*p == ' ')
        p++;
      char *end;
      head[i] = g_ascii_strtoull (p, &end, 0);
      if (end == p) {
        if (i == 0 && *p == '\0')
          return TRUE;
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "RTT drain: unexpected \"%.20s\"",
                     p);
        return FALSE;
      }
      p = end;
    }
    guint64 skip = head[0], n = head[1], want = (skip + n + 3) / 4;
    if (skip > 3 || n > RTT_MAX_DRAIN) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                   "RTT drain: bad part header %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, skip, n);
      return FALSE;
    }
    guint8 bytes[RTT_MAX_DRAIN + 8];
    for (guint64 k = 0; k < want; k++) {
      while (*p == ' ')
        p++;
      char *end;
      guint64 v = g_ascii_strtoull (p, &end, 0);
      if (end == p || v > 0xffffffffu) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "RTT drain: unexpected \"%.20s\"",
                     p);
        return FALSE;
      }
      for (int b = 0; b < 4; b++)
        bytes[4 * k + (guint64) b] = (guint8) (v >> (8 * b)); /* little-endian target */
      p = end;
    }
    g_byte_array_append (out, bytes + skip, (guint) n);
    r->bytes += n;
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
probe_rtt_link_stop (ProbeRttLink *r, GError **error)
{
  if (r->method != PROBE_RTT_SERVER || r->server == NULL)
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
