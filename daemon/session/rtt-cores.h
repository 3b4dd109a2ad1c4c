/* rtt-cores.h — where each core's orti-trace control block is, for a live RTT session over an
 * AMP target (`run --source rtt --target-per-core …`, issue 19).
 *
 * The rule: each core's control block (and orti_trace_info) is that core's copy of the
 * library's symbols — `--rtt-address-per-core ADDR,ADDR,…` when given (a two-image system:
 * each core's ELF has its own orti_trace_rtt, e.g. `nm core1.elf`), else the ELF's per-core
 * copies (`.CORE<N>.` sections, as orti-elf tells ORTI variables apart). One copy for every
 * core is refused: the cores would read one block. Pure: no I/O beyond the opened ELF. */
#pragma once

#include <glib.h>

#include "orti.h"

G_BEGIN_DECLS

typedef struct {
  guint64 cb;    /* orti_trace_rtt of this core */
  guint64 info;  /* orti_trace_info of this core, 0: unknown (the stream header says the rate) */
} RttCoreBlock;

/* rtt_cores_parse_addresses: "ADDR,ADDR,…" (C integer syntax, 0x…; spaces around entries
 * allowed) into a newly allocated GArray of guint64. FALSE naming the bad entry for an empty
 * list or entry, junk, 0, or a value above 32 bits. */
gboolean rtt_cores_parse_addresses (const char *text, GArray **out, GError **error);

/* rtt_cores_resolve: each core's block, in core order, into *@blocks (newly allocated GArray of
 * RttCoreBlock): @given (@n_given addresses, the option) else @elf's per-core copies of
 * orti_trace_rtt and orti_trace_info (named @elf_path in messages). @n_targets: the cores
 * --target-per-core names (0: auto, any count). FALSE with SESSION_ERROR_CONFIG when the
 * counts differ, the ELF has no per-core copies (one block for all), or a core's copy is
 * missing. */
gboolean rtt_cores_resolve (OrtiElf *elf, const char *elf_path, const guint64 *given,
                            guint n_given, guint n_targets, GArray **blocks, GError **error);

G_END_DECLS
