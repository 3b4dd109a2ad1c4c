/* test-rtt-drain-script.c — the RTT drain script (probe_rtt_drain_script) run alone in tclsh,
 * against a fake target whose read_memory/write_memory act on a Tcl array (OpenOCD's Jim Tcl
 * runs the same subset): what it reads and whether it releases the held range, in the cases
 * the release must tell apart — the previous drain's script never ran, it ran but its reply was
 * lost, the block was re-initialised, another reader moved RdOff — and at a ring wrap. Skipped
 * without tclsh. (The whole link against real OpenOCD: tests/e2e/test-rtt-lost-reply.c.) */
#include "probe.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define DESC 0x20000018u /* up-buffer descriptor: WrOff at +12, RdOff at +16 */
#define BUF 0x20001000u
#define SIZE 64u

typedef struct {
  guint32 wr, rd;       /* the target's offsets before the script */
  guint32 rd_off, upto; /* the held range the script is built with */
  guint32 max;          /* max_bytes */
  gboolean rewritten;   /* the ring's word at 16 holds other bytes than were received */
} Case;

typedef struct {
  guint32 began, ended; /* the reply's "B E" */
  guint32 rd;           /* RdOff after the script */
  GByteArray *bytes;    /* the parts' bytes */
} Result;

static const char *tclsh;

/* Runs the script of @c on a ring whose byte i is i + 1; FALSE when the script failed. */
static gboolean
run (const Case *c, Result *res)
{
  /* the held range's last whole word as received (ring byte i was i + 1) */
  guint32 last = 0, at = (c->upto & ~3u) - 4;
  for (guint b = 0; b < 4; b++)
    last |= (guint32) (at + b + 1) << (8 * b);
  g_autofree char *script = probe_rtt_drain_script (NULL, DESC, BUF, SIZE, c->max, c->rd_off,
                                                    c->upto, last);
  g_autoptr (GString) prog = g_string_new (
      "proc read_memory {a w n} { global mem; set l {}; "
      "for {set i 0} {$i < $n} {incr i} {lappend l [format 0x%x $mem([expr {$a + 4 * $i}])]}; "
      "return $l }\n"
      "proc write_memory {a w v} { global mem; set mem([expr {$a}]) [expr {$v}] }\n");
  for (guint i = 0; i < SIZE; i += 4) {
    guint32 w = 0;
    for (guint b = 0; b < 4; b++)
      w |= (guint32) (i + b + 1) << (8 * b);
    g_string_append_printf (prog, "set mem(%u) %u\n", BUF + i, w);
  }
  g_string_append_printf (prog, "set mem(%u) %u\nset mem(%u) %u\n", DESC + 12, c->wr, DESC + 16,
                          c->rd);
  if (c->rewritten)
    g_string_append_printf (prog, "set mem(%u) 0xdeadbeef\n", BUF + 16);
  g_string_append_printf (prog, "if {[catch {%s} r]} {puts \"ERROR $r\"} else {puts $r}\n"
                          "puts $mem(%u)\n", script, DESC + 16);
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("rtt-drain-XXXXXX.tcl", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, prog->str, -1, &error));
  const char *argv[] = { tclsh, path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_unlink (path);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >=, 2);
  if (g_str_has_prefix (lines[0], "ERROR"))
    return FALSE;
  res->rd = (guint32) g_ascii_strtoull (lines[1], NULL, 0);
  g_auto (GStrv) words = g_strsplit (lines[0], " ", -1);
  guint n = g_strv_length (words);
  g_assert_cmpuint (n, >=, 2);
  res->began = (guint32) g_ascii_strtoull (words[0], NULL, 0);
  res->ended = (guint32) g_ascii_strtoull (words[1], NULL, 0);
  res->bytes = g_byte_array_new ();
  for (guint i = 2; i < n;) { /* "S N w0 …" */
    guint skip = (guint) g_ascii_strtoull (words[i], NULL, 0);
    guint len = (guint) g_ascii_strtoull (words[i + 1], NULL, 0);
    guint nw = (skip + len + 3) / 4;
    g_assert_cmpuint (i + 2 + nw, <=, n);
    guint8 b[SIZE + 8];
    for (guint k = 0; k < nw; k++) {
      guint32 v = (guint32) g_ascii_strtoull (words[i + 2 + k], NULL, 0);
      for (guint j = 0; j < 4; j++)
        b[4 * k + j] = (guint8) (v >> (8 * j));
    }
    g_byte_array_append (res->bytes, b + skip, len);
    i += 2 + nw;
  }
  return TRUE;
}

/* @res holds the ring's bytes from offset @from to @to (mod SIZE) (but 16..19 when
 * @rewritten). */
static void
assert_bytes (const Result *res, guint32 from, guint32 to, gboolean rewritten)
{
  guint32 n = (to - from + SIZE) % SIZE;
  g_assert_cmpuint (res->bytes->len, ==, n);
  for (guint32 i = 0; i < n; i++)
    if (!rewritten || (from + i) % SIZE / 4 != 4)
      g_assert_cmpuint (res->bytes->data[i], ==, (from + i) % SIZE + 1);
}

static void
check (const Case *c, guint32 began, guint32 ended, guint32 rd_after)
{
  if (tclsh == NULL) {
    g_test_skip ("no tclsh");
    return;
  }
  Result res = { 0 };
  g_assert_true (run (c, &res));
  g_assert_cmpuint (res.began, ==, began);
  g_assert_cmpuint (res.ended, ==, ended);
  g_assert_cmpuint (res.rd, ==, rd_after);
  assert_bytes (&res, began, ended, c->rewritten);
  g_byte_array_unref (res.bytes);
}

static void
test_nothing_held (void)
{
  /* reads RdOff..WrOff and leaves RdOff where it was: the next drain releases */
  check (&(Case) { .wr = 30, .rd = 10, .rd_off = 0, .upto = 0, .max = 1000 }, 10, 30, 10);
  /* capped */
  check (&(Case) { .wr = 30, .rd = 10, .max = 7 }, 10, 17, 10);
}

static void
test_release (void)
{
  /* the previous drain read 10..20: released, then 20..30 read */
  check (&(Case) { .wr = 30, .rd = 10, .rd_off = 10, .upto = 20, .max = 1000 }, 20, 30, 20);
  /* release only (detach) */
  check (&(Case) { .wr = 30, .rd = 10, .rd_off = 10, .upto = 20, .max = 0 }, 20, 20, 20);
}

static void
test_previous_reply_lost (void)
{
  /* the script of the lost reply ran: RdOff is at 20 already, nothing written, 20..30 read —
   * the bytes that reply carried (20..) come again, none before them */
  check (&(Case) { .wr = 30, .rd = 20, .rd_off = 10, .upto = 20, .max = 1000 }, 20, 30, 20);
}

static void
test_reinit (void)
{
  /* the block was re-initialised (RdOff 0) and holds fewer bytes than the held range's end:
   * not released, the new stream read from 0 */
  check (&(Case) { .wr = 12, .rd = 0, .rd_off = 0, .upto = 20, .max = 1000 }, 0, 12, 0);
  /* a range held from 0, the ring unchanged: released */
  check (&(Case) { .wr = 30, .rd = 0, .rd_off = 0, .upto = 20, .max = 1000 }, 20, 30, 20);
  /* re-initialised and already past the held range's end, but the restarted stream wrote
   * other bytes there: not released */
  check (&(Case) { .wr = 30, .rd = 0, .rd_off = 0, .upto = 20, .max = 1000, .rewritten = TRUE },
         0, 30, 0);
  /* another reader moved RdOff elsewhere: left alone */
  check (&(Case) { .wr = 30, .rd = 25, .rd_off = 10, .upto = 20, .max = 1000 }, 25, 30, 25);
}

static void
test_wrap (void)
{
  /* held 50..60, WrOff wrapped to 8: released, then 60..64 and 0..8 read in two parts */
  check (&(Case) { .wr = 8, .rd = 50, .rd_off = 50, .upto = 60, .max = 1000 }, 60, 8, 60);
  /* held range across the end (50..5), WrOff at 8: released, 5..8 read */
  check (&(Case) { .wr = 8, .rd = 50, .rd_off = 50, .upto = 5, .max = 1000 }, 5, 8, 5);
  /* the same held range, but WrOff (3) short of its end: a re-initialised block, not released */
  check (&(Case) { .wr = 3, .rd = 50, .rd_off = 50, .upto = 5, .max = 1000 }, 50, 3, 50);
}

static void
test_bad_offsets (void)
{
  if (tclsh == NULL) {
    g_test_skip ("no tclsh");
    return;
  }
  Result res = { 0 };
  g_assert_false (run (&(Case) { .wr = SIZE, .rd = 0, .max = 1000 }, &res));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autofree char *found = g_find_program_in_path ("tclsh");
  tclsh = found;
  g_test_add_func ("/rtt-drain-script/nothing-held", test_nothing_held);
  g_test_add_func ("/rtt-drain-script/release", test_release);
  g_test_add_func ("/rtt-drain-script/previous-reply-lost", test_previous_reply_lost);
  g_test_add_func ("/rtt-drain-script/reinit", test_reinit);
  g_test_add_func ("/rtt-drain-script/wrap", test_wrap);
  g_test_add_func ("/rtt-drain-script/bad-offsets", test_bad_offsets);
  return g_test_run ();
}
