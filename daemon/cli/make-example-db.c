/* make-example-db DIR PROGRAM — writes the example store and its input files into DIR
 * (example-db.h; PROGRAM: an ELF with a build id, copied as the PC-sampled sessions' ELF), for
 * the tests that run the documentation's command examples (tests/docs). */
#include "example-db.h"

#include <glib.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  if (argc != 3) {
    fprintf (stderr, "usage: %s DIR PROGRAM\n", argv[0]);
    return 2;
  }
  example_db_write (argv[1], argv[2], TRUE);
  return 0;
}
