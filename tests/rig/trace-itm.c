/* trace-itm.c — ITM packets, FIFO/SWO bandwidth model, local timestamps and the TPIU
 * formatter of the rig's trace unit (see trace-itm.h for the model).
 *
 * Packet formats (ARMv7-M ARM, DDI0403E appendix D4): software source `port<<3 | SS`,
 * hardware source `ID<<3 | 0b100 | SS` (SS 1/2/3 = 1/2/4 payload bytes, little-endian);
 * local timestamp format 2 `0TTT0000` for 1..6 ticks, format 1 `11TC0000` + up to four
 * 7-bit continuation bytes; overflow `0x70`; synchronisation five 0x00 and 0x80. Formatter
 * frames (CoreSight TPIU): bytes 0,2,..,14 are data with bit 0 in the auxiliary byte 15, or a
 * source ID change (bit 0 set, aux bit 1 = after the next data byte); odd bytes are data.
 * Global timestamps (D4.2.5): GTS1 `94` + 1..4 bytes of TS[25:0] (7 bits each, LSB first,
 * bit 7 = continue; the 4th byte holds TS[25:21], ClkCh in bit 5 and Wrap in bit 6), GTS2
 * `B4` + 4 bytes of TS[47:26] (48-bit global clock).
 * Bandwidth arithmetic is in cycles x 15 so the formatter's 16/15 stays exact.
 */
#include "trace-itm.h"

#include <string.h>

#define ITM_SCALE 15u

static uint64_t itm_min(uint64_t a, uint64_t b)
{
  return a < b ? a : b;
}

/* `cycle`, or the latest cycle seen if that is later (callers may be late by a block). */
static uint64_t itm_now(RigItm *itm, uint64_t cycle)
{
  if (cycle < itm->last_cycle)
    return itm->last_cycle;
  itm->last_cycle = cycle;
  return cycle;
}

/* Hands bytes to the sink (formatter frames already built). */
static void itm_out(RigItm *itm, const uint8_t *bytes, size_t n)
{
  itm->wire_bytes += n;
  itm->sink(itm->user, bytes, n);
}

/* Emits the frame when its 15 payload slots are used. */
static void itm_frame_done(RigItm *itm)
{
  if (itm->fpos < 15)
    return;
  itm_out(itm, itm->frame, 16);
  memset(itm->frame, 0, sizeof itm->frame);
  itm->fpos = 0;
}

/* Puts a source ID change into the next slot (an even one; the caller ensures it). A change
 * in slot 14 ends the frame: its data goes into the next one (slot 15 is the aux byte). */
static void itm_frame_id(RigItm *itm, unsigned id)
{
  itm->frame[itm->fpos] = (uint8_t)((id << 1) | 1u);
  itm->fpos++;
  itm->cur_id = id;
  itm_frame_done(itm);
}

/* A source ID change when the next slot is odd (IDs go in even slots only): the last data
 * byte moves from its even slot into the odd one and the change takes the even slot with the
 * "after the next data byte" flag, so that byte stays the old source's; an ID change with no
 * data after it yet is simply replaced. The next slot is then even, or odd after a replaced
 * change (data of the new source either way). */
static void itm_frame_switch_odd(RigItm *itm, unsigned id)
{
  unsigned slot = itm->fpos - 1;
  uint8_t abit = (uint8_t)(1u << (slot / 2));
  if (itm->frame[slot] & 1u) {  /* an ID change with no data yet */
    itm->frame[slot] = (uint8_t)((id << 1) | 1u);
    itm->frame[15] &= (uint8_t)~abit;
  } else {
    uint8_t b = (uint8_t)(itm->frame[slot] | ((itm->frame[15] & abit) ? 1u : 0u));
    itm->frame[slot] = (uint8_t)((id << 1) | 1u);  /* the new ID ... */
    itm->frame[15] |= abit;                        /* ... after the next data byte */
    itm->frame[itm->fpos++] = b;
  }
  itm->cur_id = id;
}

/* One trace byte through the formatter. */
static void itm_frame_byte(RigItm *itm, uint8_t b, uint64_t cycle)
{
  if (itm->cur_id != itm->cfg.trace_id) {
    if (itm->fpos & 1u)
      itm_frame_switch_odd(itm, itm->cfg.trace_id);
    else
      itm_frame_id(itm, itm->cfg.trace_id);
  }
  if ((itm->fpos & 1u) == 0) {
    itm->frame[itm->fpos] = b & 0xFEu;
    itm->frame[15] |= (uint8_t)((b & 1u) << (itm->fpos / 2));
  } else {
    itm->frame[itm->fpos] = b;
  }
  itm->fpos++;
  itm->last_byte_cycle = cycle;
  itm_frame_done(itm);
}

/* Pads the partial frame with null-source bytes and sends it. The ID change to 0 takes an
 * even slot; when the next slot is odd, the last data byte moves into it and the change goes
 * before it with the "after the next data byte" flag. */
static void itm_frame_pad(RigItm *itm)
{
  if (itm->fpos == 0)
    return;
  if (itm->fpos & 1u)
    itm_frame_switch_odd(itm, 0);
  else
    itm_frame_id(itm, 0);  /* in slot 14 it sent the frame: nothing left to pad */
  if (itm->fpos == 0)
    return;
  while (itm->fpos < 15) {
    if ((itm->fpos & 1u) == 0)
      itm->frame[15] &= (uint8_t)~(1u << (itm->fpos / 2));
    itm->frame[itm->fpos++] = 0;
  }
  itm_frame_done(itm);
}

/* Trace bytes onto the wire (through the formatter when it is on). */
static void itm_wire(RigItm *itm, const uint8_t *pkt, size_t n, uint64_t cycle)
{
  if (!itm->cfg.formatter) {
    itm_out(itm, pkt, n);
    return;
  }
  for (size_t i = 0; i < n; i++)
    itm_frame_byte(itm, pkt[i], cycle);
}

/* Bytes still in the FIFO at `cycle`. */
static uint64_t itm_queued(const RigItm *itm, uint64_t cycle)
{
  uint64_t now = cycle * ITM_SCALE;
  if (itm->byte_cost == 0 || itm->wire_free <= now)
    return 0;
  return (itm->wire_free - now + itm->byte_cost - 1) / itm->byte_cost;
}

/* Puts one packet into the FIFO if it fits (with the overflow packet it may owe). */
static int itm_push(RigItm *itm, uint64_t cycle, const uint8_t *pkt, size_t n)
{
  size_t need = n + (itm->overflow_pending ? 1u : 0u);
  if (itm_queued(itm, cycle) + need > RIG_ITM_FIFO) {
    itm->dropped++;
    itm->overflow_pending = 1;
    itm->gts_full = 1;  /* a decoder may have lost a GTS: the next one restates all bits */
    return 0;
  }
  uint64_t start = itm->wire_free > cycle * ITM_SCALE ? itm->wire_free : cycle * ITM_SCALE;
  if (itm->overflow_pending) {
    static const uint8_t ovf = 0x70;
    itm->overflow_pending = 0;
    itm->overflows++;
    itm->packets++;
    start += itm->byte_cost + itm->packet_cost;
    itm_wire(itm, &ovf, 1, cycle);
  }
  itm->wire_free = start + n * itm->byte_cost + itm->packet_cost;
  itm->packets++;
  itm_wire(itm, pkt, n, cycle);
  return 1;
}

static void itm_lts(RigItm *itm);

/* The global timestamp of the group that just closed at `cycle` (global time `gts`), if
 * GTSFREQ says one is due: GTS1, and GTS2 after a GTS1 with Wrap. */
static void itm_gts(RigItm *itm, uint64_t cycle, uint64_t gts)
{
  static const uint64_t period[4] = { 0, 128, 8192, 0 };
  unsigned f = itm->cfg.gtsfreq & 3u;
  if (f == 0)
    return;
  int due = itm->gts_full || (f == 3 ? itm_queued(itm, itm->last_cycle) == 0
                                     : cycle - itm->last_gts_cycle >= period[f]);
  if (!due)
    return;
  uint64_t lo = gts & 0x3FFFFFFu, hi = (gts >> 26) & 0x3FFFFFu;
  int wrap = itm->gts_full || hi != itm->last_gts2;
  uint64_t diff = lo ^ itm->last_gts1;
  unsigned n = wrap || (diff >> 21) != 0 ? 4u : (diff >> 14) != 0 ? 3u : (diff >> 7) != 0 ? 2u : 1u;
  uint8_t pkt[5] = { 0x94 };
  for (unsigned i = 0; i < n; i++)
    pkt[1 + i] = (uint8_t)(((lo >> (7 * i)) & 0x7Fu) | (i + 1 < n ? 0x80u : 0u));
  if (n == 4)
    pkt[4] = (uint8_t)(((lo >> 21) & 0x1Fu) | (wrap ? 0x40u : 0u));  /* ClkCh 0: one rate */
  if (!itm_push(itm, cycle, pkt, 1 + n))
    return;
  itm->gts_packets++;
  itm->last_gts1 = lo;
  itm->last_gts_cycle = cycle;
  if (!wrap)
    return;
  uint8_t pkt2[5] = { 0xB4, (uint8_t)((hi & 0x7Fu) | 0x80u), (uint8_t)(((hi >> 7) & 0x7Fu) | 0x80u),
                      (uint8_t)(((hi >> 14) & 0x7Fu) | 0x80u), (uint8_t)((hi >> 21) & 0x01u) };
  if (!itm_push(itm, cycle, pkt2, sizeof pkt2))
    return;  /* dropped: gts_full stays set, the next GTS is full again */
  itm->gts_packets++;
  itm->last_gts2 = hi;
  itm->gts_full = 0;
}

/* Emits the LTS that closes the open group (cycles since the previous LTS, prescaled), then
 * the group's GTS if one is due. */
void rig_itm_close_group(RigItm *itm)
{
  if (!itm->group_open)
    return;
  itm->group_open = 0;
  if (itm->cfg.tsena)
    itm_lts(itm);
  itm_gts(itm, itm->group_cycle, itm->group_gts);
}

/* The LTS of the group that is closing. */
static void itm_lts(RigItm *itm)
{
  uint64_t ts = itm->group_cycle >> itm->cfg.ts_shift;
  uint64_t delta = ts - itm->last_ts;
  uint8_t pkt[5];
  while (delta > 0x0FFFFFFFu) {  /* longer than one LTS can say: several, each full */
    uint8_t full[5] = { 0xC0, 0xFF, 0xFF, 0xFF, 0x7F };
    if (!itm_push(itm, itm->group_cycle, full, sizeof full))
      return;
    itm->last_ts += 0x0FFFFFFFu;
    delta -= 0x0FFFFFFFu;
  }
  size_t n;
  if (delta >= 1 && delta <= 6) {
    pkt[0] = (uint8_t)(delta << 4);
    n = 1;
  } else {
    pkt[0] = 0xC0;  /* format 1, TC = 0: in step with the data */
    n = 1;
    do {
      pkt[n] = (uint8_t)(delta & 0x7Fu);
      delta >>= 7;
      if (delta != 0)
        pkt[n] |= 0x80u;
      n++;
    } while (delta != 0);
  }
  if (itm_push(itm, itm->group_cycle, pkt, n))
    itm->last_ts = ts;
}

void rig_itm_set_global_clock(RigItm *itm, RigItmGlobalClock clock, void *user)
{
  itm->gclock = clock;
  itm->gclock_user = user;
}

void rig_itm_init(RigItm *itm, RigItmSink sink, void *user)
{
  memset(itm, 0, sizeof *itm);
  itm->sink = sink;
  itm->user = user;
  itm->cfg.protocol = 1;
  itm->cfg.bit_cycles = 1;
  itm->cfg.formatter = 1;
}

void rig_itm_configure(RigItm *itm, const RigItmConfig *cfg, uint64_t cycle)
{
  RigItmConfig old = itm->cfg;
  if (old.enabled && !cfg->enabled)
    rig_itm_close_group(itm);
  if (old.formatter && !cfg->formatter)
    itm_frame_pad(itm);
  itm->cfg = *cfg;
  if (itm->cfg.bit_cycles == 0)
    itm->cfg.bit_cycles = 1;
  uint64_t per_bit = (uint64_t)itm->cfg.bit_cycles * (itm->cfg.formatter ? 16u : 15u);
  switch (itm->cfg.protocol) {
  case 1:  /* Manchester: 8 bits a byte, a start and a stop bit around each packet */
    itm->byte_cost = 8 * per_bit;
    itm->packet_cost = 2 * per_bit;
    break;
  case 2:  /* UART: start, 8 data, stop */
    itm->byte_cost = 10 * per_bit;
    itm->packet_cost = 0;
    break;
  default: /* parallel trace port: not modelled, never full */
    itm->byte_cost = 0;
    itm->packet_cost = 0;
    break;
  }
  cycle = itm_now(itm, cycle);
  if (cfg->enabled && (!old.enabled || old.ts_shift != cfg->ts_shift || !old.tsena)) {
    itm->last_ts = cycle >> cfg->ts_shift;
    itm->group_open = 0;
  }
  if (cfg->enabled && cfg->gtsfreq != 0 && (!old.enabled || old.gtsfreq == 0)) {
    itm->gts_full = 1;  /* the first GTS after enable: GTS1 with Wrap, then GTS2 */
    itm->last_gts_cycle = cycle;
  }
  if (cfg->enabled && cfg->formatter && (!old.formatter || !old.enabled))
    rig_itm_sync(itm, cycle, 0);
}

int rig_itm_packet(RigItm *itm, uint64_t cycle, const uint8_t *pkt, size_t n, int stamp)
{
  if (!itm->cfg.enabled)
    return 0;
  cycle = itm_now(itm, cycle);
  if (itm->group_open && cycle > itm->group_cycle)
    rig_itm_close_group(itm);
  if (!itm_push(itm, cycle, pkt, n))
    return 0;
  if (stamp && (itm->cfg.tsena || itm->cfg.gtsfreq != 0)) {
    if (!itm->group_open && itm->cfg.gtsfreq != 0)
      itm->group_gts = itm->gclock != NULL ? itm->gclock(itm->gclock_user, cycle) : 0;
    itm->group_open = 1;
    itm->group_cycle = cycle;
  }
  return 1;
}

/* A hardware source packet: ID, then `size` payload bytes of `value`. */
static int itm_hw(RigItm *itm, uint64_t cycle, unsigned id, uint32_t value, unsigned size)
{
  uint8_t pkt[5];
  unsigned ss = size == 1 ? 1u : size == 2 ? 2u : 3u;
  size = ss == 3 ? 4u : size;
  pkt[0] = (uint8_t)((id << 3) | 4u | ss);
  for (unsigned i = 0; i < size; i++)
    pkt[1 + i] = (uint8_t)(value >> (8 * i));
  return rig_itm_packet(itm, cycle, pkt, 1 + size, 1);
}

int rig_itm_stimulus(RigItm *itm, uint64_t cycle, unsigned port, uint32_t value, unsigned size)
{
  uint8_t pkt[5];
  unsigned ss = size == 1 ? 1u : size == 2 ? 2u : 3u;
  size = ss == 3 ? 4u : size;
  pkt[0] = (uint8_t)(((port & 31u) << 3) | ss);
  for (unsigned i = 0; i < size; i++)
    pkt[1 + i] = (uint8_t)(value >> (8 * i));
  return rig_itm_packet(itm, cycle, pkt, 1 + size, 1);
}

int rig_itm_pc_sample(RigItm *itm, uint64_t cycle, uint32_t pc, int sleeping)
{
  if (sleeping)
    return itm_hw(itm, cycle, 2, 0, 1);
  return itm_hw(itm, cycle, 2, pc, 4);
}

int rig_itm_exception(RigItm *itm, uint64_t cycle, unsigned number, unsigned fn)
{
  return itm_hw(itm, cycle, 1, (number & 0xFFu) | ((fn << 12) | ((number >> 8) & 1u) << 8), 2);
}

int rig_itm_data_pc(RigItm *itm, uint64_t cycle, unsigned comp, uint32_t pc)
{
  return itm_hw(itm, cycle, 8 + 2 * comp, pc, 4);
}

int rig_itm_data_addr(RigItm *itm, uint64_t cycle, unsigned comp, uint32_t addr)
{
  return itm_hw(itm, cycle, 9 + 2 * comp, addr & 0xFFFFu, 2);
}

int rig_itm_data_value(RigItm *itm, uint64_t cycle, unsigned comp, int write, uint32_t value,
                       unsigned size)
{
  return itm_hw(itm, cycle, 16 + 2 * comp + (write ? 1u : 0u), value, size);
}

void rig_itm_sync(RigItm *itm, uint64_t cycle, int itm_sync)
{
  if (!itm->cfg.enabled)
    return;
  cycle = itm_now(itm, cycle);
  if (itm->group_open && cycle > itm->group_cycle)
    rig_itm_close_group(itm);
  if (itm->cfg.formatter) {
    static const uint8_t fsync[4] = { 0xFF, 0xFF, 0xFF, 0x7F };
    itm_frame_pad(itm);
    itm_out(itm, fsync, sizeof fsync);
    itm->cur_id = 0;  /* the next frame names its source again */
  }
  if (itm_sync) {
    static const uint8_t sync[6] = { 0, 0, 0, 0, 0, 0x80 };
    (void)itm_push(itm, cycle, sync, sizeof sync);
  }
}

void rig_itm_advance(RigItm *itm, uint64_t cycle)
{
  cycle = itm_now(itm, cycle);
  if (itm->group_open && cycle > itm->group_cycle)
    rig_itm_close_group(itm);
  if (itm->cfg.formatter && itm->fpos > 0 &&
      cycle >= itm->last_byte_cycle + RIG_ITM_FRAME_FLUSH)
    itm_frame_pad(itm);
}

uint64_t rig_itm_deadline(const RigItm *itm)
{
  uint64_t d = UINT64_MAX;
  if (itm->group_open)
    d = itm->group_cycle + 1;
  if (itm->cfg.formatter && itm->fpos > 0)
    d = itm_min(d, itm->last_byte_cycle + RIG_ITM_FRAME_FLUSH);
  return d;
}

void rig_itm_frame_bytes(RigItm *itm, unsigned id, const uint8_t *bytes, size_t n,
                         uint64_t cycle)
{
  unsigned own = itm->cfg.trace_id;
  itm->cfg.trace_id = id;
  for (size_t i = 0; i < n; i++)
    itm_frame_byte(itm, bytes[i], cycle);
  itm->cfg.trace_id = own;
}

void rig_itm_frame_flush(RigItm *itm)
{
  itm_frame_pad(itm);
}
