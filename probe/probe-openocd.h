/* probe-openocd.h — the OpenOCD client (openocd.c: blocking TCL RPC for the probe's worker
 * thread) and the Tcl list parser its answers need (tcl-list.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Tcl lists (tcl-list.c): OpenOCD answers in Tcl syntax.                                    */

/* probe_tcl_list_split: the elements of the Tcl list @list (char*, newly allocated), or NULL
 * with PROBE_ERROR_PROTOCOL when braces or quotes do not match. */
GPtrArray *probe_tcl_list_split (const char *list, GError **error);
/* probe_tcl_quote: @s quoted as one Tcl word (braces when possible, else backslashes). */
char *probe_tcl_quote (const char *s);

/* OpenOCD client (openocd.c): blocking TCL RPC for the probe's worker thread.               */

typedef struct _ProbeOpenocd ProbeOpenocd;

typedef enum {
  PROBE_OPENOCD_NOTIFY_EVENT, /* "type target_event event halted|resumed|reset-…" */
  PROBE_OPENOCD_NOTIFY_STATE, /* "type target_state state running|halted|reset" */
  PROBE_OPENOCD_NOTIFY_RESET, /* "type target_reset mode run|halt|init" */
  PROBE_OPENOCD_NOTIFY_OTHER,
} ProbeOpenocdNotifyKind;

typedef struct {
  ProbeOpenocdNotifyKind kind;
  char *value;          /* "halted", "running", "run", …; NULL for OTHER */
  char *raw;            /* the whole message */
  gint64 host_time_us;  /* g_get_monotonic_time() when it was read */
} ProbeOpenocdNotification;

/* One answer of a pipelined batch: exactly one of result / error is set. */
typedef struct {
  char *result;
  GError *error;
} ProbeOpenocdReply;

/* probe_openocd_connect: connects to OpenOCD's TCL port. Every later call waits at most
 * @timeout_ms. Fails with PROBE_ERROR_CONNECT "cannot connect to OpenOCD at HOST:PORT: …". */
ProbeOpenocd *probe_openocd_connect (const char *host, guint16 port, guint timeout_ms,
                                     GError **error);
void probe_openocd_free (ProbeOpenocd *oc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeOpenocd, probe_openocd_free)
const char *probe_openocd_get_address (ProbeOpenocd *oc); /* "HOST:PORT" */
/* The host OpenOCD was reached at. */
const char *probe_openocd_get_host (ProbeOpenocd *oc);
/* A TCP port on the loopback interface that nothing listens on right now (0 and @error when
 * none can be had), for a server OpenOCD is to open. */
guint16 probe_free_loopback_port (GError **error);

/* probe_openocd_call: runs @script (wrapped in catch) and returns its result, or NULL with
 * PROBE_ERROR_OPENOCD (the command failed: OpenOCD's code and message), PROBE_ERROR_IO /
 * PROBE_ERROR_TIMEOUT (connection lost; the client is then unusable). */
char *probe_openocd_call (ProbeOpenocd *oc, const char *script, GError **error);
/* probe_openocd_call_many: sends all @n scripts at once, then reads the @n answers in order
 * (ProbeOpenocdReply*). NULL only when the connection fails. */
GPtrArray *probe_openocd_call_many (ProbeOpenocd *oc, const char *const *scripts, guint n,
                                    GError **error);
void probe_openocd_reply_free (ProbeOpenocdReply *reply);

/* Notifications: turn them on for this connection; they are queued while answers are read
 * and taken (oldest first, ProbeOpenocdNotification*) with probe_openocd_take_notifications().
 * probe_openocd_pump() sends a command that runs no target poll, to collect pending ones. */
gboolean probe_openocd_set_notifications (ProbeOpenocd *oc, gboolean on, GError **error);
GPtrArray *probe_openocd_take_notifications (ProbeOpenocd *oc);
gboolean probe_openocd_pump (ProbeOpenocd *oc, GError **error);

/* Memory. @target NULL: the current target. @width_bits 8/16/32/64, @count ≤ 65536.
 * A faulting read fails with PROBE_ERROR_READ naming the address. */
gboolean probe_openocd_read_memory (ProbeOpenocd *oc, const char *target, guint64 address,
                                    guint width_bits, guint count, guint64 *values,
                                    GError **error);
gboolean probe_openocd_write_memory (ProbeOpenocd *oc, const char *target, guint64 address,
                                     guint width_bits, const guint64 *values, guint count,
                                     GError **error);
/* The script probe_openocd_read_memory() sends, for pipelining, and the parser of its answer. */
char *probe_openocd_read_memory_script (const char *target, guint64 address, guint width_bits,
                                        guint count);
gboolean probe_openocd_parse_memory (const char *text, guint64 *values, guint count,
                                     GError **error);

/* Targets: `target names` as a NULL-terminated vector; `curstate` of @target (NULL: current):
 * "running", "halted", "reset", "unknown" … */
GStrv probe_openocd_target_names (ProbeOpenocd *oc, GError **error);
char *probe_openocd_target_state (ProbeOpenocd *oc, const char *target, GError **error);

G_END_DECLS
