/* web-routes-export.c — GET /api/sessions/{id}/export/{format}: the web layer's exporters
 * (web-export.c) or the daemon's (the PC-sampled profile, through WebConfig), streamed with a
 * download file name. */
#include "web-server-private.h"

/* The download name of session @id's export: session-ID.SUFFIX. */
static char *
export_filename (gint64 id, const char *suffix)
{
  return g_strdup_printf ("session-%" G_GINT64_FORMAT ".%s", id, suffix);
}

/* web_export_write's formats' file suffixes, by WebExportFormat. */
static const char *const export_suffixes[] = {
  [WEB_EXPORT_PERFETTO] = "perfetto.json", [WEB_EXPORT_CALLGRIND] = "callgrind.out",
  [WEB_EXPORT_FOLDED] = "folded",          [WEB_EXPORT_CSV] = "csv",
  [WEB_EXPORT_GPROF] = "gprof.txt",        [WEB_EXPORT_TWL] = "twl.txt",
  [WEB_EXPORT_PFP] = "pfp.txt",
};

/* The daemon's export format @name (WebConfig.export_kinds), NULL when it has none. */
static const WebExportKind *
job_export_kind (Job *j, const char *name)
{
  for (guint i = 0; name != NULL && i < j->n_export_kinds; i++)
    if (strcmp (j->export_kinds[i].name, name) == 0)
      return &j->export_kinds[i];
  return NULL;
}

/* A daemon export (WebConfig.export) of session @id in @kind: the session must exist (404),
 * table= is csv's only (400); the callback's errors map as web__reply_from_error does, its
 * WEB_ERROR_CONFIG to 400. */
static void
route_export_daemon (Job *j, StoreDb *db, gint64 id, const WebExportKind *kind)
{
  double rate;
  if (!web__session_tick_rate (j, db, id, &rate))
    return;
  if (web__qparam (j, "table") != NULL) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "table= applies to csv only");
    return;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  if (!j->export (j->export_data, db, id, kind->name, web__qparam (j, "task"), mem, &error) ||
           !g_output_stream_close (mem, NULL, &error)) {
    if (g_error_matches (error, WEB_ERROR, WEB_ERROR_CONFIG))
      web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "%s", error->message);
    else
      web__reply_from_error (&j->reply, error);
    return;
  }
  web__reply_clear (&j->reply);
  j->reply.bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  j->reply.status = SOUP_STATUS_OK;
  j->reply.content_type = kind->content_type;
  j->reply.filename = export_filename (id, kind->file_suffix);
}

/* GET /api/sessions/{id}/export?format=F[&task=NAME][&table=NAME]: the session in an export
 * format, with that format's Content-Type and a download name (Content-Disposition): one of
 * web_export_write's (web.h), or one the daemon writes (WebConfig.export_kinds: the
 * PC-sampled profile, gmon.out among them, so the body is bytes, not a string). An unknown
 * format is 400 naming every format served. */
void
web__route_export (Job *j, StoreDb *db, gint64 id)
{
  g_autoptr (GError) error = NULL;
  const char *format = web__qparam (j, "format");
  WebExportOptions opt = { .session = id, .task = web__qparam (j, "task"),
                           .table = web__qparam (j, "table") };
  const WebExportKind *kind = job_export_kind (j, format);
  if (kind != NULL) {
    route_export_daemon (j, db, id, kind);
    return;
  }
  if (!web_export_format_from_string (format != NULL ? format : "", &opt.format, &error)) {
    g_autoptr (GString) known = g_string_new (NULL);
    const char *name;
    for (guint i = 0; (name = web_export_format_name ((WebExportFormat) i)) != NULL; i++)
      g_string_append_printf (known, "%s%s", i ? ", " : "", name);
    for (guint i = 0; i < j->n_export_kinds; i++)
      g_string_append_printf (known, ", %s", j->export_kinds[i].name);
    if (format == NULL)
      web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                        "export needs format= (%s)", known->str);
    else
      web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                        "unknown export format '%s' (%s)", format, known->str);
    return;
  }
  g_autoptr (GBytes) bytes = web_export_to_bytes (db, &opt, &error);
  if (bytes == NULL && g_error_matches (error, WEB_ERROR, WEB_ERROR_CONFIG))
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "%s", error->message);
  else if (bytes == NULL)
    web__reply_from_error (&j->reply, error);
  else {
    web__reply_clear (&j->reply);
    j->reply.bytes = g_steal_pointer (&bytes);
    j->reply.status = SOUP_STATUS_OK;
    j->reply.content_type = web_export_content_type (opt.format);
    j->reply.filename = export_filename (id, export_suffixes[opt.format]);
  }
}
