/* example-db.h — the example store of the command tests (test-exit-status, the docs'
 * examples): a database written through the store, and the input files beside it. */
#pragma once

/* example_db_write: @dir/profile.db with session 1 (exact: RTT, task Task0, one function
 * call), 2 (sampled: poll, loads with bounds), 3 (SWO, no calls), 4 and 5 (PC samples; 5's
 * ELF moved away), with @latest_exact a session 6 as session 1 (the latest then has tasks);
 * beside it app.elf (a copy of @program, with a build id), pass.ini,
 * violated.ini, undecided.ini (Task0's load against 90, 1 and 47 %), bad.ini, events.txt,
 * bad-events.txt, bad.ort, bad.ocap, notes.txt (no database), orti-profd.conf (db = the
 * database), and the directory out/. Aborts the test on failure. */
#include <glib.h>

void example_db_write (const char *dir, const char *program, gboolean latest_exact);
