/* web-dashboard.c — the dashboard's static files, served from the GResource bundle
 * (web/static, dashboard.gresource.xml) with their content types. */
#include "web-server-private.h"

static const char *
content_type_for (const char *path)
{
  static const struct { const char *ext, *type; } types[] = {
    { ".html", "text/html; charset=utf-8" }, { ".js", "text/javascript; charset=utf-8" },
    { ".mjs", "text/javascript; charset=utf-8" }, { ".css", "text/css; charset=utf-8" },
    { ".svg", "image/svg+xml" }, { ".png", "image/png" }, { ".json", "application/json" },
    { ".md", "text/plain; charset=utf-8" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_suffix (path, types[i].ext))
      return types[i].type;
  return "application/octet-stream";
}

void
web__handle_static (SoupServerMessage *msg, const char *path, Reply *r)
{
  const char *rel = strcmp (path, "/") == 0 ? "/static/index.html" : path;
  if (strstr (rel, "..") || strstr (rel, "//")) {
    web__reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "bad path");
    return;
  }
  g_autofree char *res = g_strconcat ("/org/ortiprofd/dashboard", rel, NULL);
  g_autoptr (GBytes) data = g_resources_lookup_data (res, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (data == NULL) {
    web__reply_error (r, SOUP_STATUS_NOT_FOUND, "not_found", "no such file");
    return;
  }
  r->status = SOUP_STATUS_OK;
  r->content_type = content_type_for (rel);
  gsize len;
  const char *bytes = g_bytes_get_data (data, &len);
  r->body = g_strndup (bytes, len); /* text assets only */
}
