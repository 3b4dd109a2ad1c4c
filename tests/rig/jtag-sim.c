/* jtag-sim.c — a simulated JTAG debug probe for OpenOCD's remote_bitbang adapter, backed by
 * the demo firmware running in QEMU.
 *
 * OpenOCD 0.12 drives remote_bitbang (JTAG only) as ASCII over TCP: '0'..'7' set TCK/TMS/TDI
 * (bits 2/1/0), 'R' samples TDO (reply '0'/'1'), 'r'..'u' reset lines, 'B'/'b' LED, 'Q' quit.
 * Behind the wire this program plays, bit by bit:
 *   - an IEEE 1149.1 TAP (16 states, IR 4 bits captured as 0b0001, IDCODE 0x4BA00477,
 *     BYPASS), reset to IDCODE in Test-Logic-Reset;
 *   - an ARM JTAG-DP (ADIv5: DPACC 0xA, APACC 0xB, ABORT 0x8; 35-bit scans
 *     {data, A[3:2], RnW} in, {previous result, ACK=OK} out; posted reads; CTRL/STAT power-up
 *     handshake; STICKYERR write-one-to-clear);
 *   - an AHB-AP (CSW, TAR with single and packed auto-increment, DRW with byte lanes by
 *     address, BD0-3, CFG, BASE, IDR 0x24770011);
 *   - a Cortex-M3 memory map: code memory from the ELF's load segments (0x0-0x3FFFFF), the
 *     16 MiB PSRAM at 0x21000000 = QEMU's shared RAM file, mapped live (reads see the running
 *     firmware, writes reach it), and the debug registers OpenOCD uses (CPUID, DHCSR, DCRSR,
 *     DCRDR, DEMCR, DFSR, AIRCR, FPB, DWT); with --board-timer also the board timer (mps2
 *     FPGAIO COUNTER 0x40028018, read-only), reckoned from the host clock as QEMU's own
 *     without -icount. Anything else is a bus error: the access sets STICKYERR, which
 *     OpenOCD reports as a failed read or write.
 * Run control is truthful: C_HALT in DHCSR stops QEMU over QMP and clearing it continues it,
 * DHCSR reports S_HALT or S_RETIRE_ST from that state, core registers of a halted core come
 * from QEMU's `info registers`, and AIRCR.SYSRESETREQ resets the machine.
 *
 * With --trace-shm (run-rig --trace-unit) the DWT, ITM and TPIU registers live in the trace
 * unit's shared page (rig-trace-shm.h), where the QEMU plugin trace-unit.c acts on them:
 * CYCCNT counts, PCSR samples, comparators trace, the ITM emits SWO. A halt then waits until
 * the plugin has published the stopped state (its ground truth is exact while halted).
 * Without it the DWT reads as absent (NOCYCCNT, NOTRCPKT) but keeps its 4 comparators.
 *
 * With --elf1 (run-rig --cores 2) a second core sits behind AP 1 (DP SELECT.APSEL picks the
 * core): its own code memory, debug registers, CSW/TAR and QMP (--qmp1), the same PSRAM file;
 * OpenOCD attaches two cortex_m targets to the one DAP (-ap-num 0 and 1), as on a dual-core
 * part. With one core AP 1 does not exist (IDR 0), as before. Each core has its own trace unit
 * (--trace-shm for core 0, --trace-shm1 for core 1: each QEMU loads the plugin with its own
 * page): DWT/ITM accesses through AP n reach core n's page, the TPIU's registers are one TPIU
 * (a write through either AP reaches both pages, which the cores' plugins each act on: the
 * merge funnels their streams), and halting core n stops core n's trace clock and waits for
 * core n's plugin only.
 *
 * Facts measured against the real OpenOCD: ../shared/notes/openocd.md (remote_bitbang).
 * Usage: jtag-sim --ram FILE --elf FILE [--qmp SOCKET] [--elf1 FILE [--qmp1 SOCKET]]
 *                 [--port N] [--port-file FILE] [--unix PATH] [--trace-shm FILE]
 *                 [--trace-shm1 FILE] [--board-timer]
 * --unix listens on a Unix-domain socket instead of TCP (OpenOCD: `remote_bitbang port 0`,
 * `remote_bitbang host PATH`): the same protocol with less kernel work per round trip.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <gio/gio.h>
#include <glib.h>
#include <libelf.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "rig-trace-shm.h"

#if G_BYTE_ORDER != G_LITTLE_ENDIAN
#error "jtag-sim reads the little-endian target RAM directly: little-endian hosts only"
#endif

#define SIM_CODE_SIZE   (4u << 20)     /* mps2 code memory at 0x0 */
#define SIM_RAM_BASE    0x21000000u    /* PSRAM, QEMU's machine RAM */
#define SIM_PPB_BASE    0xE0000000u    /* private peripheral bus (SCS, DWT, FPB, ROM table) */
#define SIM_PPB_SIZE    0x00100000u
#define SIM_IDCODE      0x4BA00477u
#define SIM_BOARD_TIMER 0x40028018u    /* FPGAIO COUNTER, 25 MHz (--board-timer) */
#define SIM_BOARD_NS    40             /* ns per count of it */
#define SIM_ACK_OK      0x2u           /* JTAG-DP OK/FAULT */

/* TAP states, IEEE 1149.1. */
typedef enum {
  TAP_TLR, TAP_RTI, TAP_SELDR, TAP_CAPDR, TAP_SHDR, TAP_EX1DR, TAP_PDR, TAP_EX2DR, TAP_UPDR,
  TAP_SELIR, TAP_CAPIR, TAP_SHIR, TAP_EX1IR, TAP_PIR, TAP_EX2IR, TAP_UPIR,
} TapState;

static const TapState tap_next[16][2] = {
  [TAP_TLR] = { TAP_RTI, TAP_TLR },     [TAP_RTI] = { TAP_RTI, TAP_SELDR },
  [TAP_SELDR] = { TAP_CAPDR, TAP_SELIR }, [TAP_CAPDR] = { TAP_SHDR, TAP_EX1DR },
  [TAP_SHDR] = { TAP_SHDR, TAP_EX1DR }, [TAP_EX1DR] = { TAP_PDR, TAP_UPDR },
  [TAP_PDR] = { TAP_PDR, TAP_EX2DR },   [TAP_EX2DR] = { TAP_SHDR, TAP_UPDR },
  [TAP_UPDR] = { TAP_RTI, TAP_SELDR },  [TAP_SELIR] = { TAP_CAPIR, TAP_TLR },
  [TAP_CAPIR] = { TAP_SHIR, TAP_EX1IR }, [TAP_SHIR] = { TAP_SHIR, TAP_EX1IR },
  [TAP_EX1IR] = { TAP_PIR, TAP_UPIR },  [TAP_PIR] = { TAP_PIR, TAP_EX2IR },
  [TAP_EX2IR] = { TAP_SHIR, TAP_UPIR }, [TAP_UPIR] = { TAP_RTI, TAP_SELDR },
};

enum { IR_ABORT = 0x8, IR_DPACC = 0xA, IR_APACC = 0xB, IR_IDCODE = 0xE, IR_BYPASS = 0xF };

/* CTRL/STAT bits. */
#define CS_STICKYORUN (1u << 1)
#define CS_STICKYCMP  (1u << 4)
#define CS_STICKYERR  (1u << 5)
#define CS_WDATAERR   (1u << 7)
#define CS_STICKY     (CS_STICKYORUN | CS_STICKYCMP | CS_STICKYERR | CS_WDATAERR)
#define CS_WRITABLE   (0x1u | 0xCu | 0xF00u | (1u << 26) | (1u << 28) | (1u << 30))

/* Debug registers. */
#define REG_CPUID  0xE000ED00u
#define REG_AIRCR  0xE000ED0Cu
#define REG_DFSR   0xE000ED30u
#define REG_DHCSR  0xE000EDF0u
#define REG_DCRSR  0xE000EDF4u
#define REG_DCRDR  0xE000EDF8u
#define REG_DEMCR  0xE000EDFCu
#define REG_FP_CTRL 0xE0002000u
#define REG_DWT_CTRL 0xE0001000u
#define DHCSR_S_REGRDY (1u << 16)
#define DHCSR_S_HALT   (1u << 17)
#define DHCSR_S_RETIRE (1u << 24)
#define DHCSR_S_RESET  (1u << 25)

/* One core behind one AHB-AP (AP n = core n): its AP registers, its code image, its debug
 * registers and run control through its own QEMU. The PSRAM file is the cores' shared bus. */
typedef struct {
  /* AHB-AP (each AP keeps its own CSW and TAR, as OpenOCD expects) */
  guint32 csw;             /* AP CSW as written */
  guint32 tar;             /* AP TAR */
  /* memory */
  guint8 *code;            /* SIM_CODE_SIZE bytes from the ELF's load segments */
  guint32 *ppb;            /* SIM_PPB_SIZE/4 words of debug register storage */
  /* core debug state */
  guint32 dhcsr_ctrl;      /* C_DEBUGEN..C_SNAPSTALL as written */
  gboolean halted;         /* QEMU stopped by us */
  gboolean reset_seen;     /* S_RESET_ST: reset since DHCSR was last read */
  guint32 regs[32];        /* core registers of the halted core (DCRSR REGSEL) */
  gboolean regs_valid;     /* regs read from QEMU since the last halt */
  /* QMP */
  int qmp_fd;              /* -1 without QMP: halt requests are refused */
  GString *qmp_buf;        /* bytes read but not yet consumed */
  /* trace unit */
  RigTraceShm *trace;      /* the plugin's shared page, NULL without --trace-shm */
  guint32 match_seen[RIG_TRACE_NUMCOMP]; /* match counts at the last FUNCTIONn read */
  /* board timer (--board-timer): QEMU's FPGAIO counter counts its virtual clock, which
   * without -icount is the host's CLOCK_MONOTONIC while QEMU runs and stands while it is
   * stopped. It is served as timer_at + (now - timer_ns) / 40 ns while running, timer_at
   * while halted. timer_at is read from QEMU when its value is certain (at start, at a halt,
   * after a reset) and timer_ns is taken after the read's reply (or the cont's), so a served
   * value is never ahead of QEMU's: it never steps back at a halt. */
  gboolean timer_live;     /* TRUE: served; FALSE: a bus error, as other MMIO */
  guint32 timer_at;        /* the counter at timer_ns */
  gint64 timer_ns;         /* host CLOCK_MONOTONIC, ns */
} SimCore;

#define SIM_MAX_CORES 2u

typedef struct {
  /* TAP */
  TapState state;          /* current TAP state */
  guint8 ir;               /* instruction register */
  guint64 sr;              /* shift register (IR or the selected DR) */
  guint sr_len;            /* its length in bits */
  gboolean tck;            /* last TCK level written */
  /* JTAG-DP */
  guint32 posted;          /* value captured out by the next DPACC/APACC scan */
  guint32 rdbuff;          /* last AP read result (RDBUFF) */
  guint32 ctrl_stat;       /* CTRL/STAT */
  guint32 select;          /* SELECT: APSEL[31:24], APBANKSEL[7:4] */
  /* memory shared by all cores */
  guint8 *ram;             /* the shared RAM file, mapped */
  gsize ram_size;          /* its size */
  /* cores: AP n is core n; c is the one the current AP access addresses */
  SimCore cores[SIM_MAX_CORES];
  guint n_cores;           /* 1, or 2 with --elf1 */
  SimCore *c;
} Sim;

/* ---- QMP ---- */

/* Reads one line (without CR LF) from QMP into `line`; FALSE on EOF or error. */
static gboolean sim_qmp_read_line(Sim *sim, GString *line)
{
  for (;;) {
    const char *nl = memchr(sim->c->qmp_buf->str, '\n', sim->c->qmp_buf->len);
    if (nl != NULL) {
      gsize n = (gsize)(nl - sim->c->qmp_buf->str);
      g_string_truncate(line, 0);
      g_string_append_len(line, sim->c->qmp_buf->str, (gssize)n);
      if (line->len > 0 && line->str[line->len - 1] == '\r')
        g_string_truncate(line, line->len - 1);
      g_string_erase(sim->c->qmp_buf, 0, (gssize)n + 1);
      return TRUE;
    }
    char buf[4096];
    ssize_t r = read(sim->c->qmp_fd, buf, sizeof buf);
    if (r <= 0)
      return FALSE;
    g_string_append_len(sim->c->qmp_buf, buf, r);
  }
}

/* Sends a QMP command and returns its reply line ("return" or "error"), skipping events;
 * NULL when QMP is gone. */
static char *sim_qmp(Sim *sim, const char *json)
{
  if (sim->c->qmp_fd < 0)
    return NULL;
  gsize len = strlen(json);
  if (write(sim->c->qmp_fd, json, len) != (ssize_t)len)
    return NULL;
  g_autoptr(GString) line = g_string_new(NULL);
  while (sim_qmp_read_line(sim, line)) {
    if (strstr(line->str, "\"return\"") != NULL || strstr(line->str, "\"error\"") != NULL)
      return g_strdup(line->str);
  }
  return NULL;
}

static gboolean sim_qmp_connect(Sim *sim, const char *path, GError **error)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  if (strlen(path) >= sizeof sa.sun_path) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "QMP path too long: %s", path);
    return FALSE;
  }
  strcpy(sa.sun_path, path);
  sim->c->qmp_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sim->c->qmp_fd < 0 || connect(sim->c->qmp_fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
                "cannot connect to QMP socket %s: %s", path, g_strerror(errno));
    return FALSE;
  }
  g_autoptr(GString) greeting = g_string_new(NULL);
  if (!sim_qmp_read_line(sim, greeting) || strstr(greeting->str, "\"QMP\"") == NULL) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: no QMP greeting", path);
    return FALSE;
  }
  g_autofree char *caps = sim_qmp(sim, "{\"execute\":\"qmp_capabilities\"}\n");
  g_autofree char *status = sim_qmp(sim, "{\"execute\":\"query-status\"}\n");
  if (caps == NULL || status == NULL || strstr(caps, "\"error\"") != NULL) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: QMP handshake failed", path);
    return FALSE;
  }
  sim->c->halted = strstr(status, "\"running\": true") == NULL &&
                strstr(status, "\"running\":true") == NULL;
  return TRUE;
}

/* Reads the halted core's registers from QEMU's `info registers` (R00..R15, XPSR). */
static void sim_load_regs(Sim *sim)
{
  memset(sim->c->regs, 0, sizeof sim->c->regs);
  sim->c->regs_valid = TRUE;
  g_autofree char *reply = sim_qmp(sim,
    "{\"execute\":\"human-monitor-command\",\"arguments\":{\"command-line\":\"info registers\"}}\n");
  if (reply == NULL)
    return;
  for (guint i = 0; i < 16; i++) {
    char key[8];
    g_snprintf(key, sizeof key, "R%02u=", i);
    const char *p = strstr(reply, key);
    if (p != NULL)
      sim->c->regs[i] = (guint32)g_ascii_strtoull(p + 4, NULL, 16);
  }
  const char *x = strstr(reply, "XPSR=");
  if (x != NULL)
    sim->c->regs[16] = (guint32)g_ascii_strtoull(x + 5, NULL, 16);
  gboolean handler = (sim->c->regs[16] & 0x1FFu) != 0;
  sim->c->regs[handler ? 17 : 18] = sim->c->regs[13];  /* MSP in handler mode, else the PSP */
}

/* Takes the board timer's value from QEMU (`xp` of the FPGAIO counter) as timer_at, with
 * timer_ns the time of the reply. Without a reply the timer stops being served. */
static void sim_timer_sync(Sim *sim)
{
  if (!sim->c->timer_live)
    return;
  g_autofree char *cmd = g_strdup_printf("{\"execute\":\"human-monitor-command\",\"arguments\":"
                                         "{\"command-line\":\"xp /1wx 0x%08x\"}}\n",
                                         SIM_BOARD_TIMER);
  g_autofree char *reply = sim_qmp(sim, cmd);
  sim->c->timer_ns = rig_trace_mono_ns();
  const char *v = reply != NULL ? strstr(reply, ": 0x") : NULL;
  if (v == NULL) {
    g_printerr("jtag-sim: the board timer could not be read from QEMU: %s\n",
               reply != NULL ? reply : "no QMP connection");
    sim->c->timer_live = FALSE;
    return;
  }
  sim->c->timer_at = (guint32)g_ascii_strtoull(v + 2, NULL, 16);
}

/* The board timer's value now (see SimCore.timer_at). */
static guint32 sim_timer_read(Sim *sim)
{
  if (sim->c->halted)
    return sim->c->timer_at;
  return sim->c->timer_at + (guint32)((rig_trace_mono_ns() - sim->c->timer_ns) / SIM_BOARD_NS);
}

/* The trace unit's wall-mode clock stops while QEMU is stopped (seqlock: see rig-trace-shm.h). */
static void sim_trace_clock_halt(Sim *sim, gboolean halt)
{
  RigTraceShm *t = sim->c->trace;
  __atomic_add_fetch(&t->clock_seq, 1, __ATOMIC_ACQ_REL);
  gint64 now = rig_trace_mono_ns();
  if (halt) {
    t->halted_ns = now;
  } else if (t->halted_ns != 0) {
    t->paused_ns += now - t->halted_ns;
    t->halted_ns = 0;
  }
  __atomic_add_fetch(&t->clock_seq, 1, __ATOMIC_ACQ_REL);
}

/* Asks the trace unit to publish the stopped target's state and waits for it (up to 2 s). */
static void sim_trace_sync_halt(Sim *sim)
{
  RigTraceShm *t = sim->c->trace;
  guint32 req = __atomic_add_fetch(&t->halt_req, 1, __ATOMIC_ACQ_REL);
  gint64 deadline = g_get_monotonic_time() + 2 * G_USEC_PER_SEC;
  while (__atomic_load_n(&t->halt_ack, __ATOMIC_ACQUIRE) != req) {
    if (g_get_monotonic_time() > deadline) {
      g_printerr("jtag-sim: the trace unit did not acknowledge the halt\n");
      return;
    }
    g_usleep(100);
  }
}

static void sim_set_halted(Sim *sim, gboolean halt)
{
  if (halt == sim->c->halted)
    return;
  /* the trace clock runs again before QEMU does: packets of the first blocks after a resume
   * are never stamped with the frozen time (a jump of the QMP round trip, or of a host stall,
   * between a core's local and global timestamps) */
  if (!halt && sim->c->trace != NULL)
    sim_trace_clock_halt(sim, FALSE);
  g_autofree char *reply = sim_qmp(sim, halt ? "{\"execute\":\"stop\"}\n"
                                             : "{\"execute\":\"cont\"}\n");
  if (reply == NULL || strstr(reply, "\"error\"") != NULL) {
    g_printerr("jtag-sim: QMP %s failed: %s\n", halt ? "stop" : "cont",
               reply != NULL ? reply : "no QMP connection");
    if (!halt && sim->c->trace != NULL)
      sim_trace_clock_halt(sim, TRUE);  /* still stopped */
    return;
  }
  if (halt && sim->c->trace != NULL) {
    sim_trace_clock_halt(sim, TRUE);
    sim_trace_sync_halt(sim);
  }
  sim->c->halted = halt;
  sim->c->regs_valid = FALSE;
  if (halt) {
    sim->c->ppb[(REG_DFSR - SIM_PPB_BASE) / 4] |= 1u;  /* DFSR.HALTED: debug request */
    sim_timer_sync(sim);  /* the frozen value, exact */
  } else {
    sim->c->timer_ns = rig_trace_mono_ns();  /* counting on from it since before the reply */
  }
}

/* ---- memory map ---- */

static guint32 *sim_ppb(Sim *sim, guint32 addr)
{
  return &sim->c->ppb[(addr - SIM_PPB_BASE) / 4];
}

/* ---- the trace unit's registers (--trace-shm) ---- */

static gboolean sim_trace_reg(guint32 addr)
{
  return (addr >= RIG_ITM_BASE && addr < RIG_ITM_BASE + 0x1000u) ||
         (addr >= RIG_DWT_BASE && addr < RIG_DWT_BASE + 0x1000u) ||
         (addr >= RIG_TPIU_BASE && addr < RIG_TPIU_BASE + 0x1000u);
}

/* Tells the plugin that registers changed. */
static void sim_trace_changed(Sim *sim)
{
  __atomic_add_fetch(&sim->c->trace->gen, 1, __ATOMIC_RELEASE);
}

/* Applies DEMCR/DWT_CTRL values that may start or stop CYCCNT, keeping its count. */
static void sim_trace_set_counting(Sim *sim, guint32 demcr, guint32 ctrl)
{
  RigTraceShm *t = sim->c->trace;
  guint64 now = rig_trace_clock(t);
  guint32 value = rig_trace_cyccnt(t, now);
  t->demcr = demcr;
  t->dwt_ctrl = ctrl;
  t->cyc_held = value;
  t->cyc_origin = now;
}

/* Reads a DWT/ITM/TPIU register from the shared page. */
static guint32 sim_trace_read(Sim *sim, guint32 addr)
{
  RigTraceShm *t = sim->c->trace;
  gboolean trcena = (t->demcr & RIG_DEMCR_TRCENA) != 0;
  switch (addr) {
  case RIG_DWT_CTRL:
    return RIG_DWT_CTRL_RO | (t->dwt_ctrl & RIG_DWT_CTRL_RW);
  case RIG_DWT_CYCCNT:
    return rig_trace_cyccnt(t, rig_trace_clock(t));
  case RIG_DWT_PCSR:
    return sim->c->halted || !trcena ? 0xFFFFFFFFu : t->pcsr;
  case RIG_ITM_TER:
    return t->itm_ter;
  case RIG_ITM_TPR:
    return t->itm_tpr;
  case RIG_ITM_TCR:
    return t->itm_tcr;
  case RIG_ITM_LSR:
    return *sim_ppb(sim, RIG_ITM_LAR) == 0xC5ACCE55u ? 0x1u : 0x3u;
  case RIG_TPIU_SSPSR:
    return 0x1u;         /* 1-bit port */
  case RIG_TPIU_CSPSR:
    return t->tpiu_cspsr;
  case RIG_TPIU_ACPR:
    return t->tpiu_acpr;
  case RIG_TPIU_SPPR:
    return t->tpiu_sppr;
  case RIG_TPIU_FFSR:
    return 0x8u;         /* FtNonStop */
  case RIG_TPIU_FFCR:
    return t->tpiu_ffcr;
  case RIG_TPIU_DEVID:
    return 0xCA1u;       /* UART and Manchester SWO, no parallel port (Cortex-M3 TPIU) */
  default:
    break;
  }
  if (addr < RIG_ITM_BASE + 0x80u)  /* stimulus ports: FIFO ready while the ITM is on */
    return trcena && (t->itm_tcr & RIG_ITM_ITMENA) ? 1u : 0u;
  for (guint n = 0; n < RIG_TRACE_NUMCOMP; n++) {
    if (addr == RIG_DWT_COMP(n))
      return t->comp[n];
    if (addr == RIG_DWT_MASK(n))
      return t->mask[n] & 31u;
    if (addr == RIG_DWT_FUNC(n)) {
      guint32 seen = t->match_count[n];
      guint32 v = t->func[n] | (n == 1 ? 0x200u : 0u);  /* LNK1ENA: comparator 1 */
      if (seen != sim->c->match_seen[n])
        v |= RIG_DWT_FUNC_MATCHED;  /* cleared by this read */
      sim->c->match_seen[n] = seen;
      return v;
    }
  }
  return *sim_ppb(sim, addr);
}

/* Writes a DWT/ITM/TPIU register into the shared page. Stimulus port writes from the debug
 * port are ignored (only the firmware's become packets). */
static void sim_trace_write(Sim *sim, guint32 addr, guint32 v)
{
  RigTraceShm *t = sim->c->trace;
  switch (addr) {
  case RIG_DWT_CTRL:
    sim_trace_set_counting(sim, t->demcr, v & RIG_DWT_CTRL_RW);
    break;
  case RIG_DWT_CYCCNT:
    t->cyc_held = v;
    t->cyc_origin = rig_trace_clock(t);
    break;
  case RIG_ITM_TER:
    t->itm_ter = v;
    break;
  case RIG_ITM_TPR:
    t->itm_tpr = v & 0xFu;
    break;
  case RIG_ITM_TCR:
    t->itm_tcr = v & RIG_ITM_TCR_RW;
    break;
  /* one TPIU, as on a dual-core part: its registers through either AP are both pages' */
  case RIG_TPIU_CSPSR:
  case RIG_TPIU_ACPR:
  case RIG_TPIU_SPPR:
  case RIG_TPIU_FFCR:
    for (guint k = 0; k < sim->n_cores; k++) {
      RigTraceShm *p = sim->cores[k].trace;
      if (p == NULL)
        continue;
      if (addr == RIG_TPIU_CSPSR)
        p->tpiu_cspsr = v;
      else if (addr == RIG_TPIU_ACPR)
        p->tpiu_acpr = v & 0x1FFFu;
      else if (addr == RIG_TPIU_SPPR)
        p->tpiu_sppr = v & 3u;
      else
        p->tpiu_ffcr = v & 0x102u;
    }
    break;
  default:
    for (guint n = 0; n < RIG_TRACE_NUMCOMP; n++) {
      if (addr == RIG_DWT_COMP(n))
        t->comp[n] = v;
      else if (addr == RIG_DWT_MASK(n))
        t->mask[n] = v & 31u;
      else if (addr == RIG_DWT_FUNC(n))
        t->func[n] = v & RIG_DWT_FUNC_RW;
    }
    *sim_ppb(sim, addr) = v;
    break;
  }
  sim_trace_changed(sim);
}

static guint32 sim_ppb_read(Sim *sim, guint32 addr)
{
  switch (addr) {
  case REG_CPUID:
    return 0x412FC231u;  /* Cortex-M3 r2p1 */
  case REG_AIRCR:
    return 0xFA050000u;
  case REG_DHCSR: {
    guint32 v = (sim->c->dhcsr_ctrl & 0x2Fu) | DHCSR_S_REGRDY;
    v |= sim->c->halted ? DHCSR_S_HALT : DHCSR_S_RETIRE;
    if (sim->c->reset_seen)
      v |= DHCSR_S_RESET;
    sim->c->reset_seen = FALSE;
    return v;
  }
  case REG_FP_CTRL:
    return 0x260u | (*sim_ppb(sim, addr) & 1u);  /* 6 code + 2 literal comparators */
  case REG_DWT_CTRL:
    if (sim->c->trace == NULL)
      return 0x4F000000u;  /* 4 comparators; no trace packets, cycle or profiling counter */
    break;
  default:
    break;
  }
  if (sim->c->trace != NULL && sim_trace_reg(addr))
    return sim_trace_read(sim, addr);
  return *sim_ppb(sim, addr);
}

static void sim_ppb_write(Sim *sim, guint32 addr, guint32 v)
{
  switch (addr) {
  case REG_CPUID:
    return;
  case REG_DEMCR:
    *sim_ppb(sim, addr) = v;
    if (sim->c->trace != NULL) {
      sim_trace_set_counting(sim, v, sim->c->trace->dwt_ctrl);
      sim_trace_changed(sim);
    }
    return;
  case REG_DWT_CTRL:
    if (sim->c->trace == NULL)
      return;
    break;
  case REG_DHCSR:
    if ((v >> 16) != 0xA05Fu)
      return;
    sim->c->dhcsr_ctrl = v & 0x2Fu;
    if (sim->c->qmp_fd >= 0) {
      gboolean debug = (v & 1u) != 0;
      sim_set_halted(sim, debug && (v & 2u) != 0);
      if (debug && (v & 2u) == 0 && (v & 4u) != 0)
        sim_set_halted(sim, TRUE);  /* C_STEP: no single step in QEMU; stop again at once */
    }
    return;
  case REG_DFSR:
    *sim_ppb(sim, addr) &= ~v;
    return;
  case REG_DCRSR: {
    guint32 sel = v & 0x7Fu;
    if (sel >= G_N_ELEMENTS(sim->c->regs))
      return;
    if (sim->c->halted && !sim->c->regs_valid)
      sim_load_regs(sim);
    if (v & (1u << 16))
      sim->c->regs[sel] = *sim_ppb(sim, REG_DCRDR);
    else
      *sim_ppb(sim, REG_DCRDR) = sim->c->regs[sel];
    return;
  }
  case REG_AIRCR:
    if ((v >> 16) == 0x05FAu && (v & 5u) != 0) {
      if ((*sim_ppb(sim, REG_DEMCR) & 1u) != 0)
        sim_set_halted(sim, TRUE);  /* DEMCR.VC_CORERESET: reset into a stopped machine */
      g_autofree char *r = sim_qmp(sim, "{\"execute\":\"system_reset\"}\n");
      if (r == NULL || strstr(r, "\"error\"") != NULL) {
        g_printerr("jtag-sim: QMP system_reset failed: %s\n", r != NULL ? r : "no QMP connection");
        return;
      }
      sim->c->reset_seen = TRUE;
      sim->c->regs_valid = FALSE;
      sim_timer_sync(sim);  /* the reset cleared it */
    }
    return;
  default:
    break;
  }
  if (sim->c->trace != NULL && sim_trace_reg(addr))
    sim_trace_write(sim, addr, v);
  else
    *sim_ppb(sim, addr) = v;
}

/* Reads the aligned word holding `addr`; FALSE = bus error. */
static gboolean sim_read32(Sim *sim, guint32 addr, guint32 *v)
{
  addr &= ~3u;
  if (addr >= SIM_RAM_BASE && addr - SIM_RAM_BASE < sim->ram_size) {
    memcpy(v, sim->ram + (addr - SIM_RAM_BASE), 4);
    return TRUE;
  }
  if (addr < SIM_CODE_SIZE) {
    memcpy(v, sim->c->code + addr, 4);
    return TRUE;
  }
  if (addr >= SIM_PPB_BASE && addr - SIM_PPB_BASE < SIM_PPB_SIZE) {
    *v = sim_ppb_read(sim, addr);
    return TRUE;
  }
  if (addr == SIM_BOARD_TIMER && sim->c->timer_live) {
    *v = sim_timer_read(sim);
    return TRUE;
  }
  *v = 0;
  return FALSE;
}

/* Writes `size` bytes (1, 2, 4) of the lane-aligned `data` at `addr`; FALSE = bus error.
 * Byte i goes to addr + i from lane (addr + i) & 3, so an access that crosses its word (a
 * halfword at lane 3, an unaligned word) writes the bytes OpenOCD placed in the wrapped lanes.
 * Code memory is read-only here: QEMU's copy is not reachable from this process. */
static gboolean sim_write(Sim *sim, guint32 addr, guint size, guint32 data)
{
  guint lane = addr & 3u;
  if (addr >= SIM_RAM_BASE && addr - SIM_RAM_BASE + size <= sim->ram_size) {
    guint8 *p = sim->ram + (addr - SIM_RAM_BASE);
    for (guint i = 0; i < size; i++)
      p[i] = (guint8)(data >> (8u * ((lane + i) & 3u)));
    return TRUE;
  }
  if (addr >= SIM_PPB_BASE && addr - SIM_PPB_BASE < SIM_PPB_SIZE && size == 4) {
    sim_ppb_write(sim, addr, data);
    return TRUE;
  }
  return FALSE;
}

/* ---- JTAG-DP and AHB-AP ---- */

static void sim_bus_error(Sim *sim)
{
  sim->ctrl_stat |= CS_STICKYERR;
}

/* Performs an AHB-AP register access; returns the read value (0 for writes). */
static guint32 sim_ap_access(Sim *sim, guint32 reg, gboolean read, guint32 data)
{
  guint apsel = sim->select >> 24;
  if (apsel >= sim->n_cores)
    return 0;  /* no such AP: reads as 0 (IDR 0 ends OpenOCD's AP scan) */
  sim->c = &sim->cores[apsel];
  guint size = 1u << (sim->c->csw & 7u);  /* 1, 2, 4 bytes */
  guint inc = (sim->c->csw >> 4) & 3u;    /* 0 off, 1 single, 2 packed */
  if (size > 4)
    size = 4;
  switch (reg) {
  case 0x00:
    if (!read)
      sim->c->csw = data;
    return sim->c->csw;
  case 0x04:
    if (!read)
      sim->c->tar = data;
    return sim->c->tar;
  case 0x0C: {
    guint32 v = 0;
    guint units = inc == 2 ? 4u / size : 1u;
    if (read && units == 1) {
      if (!sim_read32(sim, sim->c->tar, &v))  /* the whole word: the lane TAR[1:0] selects */
        sim_bus_error(sim);
    } else if (read) {
      /* Packed: unit i comes from TAR + i*size in the lanes of that address, so from an
       * unaligned TAR the units wrap into the low lanes with bytes of the next word. Each
       * unit's lanes come from its aligned word, as for a single (unpacked) access. */
      for (guint i = 0; i < units; i++) {
        guint32 addr = sim->c->tar + i * size, w = 0;
        if (!sim_read32(sim, addr, &w))
          sim_bus_error(sim);
        for (guint j = 0; j < size; j++)
          v |= w & (0xFFu << (8u * ((addr + j) & 3u)));
      }
    } else {
      for (guint i = 0; i < units; i++)
        if (!sim_write(sim, sim->c->tar + i * size, size, data))
          sim_bus_error(sim);
    }
    if (inc != 0)
      sim->c->tar += units * size;
    return v;
  }
  case 0x10: case 0x14: case 0x18: case 0x1C: {
    guint32 addr = (sim->c->tar & ~0xFu) + (reg - 0x10u);
    guint32 v = 0;
    if (read) {
      if (!sim_read32(sim, addr, &v))
        sim_bus_error(sim);
    } else if (!sim_write(sim, addr, 4, data)) {
      sim_bus_error(sim);
    }
    return v;
  }
  case 0xF4:
    return 0;            /* CFG: little-endian, 32-bit */
  case 0xF8:
    return 0xE00FF003u;  /* BASE: ROM table present */
  case 0xFC:
    return 0x24770011u;  /* IDR: AHB-AP */
  default:
    return 0;
  }
}

/* Executes a completed 35-bit DPACC/APACC/ABORT scan. */
static void sim_dp_update(Sim *sim)
{
  gboolean read = (sim->sr & 1u) != 0;
  guint32 a = (guint32)((sim->sr >> 1) & 3u) << 2;
  guint32 data = (guint32)(sim->sr >> 3);
  if (sim->ir == IR_ABORT) {
    if (data & (1u << 2)) sim->ctrl_stat &= ~CS_STICKYERR;
    if (data & (1u << 1)) sim->ctrl_stat &= ~CS_STICKYCMP;
    if (data & (1u << 3)) sim->ctrl_stat &= ~CS_WDATAERR;
    if (data & (1u << 4)) sim->ctrl_stat &= ~CS_STICKYORUN;
    return;
  }
  if (sim->ir == IR_APACC) {
    guint32 v = sim_ap_access(sim, (sim->select & 0xF0u) | a, read, data);
    if (read) {
      sim->posted = v;
      sim->rdbuff = v;
    }
    return;
  }
  switch (a) {  /* DPACC */
  case 0x4:
    if (read) {
      sim->posted = sim->ctrl_stat;
    } else {
      guint32 sticky = (sim->ctrl_stat & CS_STICKY) & ~(data & CS_STICKY);
      guint32 v = (data & CS_WRITABLE) | sticky;
      if (v & (1u << 26)) v |= 1u << 27;  /* CDBGRSTREQ -> ACK */
      if (v & (1u << 28)) v |= 1u << 29;  /* CDBGPWRUPREQ -> ACK */
      if (v & (1u << 30)) v |= 1u << 31;  /* CSYSPWRUPREQ -> ACK */
      sim->ctrl_stat = v;
    }
    break;
  case 0x8:
    if (read)
      sim->posted = sim->select;
    else
      sim->select = data;
    break;
  case 0xC:
    if (read)
      sim->posted = sim->rdbuff;
    break;
  default:
    if (read)
      sim->posted = 0;
    break;
  }
}

static void sim_capture_dr(Sim *sim)
{
  switch (sim->ir) {
  case IR_IDCODE:
    sim->sr = SIM_IDCODE;
    sim->sr_len = 32;
    break;
  case IR_ABORT:
  case IR_DPACC:
  case IR_APACC:
    sim->sr = ((guint64)sim->posted << 3) | SIM_ACK_OK;
    sim->sr_len = 35;
    break;
  default:
    sim->sr = 0;
    sim->sr_len = 1;
    break;
  }
}

/* One rising TCK edge with the given TMS and TDI. The state's action happens on the edge
 * that leaves it: Capture-xR loads the register so its first bit is on TDO before the first
 * Shift-xR edge; Update-xR acts before any later capture can see the result. */
static void sim_clock(Sim *sim, guint tms, guint tdi)
{
  switch (sim->state) {
  case TAP_SHDR:
  case TAP_SHIR:
    sim->sr = (sim->sr >> 1) | ((guint64)tdi << (sim->sr_len - 1));
    break;
  case TAP_CAPDR:
    sim_capture_dr(sim);
    break;
  case TAP_CAPIR:
    sim->sr = 0x1u;
    sim->sr_len = 4;
    break;
  case TAP_UPDR:
    if (sim->ir == IR_DPACC || sim->ir == IR_APACC || sim->ir == IR_ABORT)
      sim_dp_update(sim);
    break;
  case TAP_UPIR:
    sim->ir = (guint8)(sim->sr & 0xFu);
    break;
  default:
    break;
  }
  sim->state = tap_next[sim->state][tms & 1u];
  if (sim->state == TAP_TLR)
    sim->ir = IR_IDCODE;
}

static char sim_tdo(const Sim *sim)
{
  if (sim->state == TAP_SHDR || sim->state == TAP_SHIR)
    return (sim->sr & 1u) ? '1' : '0';
  return '0';
}

/* Serves one OpenOCD connection until it closes or sends 'Q'. */
static void sim_serve(Sim *sim, int fd)
{
  guint8 in[65536];
  char out[65536];
  for (;;) {
    ssize_t n = read(fd, in, sizeof in);
    if (n <= 0)
      return;
    gsize o = 0;
    for (ssize_t i = 0; i < n; i++) {
      guint8 c = in[i];
      if (c >= '0' && c <= '7') {
        guint v = c - '0';
        gboolean tck = (v & 4u) != 0;
        if (tck && !sim->tck)
          sim_clock(sim, (v >> 1) & 1u, v & 1u);
        sim->tck = tck;
      } else if (c == 'R') {
        out[o++] = sim_tdo(sim);
        if (o == sizeof out) {
          if (write(fd, out, o) != (ssize_t)o)
            return;
          o = 0;
        }
      } else if (c >= 'r' && c <= 'u') {
        if (((c - 'r') & 2) != 0) {  /* TRST asserted */
          sim->state = TAP_TLR;
          sim->ir = IR_IDCODE;
        }
      } else if (c == 'Q') {
        if (o > 0 && write(fd, out, o) != (ssize_t)o)
          return;
        return;
      }
    }
    if (o > 0 && write(fd, out, o) != (ssize_t)o)
      return;
  }
}

/* ---- set-up ---- */

static gboolean sim_load_elf(Sim *sim, const char *path, GError **error)
{
  if (elf_version(EV_CURRENT) == EV_NONE) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "libelf: %s", elf_errmsg(-1));
    return FALSE;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "%s: %s", path,
                g_strerror(errno));
    return FALSE;
  }
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  size_t nph = 0, size = 0;
  const char *raw = elf != NULL ? elf_rawfile(elf, &size) : NULL;
  gboolean ok = raw != NULL && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &nph) == 0;
  guint loaded = 0;
  for (size_t i = 0; ok && i < nph; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD || ph.p_filesz == 0)
      continue;
    if (ph.p_paddr >= SIM_CODE_SIZE)
      continue;  /* RAM contents come from the live RAM file */
    if (ph.p_paddr + ph.p_filesz > SIM_CODE_SIZE || ph.p_offset + ph.p_filesz > size) {
      g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                  "%s: load segment %zu (0x%" G_GINT64_MODIFIER "x) outside code memory",
                  path, i, (gint64)ph.p_paddr);
      ok = FALSE;
      break;
    }
    memcpy(sim->c->code + ph.p_paddr, raw + ph.p_offset, ph.p_filesz);
    loaded++;
  }
  if (ok && loaded == 0)
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                "%s: no load segment in code memory (0x0-0x3FFFFF)", path);
  else if (!ok && error != NULL && *error == NULL)
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: not an ELF file: %s", path,
                elf_errmsg(-1));
  if (elf != NULL)
    elf_end(elf);
  close(fd);
  return ok && loaded > 0;
}

static gboolean sim_map_ram(Sim *sim, const char *path, GError **error)
{
  sim->ram = rig_trace_map_file(path, 4096, TRUE, &sim->ram_size, error);
  return sim->ram != NULL;
}

/* Maps the trace unit's shared page and waits (up to 10 s) until the plugin initialised it. */
static gboolean sim_map_trace(Sim *sim, const char *path, GError **error)
{
  sim->c->trace = rig_trace_map_file(path, sizeof(RigTraceShm), TRUE, NULL, error);
  if (sim->c->trace == NULL)
    return FALSE;
  gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
  while (__atomic_load_n(&sim->c->trace->magic, __ATOMIC_ACQUIRE) != RIG_TRACE_SHM_MAGIC) {
    if (g_get_monotonic_time() > deadline) {
      g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                  "%s: the trace unit plugin did not initialise it", path);
      return FALSE;
    }
    g_usleep(1000);
  }
  if (sim->c->trace->version != RIG_TRACE_SHM_VERSION) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: layout version %u, want %u",
                path, sim->c->trace->version, RIG_TRACE_SHM_VERSION);
    return FALSE;
  }
  return TRUE;
}

static int sim_listen(guint16 port, guint16 *bound, GError **error)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1) < 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
    g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
                "cannot listen on 127.0.0.1:%u: %s", port, g_strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  *bound = ntohs(sa.sin_port);
  return fd;
}

/* Listens on a new Unix-domain socket at `path` (which must not exist yet); -1 on error. */
static int sim_listen_unix(const char *path, GError **error)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  if (strlen(path) >= sizeof sa.sun_path) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "socket path too long: %s",
                path);
    return -1;
  }
  strcpy(sa.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1) < 0) {
    g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "cannot listen on %s: %s",
                path, g_strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  return fd;
}

int main(int argc, char **argv)
{
  g_autofree char *ram_path = NULL;
  g_autofree char *elf_path = NULL;
  g_autofree char *qmp_path = NULL;
  g_autofree char *port_file = NULL;
  g_autofree char *unix_path = NULL;
  g_autofree char *trace_path = NULL;
  g_autofree char *trace1_path = NULL;
  g_autofree char *elf1_path = NULL;
  g_autofree char *qmp1_path = NULL;
  int port = 0;
  gboolean board_timer = FALSE;
  GOptionEntry entries[] = {
    { "ram", 0, 0, G_OPTION_ARG_FILENAME, &ram_path, "QEMU's shared RAM file (PSRAM)", "FILE" },
    { "elf", 0, 0, G_OPTION_ARG_FILENAME, &elf_path, "firmware ELF (code memory)", "FILE" },
    { "qmp", 0, 0, G_OPTION_ARG_FILENAME, &qmp_path, "QEMU QMP socket (run control)", "PATH" },
    { "port", 0, 0, G_OPTION_ARG_INT, &port, "TCP port (0 = any free port)", "N" },
    { "port-file", 0, 0, G_OPTION_ARG_FILENAME, &port_file,
      "write the bound port (with --unix: the socket path) here once listening",
      "FILE" },
    { "unix", 0, 0, G_OPTION_ARG_FILENAME, &unix_path,
      "listen on this Unix-domain socket instead of TCP", "PATH" },
    { "trace-shm", 0, 0, G_OPTION_ARG_FILENAME, &trace_path,
      "the trace unit's shared page (DWT, ITM, TPIU registers)", "FILE" },
    { "trace-shm1", 0, 0, G_OPTION_ARG_FILENAME, &trace1_path,
      "the second core's trace unit page (with --elf1)", "FILE" },
    { "elf1", 0, 0, G_OPTION_ARG_FILENAME, &elf1_path,
      "a second core behind AP 1: its firmware ELF (its own code memory)", "FILE" },
    { "qmp1", 0, 0, G_OPTION_ARG_FILENAME, &qmp1_path,
      "the second core's QEMU QMP socket (with --elf1)", "PATH" },
    { "board-timer", 0, 0, G_OPTION_ARG_NONE, &board_timer,
      "serve each core's board timer (FPGAIO counter) from the host clock: QEMU without "
      "-icount, with --qmp", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("- simulated JTAG probe for OpenOCD");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    g_printerr("jtag-sim: %s\n", error->message);
    return 2;
  }
  if (ram_path == NULL || elf_path == NULL || port < 0 || port > 65535) {
    g_printerr("jtag-sim: --ram and --elf are required, --port must be 0..65535\n");
    return 2;
  }
  if (board_timer && qmp_path == NULL) {
    g_printerr("jtag-sim: --board-timer needs --qmp\n");
    return 2;
  }
  if ((qmp1_path != NULL || trace1_path != NULL) && elf1_path == NULL) {
    g_printerr("jtag-sim: --qmp1 and --trace-shm1 need --elf1\n");
    return 2;
  }

  /* an OpenOCD killed while a reply is on its way must cost that connection, not the probe:
   * without this the write's SIGPIPE ended jtag-sim, and a restarted OpenOCD found no one
   * listening (test-probe-faults, with a CPU hog widening the window between read and reply) */
  signal(SIGPIPE, SIG_IGN);
  Sim sim = { .state = TAP_TLR, .ir = IR_IDCODE, .n_cores = elf1_path != NULL ? 2u : 1u };
  const char *elfs[SIM_MAX_CORES] = { elf_path, elf1_path };
  const char *qmps[SIM_MAX_CORES] = { qmp_path, qmp1_path };
  const char *traces[SIM_MAX_CORES] = { trace_path, trace1_path };
  for (guint i = 0; i < sim.n_cores; i++) {
    sim.c = &sim.cores[i];
    sim.c->qmp_fd = -1;
    sim.c->code = g_malloc0(SIM_CODE_SIZE);
    sim.c->ppb = g_malloc0(SIM_PPB_SIZE);
    sim.c->qmp_buf = g_string_new(NULL);
    if (!sim_load_elf(&sim, elfs[i], &error) ||
        (qmps[i] != NULL && !sim_qmp_connect(&sim, qmps[i], &error)) ||
        (traces[i] != NULL && !sim_map_trace(&sim, traces[i], &error))) {
      g_printerr("jtag-sim: core %u: %s\n", i, error->message);
      return 1;
    }
    /* a core without QMP has no board timer to serve; one whose QEMU does not answer fails */
    sim.c->timer_live = board_timer && qmps[i] != NULL;
    sim_timer_sync(&sim);
    if (board_timer && qmps[i] != NULL && !sim.c->timer_live)
      return 1;
  }
  sim.c = &sim.cores[0];
  guint16 bound = 0;
  int lfd = -1;
  if (!sim_map_ram(&sim, ram_path, &error) ||
      (lfd = unix_path != NULL ? sim_listen_unix(unix_path, &error)
                               : sim_listen((guint16)port, &bound, &error)) < 0) {
    g_printerr("jtag-sim: %s\n", error->message);
    return 1;
  }
  g_autofree char *where = unix_path != NULL ? g_strdup(unix_path) : g_strdup_printf("%u", bound);
  if (port_file != NULL) {
    g_autofree char *text = g_strdup_printf("%s\n", where);
    if (!g_file_set_contents(port_file, text, -1, &error)) {
      g_printerr("jtag-sim: %s\n", error->message);
      return 1;
    }
  }
  g_printerr("jtag-sim: listening on %s%s\n", unix_path != NULL ? "" : "127.0.0.1:", where);

  for (;;) {
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR)
        continue;
      g_printerr("jtag-sim: accept: %s\n", g_strerror(errno));
      return 1;
    }
    int one = 1;
    if (unix_path == NULL)
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sim_serve(&sim, fd);
    close(fd);
  }
}
