/* test-trace-itm.c — unit tests of the trace unit's pure parts: the ITM packet encoder with its
 * FIFO/bandwidth model, local timestamps and TPIU formatter (trace-itm.c), and the Thumb-2
 * control-flow and store classifier (trace-thumb.c). Expected bytes are written out from the
 * architecture manual's packet formats, not from the encoder; the classifier is also checked
 * against arm-none-eabi-objdump on every instruction of the rig's trace firmware.
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "trace-itm.h"
#include "trace-thumb.h"

static void sink(void *user, const uint8_t *bytes, size_t n)
{
  g_byte_array_append(user, bytes, (guint)n);
}

static void assert_bytes(GByteArray *out, const uint8_t *want, size_t n)
{
  g_autofree char *got = g_strdup("");
  for (guint i = 0; i < out->len; i++) {
    char *t = g_strdup_printf("%s %02x", got, out->data[i]);
    g_free(got);
    got = t;
  }
  if (out->len != n || memcmp(out->data, want, n) != 0)
    g_error("stream:%s", got);
}

/* An enabled ITM on an unlimited port, formatter off, timestamps as given. */
static void setup(RigItm *itm, GByteArray *out, int tsena, unsigned ts_shift)
{
  rig_itm_init(itm, sink, out);
  RigItmConfig cfg = { .enabled = 1, .tsena = tsena, .ts_shift = ts_shift, .trace_id = 1,
                       .formatter = 0, .protocol = 0, .bit_cycles = 1 };
  rig_itm_configure(itm, &cfg, 1000);
}

static void test_packets(void)
{
  g_autoptr(GByteArray) out = g_byte_array_new();
  RigItm itm;
  setup(&itm, out, 0, 0);
  rig_itm_stimulus(&itm, 1000, 1, 0x41, 1);            /* port 1, 1 byte: 0x09 */
  rig_itm_stimulus(&itm, 1000, 31, 0x12345678, 4);     /* port 31, 4 bytes: 0xFB */
  rig_itm_exception(&itm, 1000, 24, RIG_ITM_EXC_ENTRY); /* 0E 18 10 */
  rig_itm_exception(&itm, 1000, 0x1FF, RIG_ITM_EXC_RETURN); /* 0E FF 31 */
  rig_itm_pc_sample(&itm, 1000, 0x000005C4, 0);        /* 17 + PC */
  rig_itm_pc_sample(&itm, 1000, 0, 1);                 /* 15 00: sleeping */
  rig_itm_data_pc(&itm, 1000, 1, 0x6D8);               /* ID 10: 57 + PC */
  rig_itm_data_addr(&itm, 1000, 0, 0x21001001);        /* ID 9: 4E 01 10 */
  rig_itm_data_value(&itm, 1000, 0, 1, 0xFF, 1);       /* ID 17: 8D FF */
  rig_itm_data_value(&itm, 1000, 3, 0, 0xBEEF, 2);     /* ID 22 (read): B6 EF BE */
  static const uint8_t want[] = {
    0x09, 0x41, 0xFB, 0x78, 0x56, 0x34, 0x12, 0x0E, 0x18, 0x10, 0x0E, 0xFF, 0x31,
    0x17, 0xC4, 0x05, 0x00, 0x00, 0x15, 0x00, 0x57, 0xD8, 0x06, 0x00, 0x00,
    0x4E, 0x01, 0x10, 0x8D, 0xFF, 0xB6, 0xEF, 0xBE,
  };
  assert_bytes(out, want, sizeof want);
  g_assert_cmpuint(itm.packets, ==, 10);
}

static void test_timestamps(void)
{
  g_autoptr(GByteArray) out = g_byte_array_new();
  RigItm itm;
  setup(&itm, out, 1, 0);
  rig_itm_stimulus(&itm, 1003, 0, 1, 1);   /* +3: short LTS 0x30 after the group */
  rig_itm_stimulus(&itm, 1003, 0, 2, 1);   /* same cycle: same group */
  rig_itm_stimulus(&itm, 1010, 0, 3, 1);   /* +7: long LTS C0 07 */
  rig_itm_advance(&itm, 1010);             /* not later than the group: nothing */
  g_assert_cmpuint(rig_itm_deadline(&itm), ==, 1011);
  rig_itm_advance(&itm, 1011);
  rig_itm_stimulus(&itm, 1010 + 200, 0, 4, 1);  /* +200 = 0x48 | 1 << 7: C0 C8 01 */
  rig_itm_close_group(&itm);
  static const uint8_t want[] = {
    0x01, 0x01, 0x01, 0x02, 0x30, 0x01, 0x03, 0xC0, 0x07, 0x01, 0x04, 0xC0, 0xC8, 0x01,
  };
  assert_bytes(out, want, sizeof want);

  /* TSPrescale /16: ticks are cycle >> 4 */
  g_byte_array_set_size(out, 0);
  setup(&itm, out, 1, 4);                  /* enabled at cycle 1000: tick 62 */
  rig_itm_stimulus(&itm, 1000 + 16 * 5, 0, 9, 1);
  rig_itm_close_group(&itm);
  static const uint8_t want2[] = { 0x01, 0x09, 0x50 };
  assert_bytes(out, want2, sizeof want2);
}

static void test_bandwidth(void)
{
  g_autoptr(GByteArray) out = g_byte_array_new();
  RigItm itm;
  rig_itm_init(&itm, sink, out);
  /* UART, ACPR 9: 10 cycles a bit, 100 a byte; 16-byte FIFO */
  RigItmConfig cfg = { .enabled = 1, .protocol = 2, .bit_cycles = 10, .trace_id = 1 };
  rig_itm_configure(&itm, &cfg, 0);
  for (int i = 0; i < 3; i++)  /* 15 bytes at cycle 0: they fit */
    g_assert_true(rig_itm_pc_sample(&itm, 0, 0x100 + i, 0));
  g_assert_false(rig_itm_stimulus(&itm, 0, 0, 7, 1));  /* 2 more do not: dropped */
  g_assert_false(rig_itm_stimulus(&itm, 50, 0, 7, 1)); /* half a byte later: still full */
  /* at cycle 200 two bytes left the wire: 13 queued, the overflow packet and a 2-byte packet fit */
  g_assert_true(rig_itm_stimulus(&itm, 200, 0, 8, 1));
  g_assert_cmpuint(itm.dropped, ==, 2);
  g_assert_cmpuint(itm.overflows, ==, 1);
  g_assert_cmpuint(out->len, ==, 18);
  g_assert_cmpuint(out->data[15], ==, 0x70);
  g_assert_cmpuint(out->data[16], ==, 0x01);
  /* the wire is busy until 18 bytes x 100 cycles: at 1800 it is empty, 16 bytes fit again */
  for (int i = 0; i < 3; i++)
    g_assert_true(rig_itm_pc_sample(&itm, 1800, 0x200, 0));
  g_assert_false(rig_itm_pc_sample(&itm, 1800, 0x200, 0));

  /* Manchester: 8 bits a byte plus 2 per packet; formatter: 16/15 of that */
  g_byte_array_set_size(out, 0);
  rig_itm_init(&itm, sink, out);
  RigItmConfig m = { .enabled = 1, .protocol = 1, .bit_cycles = 15, .trace_id = 1 };
  rig_itm_configure(&itm, &m, 0);
  g_assert_true(rig_itm_stimulus(&itm, 0, 0, 1, 1));
  g_assert_cmpuint(itm.wire_free, ==, (2 * 8 + 2) * 15 * 15);
}

/* Formatter: frame sync when it starts, the ITM's ID first, data bit 0 in the aux byte; a
 * partial frame idle for RIG_ITM_FRAME_FLUSH cycles is padded with the null ID. */
static void test_formatter(void)
{
  g_autoptr(GByteArray) out = g_byte_array_new();
  RigItm itm;
  rig_itm_init(&itm, sink, out);
  RigItmConfig cfg = { .enabled = 1, .formatter = 1, .protocol = 0, .trace_id = 1 };
  rig_itm_configure(&itm, &cfg, 0);
  rig_itm_stimulus(&itm, 0, 0, 0x03, 1);   /* bytes 01 03 */
  g_assert_cmpuint(out->len, ==, 4);       /* only the frame sync so far */
  rig_itm_advance(&itm, RIG_ITM_FRAME_FLUSH);
  static const uint8_t want[] = {
    0xFF, 0xFF, 0xFF, 0x7F,
    /* slot 0: ID 1; slot 1: 01 (odd: data); slot 2: 03 -> 02 + aux bit 1; then the ID change
     * to 0 is due at slot 3 (odd): slot 2 becomes "ID 0 after the next byte", 03 moves to
     * slot 3; zeros; aux: bit 1 (slot 2 delayed) */
    0x03, 0x01, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x02,
  };
  assert_bytes(out, want, sizeof want);
  /* 20 more bytes: the ID again, then 14 data bytes fill a frame (even slots carry bit 0 in
   * the aux byte), the rest waits */
  g_byte_array_set_size(out, 0);
  for (int i = 0; i < 10; i++)
    rig_itm_stimulus(&itm, 1u << 20, 0, 0xA1, 1);  /* 01 A1 each */
  g_assert_cmpuint(out->len, ==, 16);
  static const uint8_t frame[] = {
    0x03, 0x01, 0xA0, 0x01, 0xA0, 0x01, 0xA0, 0x01, 0xA0, 0x01, 0xA0, 0x01, 0xA0, 0x01, 0xA0,
    0xFE,
  };
  assert_bytes(out, frame, sizeof frame);
}

typedef struct {
  uint8_t bytes[4];
  size_t size;
  uint32_t pc;
  RigThumbKind kind;
  uint32_t target;
} ThumbCase;

/* Encodings and targets as arm-none-eabi-objdump shows them in the rig's firmware. */
static void test_thumb(void)
{
  static const ThumbCase cases[] = {
    { { 0x70, 0x47 }, 2, 0xEA, RIG_THUMB_RETURN, 0 },               /* bx lr */
    { { 0x30, 0xBD }, 2, 0x19C, RIG_THUMB_RETURN, 0 },              /* pop {r4, r5, pc} */
    { { 0x30, 0xBC }, 2, 0xE8, RIG_THUMB_OTHER, 0 },                /* pop {r4, r5} */
    { { 0x0E, 0xD0 }, 2, 0x10A, RIG_THUMB_BRANCH, 0x12A },          /* beq.n */
    { { 0xED, 0xD0 }, 2, 0x188, RIG_THUMB_BRANCH, 0x166 },          /* beq.n (back) */
    { { 0xD5, 0xE7 }, 2, 0x13A, RIG_THUMB_BRANCH, 0xE8 },           /* b.n */
    { { 0x71, 0xB1 }, 2, 0xCC, RIG_THUMB_BRANCH, 0xEC },            /* cbz r1 */
    { { 0x61, 0xBB }, 2, 0x15E, RIG_THUMB_BRANCH, 0x1BA },          /* cbnz r1 */
    { { 0x90, 0x47 }, 2, 0x0, RIG_THUMB_CALL_INDIRECT, 0 },         /* blx r2 */
    { { 0x00, 0x47 }, 2, 0x0, RIG_THUMB_RETURN, 0 },                /* bx r0 (EXC_RETURN) */
    { { 0xF7, 0x46 }, 2, 0x0, RIG_THUMB_RETURN, 0 },                /* mov pc, lr */
    { { 0x00, 0xDF }, 2, 0x0, RIG_THUMB_SVC, 0 },                   /* svc 0 */
    { { 0x62, 0xB6 }, 2, 0x0, RIG_THUMB_OTHER, 0 },                 /* cpsie i */
    { { 0xFF, 0xF7, 0x8F, 0xFF }, 4, 0x226, RIG_THUMB_CALL, 0x148 },   /* bl */
    { { 0x00, 0xF0, 0x29, 0xB8 }, 4, 0x4CE, RIG_THUMB_BRANCH, 0x524 }, /* b.w */
    { { 0xFF, 0xF7, 0x27, 0xBF }, 4, 0x99A, RIG_THUMB_BRANCH, 0x7EC }, /* b.w (tail call) */
    { { 0x00, 0xF0, 0x85, 0x80 }, 4, 0x636, RIG_THUMB_BRANCH, 0x744 }, /* beq.w */
    { { 0x40, 0xF0, 0x13, 0x81 }, 4, 0x129A, RIG_THUMB_BRANCH, 0x14C4 }, /* bne.w */
    { { 0xBD, 0xE8, 0xF0, 0x81 }, 4, 0x0, RIG_THUMB_RETURN, 0 },   /* ldmia.w sp!, {.., pc} */
    { { 0xBD, 0xE8, 0xF0, 0x01 }, 4, 0x0, RIG_THUMB_OTHER, 0 },    /* ldmia.w sp!, {r4-r8} */
    { { 0x5D, 0xF8, 0x04, 0xFB }, 4, 0x0, RIG_THUMB_RETURN, 0 },   /* ldr.w pc, [sp], #4 */
    { { 0xDF, 0xF8, 0x40, 0x91 }, 4, 0x0, RIG_THUMB_OTHER, 0 },    /* ldr.w r9, [pc, #320] */
    { { 0xD3, 0xF8, 0x00, 0xF0 }, 4, 0x0, RIG_THUMB_JUMP_INDIRECT, 0 }, /* ldr.w pc, [r3] */
    { { 0xD1, 0xE8, 0x02, 0xF0 }, 4, 0x0, RIG_THUMB_JUMP_INDIRECT, 0 }, /* tbb [r1, r2] */
    { { 0xBF, 0xF3, 0x6F, 0x8F }, 4, 0x0, RIG_THUMB_OTHER, 0 },    /* isb sy */
    { { 0xEF, 0xF3, 0x10, 0x8C }, 4, 0x0, RIG_THUMB_OTHER, 0 },    /* mrs ip, PRIMASK */
    { { 0x8C, 0xF3, 0x10, 0x88 }, 4, 0x0, RIG_THUMB_OTHER, 0 },    /* msr PRIMASK, ip */
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    const ThumbCase *c = &cases[i];
    uint32_t target = 0;
    RigThumbKind k = rig_thumb_classify(c->bytes, c->size, c->pc, &target);
    if (k != c->kind || target != c->target)
      g_error("case %" G_GSIZE_FORMAT " (%02x%02x %02x%02x at 0x%x): kind %d target 0x%x, "
              "want %d 0x%x", i, c->bytes[1], c->bytes[0], c->bytes[3], c->bytes[2], c->pc,
              k, target, c->kind, c->target);
  }
}

/* What arm-none-eabi-objdump's mnemonic and operands say the instruction is. */
static RigThumbKind objdump_kind(const char *mn, const char *ops)
{
  static const char *const cc[] = { "eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc",
                                    "hi", "ls", "ge", "lt", "gt", "le", "al", NULL };
  if (strcmp(mn, "bl") == 0)
    return RIG_THUMB_CALL;
  if (g_str_has_prefix(mn, "blx"))
    return RIG_THUMB_CALL_INDIRECT;
  if (g_str_has_prefix(mn, "bx"))
    return RIG_THUMB_RETURN;
  if (strcmp(mn, "b") == 0 || strcmp(mn, "cbz") == 0 || strcmp(mn, "cbnz") == 0)
    return RIG_THUMB_BRANCH;
  for (int i = 0; mn[0] == 'b' && cc[i] != NULL; i++)
    if (strcmp(mn + 1, cc[i]) == 0)
      return RIG_THUMB_BRANCH;
  if (g_str_has_prefix(mn, "svc"))
    return RIG_THUMB_SVC;
  if (g_str_has_prefix(mn, "tbb") || g_str_has_prefix(mn, "tbh"))
    return RIG_THUMB_JUMP_INDIRECT;
  gboolean pc_list = strstr(ops, "pc}") != NULL || strstr(ops, " pc,") != NULL ||
                     strstr(ops, "{pc") != NULL;
  if (g_str_has_prefix(mn, "pop") || g_str_has_prefix(mn, "ldm"))
    return pc_list ? RIG_THUMB_RETURN : RIG_THUMB_OTHER;
  if (g_str_has_prefix(ops, "pc,")) {
    if (g_str_has_prefix(mn, "ldr"))
      return strstr(ops, "[sp") != NULL ? RIG_THUMB_RETURN : RIG_THUMB_JUMP_INDIRECT;
    if (g_str_has_prefix(mn, "mov"))
      return strstr(ops, "lr") != NULL ? RIG_THUMB_RETURN : RIG_THUMB_JUMP_INDIRECT;
    if (g_str_has_prefix(mn, "add"))
      return RIG_THUMB_JUMP_INDIRECT;
  }
  return RIG_THUMB_OTHER;
}

/* Every instruction of the rig's firmware images, classified by trace-thumb.c and by objdump:
 * control-flow kind, direct targets and "stores" must agree. */
static void test_thumb_objdump(void)
{
  const char *build = g_getenv("ORTI_BUILD_DIR");
  g_autofree char *objdump = g_find_program_in_path("arm-none-eabi-objdump");
  g_autofree char *elf = build != NULL ? g_build_filename(build, "tests", "rig", "firmware",
                                                          "demo-trace.elf", NULL) : NULL;
  if (objdump == NULL || elf == NULL || !g_file_test(elf, G_FILE_TEST_EXISTS)) {
    g_test_skip("needs arm-none-eabi-objdump and the rig firmware (ORTI_BUILD_DIR)");
    return;
  }
  const char *argv[] = { objdump, "-d", elf, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  gint status = 0;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                             &out, NULL, &status, &error));
  g_assert_no_error(error);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  guint n = 0, stores = 0, bad = 0;
  for (guint i = 0; lines[i] != NULL; i++) {
    /* "     226:\tf7ff ff8f \tbl\t148 <os_highest_ready>" */
    g_auto(GStrv) f = g_strsplit(lines[i], "\t", 4);
    if (g_strv_length(f) < 3 || !g_str_has_suffix(f[0], ":"))
      continue;
    const char *mn_raw = f[2], *ops = f[3] != NULL ? f[3] : "";
    if (mn_raw[0] == '.' || mn_raw[0] == '\0')
      continue;  /* literal pool data */
    uint32_t pc = (uint32_t)g_ascii_strtoull(f[0], NULL, 16);
    unsigned h1 = 0, h2 = 0;
    int nh = sscanf(f[1], "%x %x", &h1, &h2);
    size_t size = nh == 2 ? 4 : 2;
    uint8_t b[4] = { h1 & 0xFF, h1 >> 8, h2 & 0xFF, h2 >> 8 };
    g_autofree char *mn = g_strdup(mn_raw);
    char *dot = strchr(mn, '.');
    if (dot != NULL)
      *dot = '\0';
    RigThumbKind want = objdump_kind(mn, ops);
    uint32_t target = 0, want_target = 0;
    RigThumbKind got = rig_thumb_classify(b, size, pc, &target);
    if (want == RIG_THUMB_BRANCH || want == RIG_THUMB_CALL)
      want_target = (uint32_t)g_ascii_strtoull(strrchr(ops, ',') ? strrchr(ops, ',') + 1 : ops,
                                               NULL, 16);
    else
      target = 0;
    int want_store = g_str_has_prefix(mn, "str") || g_str_has_prefix(mn, "stm") ||
                     g_str_has_prefix(mn, "push") || g_str_has_prefix(mn, "vst") ||
                     g_str_has_prefix(mn, "vpush") || g_str_has_prefix(mn, "stc");
    int store = rig_thumb_is_store(b, size);
    if (got != want || target != want_target || store != want_store) {
      if (bad++ < 20)
        g_printerr("0x%x %s %s: kind %d (want %d), target 0x%x (want 0x%x), store %d (want %d)\n",
                   pc, mn_raw, ops, got, want, target, want_target, store, want_store);
    }
    n++;
    stores += (guint)want_store;
  }
  g_test_message("%u instructions, %u stores, %u disagreements", n, stores, bad);
  g_assert_cmpuint(n, >, 1000);
  g_assert_cmpuint(bad, ==, 0);
}

static uint64_t fake_gts;

static uint64_t fake_clock(void *user, uint64_t cycle)
{
  (void)user;
  (void)cycle;
  return fake_gts;
}

/* GTSFREQ 1 (every 128 cycles): the GTS goes right after the LTS of the group it stamps; the
 * first after enable is a full GTS1 with Wrap and a GTS2; later ones send only the bytes that
 * changed; a change of TS[47:26] is a full GTS1 with Wrap and a GTS2 again (D4.2.5). */
static void test_global_timestamps(void)
{
  g_autoptr(GByteArray) out = g_byte_array_new();
  RigItm itm;
  rig_itm_init(&itm, sink, out);
  rig_itm_set_global_clock(&itm, fake_clock, NULL);
  RigItmConfig cfg = { .enabled = 1, .tsena = 1, .trace_id = 1, .formatter = 0, .protocol = 0,
                       .bit_cycles = 1, .gtsfreq = 1 };
  rig_itm_configure(&itm, &cfg, 1000);
  /* TS[47:26] = 5, TS[25:21] = 0x15, [20:14] = 0x33, [13:7] = 0x22, [6:0] = 0x11 */
  uint64_t g = (5ull << 26) | (0x15u << 21) | (0x33u << 14) | (0x22u << 7) | 0x11u;
  fake_gts = g;
  rig_itm_stimulus(&itm, 1003, 1, 0x41, 1);
  fake_gts = g + 99;                 /* read at the group's first packet, not at its close */
  rig_itm_advance(&itm, 1004);
  fake_gts = g + 1;
  rig_itm_stimulus(&itm, 1203, 1, 0x42, 1);  /* 200 cycles later: a 1-byte GTS1 */
  rig_itm_advance(&itm, 1204);
  fake_gts = g + 0x80;
  rig_itm_stimulus(&itm, 1213, 1, 0x43, 1);  /* 10 cycles: no GTS */
  rig_itm_advance(&itm, 1214);
  rig_itm_stimulus(&itm, 1343, 1, 0x44, 1);  /* 130 cycles: TS[13:7] changed, 2 bytes */
  rig_itm_advance(&itm, 1344);
  fake_gts = (6ull << 26) | ((g + 0x80) & 0x3FFFFFFu);
  rig_itm_stimulus(&itm, 1543, 1, 0x45, 1);  /* TS[47:26] changed: Wrap, GTS2 */
  rig_itm_advance(&itm, 1544);
  static const uint8_t want[] = {
    0x09, 0x41, 0x30, 0x94, 0x91, 0xA2, 0xB3, 0x55, 0xB4, 0x85, 0x80, 0x80, 0x00,
    0x09, 0x42, 0xC0, 0xC8, 0x01, 0x94, 0x12,
    0x09, 0x43, 0xC0, 0x0A,
    0x09, 0x44, 0xC0, 0x82, 0x01, 0x94, 0x91, 0x23,
    0x09, 0x45, 0xC0, 0xC8, 0x01, 0x94, 0x91, 0xA3, 0xB3, 0x55, 0xB4, 0x86, 0x80, 0x80, 0x00,
  };
  assert_bytes(out, want, sizeof want);
  g_assert_cmpuint(itm.gts_packets, ==, 6);
}

/* The funnel's use of the formatter: bytes of two sources in one frame, each under its ID. */
static void test_frame_sources(void)
{
  g_autoptr(GByteArray) out = g_byte_array_new();
  RigItm itm;
  rig_itm_init(&itm, sink, out);
  RigItmConfig cfg = { .enabled = 1, .formatter = 1, .protocol = 0, .bit_cycles = 1 };
  rig_itm_configure(&itm, &cfg, 0);
  rig_itm_frame_bytes(&itm, 1, (const uint8_t *)"A", 1, 0);
  rig_itm_frame_bytes(&itm, 2, (const uint8_t *)"B", 1, 0);
  rig_itm_frame_flush(&itm);
  /* a switch when the next slot is odd: 'B' moves into it, the change to ID 2 takes its even
   * slot with the aux bit "after the next data byte"; the flush does the same with ID 0 */
  rig_itm_frame_bytes(&itm, 1, (const uint8_t *)"AB", 2, 0);
  rig_itm_frame_bytes(&itm, 2, (const uint8_t *)"C", 1, 0);
  rig_itm_frame_flush(&itm);
  /* a switch in slot 14 ends the frame; the new source's byte opens the next one */
  rig_itm_frame_bytes(&itm, 1, (const uint8_t *)"ABCDEFGHIJKLM", 13, 0);
  rig_itm_frame_bytes(&itm, 2, (const uint8_t *)"X", 1, 0);
  rig_itm_frame_flush(&itm);
  static const uint8_t want[] = {
    0xFF, 0xFF, 0xFF, 0x7F,
    0x03, 0x41, 0x05, 0x42, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00,
    0x03, 0x41, 0x05, 0x42, 0x01, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x06,
    0x03, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C, 0x4D, 0x05, 0x00,
    0x01, 0x58, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
  };
  assert_bytes(out, want, sizeof want);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/trace-itm/packets", test_packets);
  g_test_add_func("/trace-itm/timestamps", test_timestamps);
  g_test_add_func("/trace-itm/bandwidth", test_bandwidth);
  g_test_add_func("/trace-itm/formatter", test_formatter);
  g_test_add_func("/trace-itm/global-timestamps", test_global_timestamps);
  g_test_add_func("/trace-itm/frame-sources", test_frame_sources);
  g_test_add_func("/trace-itm/thumb", test_thumb);
  g_test_add_func("/trace-itm/thumb-objdump", test_thumb_objdump);
  return g_test_run();
}
