/* command-config.c — string and file options from the configuration files (command-config.h). */
#include "command-config.h"
#include "web.h"

#include <stdio.h>
#include <string.h>

static char *config_path; /* --config FILE, or NULL */

const GOptionEntry command_config_entry = {
  "config", 0, 0, G_OPTION_ARG_FILENAME, &config_path,
  "Read options from this file too (after /etc/orti-profd.conf and ~/.config/orti-profd.conf)",
  "FILE"
};

/* Loads @path into @kf; a missing file is fine unless @must_exist. */
static gboolean
load (GKeyFile *kf, const char *path, gboolean must_exist, gboolean *loaded, GError **error)
{
  g_autoptr (GError) local = NULL;
  *loaded = g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &local);
  if (*loaded || (!must_exist && g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT)))
    return TRUE;
  g_set_error (error, local->domain, local->code, "config file %s: %s", path, local->message);
  return FALSE;
}

gboolean
command_config_fill (const GOptionEntry *entries, GError **error)
{
  g_autofree char *user = g_build_filename (g_get_user_config_dir (), "orti-profd.conf", NULL);
  /* the first that has a key gives its value: --config, then the user's, then the system's */
  const char *paths[] = { config_path, user, "/etc/orti-profd.conf" };
  for (gsize f = 0; f < G_N_ELEMENTS (paths); f++) {
    if (paths[f] == NULL)
      continue;
    g_autoptr (GKeyFile) kf = g_key_file_new ();
    gboolean loaded = FALSE;
    if (!load (kf, paths[f], f == 0, &loaded, error))
      return FALSE;
    /* a token in a file other users may read is no secret (as run refuses it) */
    g_autoptr (GError) perm = NULL;
    if (loaded && g_key_file_has_key (kf, "orti-profd", "http_token", NULL) &&
        !web_check_private_file (paths[f], &perm)) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "config file %s",
                   perm->message);
      return FALSE;
    }
    for (const GOptionEntry *e = entries; loaded && e->long_name != NULL; e++) {
      if (e->arg != G_OPTION_ARG_STRING && e->arg != G_OPTION_ARG_FILENAME)
        continue;
      char **value = e->arg_data;
      if (*value != NULL || e->arg_data == &config_path)
        continue;
      g_autofree char *key = g_strdelimit (g_strdup (e->long_name), "-", '_');
      *value = g_key_file_get_string (kf, "orti-profd", key, NULL);
    }
  }
  return TRUE;
}

gboolean
command_parse (const char *name, const char *params, const char *description,
               GOptionEntry *entries, gboolean config, int *argc, char ***argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new (params);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (description != NULL)
    g_option_context_set_description (ctx, description);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, argc, argv, &error) ||
      (config && !command_config_fill (entries, &error))) {
    fprintf (stderr, "%s: %s\n", name, error->message);
    return FALSE;
  }
  return TRUE;
}
