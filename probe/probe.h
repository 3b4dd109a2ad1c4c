/* probe.h — orti-profd's probe library: the Event, and the sources and decoders that make it.
 *
 * The Event is the one currency between the probe (poll, RTT, replay sources) and the slicer
 * (daemon/), and the row format of the store's raw events table (../DESIGN.md "Data flow").
 * It is a small fixed struct: a timestamp in target ticks, the core it happened on, its kind,
 * and two 32-bit payload words whose meaning depends on the kind (table below).
 *
 * Identities carried in the payload are the target's own values: a task is identified by the
 * value the OS keeps in RUNNINGTASK (an index or a TCB address, truncated to 32 bits) or gives
 * to PreTaskHook; a function by its entry address (or, for text input, an interned id).
 * Turning values into names is the job of whoever owns the name table (the session), never
 * of the Event.
 *
 * This header never includes daemon/, store/ or web/ headers.
 *
 * This is the umbrella header: one header per layer or source, each usable alone —
 *   probe-event.h       the Event, gap reasons, the error domain
 *   probe-openocd.h     the OpenOCD client and its Tcl lists
 *   probe-capture.h     capture files (--record / --replay)
 *   probe-rtt.h         the RTT stream decoder and link
 *   probe-poll.h        the poll sampler and decoder
 *   probe-cortexm.h     the Cortex-M debug and trace registers
 *   probe-source.h      the sources behind one interface
 *   probe-swo.h         the SWO decoders (TPIU, orbflow, ITM/DWT, mapper)
 *   probe-source-swo.h  the SWO source
 */
#pragma once

#include "probe-event.h"
#include "probe-openocd.h"
#include "probe-capture.h"
#include "probe-rtt.h"
#include "probe-poll.h"
#include "probe-cortexm.h"
#include "probe-source.h"
#include "probe-swo.h"
#include "probe-source-swo.h"
