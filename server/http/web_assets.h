// The web page's files (server/web/) and the OpenAPI document (docs/openapi.json), compiled
// into the binary by server/http/embed_web.cmake: nothing is read from disk or fetched at
// run time.
#ifndef PUZZLEDB_SERVER_HTTP_WEB_ASSETS_H_
#define PUZZLEDB_SERVER_HTTP_WEB_ASSETS_H_

#include <span>
#include <string_view>

namespace puzzledb {

struct WebAsset {
  std::string_view path;  // where it is served: "/index.html", "/v1/openapi.json"
  std::string_view content_type;
  std::string_view body;
};

std::span<const WebAsset> WebAssets();

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_WEB_ASSETS_H_
