/* rig-tcl.h — a minimal blocking client for OpenOCD's TCL RPC port, for the rig's tests,
 * launcher and benchmark. Framing (../shared/notes/openocd.md): send `script\x1a`, read the
 * result up to `\x1a`. OpenOCD has no error flag, so rig_tcl_eval wraps each script as
 * `list [catch {script} r] $r` and splits the code off the reply.
 */
#pragma once

#include <glib.h>

/* Connects to 127.0.0.1:port, retrying until timeout_ms has passed. Returns the socket fd, or
 * -1 with `error` set. */
int rig_tcl_connect(guint16 port, guint timeout_ms, GError **error);

/* Sends `script` unwrapped and returns OpenOCD's raw reply (without the \x1a), or NULL with
 * `error` set when the connection fails. */
char *rig_tcl_raw(int fd, const char *script, GError **error);

/* Evaluates `script` inside `catch`. Returns the Tcl result text, or NULL with `error` set:
 * G_IO_ERROR_FAILED carrying OpenOCD's message when the script raised an error (then *code,
 * if not NULL, is its nonzero catch code), other codes when the connection failed. */
char *rig_tcl_eval(int fd, const char *script, int *code, GError **error);
