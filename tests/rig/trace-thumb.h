/* trace-thumb.h — just enough Thumb-2 decoding for the rig's trace unit to follow control flow
 * without reading registers (QEMU 7.2 plugins cannot): which instructions call, branch
 * directly (and where), or leave through a register or the stack (returns, including the
 * EXC_RETURN branch that ends an exception handler), and which store (only those get a
 * memory callback: QEMU 7.2 calls write callbacks on loads too, a third of all
 * instructions). Pure; tested in test-trace-itm.c, also against objdump.
 */
#ifndef TRACE_THUMB_H
#define TRACE_THUMB_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  RIG_THUMB_OTHER,          /* no control transfer */
  RIG_THUMB_BRANCH,         /* B, B<cond>, CBZ/CBNZ: direct, target known */
  RIG_THUMB_CALL,           /* BL: direct, target known */
  RIG_THUMB_CALL_INDIRECT,  /* BLX Rm */
  RIG_THUMB_RETURN,         /* BX Rm, POP/LDM with PC, LDR PC,[SP..], MOV PC,LR */
  RIG_THUMB_JUMP_INDIRECT,  /* TBB/TBH, LDR PC from elsewhere, ADD/MOV PC,Rm */
  RIG_THUMB_SVC,            /* SVC: an exception entry follows */
} RigThumbKind;

/* Classifies the instruction of `size` bytes (2 or 4, as QEMU reports it) at `pc`. For direct
 * branches and calls stores the target address in *target (else leaves it alone). */
RigThumbKind rig_thumb_classify(const uint8_t *bytes, size_t size, uint32_t pc,
                                uint32_t *target);

/* 1 if the instruction of `size` bytes writes memory (STR*, STM*, PUSH, STRD, STREX*, and the
 * coprocessor/FP stores); 0 if it cannot. */
int rig_thumb_is_store(const uint8_t *bytes, size_t size);

#endif /* TRACE_THUMB_H */
