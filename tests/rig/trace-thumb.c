/* trace-thumb.c — control-flow classes of Thumb-2 instructions (ARMv7-M ARM, DDI0403E
 * chapter A5: 16-bit encodings A5.2, 32-bit branches and misc control A5.3.4, load multiple
 * A5.3.5, loads A5.3.7, table branch A5.3.8). See trace-thumb.h.
 */
#include "trace-thumb.h"

static uint32_t thumb_sext(uint32_t v, unsigned bits)
{
  uint32_t m = 1u << (bits - 1);
  return (v ^ m) - m;
}

static RigThumbKind thumb_16(uint16_t h, uint32_t pc, uint32_t *target)
{
  if ((h & 0xFF87u) == 0x4700u)           /* BX Rm */
    return RIG_THUMB_RETURN;
  if ((h & 0xFF87u) == 0x4780u)           /* BLX Rm */
    return RIG_THUMB_CALL_INDIRECT;
  if ((h & 0xFF00u) == 0xBD00u)           /* POP {..., PC} */
    return RIG_THUMB_RETURN;
  if ((h & 0xFF87u) == 0x4687u)           /* MOV PC, Rm */
    return ((h >> 3) & 15u) == 14u ? RIG_THUMB_RETURN : RIG_THUMB_JUMP_INDIRECT;
  if ((h & 0xFF87u) == 0x4487u)           /* ADD PC, Rm */
    return RIG_THUMB_JUMP_INDIRECT;
  if ((h & 0xFF00u) == 0xDF00u)           /* SVC */
    return RIG_THUMB_SVC;
  if ((h & 0xF000u) == 0xD000u && (h & 0x0E00u) != 0x0E00u) {  /* B<cond> T1 */
    *target = pc + 4 + thumb_sext((h & 0xFFu) << 1, 9);
    return RIG_THUMB_BRANCH;
  }
  if ((h & 0xF800u) == 0xE000u) {         /* B T2 */
    *target = pc + 4 + thumb_sext((h & 0x7FFu) << 1, 12);
    return RIG_THUMB_BRANCH;
  }
  if ((h & 0xF500u) == 0xB100u) {         /* CBZ/CBNZ */
    *target = pc + 4 + ((((h >> 9) & 1u) << 6) | (((h >> 3) & 31u) << 1));
    return RIG_THUMB_BRANCH;
  }
  return RIG_THUMB_OTHER;
}

static RigThumbKind thumb_32(uint16_t h1, uint16_t h2, uint32_t pc, uint32_t *target)
{
  if ((h1 & 0xF800u) == 0xF000u && (h2 & 0x8000u) != 0) {  /* branches, misc control */
    uint32_t s = (h1 >> 10) & 1u, j1 = (h2 >> 13) & 1u, j2 = (h2 >> 11) & 1u;
    switch (h2 & 0x5000u) {
    case 0x5000u:                          /* BL */
    case 0x1000u: {                        /* B.W T4 */
      uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
      uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((h1 & 0x3FFu) << 12) |
                     ((h2 & 0x7FFu) << 1);
      *target = pc + 4 + thumb_sext(imm, 25);
      return (h2 & 0x4000u) ? RIG_THUMB_CALL : RIG_THUMB_BRANCH;
    }
    case 0x0000u:                          /* B<cond>.W T3, unless misc control */
      if (((h1 >> 6) & 0xEu) == 0xEu)
        return RIG_THUMB_OTHER;
      *target = pc + 4 + thumb_sext((s << 20) | (j2 << 19) | (j1 << 18) |
                                    ((h1 & 0x3Fu) << 12) | ((h2 & 0x7FFu) << 1), 21);
      return RIG_THUMB_BRANCH;
    default:
      return RIG_THUMB_OTHER;
    }
  }
  if ((h1 & 0xFFD0u) == 0xE890u || (h1 & 0xFFD0u) == 0xE910u)  /* LDM(IA|DB) with PC */
    return (h2 & 0x8000u) ? RIG_THUMB_RETURN : RIG_THUMB_OTHER;
  if ((h1 & 0xFFF0u) == 0xE8D0u && (h2 & 0xFFE0u) == 0xF000u)  /* TBB/TBH */
    return RIG_THUMB_JUMP_INDIRECT;
  if ((h1 & 0xFF70u) == 0xF850u && (h2 >> 12) == 15u)         /* LDR PC, ... */
    return (h1 & 0xFu) == 13u ? RIG_THUMB_RETURN : RIG_THUMB_JUMP_INDIRECT;
  return RIG_THUMB_OTHER;
}

int rig_thumb_is_store(const uint8_t *bytes, size_t size)
{
  uint16_t h = (uint16_t)(bytes[0] | (bytes[1] << 8));
  if (size < 4) {
    if ((h & 0xF000u) == 0x5000u)               /* register offset: STR, STRH, STRB */
      return ((h >> 9) & 7u) <= 2u;
    return (h & 0xF800u) == 0x6000u ||          /* STR imm */
           (h & 0xF800u) == 0x7000u ||          /* STRB imm */
           (h & 0xF800u) == 0x8000u ||          /* STRH imm */
           (h & 0xF800u) == 0x9000u ||          /* STR SP-relative */
           (h & 0xFE00u) == 0xB400u ||          /* PUSH */
           (h & 0xF800u) == 0xC000u;            /* STMIA */
  }
  return (h & 0xFE50u) == 0xE800u ||            /* STM, STMDB, PUSH.W */
         (h & 0xFE50u) == 0xE840u ||            /* STRD, STREX, STREXB/H */
         (h & 0xFF10u) == 0xF800u ||            /* STR, STRB, STRH (.W, T3/T4) */
         (h & 0xEE10u) == 0xEC00u;              /* STC/STC2, VSTR, VSTM, VPUSH */
}

RigThumbKind rig_thumb_classify(const uint8_t *bytes, size_t size, uint32_t pc,
                                uint32_t *target)
{
  uint16_t h1 = (uint16_t)(bytes[0] | (bytes[1] << 8));
  if (size < 4)
    return thumb_16(h1, pc, target);
  uint16_t h2 = (uint16_t)(bytes[2] | (bytes[3] << 8));
  return thumb_32(h1, h2, pc, target);
}
