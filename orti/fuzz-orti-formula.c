/* fuzz-orti-formula.c — libFuzzer target: arbitrary bytes compiled as a formula without an
 * ELF, then evaluated against a target whose memory reads as zeros. Finds crashes, leaks and
 * undefined behaviour in the formula parser, the plan compiler and the evaluator. */
#include <string.h>

#include "orti.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static gboolean
zero_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  memset (buf, 0, size);
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *formula = g_strndup ((const char *) data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiPlan) plan = orti_plan_compile (formula, NULL, -1, &error);
  if (plan != NULL) {
    gint64 value = 0;
    g_autoptr (GError) eval_error = NULL;
    for (guint i = 0; i < orti_plan_get_n_reads (plan); i++)
      g_assert (orti_plan_get_read (plan, i)->width <= 8);
    (void) orti_plan_eval (plan, zero_read, NULL, &value, &eval_error);
  } else {
    g_assert (error != NULL && error->domain == ORTI_ERROR);
  }
  return 0;
}
