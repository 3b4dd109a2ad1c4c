/* command-config.h — options from configuration files, for every command: the files run
 * reads (/etc/orti-profd.conf, then ~/.config/orti-profd.conf, then --config FILE; GKeyFile,
 * group [orti-profd], keys named like the long options with '_' for '-') fill the string and
 * file options a command was not given on the command line. One file serves every command:
 * a key a command has no option for is left to the commands that have one (`db` is every
 * command's; `orti`, `openocd` are run's), so only run, which knows every key of the file,
 * refuses unknown ones (cmd-run.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* command_config_entry: the --config FILE option to add to a command's entries (its value
 * is kept here). */
extern const GOptionEntry command_config_entry;

/* command_config_fill:
 * Fills each G_OPTION_ARG_STRING or G_OPTION_ARG_FILENAME entry of @entries (ended by a
 * zeroed entry) whose value is still NULL from the files, later files first. FALSE with a
 * G_KEY_FILE_ERROR or G_FILE_ERROR naming the file when --config FILE cannot be read, a file
 * does not parse, or one holding http_token may be read by other users (a missing /etc or
 * user file is fine). */
gboolean command_config_fill (const GOptionEntry *entries, GError **error);

/* command_parse:
 * A command's options: parses *@argc / *@argv (argv[0] the command's name) with @entries
 * (ended by a zeroed entry), @params and @description as g_option_context_new() and
 * g_option_context_set_description() take them (@description NULL: none), then, when
 * @config, fills them from the configuration files (command_config_fill). FALSE after
 * printing "NAME: why" on stderr (an unknown option, a bad value, a file that cannot be
 * read): the command then exits with ORTI_EXIT_BAD_INPUT. --help prints and exits 0. */
gboolean command_parse (const char *name, const char *params, const char *description,
                        GOptionEntry *entries, gboolean config, int *argc, char ***argv);

G_END_DECLS
