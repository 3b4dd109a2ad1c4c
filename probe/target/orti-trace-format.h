/* orti-trace-format.h — constants of the orti-trace byte format (docs/event-format.md).
 *
 * Shared by the firmware writer (orti-trace.c) and the host decoder (probe/rtt-decoder.c) so
 * the two cannot disagree. Not part of the firmware's public API. */
#ifndef ORTI_TRACE_FORMAT_H
#define ORTI_TRACE_FORMAT_H

/* Record types: the high nibble of the first byte. For types below OTF_SPECIAL_MIN the low
 * nibble carries the timestamp delta: bit 3 = more delta bytes follow (LEB128 of delta >> 3),
 * bits 2..0 = delta & 7. */
#define OTF_FUNC_ENTER 0x0u    /* + LEB128 of the folded address difference d: d or ~d */
#define OTF_FUNC_EXIT 0x1u     /* nothing: exits the innermost open function */
#define OTF_TASK_IN 0x2u       /* + LEB128 (task id + 1) */
#define OTF_TASK_OUT 0x3u      /* + LEB128 (task id + 1) */
#define OTF_ISR_ENTER 0x4u     /* + LEB128 isr id */
#define OTF_ISR_EXIT 0x5u      /* + LEB128 isr id */
#define OTF_SERVICE_ENTER 0x6u /* + LEB128 service id */
#define OTF_SERVICE_EXIT 0x7u  /* + LEB128 service id */
#define OTF_PP_BEGIN 0x8u      /* + LEB128 profile point id */
#define OTF_PP_END 0x9u        /* + LEB128 profile point id */
#define OTF_PP_END_LATCH 0xAu  /* + LEB128 profile point id (latched measurement) */
#define OTF_DATA 0xBu          /* + LEB128 variable id + LEB128 value */
#define OTF_DROP 0xCu          /* + LEB128 records dropped just before this one */
#define OTF_TASK_EVENT 0xDu    /* + LEB128 (task id << 1 | 1 terminate / 0 activate) */
#define OTF_SPECIAL_MIN 0xEu   /* 0xE0 and 0xF0 are fixed-size records; 0xE1… extensions */

/* Extension records: a whole first byte of type 0xE with a nonzero low nibble, no timestamp
 * delta (they take the time of the previous record and leave it unchanged). */
#define OTF_PP_ALPHA 0xE1u     /* + LEB128 profile point id + LEB128 alpha (16.16 fixed) */

/* Stream header: E0 'O' 'T' version, tick_hz u32le, core u16le, check a, check b. */
#define OTF_HEADER 0xE0u
#define OTF_HEADER_MAGIC1 0x4Fu /* 'O' */
#define OTF_HEADER_MAGIC2 0x54u /* 'T' */
#define OTF_HEADER_LEN 12u

/* Sync: F0 A5 5A version, ts u32le, last function address u32le (bit 0 clear), task+1 u32le,
 * check a, check b. */
#define OTF_SYNC 0xF0u
#define OTF_SYNC_MAGIC1 0xA5u
#define OTF_SYNC_MAGIC2 0x5Au
#define OTF_SYNC_LEN 18u

/* Longest record in bytes (sync); a plain record is at most 1 + 5 + 5 + 5 = 16. */
#define OTF_MAX_RECORD 18u
#define OTF_MAX_PLAIN_RECORD 16u

#endif /* ORTI_TRACE_FORMAT_H */
