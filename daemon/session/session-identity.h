/* session-identity.h — what a session records of its bench and its build, so that sessions
 * pushed from many benches to a shared store can be grouped (docs/fleet.md): the machine and
 * the debug adapter (the ELF's GNU build id is orti_elf_get_build_id's). The build label and
 * tags are the user's (--label, --tag; session_identity_check_tag in session.h). What cannot be found is NULL ("unknown"), never made up. */
#pragma once

#include "probe.h"

#include <glib.h>

/* session_identity_probe: the debug adapter OpenOCD drives (`adapter name`: cmsis-dap,
 * st-link, jlink, …); NULL when @oc is NULL or OpenOCD does not say. */
char *session_identity_probe (ProbeOpenocd *oc);
