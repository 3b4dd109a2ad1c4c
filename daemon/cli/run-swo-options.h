/* run-swo-options.h — run's SWO options (live and --offline) → SessionConfig (cmd-run.c). */
#pragma once

#include "session.h"

G_BEGIN_DECLS

/* The SWO options as given (NULL / FALSE: not given); strings borrowed, and kept by the
 * SessionConfig, so they must outlive it. */
typedef struct {
  const char *source;            /* --source KIND as given (for messages) */
  const char *swo, *swo_format, *swo_pin_freq, *swo_protocol, *swo_global_clock, *pc_sample;
  const char *swo_comparators;   /* --swo-comparators N (--offline) */
  const char *swo_vtor;          /* --swo-vtor ADDR (--offline) */
  const char *swo_channel;       /* --swo-channel NAME (--offline, a sigrok session file) */
  gboolean no_exception_trace;
  gboolean offline;              /* --offline: the --swo FILE|- stream, no target */
} RunSwoOptions;

/* run_parse_rate: a positive integer option --@name (decimal or 0x hex) into *@hz; else
 * SESSION_ERROR_CONFIG "--NAME: \"TEXT\" is not a rate in Hz (e.g. @example)". */
gboolean run_parse_rate (const char *text, const char *name, const char *example, guint64 *hz,
                         GError **error);

/* run_swo_options_apply: @o into @cfg (whose source is already set from --source/--replay):
 * the stream, its format, protocol, pin and global clock rates, PC sampling, exception trace;
 * --offline makes the source SESSION_SOURCE_OFFLINE and needs --swo FILE|- and --core-clock
 * (set in @cfg before); it refuses what needs a target (--openocd is the caller's check),
 * --replay, --record, a TCP stream, --source other than swo or auto. Each error is
 * SESSION_ERROR_CONFIG naming the option and its value. */
gboolean run_swo_options_apply (const RunSwoOptions *o, SessionConfig *cfg, GError **error);

G_END_DECLS
