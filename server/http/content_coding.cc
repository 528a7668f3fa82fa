#include "server/http/content_coding.h"

#include <brotli/encode.h>
#include <libdeflate.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "core/util/strings.h"
#include "service/puzzle_text.h"

namespace puzzledb {

namespace {

// Measured on batch answers of 1,000 and 10,000 boards, docs/openapi.json, /v1/tables and
// /metrics (docs/PERFORMANCE.md, "Compression"): 97-98 % of level 9's savings in a tenth of
// its time, which is spent on an event-loop thread.
constexpr int kGzipLevel = 4;
constexpr int kBrotliQuality = 4;
constexpr int kGzipLevelOnce = 9;
constexpr int kBrotliQualityOnce = 9;

bool SameToken(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// A weight ("q=0.5") in thousandths; 1000 when absent or not readable.
int Weight(std::string_view params) {
  for (;;) {
    const size_t semicolon = params.find(';');
    std::string_view param = StripWhitespace(params.substr(0, semicolon));
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
      std::string_view value = param.substr(2);
      if (value.empty() || (value[0] != '0' && value[0] != '1')) return 1000;
      int thousandths = (value[0] - '0') * 1000;
      if (value.size() > 1 && value[1] == '.') {
        int scale = 100;
        for (size_t i = 2; i < value.size() && i < 5; ++i) {
          if (!std::isdigit(static_cast<unsigned char>(value[i]))) return 1000;
          thousandths += (value[i] - '0') * scale;
          scale /= 10;
        }
      }
      return std::min(thousandths, 1000);
    }
    if (semicolon == std::string_view::npos) return 1000;
    params.remove_prefix(semicolon + 1);
  }
}

}  // namespace

std::string_view CodingName(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::kGzip:
      return "gzip";
    case ContentCoding::kBrotli:
      return "br";
    default:
      return "identity";
  }
}

ContentCoding ChooseCoding(std::string_view accept_encoding) {
  int gzip = -1, br = -1, any = -1;
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    const std::string_view item = accept_encoding.substr(0, comma);
    const size_t semicolon = item.find(';');
    const std::string_view name = StripWhitespace(item.substr(0, semicolon));
    const int weight =
        semicolon == std::string_view::npos ? 1000 : Weight(item.substr(semicolon + 1));
    if (SameToken(name, "gzip") || SameToken(name, "x-gzip")) gzip = std::max(gzip, weight);
    if (SameToken(name, "br")) br = std::max(br, weight);
    if (name == "*") any = std::max(any, weight);
    if (comma == std::string_view::npos) break;
    accept_encoding.remove_prefix(comma + 1);
  }
  if (gzip < 0) gzip = any;
  if (br < 0) br = any;
  if (br > 0 && br >= gzip) return ContentCoding::kBrotli;
  if (gzip > 0) return ContentCoding::kGzip;
  return ContentCoding::kIdentity;
}

bool Compressible(std::string_view content_type) {
  return content_type.substr(0, 5) == "text/" ||
         content_type.substr(0, 16) == "application/json";
}

std::string Encode(ContentCoding coding, std::string_view body, bool once) {
  std::string out;
  if (coding == ContentCoding::kGzip) {
    std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> compressor(
        libdeflate_alloc_compressor(once ? kGzipLevelOnce : kGzipLevel), libdeflate_free_compressor);
    out.resize(libdeflate_gzip_compress_bound(compressor.get(), body.size()));
    const size_t n = libdeflate_gzip_compress(compressor.get(), body.data(), body.size(),
                                              out.data(), out.size());
    out.resize(n);
  } else if (coding == ContentCoding::kBrotli) {
    size_t n = BrotliEncoderMaxCompressedSize(body.size());
    out.resize(n);
    if (n == 0 ||
        !BrotliEncoderCompress(once ? kBrotliQualityOnce : kBrotliQuality, BROTLI_DEFAULT_WINDOW,
                               BROTLI_MODE_TEXT,
                               body.size(), reinterpret_cast<const uint8_t*>(body.data()), &n,
                               reinterpret_cast<uint8_t*>(out.data()))) {
      return std::string(body);  // cannot happen with the bound above
    }
    out.resize(n);
  } else {
    out = std::string(body);
  }
  out.shrink_to_fit();
  return out;
}

EncodedBodies EncodeOnce(std::string_view body) {
  return {Encode(ContentCoding::kGzip, body, /*once=*/true),
          Encode(ContentCoding::kBrotli, body, /*once=*/true)};
}

absl::Status CheckCoding(std::string_view content_encoding) {
  const std::string_view coding = StripWhitespace(content_encoding);
  if (coding.empty() || SameToken(coding, "identity") || SameToken(coding, "gzip") ||
      SameToken(coding, "x-gzip")) {
    return absl::OkStatus();
  }
  return absl::UnimplementedError(Cat("Content-Encoding: ", QuoteInput(coding),
                                      " is not taken; send the body plain or gzip"));
}

absl::StatusOr<std::string> DecodeBody(std::string_view content_encoding, std::string_view body,
                                       size_t limit) {
  if (absl::Status taken = CheckCoding(content_encoding); !taken.ok()) return taken;
  const std::string_view coding = StripWhitespace(content_encoding);
  if (coding.empty() || SameToken(coding, "identity")) return std::string(body);
  // A gzip member: 10 bytes of header starting 1f 8b 08 (deflate), the data, 8 of trailer.
  if (body.size() < 18 || static_cast<unsigned char>(body[0]) != 0x1f ||
      static_cast<unsigned char>(body[1]) != 0x8b || body[2] != 8) {
    return absl::InvalidArgumentError(
        "body: Content-Encoding: gzip, but the body does not start as gzip does (1f 8b 08)");
  }
  // The trailer's last four bytes give the decoded size, modulo 2^32 (RFC 1952): the output
  // is made that large, or the limit's size when it claims more, and the decoder stops there.
  const auto* tail = reinterpret_cast<const unsigned char*>(body.data() + body.size() - 4);
  const uint32_t claimed =
      tail[0] | tail[1] << 8 | tail[2] << 16 | static_cast<uint32_t>(tail[3]) << 24;
  std::string out(std::min<size_t>(claimed, limit), '\0');
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> decompressor(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  size_t used = 0, made = 0;
  const libdeflate_result result = libdeflate_gzip_decompress_ex(
      decompressor.get(), body.data(), body.size(), out.data(), out.size(), &used, &made);
  if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
    if (claimed > limit) {
      return absl::ResourceExhaustedError(
          Cat("body: decoded from gzip it is more than the ", limit, " bytes this path takes"));
    }
    return absl::InvalidArgumentError(Cat(
        "body: not valid gzip: it decodes to more than the ", claimed, " bytes its trailer gives"));
  }
  if (result != LIBDEFLATE_SUCCESS) {
    return absl::InvalidArgumentError("body: Content-Encoding: gzip, but the body is not valid gzip");
  }
  if (used != body.size()) {
    return absl::InvalidArgumentError(
        Cat("body: ", body.size() - used, " bytes after the gzip stream's end (one member only)"));
  }
  out.resize(made);
  return out;
}

int DecodeErrorStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnimplemented:
      return 415;
    case absl::StatusCode::kResourceExhausted:
      return 413;
    default:
      return 400;
  }
}

}  // namespace puzzledb
