/* check-derive.h — starter budgets files for `orti-profd check --derive-budgets` (issue #20):
 * what the application's ORTI file says a task's timing should be (the ALARM that activates
 * it and its CYCLETIME, the task's priority), and what a recorded session measured (loads and
 * times plus headroom), written as a budgets file budget_set_load() reads back.
 *
 * From the ORTI: every TASK object gets a group. A task an ALARM activates (or sets an event
 * of: the ALARM's ACTION names the task) is cyclic: `deadline = period`, and when the
 * alarm's cycle is known in time — its CYCLETIME evaluates to a non-zero number offline (a
 * constant, or the ELF's initial data), else the alarm's constant vs_AUTOSTART_CYCLETIME, in
 * ticks of its COUNTER, times the tick duration the caller gives for that counter — the
 * deadline is that cycle in µs and period_min / period_max are the cycle ∓ 10 %. Priorities,
 * alarms and whatever could not be known offline are written as comments. From a session:
 * load limits (measured + headroom) for the tasks it ran and its cores; without an ORTI, every
 * statistic the session holds (docs/check.md). */
#pragma once

#include "check-db.h"
#include "orti.h"

G_BEGIN_DECLS

/* What check_derive_write derives from. */
typedef struct {
  OrtiDoc *orti;                /* the application's ORTI, or NULL: the session alone */
  OrtiElf *elf;                 /* its ELF (CYCLETIME from initial data), or NULL */
  GHashTable *counter_tick_us;  /* COUNTER name → double * µs per tick (NULL: none known;
                                 * osek_config_parse_counter_tick fills it) */
  StoreDb *db;                  /* with @session: measured limits; NULL: none */
  const CheckSession *session;
} CheckDeriveSources;

/* check_derive_write:
 * Writes a starter budgets file to @path from @src (at least an ORTI or a session). The
 * result parses with budget_set_load(); judged against the session it was derived from, the
 * measured limits pass (exact sessions: headroom over the worst value seen). FALSE with a
 * GError (a STORE_ERROR reading the session, a G_FILE_ERROR writing @path, prefixed with
 * @path). */
gboolean check_derive_write (const char *path, const CheckDeriveSources *src, GError **error);

G_END_DECLS
