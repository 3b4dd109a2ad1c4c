/* orti-error.c — the ORTI_ERROR domain (orti.h). */
#include "orti.h"

G_DEFINE_QUARK (orti-error-quark, orti_error)
