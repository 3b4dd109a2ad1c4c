/* inspect-evidence.h — `inspect`'s "Job evidence" section: what a session of each source
 * would decide each task's job ends and preemptions on (session-evidence.h), and the SWO
 * source's comparator plan (what a DWT comparator traces, in order, and what it cannot), as
 * the session resolves them from the same ORTI file and ELF before touching a target. */
#pragma once

#include "orti.h"

#include <json-glib/json-glib.h>

/* inspect_evidence_print: the section as text on stdout, for ORTI file @orti_path resolved on
 * @elf_path (NULL: none) for @core (-1: every core) with the user's @options (NULL: none). A
 * file a session could not use prints why. */
void inspect_evidence_print (const char *orti_path, const char *elf_path, int core,
                             const OrtiWatchOptions *options);
/* inspect_evidence_json: the same as member "job_evidence" of the object @b is building:
 * {"poll": [{"task", "value", "plan"}…], "swo": {"comparators": [{"comparator", "attr",
 * "channel"}…], "notes": […], "tasks": [{"task", "value", "plan"}…]} | {"error": …}}, or
 * {"error": …} when no session could be made. */
void inspect_evidence_json (JsonBuilder *b, const char *orti_path, const char *elf_path,
                            int core, const OrtiWatchOptions *options);
