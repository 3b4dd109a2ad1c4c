/* exit-status.c — which exit status an error means (exit-status.h): the one place that sorts
 * every module's error codes into "bad input" (2) and "the work failed" (1), so two commands
 * meeting the same error exit alike. */
#include "exit-status.h"

#include "budgets.h"
#include "orti.h"
#include "probe.h"
#include "session.h"
#include "store.h"
#include "store-pg.h"
#include "web.h"

OrtiExitStatus
orti_exit_status_for_error (const GError *error)
{
  if (error == NULL)
    return ORTI_EXIT_FAILED;
  if (error->domain == G_OPTION_ERROR || error->domain == G_KEY_FILE_ERROR ||
      error->domain == BUDGET_ERROR)
    return ORTI_EXIT_BAD_INPUT;
  if (error->domain == G_FILE_ERROR)
    switch (error->code) {
    case G_FILE_ERROR_NOENT:
    case G_FILE_ERROR_ISDIR:
    case G_FILE_ERROR_NOTDIR:
    case G_FILE_ERROR_NAMETOOLONG:
    case G_FILE_ERROR_INVAL:
      return ORTI_EXIT_BAD_INPUT;
    default:
      return ORTI_EXIT_FAILED;
    }
  if (error->domain == G_IO_ERROR)
    switch (error->code) {
    case G_IO_ERROR_NOT_FOUND:
    case G_IO_ERROR_IS_DIRECTORY:
    case G_IO_ERROR_NOT_DIRECTORY:
    case G_IO_ERROR_FILENAME_TOO_LONG:
    case G_IO_ERROR_INVALID_FILENAME:
    case G_IO_ERROR_INVALID_ARGUMENT:
      return ORTI_EXIT_BAD_INPUT;
    default:
      return ORTI_EXIT_FAILED;
    }
  if (error->domain == STORE_ERROR)
    switch ((StoreError) error->code) {
    case STORE_ERROR_NOT_DATABASE:
    case STORE_ERROR_CORRUPT:
    case STORE_ERROR_FOREIGN:
    case STORE_ERROR_TOO_NEW:
    case STORE_ERROR_TOO_OLD:
    case STORE_ERROR_NO_FILE:
    case STORE_ERROR_SQL:
    case STORE_ERROR_DENIED:
    case STORE_ERROR_NOT_FOUND:
      return ORTI_EXIT_BAD_INPUT;
    case STORE_ERROR_IO:
    case STORE_ERROR_TIMEOUT:
    case STORE_ERROR_TOO_BIG:
    case STORE_ERROR_CLOSED:
    case STORE_ERROR_RUNNING:
      return ORTI_EXIT_FAILED;
    }
  if (error->domain == STORE_PG_ERROR) /* what the user must fix: the URL, the credentials,
                                         * the server's schema (`push` migrates it), the build */
    switch ((StorePgError) error->code) {
    case STORE_PG_ERROR_CONNECT:
    case STORE_PG_ERROR_AUTH:
    case STORE_PG_ERROR_DENIED:
    case STORE_PG_ERROR_TOO_NEW:
    case STORE_PG_ERROR_TOO_OLD:
    case STORE_PG_ERROR_UNSUPPORTED:
      return ORTI_EXIT_BAD_INPUT;
    case STORE_PG_ERROR_LOST:
    case STORE_PG_ERROR_DISK_FULL:
    case STORE_PG_ERROR_TIMEOUT:
    case STORE_PG_ERROR_TOO_BIG:
    case STORE_PG_ERROR_SQL:
      return ORTI_EXIT_FAILED;
    }
  if (error->domain == ORTI_ERROR)
    return error->code == ORTI_ERROR_READ || error->code == ORTI_ERROR_EVAL ? ORTI_EXIT_FAILED
                                                                            : ORTI_EXIT_BAD_INPUT;
  if (error->domain == WEB_ERROR)
    return error->code == WEB_ERROR_CONFIG || error->code == WEB_ERROR_NOT_FOUND
             ? ORTI_EXIT_BAD_INPUT : ORTI_EXIT_FAILED;
  if (error->domain == PROBE_ERROR) /* a capture that does not parse is bad input */
    return error->code == PROBE_ERROR_FORMAT || error->code == PROBE_ERROR_FORMAT_VERSION
             ? ORTI_EXIT_BAD_INPUT : ORTI_EXIT_FAILED;
  if (error->domain == SESSION_ERROR)
    return error->code == SESSION_ERROR_CONFIG ? ORTI_EXIT_BAD_INPUT : ORTI_EXIT_FAILED;
  return ORTI_EXIT_FAILED;
}
