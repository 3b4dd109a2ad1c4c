/* cortexm.c — the Cortex-M debug and trace registers a source configures through OpenOCD
 * (probe.h, "Cortex-M trace unit"): the cycle counter as a clock, and a record of every register
 * written so a source can undo its configuration at the end (ARMv7-M ARM C1.6–C1.10, D4;
 * ARMv8-M ARM B12, B13).
 *
 * CYCCNT: enabled with DEMCR.TRCENA and DWT_CTRL.CYCCNTENA, checked to count (it does not in a
 * plain QEMU, nor on cores without one: DWT_CTRL.NOCYCCNT), its rate given or measured against
 * host time (the midpoint of each read's round trip, over a window long enough for the read
 * latency to matter < 0.5 %).
 */
#include "probe.h"

#include <string.h>

#define CPUID 0xE000ED00u
#define DWT_DEVARCH 0xE0001FBCu
#define DHCSR 0xE000EDF0u
#define DHCSR_S_HALT (1u << 17)

struct _ProbeCortexm {
  ProbeOpenocd *oc;        /* borrowed */
  char *target;
  GArray *saved;           /* ProbeCortexmSaved: first value of each register written */
  GString *log;            /* JSON array body of what was written */
};

typedef struct {
  guint32 address;
  guint32 value;           /* the value before our first write */
} ProbeCortexmSaved;

ProbeCortexm *
probe_cortexm_new (ProbeOpenocd *oc, const char *target)
{
  ProbeCortexm *c = g_new0 (ProbeCortexm, 1);
  c->oc = oc;
  c->target = g_strdup (target);
  c->saved = g_array_new (FALSE, FALSE, sizeof (ProbeCortexmSaved));
  c->log = g_string_new (NULL);
  return c;
}

void
probe_cortexm_free (ProbeCortexm *c)
{
  if (c == NULL)
    return;
  g_free (c->target);
  g_array_unref (c->saved);
  g_string_free (c->log, TRUE);
  g_free (c);
}

void
probe_cortexm_set_openocd (ProbeCortexm *c, ProbeOpenocd *oc)
{
  c->oc = oc;
}

gboolean
probe_cortexm_read (ProbeCortexm *c, guint32 address, guint32 *value, GError **error)
{
  guint64 v = 0;
  if (!probe_openocd_read_memory (c->oc, c->target, address, 32, 1, &v, error))
    return FALSE;
  *value = (guint32) v;
  return TRUE;
}

gboolean
probe_cortexm_write (ProbeCortexm *c, guint32 address, guint32 value, const char *what,
                     GError **error)
{
  gboolean known = FALSE;
  for (guint i = 0; i < c->saved->len && !known; i++)
    known = g_array_index (c->saved, ProbeCortexmSaved, i).address == address;
  if (!known) {
    ProbeCortexmSaved s = { address, 0 };
    if (!probe_cortexm_read (c, address, &s.value, error))
      return FALSE;
    g_array_append_val (c->saved, s);
  }
  guint64 v = value;
  if (!probe_openocd_write_memory (c->oc, c->target, address, 32, &v, 1, error)) {
    g_prefix_error (error, "writing %s (0x%08x): ", what, address);
    return FALSE;
  }
  g_string_append_printf (c->log, "%s{\"register\": \"%s\", \"address\": \"0x%08x\", "
                          "\"value\": \"0x%08x\"}", c->log->len ? ", " : "", what, address, value);
  return TRUE;
}

gboolean
probe_cortexm_restore (ProbeCortexm *c, GError **error)
{
  /* in reverse order: enables are undone before what they enabled */
  for (guint i = c->saved->len; i-- > 0;) {
    const ProbeCortexmSaved *s = &g_array_index (c->saved, ProbeCortexmSaved, i);
    guint64 v = s->value;
    if (!probe_openocd_write_memory (c->oc, c->target, s->address, 32, &v, 1, error))
      return FALSE;
  }
  g_array_set_size (c->saved, 0);
  return TRUE;
}

char *
probe_cortexm_config_json (ProbeCortexm *c)
{
  return g_strdup_printf ("[%s]", c->log->str);
}

gboolean
probe_cortexm_identify (ProbeCortexm *c, ProbeCortexmInfo *info, GError **error)
{
  memset (info, 0, sizeof *info);
  guint32 cpuid = 0, ctrl = 0, devarch = 0;
  g_autoptr (GError) cpuid_error = NULL;
  if (!probe_cortexm_read (c, CPUID, &cpuid, &cpuid_error)) {
    /* a core without the System Control Space (not an ARM M-profile) refuses the read: that
     * is an answer; a dead link is not */
    if (g_error_matches (cpuid_error, PROBE_ERROR, PROBE_ERROR_READ) ||
        g_error_matches (cpuid_error, PROBE_ERROR, PROBE_ERROR_OPENOCD))
      return TRUE;
    g_propagate_error (error, g_steal_pointer (&cpuid_error));
    return FALSE;
  }
  info->cpuid = cpuid;
  info->is_cortex_m = ((cpuid >> 24) & 0xFF) == 0x41 && ((cpuid >> 4) & 0xF00) == 0xC00;
  guint part = (cpuid >> 4) & 0xFFF;
  /* M0 0xC20, M0+ 0xC60, M1 0xC21: no DWT cycle counter or data trace */
  info->has_dwt = info->is_cortex_m && part != 0xC20 && part != 0xC60 && part != 0xC21;
  if (!info->has_dwt)
    return TRUE;
  if (!probe_cortexm_read (c, PROBE_DWT_CTRL, &ctrl, error))
    return FALSE;
  info->dwt_ctrl = ctrl;
  info->n_comparators = ctrl >> 28;
  info->has_cyccnt = !(ctrl & (1u << 25));
  info->has_trace_packets = !(ctrl & (1u << 27));
  /* DWT_DEVARCH (ARMv8-M only; reads 0 on ARMv7-M) names the v8 comparator encoding */
  g_autoptr (GError) local = NULL;
  if (probe_cortexm_read (c, DWT_DEVARCH, &devarch, &local))
    info->armv8m = devarch == 0x47701A02u;
  return TRUE;
}

/* One CYCCNT read, stamped with the host time halfway through the round trip. */
static gboolean
cyccnt_read (ProbeCortexm *c, guint32 *value, gint64 *host_us, GError **error)
{
  gint64 before = g_get_monotonic_time ();
  if (!probe_cortexm_read (c, PROBE_DWT_CYCCNT, value, error))
    return FALSE;
  *host_us = (before + g_get_monotonic_time ()) / 2;
  return TRUE;
}

/* DEMCR.TRCENA on (it gates the DWT and ITM), unless it already is. */
static gboolean
cortexm_enable_trcena (ProbeCortexm *c, GError **error)
{
  guint32 demcr = 0;
  if (!probe_cortexm_read (c, PROBE_DEMCR, &demcr, error))
    return FALSE;
  return (demcr & PROBE_DEMCR_TRCENA) ||
         probe_cortexm_write (c, PROBE_DEMCR, demcr | PROBE_DEMCR_TRCENA, "DEMCR", error);
}

gboolean
probe_cortexm_cyccnt_start (ProbeCortexm *c, guint64 given_hz, guint window_us, guint64 *hz,
                            char **note, GError **error)
{
  ProbeCortexmInfo info;
  if (!probe_cortexm_identify (c, &info, error))
    return FALSE;
  if (!info.has_dwt || !info.has_cyccnt) {
    *note = g_strdup_printf (info.is_cortex_m ? "this core has no cycle counter (CPUID 0x%08x%s)"
                             : "not a Cortex-M3 or later (CPUID 0x%08x%s): no cycle counter",
                             info.cpuid, info.has_dwt ? ", DWT_CTRL.NOCYCCNT" : "");
    return FALSE;
  }
  if (!cortexm_enable_trcena (c, error))
    return FALSE;
  if (!(info.dwt_ctrl & PROBE_DWT_CTRL_CYCCNTENA) &&
      !probe_cortexm_write (c, PROBE_DWT_CTRL, info.dwt_ctrl | PROBE_DWT_CTRL_CYCCNTENA,
                            "DWT_CTRL", error))
    return FALSE;
  guint32 c0, c1;
  gint64 h0, h1;
  if (!cyccnt_read (c, &c0, &h0, error))
    return FALSE;
  g_usleep (given_hz ? 20000 : window_us);
  if (!cyccnt_read (c, &c1, &h1, error))
    return FALSE;
  guint32 delta = c1 - c0;
  guint32 dhcsr = 0;
  if (delta == 0 && !probe_cortexm_read (c, DHCSR, &dhcsr, error))
    return FALSE;
  /* a running core whose counter has not moved yet: a simulator the host has not run
   * meanwhile (a busy machine), or one without the counter. Look again, up to another window
   * (at least 250 ms), before telling them apart */
  for (guint waited = 0; delta == 0 && !(dhcsr & DHCSR_S_HALT) && waited < MAX (window_us, 250000u);
       waited += 20000) {
    g_usleep (20000);
    if (!cyccnt_read (c, &c1, &h1, error))
      return FALSE;
    delta = c1 - c0;
  }
  if (delta == 0) {
    /* a halted core's counter stands still: a given rate is taken on trust then */
    if ((dhcsr & DHCSR_S_HALT) && given_hz) {
      *hz = given_hz;
      *note = g_strdup_printf ("DWT CYCCNT at %" G_GUINT64_FORMAT " Hz (given; the core was "
                               "halted when it was enabled)", *hz);
      return TRUE;
    }
    *note = g_strdup ((dhcsr & DHCSR_S_HALT)
                      ? "the core is halted, so DWT CYCCNT's rate cannot be measured (give "
                        "--core-clock)"
                      : "DWT CYCCNT does not count (a simulator without a trace unit?)");
    return FALSE;
  }
  if (given_hz) {
    *hz = given_hz;
    *note = g_strdup_printf ("DWT CYCCNT at %" G_GUINT64_FORMAT " Hz (given)", *hz);
  } else {
    *hz = (guint64) ((double) delta * 1e6 / (double) (h1 - h0) + 0.5);
    *note = g_strdup_printf ("DWT CYCCNT at %" G_GUINT64_FORMAT " Hz (measured against host time "
                             "over %.0f ms; give --core-clock for the exact rate)", *hz,
                             (double) (h1 - h0) / 1000);
  }
  return TRUE;
}

#define V7_FUNCTION_DATA_WRITE 0xDu      /* data value packet on write */
#define V8_MATCH_DADDR_WRITE 0x5u        /* data address, writes */
#define V8_ACTION_DATA_VALUE (3u << 4)   /* data trace data value packet */
#define V8_DATAVSIZE_SHIFT 10

gboolean
probe_cortexm_watch_writes (ProbeCortexm *c, const ProbeCortexmInfo *info, guint n,
                            guint32 address, guint width, GError **error)
{
  g_autofree char *fn = g_strdup_printf ("DWT_FUNCTION%u", n);
  g_autofree char *comp = g_strdup_printf ("DWT_COMP%u", n);
  g_autofree char *mask = g_strdup_printf ("DWT_MASK%u", n);
  guint32 function = V7_FUNCTION_DATA_WRITE;
  if (info->armv8m) {
    guint size = width == 4 ? 2 : width == 2 ? 1 : 0;
    function = V8_MATCH_DADDR_WRITE | V8_ACTION_DATA_VALUE | (size << V8_DATAVSIZE_SHIFT);
  }
  return probe_cortexm_write (c, PROBE_DWT_FUNCTION (n), 0, fn, error) &&
         probe_cortexm_write (c, PROBE_DWT_COMP (n), address, comp, error) &&
         (info->armv8m || probe_cortexm_write (c, PROBE_DWT_MASK (n), 0, mask, error)) &&
         probe_cortexm_write (c, PROBE_DWT_FUNCTION (n), function, fn, error);
}

gboolean
probe_cortexm_pcsr_start (ProbeCortexm *c, guint tries, GError **error)
{
  ProbeCortexmInfo info;
  if (!probe_cortexm_identify (c, &info, error))
    return FALSE;
  if (!info.has_dwt) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED,
                 "--pc-sample through poll reads DWT_PCSR (0x%08x), but this core (CPUID "
                 "0x%08x) has no DWT: PC sampling needs a Cortex-M3/M4/M7/M33; profile without "
                 "--pc-sample", PROBE_DWT_PCSR, info.cpuid);
    return FALSE;
  }
  if (!cortexm_enable_trcena (c, error))
    return FALSE;
  for (guint i = 0; i < MAX (tries, 1); i++) {
    guint32 pc = 0;
    g_autoptr (GError) local = NULL;
    if (!probe_cortexm_read (c, PROBE_DWT_PCSR, &pc, &local)) {
      if (local->domain != PROBE_ERROR || local->code != PROBE_ERROR_READ) {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
      }
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED,
                   "--pc-sample through poll reads DWT_PCSR (0x%08x), which cannot be read on "
                   "this core (CPUID 0x%08x): %s", PROBE_DWT_PCSR, info.cpuid, local->message);
      return FALSE;
    }
    if (pc != 0)
      return TRUE;
  }
  g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED,
               "--pc-sample through poll reads DWT_PCSR (0x%08x), but it read 0x00000000 %u "
               "times with DEMCR.TRCENA set: this core (CPUID 0x%08x) has no PC sampler (a "
               "Cortex-M0/M0+ or a simulator without one); profile without --pc-sample",
               PROBE_DWT_PCSR, MAX (tries, 1), info.cpuid);
  return FALSE;
}
