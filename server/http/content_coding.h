// Content codings (RFC 9110, section 8.4): answers compressed when the client accepts it and
// the body is worth it, and request bodies sent gzipped decoded under the body limit
// (docs/API.md, "Compression"). gzip is libdeflate's (whole buffers, faster than zlib at the
// same ratio, and a decoder that stops at a fixed output size: no "zip bomb" grows past the
// limit); brotli is Google's libbrotli. Both are Debian's.
#ifndef PUZZLEDB_SERVER_HTTP_CONTENT_CODING_H_
#define PUZZLEDB_SERVER_HTTP_CONTENT_CODING_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace puzzledb {

enum class ContentCoding { kIdentity, kGzip, kBrotli };

// "identity", "gzip" or "br".
std::string_view CodingName(ContentCoding coding);

// The coding to answer with, from an Accept-Encoding header (RFC 9110, section 12.5.3): the
// one of gzip and br with the higher weight, br when they tie; identity when neither is
// accepted (absent, q=0, or no header at all).
ContentCoding ChooseCoding(std::string_view accept_encoding);

// Answers smaller than this are sent as they are: a few hundred bytes gain little, and
// cost a coding's header and the time.
inline constexpr size_t kCompressFromBytes = 1024;
// Whether a body of this Content-Type is worth compressing (text and JSON).
bool Compressible(std::string_view content_type);

// `body` in `coding`, at a level that keeps the event loop quick (docs/PERFORMANCE.md,
// "Compression"); `once`: at the level for a body encoded once and sent many times (gzip 9,
// brotli 9: ten times the time for a tenth fewer bytes).
std::string Encode(ContentCoding coding, std::string_view body, bool once = false);

// A body that never changes (the page's files, the OpenAPI document), encoded once in each
// coding when the server starts, so that an answer only picks one.
struct EncodedBodies {
  std::string gzip;
  std::string brotli;
  const std::string& In(ContentCoding coding) const {
    return coding == ContentCoding::kGzip ? gzip : brotli;
  }
};
EncodedBodies EncodeOnce(std::string_view body);

// A request body sent with `content_encoding` ("gzip", or "identity"), decoded. Errors:
// UNIMPLEMENTED for a coding not taken (415), RESOURCE_EXHAUSTED when it decodes to more
// than `limit` bytes (413), INVALID_ARGUMENT when it is not valid gzip (400).
absl::Status CheckCoding(std::string_view content_encoding);  // the coding is taken
absl::StatusOr<std::string> DecodeBody(std::string_view content_encoding, std::string_view body,
                                       size_t limit);
// The HTTP status of a DecodeBody error.
int DecodeErrorStatus(const absl::Status& status);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_CONTENT_CODING_H_
