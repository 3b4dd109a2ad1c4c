/* swo-test-gen.c — SWO streams and their expected Events for tests and benchmarks
 * (swo-test-gen.h).
 *
 * The scenario's expectations come from what the simulated target did and the rules of
 * docs/swo.md, never from the packets: a traced variable announces its value when it changes
 * or when the decoder cannot know it (start, after a gap) — as the poll decoder does for a
 * sample; exceptions nest; overflows drop a group's packets, and the first packet carrying
 * state after them is preceded by one GAP (a = overflow packets, ts = the last overflow's),
 * after which the decoder knows nothing. */
#include "swo-test-gen.h"

#include <string.h>

void
swo_gen_sw (GByteArray *out, guint port, guint size, guint32 value)
{
  guint8 b[5] = { (guint8) (port << 3 | (size == 4 ? 3 : size)) };
  for (guint i = 0; i < size; i++)
    b[1 + i] = (guint8) (value >> (8 * i));
  g_byte_array_append (out, b, 1 + size);
}

void
swo_gen_hw (GByteArray *out, guint id, guint size, guint32 value)
{
  guint8 b[5] = { (guint8) (id << 3 | 4 | (size == 4 ? 3 : size)) };
  for (guint i = 0; i < size; i++)
    b[1 + i] = (guint8) (value >> (8 * i));
  g_byte_array_append (out, b, 1 + size);
}

void
swo_gen_lts (GByteArray *out, guint32 delta, guint tc)
{
  if (tc == 0 && delta >= 1 && delta <= 6) {
    guint8 b = (guint8) (delta << 4);
    g_byte_array_append (out, &b, 1);
    return;
  }
  guint8 b[5] = { (guint8) (0xC0 | tc << 4) };
  guint n = 1;
  do {
    b[n] = (guint8) (delta & 0x7F);
    delta >>= 7;
    if (delta != 0)
      b[n] |= 0x80;
    n++;
  } while (delta != 0 && n < 5);
  g_byte_array_append (out, b, n);
}

void
swo_gen_sync (GByteArray *out)
{
  static const guint8 sync[] = { 0, 0, 0, 0, 0, 0x80 };
  g_byte_array_append (out, sync, sizeof sync);
}

void
swo_gen_overflow (GByteArray *out)
{
  guint8 b = 0x70;
  g_byte_array_append (out, &b, 1);
}

void
swo_gen_exception (GByteArray *out, guint number, guint fn)
{
  swo_gen_hw (out, 1, 2, (number & 0x1FF) | fn << 12);
}

void
swo_gen_data_value (GByteArray *out, guint comparator, gboolean write, guint size,
                    guint32 value)
{
  swo_gen_hw (out, 16 + 2 * comparator + (write ? 1 : 0), size, value);
}

/* --- TPIU formatter --- */

typedef struct {
  GByteArray *out;
  GRand *rand;
  double halfword_p;
  guint sync_every;
  guint frames;
  guint8 f[16];
  guint slot;   /* next slot 0–14 */
  guint aux;    /* byte 15 */
} Framer;

static void
framer_finish (Framer *fr)
{
  if (fr->sync_every != 0 && fr->frames % fr->sync_every == 0) {
    static const guint8 sync[] = { 0xFF, 0xFF, 0xFF, 0x7F };
    g_byte_array_append (fr->out, sync, sizeof sync);
  }
  fr->f[15] = (guint8) fr->aux;
  for (guint i = 0; i < 16; i += 2) {
    if (fr->halfword_p > 0 && g_rand_double (fr->rand) < fr->halfword_p) {
      static const guint8 half[] = { 0xFF, 0x7F };
      g_byte_array_append (fr->out, half, 2);
    }
    g_byte_array_append (fr->out, fr->f + i, 2);
  }
  fr->frames++;
  fr->slot = 0;
  fr->aux = 0;
  memset (fr->f, 0, sizeof fr->f);
}

static void
framer_data (Framer *fr, guint8 b)
{
  if (fr->slot % 2 == 0) {
    fr->f[fr->slot] = b & 0xFE;
    fr->aux |= (guint) (b & 1) << (fr->slot / 2);
  } else {
    fr->f[fr->slot] = b;
  }
  if (++fr->slot == 15)
    framer_finish (fr);
}

static void
framer_id (Framer *fr, guint8 id)
{
  if (fr->slot % 2 == 0) { /* immediate */
    fr->f[fr->slot] = (guint8) (id << 1 | 1);
    if (++fr->slot == 15)
      framer_finish (fr);
    return;
  }
  /* an odd slot holds data only: the ID goes to the even slot before, delayed, and that
   * slot's data byte (the old ID's last) moves here */
  guint e = fr->slot - 1, bit = 1u << (e / 2);
  guint8 d = (guint8) (fr->f[e] | ((fr->aux & bit) ? 1 : 0));
  fr->f[e] = (guint8) (id << 1 | 1);
  fr->aux |= bit;
  fr->f[fr->slot] = d;
  if (++fr->slot == 15)
    framer_finish (fr);
}

GByteArray *
swo_gen_tpiu (const SwoGenChunk *chunks, guint n_chunks, guint sync_every, double halfword_p,
              GRand *rand)
{
  Framer fr = { .out = g_byte_array_new (), .rand = rand, .halfword_p = halfword_p,
                .sync_every = sync_every };
  gint cur = -1;
  for (guint c = 0; c < n_chunks; c++) {
    g_assert (chunks[c].len > 0);
    if (chunks[c].id != cur) {
      framer_id (&fr, chunks[c].id);
      cur = chunks[c].id;
    }
    for (gsize i = 0; i < chunks[c].len; i++)
      framer_data (&fr, chunks[c].data[i]);
  }
  if (fr.slot != 0) {
    framer_id (&fr, 0);
    while (fr.slot != 0)
      framer_data (&fr, 0);
  }
  return fr.out;
}

/* --- orbflow --- */

void
swo_gen_orbflow (GByteArray *out, guint8 tag, const guint8 *payload, gsize len)
{
  /* the message: tag, payload, sum such that everything adds up to 0 */
  g_autoptr (GByteArray) msg = g_byte_array_sized_new ((guint) len + 2);
  guint8 sum = tag;
  g_byte_array_append (msg, &tag, 1);
  g_byte_array_append (msg, payload, (guint) len);
  for (gsize i = 0; i < len; i++)
    sum = (guint8) (sum + payload[i]);
  sum = (guint8) (0x100 - sum);
  g_byte_array_append (msg, &sum, 1);
  /* COBS: groups of up to 254 non-zero bytes behind a code byte (length + 1); a code below
   * 255 stands for a zero after the group, except after the last one */
  gsize i = 0;
  for (;;) {
    gsize j = i;
    while (j < msg->len && msg->data[j] != 0 && j - i < 254)
      j++;
    gboolean full = j - i == 254;
    guint8 code = (guint8) (j - i + 1);
    g_byte_array_append (out, &code, 1);
    g_byte_array_append (out, msg->data + i, (guint) (j - i));
    if (j == msg->len)
      break;
    if (full) { /* code 255: no zero behind the group */
      i = j;
      continue;
    }
    i = j + 1; /* the zero the code stands for */
    if (i == msg->len) {
      code = 1; /* a zero at the very end: one empty group after it */
      g_byte_array_append (out, &code, 1);
      break;
    }
  }
  guint8 zero = 0;
  g_byte_array_append (out, &zero, 1);
}

/* --- the scenario --- */

typedef struct {
  guint16 number;
  guint8 isr2_before;  /* RUNNINGISR2 when it was entered (restored at its exit) */
  gboolean known;      /* the decoder saw it enter (since the last gap) */
} GenExc;

typedef struct {
  const SwoGenOptions *opt;
  GRand *rand;
  SwoGenResult *res;
  GByteArray *group;          /* this group's packets */
  guint64 now;                /* cumulative LTS count at this group's timestamp */
  guint32 overflow_run;       /* overflow packets since the last state-carrying packet */
  guint64 overflow_ts;
  gint overflow_anchor;       /* the GTS in force at the run's last overflow */
  guint64 gts_sent;           /* the last G sent (GTS1 compression, Wrap) */
  gboolean gts_any;           /* a GTS was sent */
  gboolean dropping;          /* this group is lost to an overflow */
  /* the target */
  guint8 task, isr2;
  guint16 service;
  guint32 data;
  GenExc stack[8];
  guint depth;
  /* what the decoder knows */
  gboolean known[4];
  guint8 k_task;
  struct { guint8 id; guint depth; } k_isr[16]; /* its ISR2 nesting (poll-decoder.c trace) */
  guint n_kisr;
  gboolean k_depth_known;     /* it has been told the exception depth since the last gap */
  guint16 k_service;
  guint32 k_data;
} Gen;

/* The GTS in force now (the latest sent; -1: none yet). */
static gint
gen_anchor (Gen *g)
{
  return (gint) g->res->gts->len - 1;
}

static void
gen_expect_at (Gen *g, guint64 ts, guint kind, guint32 a, guint32 b, gint anchor)
{
  ProbeEvent e = { .ts = ts, .a = a, .b = b, .kind = (guint16) kind };
  g_array_append_val (g->res->expected, e);
  g_array_append_val (g->res->anchor, anchor);
}

static void
gen_expect (Gen *g, guint kind, guint32 a, guint32 b)
{
  gen_expect_at (g, g->now * g->opt->prescaler, kind, a, b, gen_anchor (g));
}

/* A packet that carries state is about to be written (and seen unless dropped). Returns
 * TRUE when the decoder sees it. */
static gboolean
gen_state_packet (Gen *g)
{
  if (g->dropping)
    return FALSE;
  if (g->overflow_run != 0) {
    gen_expect_at (g, g->overflow_ts * g->opt->prescaler, PROBE_EVENT_GAP, g->overflow_run,
                   PROBE_GAP_OVERFLOW, g->overflow_anchor);
    g->overflow_run = 0;
    memset (g->known, 0, sizeof g->known);
    g->n_kisr = 0;
    g->k_depth_known = FALSE;
    for (guint i = 0; i < g->depth; i++)
      g->stack[i].known = FALSE;
  }
  g->res->packets++;
  return TRUE;
}

static guint32
task_event_value (guint8 t)
{
  return t == SWO_GEN_NO_TASK ? PROBE_TASK_IDLE : t;
}

static void
gen_write_task (Gen *g, guint8 t)
{
  g->task = t;
  if (!gen_state_packet (g))
    return;
  swo_gen_data_value (g->group, 0, TRUE, 1, t);
  /* the evidence of the switch-out (poll-evidence.c): this map has no priorities and no
   * job-end services, so only a switch to idle is decided (the job ended) */
  guint32 ev = 0;
  if (g->known[0] && g->k_task != t && g->k_task != SWO_GEN_NO_TASK) {
    ev = t == SWO_GEN_NO_TASK ? PROBE_EVIDENCE_IDLE : PROBE_EVIDENCE_NONE;
    if (t == SWO_GEN_NO_TASK)
      gen_expect (g, PROBE_EVENT_TASK_TERMINATE, g->k_task, ev);
  }
  if (!g->known[0] || g->k_task != t)
    gen_expect (g, PROBE_EVENT_TASK_SWITCH, task_event_value (t), ev);
  g->known[0] = TRUE;
  g->k_task = t;
}

/* The exception depth the decoder knows: the exceptions it saw entering. */
static guint
known_depth (Gen *g)
{
  guint d = 0;
  for (guint i = 0; i < g->depth; i++)
    d += g->stack[i].known;
  return d;
}

/* The decoder ends the ISR2s above level @level. */
static void
kisr_pop_to (Gen *g, guint level)
{
  while (g->n_kisr > level) /* where it ran: in its handler, once the exceptions are known */
    gen_expect (g, PROBE_EVENT_ISR_EXIT, g->k_isr[--g->n_kisr].id,
                g->k_depth_known ? PROBE_ISR_HANDLER : 0);
}

/* RUNNINGISR2 written (seen): the decoder's trace rules for ISR2 nesting. */
static void
gen_write_isr2 (Gen *g, guint8 v)
{
  g->isr2 = v;
  if (!gen_state_packet (g))
    return;
  swo_gen_data_value (g->group, 1, TRUE, 1, v);
  if (v == 0) {
    kisr_pop_to (g, 0);
    return;
  }
  if (g->n_kisr > 0 && g->k_isr[g->n_kisr - 1].id == v)
    return;
  for (guint k = 0; k + 1 < g->n_kisr; k++)
    if (g->k_isr[k].id == v) {
      kisr_pop_to (g, k + 1);
      return;
    }
  guint depth = known_depth (g);
  if (g->n_kisr > 0 && g->k_depth_known && depth <= g->k_isr[g->n_kisr - 1].depth)
    kisr_pop_to (g, g->n_kisr - 1);
  g_assert (g->n_kisr < G_N_ELEMENTS (g->k_isr));
  g->k_isr[g->n_kisr].id = v;
  g->k_isr[g->n_kisr++].depth = depth;
  gen_expect (g, PROBE_EVENT_ISR_ENTER, v, 0);
}

static void
gen_write_service (Gen *g, guint16 v)
{
  g->service = v;
  if (!gen_state_packet (g))
    return;
  swo_gen_data_value (g->group, 2, TRUE, 2, v);
  gint32 was = g->known[2] && (g->k_service & 1) ? (gint32) (g->k_service & ~1u) : -1;
  gint32 now = (v & 1) ? (gint32) (v & ~1u) : -1;
  if (was >= 0 && was != now)
    gen_expect (g, PROBE_EVENT_SERVICE_EXIT, (guint32) was, 0);
  if (now >= 0 && was != now)
    gen_expect (g, PROBE_EVENT_SERVICE_ENTER, (guint32) now, 0);
  g->known[2] = TRUE;
  g->k_service = v;
}

static void
gen_write_data (Gen *g, guint32 v)
{
  g->data = v;
  if (!gen_state_packet (g))
    return;
  swo_gen_data_value (g->group, 3, TRUE, 4, v);
  if (!g->known[3] || g->k_data != v)
    gen_expect (g, PROBE_EVENT_DATA, SWO_GEN_DATA_ID, v);
  g->known[3] = TRUE;
  g->k_data = v;
}

/* The Event id of exception @n and whether the exception trace reports it. */
static guint32
exc_id (guint n, gboolean *reported)
{
  *reported = !(n >= 16 && n < 16 + SWO_GEN_ISR2S); /* ISR2s: reported by RUNNINGISR2 */
  if (n == 15)
    return SWO_GEN_SYSTICK_ID;
  if (n >= 16 && n < 16 + SWO_GEN_ISR2S)
    return n - 15;
  return PROBE_SWO_EXCEPTION_ID (n);
}

static const guint16 gen_exceptions[] = { 11, 14, 15, 16, 17, 18, 19, 20, 37 };

static gboolean
on_stack (Gen *g, guint n)
{
  for (guint i = 0; i < g->depth; i++)
    if (g->stack[i].number == n)
      return TRUE;
  return FALSE;
}

static void
gen_enter (Gen *g, guint n)
{
  GenExc *e = &g->stack[g->depth++];
  e->number = (guint16) n;
  e->isr2_before = g->isr2;
  e->known = FALSE;
  if (gen_state_packet (g)) {
    swo_gen_exception (g->group, n, PROBE_SWO_EXC_ENTERED);
    gboolean reported;
    guint32 id = exc_id (n, &reported);
    if (reported)
      gen_expect (g, PROBE_EVENT_ISR_ENTER, id, 0);
    e->known = TRUE;
    g->k_depth_known = TRUE;
  }
  if (n >= 16 && n < 16 + SWO_GEN_ISR2S)
    gen_write_isr2 (g, (guint8) (n - 15)); /* the OS wrapper marks the ISR2 running */
}

/* Leaves the innermost exception; returns to the one below (or thread) unless @tail_chain. */
static void
gen_exit (Gen *g, gboolean tail_chain)
{
  GenExc *top = &g->stack[g->depth - 1];
  guint n = top->number;
  if (n >= 16 && n < 16 + SWO_GEN_ISR2S)
    gen_write_isr2 (g, top->isr2_before);
  /* while still on the stack: a gap closed here makes the decoder forget it */
  if (gen_state_packet (g)) {
    swo_gen_exception (g->group, n, PROBE_SWO_EXC_EXITED);
    gboolean reported;
    guint32 id = exc_id (n, &reported);
    if (top->known) {
      /* the ISR2s entered inside it that are still open end with it */
      guint depth = known_depth (g) - 1, level = g->n_kisr;
      while (level > 0 && g->k_isr[level - 1].depth > depth)
        level--;
      kisr_pop_to (g, level);
      if (reported)
        gen_expect (g, PROBE_EVENT_ISR_EXIT, id, PROBE_ISR_HANDLER);
    }
  }
  g->depth--;
  if (tail_chain)
    return;
  if (gen_state_packet (g))
    swo_gen_exception (g->group, g->depth > 0 ? g->stack[g->depth - 1].number : 0,
                       PROBE_SWO_EXC_RETURNED);
}

/* One action of the target. */
static void
gen_action (Gen *g)
{
  guint r = (guint) g_rand_int_range (g->rand, 0, 100);
  if (r < 18) {
    guint8 t = g_rand_int_range (g->rand, 0, 6) == 0 ? SWO_GEN_NO_TASK
               : (guint8) g_rand_int_range (g->rand, 0, SWO_GEN_TASKS);
    gen_write_task (g, t);
  } else if (r < 34) {
    if (g->depth < G_N_ELEMENTS (g->stack)) {
      guint n = gen_exceptions[g_rand_int_range (g->rand, 0, G_N_ELEMENTS (gen_exceptions))];
      if (!on_stack (g, n))
        gen_enter (g, n);
    }
  } else if (r < 50) {
    if (g->depth > 0) {
      gboolean chain = g_rand_int_range (g->rand, 0, 4) == 0;
      gen_exit (g, chain);
      if (chain) {
        guint n = gen_exceptions[g_rand_int_range (g->rand, 0, G_N_ELEMENTS (gen_exceptions))];
        if (!on_stack (g, n))
          gen_enter (g, n);
        else if (gen_state_packet (g)) /* nothing to chain to: return after all */
          swo_gen_exception (g->group, g->depth > 0 ? g->stack[g->depth - 1].number : 0,
                             PROBE_SWO_EXC_RETURNED);
      }
    }
  } else if (r < 60) {
    guint16 sid = (guint16) g_rand_int_range (g->rand, 1, 40) << 1;
    gen_write_service (g, (g->service & 1) ? (guint16) (g->service & ~1u)
                                           : (guint16) (sid | 1));
  } else if (r < 68) {
    gen_write_data (g, g_rand_int_range (g->rand, 0, 3) == 0 ? g->data : g_rand_int (g->rand));
  } else if (r < 76) {
    if (gen_state_packet (g)) {
      guint port = (guint) g_rand_int_range (g->rand, 0, 32);
      guint size = 1u << g_rand_int_range (g->rand, 0, 3);
      guint32 v = g_rand_int (g->rand);
      if (size < 4)
        v &= (1u << (8 * size)) - 1;
      swo_gen_sw (g->group, port, size, v);
      gen_expect (g, PROBE_EVENT_STIMULUS, port, v);
    }
  } else if (g->opt->pc_samples) {
    if (gen_state_packet (g)) {
      if (g_rand_int_range (g->rand, 0, 10) == 0) {
        swo_gen_hw (g->group, 2, 1, 0);
        gen_expect (g, PROBE_EVENT_PC_SAMPLE, 0, PROBE_PC_SLEEPING);
      } else {
        guint32 pc = 0x08000000u | (g_rand_int (g->rand) & 0xFFFFEu);
        swo_gen_hw (g->group, 2, 4, pc);
        gen_expect (g, PROBE_EVENT_PC_SAMPLE, pc, 0);
      }
    }
  }
}

/* Appends a continuation-byte packet: header @h, @n groups of 7 bits of @v, LSB first. */
static void
gen_cont (GByteArray *out, guint8 h, guint64 v, guint n)
{
  g_byte_array_append (out, &h, 1);
  for (guint i = 0; i < n; i++) {
    guint8 b = (guint8) ((v >> (7 * i)) & 0x7F) | (i + 1 < n ? 0x80 : 0);
    g_byte_array_append (out, &b, 1);
  }
}

void
swo_gen_gts_full (GByteArray *out, guint64 global)
{
  guint64 high = global >> 26;
  gen_cont (out, 0x94, (global & 0x3FFFFFF) | 1u << 27, 4);
  gen_cont (out, 0xB4, high, high >> 22 ? 6 : 4);
}

/* The GTS packets for global time @G (ARMv7-M D4.2.5): GTS1 with TS[25:0] — only the
 * low-order 7-bit groups that changed since the last GTS1, all four (with Wrap) when TS[63:26]
 * changed or at the first — and then a GTS2 (4 bytes, TS[47:26]; 6 with TS[63:48] set). */
static void
gen_gts (Gen *g, GByteArray *out, guint64 G)
{
  guint64 high = G >> 26, low = G & 0x3FFFFFF;
  gboolean wrap = g->gts_any && high != g->gts_sent >> 26;
  gboolean full = !g->gts_any || wrap;
  guint n = 4;
  if (!full)
    for (n = 1; n < 4 && (low >> (7 * n)) != ((g->gts_sent & 0x3FFFFFF) >> (7 * n)); n++)
      ;
  guint64 v = n == 4 ? low | (wrap ? 1u << 27 : 0) : low;
  gen_cont (out, 0x94, v, n);
  g->res->packets++;
  if (full) {
    gen_cont (out, 0xB4, high, high >> 22 ? 6 : 4);
    g->res->packets++;
  }
  g->gts_sent = G;
  g->gts_any = TRUE;
  SwoGenGts rec = { g->now, G };
  g_array_append_val (g->res->gts, rec);
}

guint64
swo_gen_global (const SwoGenResult *r, gint a, guint64 local, guint64 cpu_hz, guint64 global_hz)
{
  g_assert (r->gts->len > 0);
  const SwoGenGts *x = &g_array_index (r->gts, SwoGenGts, a < 0 ? 0 : (guint) a);
  /* floor of the exact rational, also for local < x->local */
  __int128 n = ((__int128) local - (__int128) x->local) * (__int128) global_hz;
  __int128 q = n / (__int128) cpu_hz;
  if (n % (__int128) cpu_hz != 0 && n < 0)
    q--;
  __int128 t = (__int128) x->global + q;
  return t < 0 ? 0 : (guint64) t;
}

SwoGenResult *
swo_gen_run (const SwoGenOptions *options)
{
  SwoGenOptions opt = *options;
  if (opt.prescaler == 0)
    opt.prescaler = 1;
  SwoGenResult *res = g_new0 (SwoGenResult, 1);
  res->itm = g_byte_array_new ();
  res->expected = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  res->anchor = g_array_new (FALSE, FALSE, sizeof (gint));
  res->gts = g_array_new (FALSE, FALSE, sizeof (SwoGenGts));
  res->group_end = g_array_new (FALSE, FALSE, sizeof (gsize));
  res->group_local = g_array_new (FALSE, FALSE, sizeof (guint64));
  Gen g = { .opt = &opt, .rand = g_rand_new_with_seed (opt.seed), .res = res,
            .group = g_byte_array_new (), .task = SWO_GEN_NO_TASK };
  for (guint i = 0; i < opt.groups; i++) {
    guint r = (guint) g_rand_int_range (g.rand, 0, 100);
    guint32 delta = r < 40 ? (guint32) g_rand_int_range (g.rand, 1, 7)
                    : r < 95 ? (guint32) g_rand_int_range (g.rand, 7, 20000)
                             : (guint32) g_rand_int_range (g.rand, 20000, 1 << 27);
    g.now += delta;
    g.dropping = opt.overflow_p > 0 && g_rand_double (g.rand) < opt.overflow_p;
    guint actions = (guint) g_rand_int_range (g.rand, 1, 4);
    for (guint a = 0; a < actions; a++)
      gen_action (&g);
    if (g.dropping) {
      /* the group's packets were lost: the ITM says so with an overflow packet */
      g_byte_array_set_size (g.group, 0);
      swo_gen_overflow (g.group);
      res->packets++;
      res->overflows++;
      g.overflow_run++;
      g.overflow_ts = g.now;
      g.overflow_anchor = gen_anchor (&g);
    }
    g_byte_array_append (res->itm, g.group->data, g.group->len);
    g_byte_array_set_size (g.group, 0);
    guint tc = g_rand_int_range (g.rand, 0, 10) == 0 ? (guint) g_rand_int_range (g.rand, 1, 4) : 0;
    swo_gen_lts (res->itm, delta, tc);
    res->packets++;
    if (opt.gts_every != 0 && (i + 1) % opt.gts_every == 0) {
      /* right after the timestamp that closes the group: the global clock at that instant */
      guint64 G = opt.global_base +
                  (guint64) ((unsigned __int128) g.now * opt.global_hz / opt.cpu_hz);
      gen_gts (&g, res->itm, G);
    }
    if (g_rand_int_range (g.rand, 0, 50) == 0 && i + 1 < opt.groups) { /* ignored by the mapper */
      swo_gen_sync (res->itm);
      swo_gen_hw (res->itm, 0, 1, 0x20);              /* event counter: CYC wrapped */
      swo_gen_hw (res->itm, 9, 2, 0x1234);            /* data address offset, comparator 0 */
      res->packets += 3;
      if (opt.gts_every == 0) {
        static const guint8 gts1[] = { 0x94, 0x85, 0x03 };
        g_byte_array_append (res->itm, gts1, sizeof gts1);
        res->packets++;
      }
    }
    gsize end = res->itm->len;
    g_array_append_val (res->group_end, end);
    g_array_append_val (res->group_local, g.now);
  }
  if (g.overflow_run != 0) /* reported at the flush */
    gen_expect_at (&g, g.overflow_ts * opt.prescaler, PROBE_EVENT_GAP, g.overflow_run,
                   PROBE_GAP_OVERFLOW, g.overflow_anchor);
  res->end = g.now;
  g_rand_free (g.rand);
  g_byte_array_unref (g.group);
  return res;
}

void
swo_gen_result_free (SwoGenResult *r)
{
  if (r == NULL)
    return;
  g_byte_array_unref (r->itm);
  g_array_unref (r->expected);
  g_array_unref (r->anchor);
  g_array_unref (r->gts);
  g_array_unref (r->group_end);
  g_array_unref (r->group_local);
  g_free (r);
}

SwoGenMultiResult *
swo_gen_multi (const SwoGenMultiOptions *options)
{
  g_assert (options->n_cores >= 1 && options->n_cores <= SWO_GEN_MAX_CORES);
  SwoGenMultiResult *m = g_new0 (SwoGenMultiResult, 1);
  m->n_cores = options->n_cores;
  for (guint k = 0; k < m->n_cores; k++) {
    SwoGenResult *r = swo_gen_run (&(SwoGenOptions){
      .seed = options->seed + k, .groups = options->groups, .overflow_p = options->overflow_p,
      .prescaler = 1, .pc_samples = k % 2 == 0, .gts_every = options->gts_every,
      .cpu_hz = options->cpu_hz[k], .global_hz = options->global_hz,
      .global_base = options->global_base });
    m->core[k] = r;
    m->expected[k] = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    for (guint i = 0; i < r->expected->len; i++) {
      ProbeEvent e = g_array_index (r->expected, ProbeEvent, i);
      e.ts = swo_gen_global (r, g_array_index (r->anchor, gint, i), e.ts, options->cpu_hz[k],
                             options->global_hz);
      e.core = (guint16) k;
      g_array_append_val (m->expected[k], e);
    }
    m->end_ts[k] = swo_gen_global (r, (gint) r->gts->len - 1, r->end, options->cpu_hz[k],
                                   options->global_hz);
  }
  /* arrival order: each core's groups by the true global time of their timestamp */
  g_autoptr (GArray) chunks = g_array_new (FALSE, FALSE, sizeof (SwoGenChunk));
  guint next[SWO_GEN_MAX_CORES] = { 0 };
  gsize off[SWO_GEN_MAX_CORES] = { 0 };
  for (;;) {
    gint best = -1;
    guint64 best_t = 0;
    for (guint k = 0; k < m->n_cores; k++) {
      SwoGenResult *r = m->core[k];
      if (next[k] == r->group_end->len)
        continue;
      guint64 t = (guint64) ((unsigned __int128) g_array_index (r->group_local, guint64, next[k]) *
                             options->global_hz / options->cpu_hz[k]);
      if (best < 0 || t < best_t) {
        best = (gint) k;
        best_t = t;
      }
    }
    if (best < 0)
      break;
    SwoGenResult *r = m->core[best];
    gsize end = g_array_index (r->group_end, gsize, next[best]++);
    if (end > off[best]) {
      SwoGenChunk ch = { (guint8) (best + 1), r->itm->data + off[best], end - off[best] };
      g_array_append_val (chunks, ch);
    }
    off[best] = end;
  }
  g_autoptr (GRand) rand = g_rand_new_with_seed (options->seed);
  m->tpiu = swo_gen_tpiu ((SwoGenChunk *) chunks->data, chunks->len, options->sync_every,
                          options->halfword_p, rand);
  return m;
}

void
swo_gen_multi_free (SwoGenMultiResult *r)
{
  if (r == NULL)
    return;
  g_byte_array_unref (r->tpiu);
  for (guint k = 0; k < r->n_cores; k++) {
    swo_gen_result_free (r->core[k]);
    g_array_unref (r->expected[k]);
  }
  g_free (r);
}

void
swo_gen_map_config (ProbeSwoMapConfig *config, guint prescaler)
{
  static gint64 no_task[] = { SWO_GEN_NO_TASK };
  static gint64 no_isr[] = { 0 };
  static ProbeSwoComparator comparators[4];
  static ProbeSwoException exceptions[1 + SWO_GEN_ISR2S];
  comparators[0] = (ProbeSwoComparator){ 0, { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK",
                                              .width = 1, .none_values = no_task,
                                              .n_none_values = 1 } };
  comparators[1] = (ProbeSwoComparator){ 1, { .kind = PROBE_POLL_ISR, .name = "RUNNINGISR2",
                                              .width = 1, .none_values = no_isr,
                                              .n_none_values = 1 } };
  comparators[2] = (ProbeSwoComparator){ 2, { .kind = PROBE_POLL_SERVICE,
                                              .name = "SERVICETRACE", .width = 2,
                                              .entry_bit = TRUE } };
  comparators[3] = (ProbeSwoComparator){ 3, { .kind = PROBE_POLL_DATA, .name = "counter",
                                              .width = 4, .data_id = SWO_GEN_DATA_ID } };
  exceptions[0] = (ProbeSwoException){ 15, SWO_GEN_SYSTICK_ID, FALSE };
  for (guint i = 0; i < SWO_GEN_ISR2S; i++)
    exceptions[1 + i] = (ProbeSwoException){ (guint16) (16 + i), 1 + i, TRUE };
  *config = (ProbeSwoMapConfig) PROBE_SWO_MAP_CONFIG_INIT;
  config->comparators = comparators;
  config->n_comparators = 4;
  config->exceptions = exceptions;
  config->n_exceptions = G_N_ELEMENTS (exceptions);
  config->lts_prescaler = prescaler;
}
