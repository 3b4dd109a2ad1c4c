/* probe-cortexm.h — the Cortex-M debug and trace registers the sources configure through
 * OpenOCD (cortexm.c), written with a record so a source undoes exactly what it changed. */
#pragma once

#include <glib.h>

#include "probe-openocd.h"

G_BEGIN_DECLS

/* Cortex-M trace unit (cortexm.c): the debug and trace registers sources configure through  */
/* OpenOCD, written with a record so a source undoes exactly what it changed.                */

#define PROBE_DEMCR 0xE000EDFCu
#define PROBE_DEMCR_TRCENA (1u << 24)
#define PROBE_DWT_CTRL 0xE0001000u
#define PROBE_DWT_CTRL_CYCCNTENA 1u
#define PROBE_DWT_CYCCNT 0xE0001004u
#define PROBE_DWT_PCSR 0xE000101Cu
#define PROBE_DWT_COMP(n) (0xE0001020u + 16u * (n))
#define PROBE_DWT_MASK(n) (0xE0001024u + 16u * (n))
#define PROBE_DWT_FUNCTION(n) (0xE0001028u + 16u * (n))
#define PROBE_ITM_TER 0xE0000E00u
#define PROBE_ITM_TCR 0xE0000E80u
#define PROBE_ITM_LAR 0xE0000FB0u
#define PROBE_TPIU_ACPR 0xE0040010u
#define PROBE_TPIU_SPPR 0xE00400F0u
#define PROBE_TPIU_FFCR 0xE0040304u

typedef struct {
  guint32 cpuid;
  gboolean is_cortex_m;
  gboolean has_dwt;        /* Cortex-M3 and later (not M0/M0+/M1) */
  guint32 dwt_ctrl;        /* DWT_CTRL as read */
  guint n_comparators;     /* DWT_CTRL.NUMCOMP */
  gboolean has_cyccnt;     /* !NOCYCCNT */
  gboolean has_trace_packets; /* !NOTRCPKT: data/exception/PC-sample packets */
  gboolean armv8m;         /* ARMv8-M comparator encoding (DWT_DEVARCH) */
} ProbeCortexmInfo;

typedef struct _ProbeCortexm ProbeCortexm;
/* @oc is borrowed; @target NULL: OpenOCD's current target. */
ProbeCortexm *probe_cortexm_new (ProbeOpenocd *oc, const char *target);
void probe_cortexm_free (ProbeCortexm *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeCortexm, probe_cortexm_free)
/* After a reconnect: the registers are written through @oc from now on (the record stays). */
void probe_cortexm_set_openocd (ProbeCortexm *c, ProbeOpenocd *oc);
gboolean probe_cortexm_read (ProbeCortexm *c, guint32 address, guint32 *value, GError **error);
/* probe_cortexm_write: writes @value to @address (@what names it in messages and the record);
 * the register's value before the first write is kept for probe_cortexm_restore(). */
gboolean probe_cortexm_write (ProbeCortexm *c, guint32 address, guint32 value, const char *what,
                              GError **error);
/* probe_cortexm_restore: writes back every register written, last first. */
gboolean probe_cortexm_restore (ProbeCortexm *c, GError **error);
/* What was written, as a JSON array of {"register", "address", "value"} (newly allocated). */
char *probe_cortexm_config_json (ProbeCortexm *c);
/* probe_cortexm_identify: CPUID and what the DWT offers. A refused CPUID read (not an
 * M-profile core) leaves @info all FALSE and returns TRUE; @error only for a failed link. */
gboolean probe_cortexm_identify (ProbeCortexm *c, ProbeCortexmInfo *info, GError **error);
/* probe_cortexm_cyccnt_start:
 * Enables CYCCNT (DEMCR.TRCENA, DWT_CTRL.CYCCNTENA) and checks that it counts; its rate is
 * @given_hz or measured against host time over @window_us. TRUE with *@hz; FALSE without error
 * when the core has no counter that counts (*@note says why); FALSE with @error when the link
 * failed. *@note (newly allocated) says how the clock was chosen. */
gboolean probe_cortexm_cyccnt_start (ProbeCortexm *c, guint64 given_hz, guint window_us,
                                     guint64 *hz, char **note, GError **error);
/* probe_cortexm_watch_writes:
 * Sets DWT comparator @n (< info->n_comparators) to match the core's writes of @width bytes
 * at @address: a data-value trace packet each (emitted only while the ITM forwards DWT
 * packets) and DWT_FUNCTIONn.MATCHED set until FUNCTIONn is read; restored by
 * probe_cortexm_restore. */
gboolean probe_cortexm_watch_writes (ProbeCortexm *c, const ProbeCortexmInfo *info, guint n,
                                     guint32 address, guint width, GError **error);
/* probe_cortexm_pcsr_start:
 * Makes DWT_PCSR readable (DEMCR.TRCENA; restored by probe_cortexm_restore) and checks that it
 * samples: FALSE with PROBE_ERROR_UNSUPPORTED naming the register, its address and what was
 * read when the core has no DWT, the read fails, or @tries reads all give 0 (no PC sampler:
 * Cortex-M0/M0+, or a simulator without one). 0xFFFFFFFF (halted or asleep) is accepted.
 * FALSE with the link's error when the link failed. */
gboolean probe_cortexm_pcsr_start (ProbeCortexm *c, guint tries, GError **error);

G_END_DECLS
