#include "server/grpc/http2_inspector.h"

#include <algorithm>
#include <cstring>

#include "core/util/strings.h"
#include "nghttp2/nghttp2.h"

namespace puzzledb {
namespace {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// Frame types and flags (RFC 9113 section 6).
constexpr uint8_t kData = 0x0, kHeaders = 0x1, kRstStream = 0x3, kSettings = 0x4, kGoaway = 0x7,
                  kContinuation = 0x9;
constexpr uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4, kPadded = 0x8, kPriority = 0x20;

// What a refused message's flag becomes on its way to gRPC: neither 0 (plain) nor 1
// (compressed), so that gRPC fails the call instead of reading it (and resets its stream,
// which FromServer replaces with the answer that says why).
constexpr char kRefusedFlag = '\x02';

constexpr std::string_view kRefusedMessage =
    "a message flagged compressed on a call that names no compression (grpc-encoding absent or "
    "identity): send it uncompressed, or name its encoding (gzip, deflate)";

void AppendUint32(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v >> 24));
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
  std::string f;
  const auto n = static_cast<uint32_t>(payload.size());
  f.push_back(static_cast<char>(n >> 16));
  f.push_back(static_cast<char>(n >> 8));
  f.push_back(static_cast<char>(n));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  AppendUint32(&f, stream & 0x7fffffff);
  f.append(payload);
  return f;
}

// An HPACK string literal, not Huffman-coded (RFC 7541 section 5.2).
void AppendHpackString(std::string* out, std::string_view s) {
  size_t n = s.size();
  if (n < 127) {
    out->push_back(static_cast<char>(n));
  } else {
    out->push_back(static_cast<char>(127));
    n -= 127;
    while (n >= 128) {
      out->push_back(static_cast<char>(0x80 | (n & 0x7f)));
      n >>= 7;
    }
    out->push_back(static_cast<char>(n));
  }
  out->append(s);
}

// A field "literal without indexing, new name" (RFC 7541 section 6.2.2): it leaves the
// client's dynamic table as gRPC's encoder left it.
void AppendLiteralField(std::string* out, std::string_view name, std::string_view value) {
  out->push_back('\0');
  AppendHpackString(out, name);
  AppendHpackString(out, value);
}

Http2Refusal Protocol(std::string reason) {
  return {Http2Bound::kProtocol, Http2Error::kProtocol, std::move(reason)};
}

}  // namespace

Http2Inspector::Http2Inspector(const Http2Limits& limits) : limits_(limits) {}

Http2Inspector::~Http2Inspector() {
  if (hpack_ != nullptr) nghttp2_hd_inflate_del(hpack_);
}

std::optional<Http2Refusal> Http2Inspector::FromClient(std::string_view bytes,
                                                       std::string* to_server) {
  if (preface_have_ < kPreface.size()) {
    const size_t n = std::min(kPreface.size() - preface_have_, bytes.size());
    if (bytes.substr(0, n) != kPreface.substr(preface_have_, n)) {
      return Protocol("not an HTTP/2 connection preface: this port speaks gRPC");
    }
    to_server->append(bytes.substr(0, n));
    preface_have_ += n;
    bytes.remove_prefix(n);
  }
  while (!bytes.empty()) {
    if (!client_in_payload_) {
      const size_t n = std::min<size_t>(9 - client_.have, bytes.size());
      std::memcpy(client_.bytes + client_.have, bytes.data(), n);
      client_.have = static_cast<uint8_t>(client_.have + n);
      bytes.remove_prefix(n);
      if (client_.have < 9) break;
      client_.have = 0;
      // The header is passed on only once its frame is within the bounds.
      if (auto refusal = ClientFrameStarts()) return refusal;
      to_server->append(reinterpret_cast<const char*>(client_.bytes), 9);
      client_left_ = client_.length();
      client_in_payload_ = true;
      if (client_left_ == 0) {
        client_in_payload_ = false;
        if (auto refusal = ClientFrameEnds()) return refusal;
      }
      continue;
    }
    const size_t n = std::min<size_t>(client_left_, bytes.size());
    const std::string_view chunk = bytes.substr(0, n);
    const size_t at = to_server->size();
    to_server->append(chunk);
    const uint8_t type = client_.type();
    if (type == kHeaders || type == kContinuation) {
      fragment_.append(chunk);  // within max_header_block: checked at the frame's start
    } else if (type == kData) {
      size_t skip = 0;
      if (pad_length_next_) {
        pad_length_next_ = false;
        const uint32_t pad = static_cast<uint8_t>(chunk[0]);
        if (pad >= client_.length()) {
          return Protocol(Cat("DATA on stream ", client_.stream(), ": padding of ", pad,
                              " bytes in a frame of ", client_.length()));
        }
        data_left_ = client_.length() - 1 - pad;
        skip = 1;
      }
      const size_t data = std::min<size_t>(data_left_, n - skip);
      ClientData(to_server, at + skip, data);
      data_left_ -= static_cast<uint32_t>(data);
    }
    client_left_ -= static_cast<uint32_t>(n);
    bytes.remove_prefix(n);
    if (client_left_ == 0) {
      client_in_payload_ = false;
      if (auto refusal = ClientFrameEnds()) return refusal;
    }
  }
  return std::nullopt;
}

std::optional<Http2Refusal> Http2Inspector::ClientFrameStarts() {
  const uint8_t type = client_.type();
  const uint32_t stream = client_.stream();
  if (!opened_ && (type != kSettings || (client_.flags() & kAck) != 0 || stream != 0)) {
    return Protocol("the client's first frame after the preface must be SETTINGS (RFC 9113 "
                    "section 3.4)");
  }
  if (block_open_ && (type != kContinuation || stream != block_stream_)) {
    return Protocol(Cat("the header block of stream ", block_stream_,
                        " must go on in CONTINUATION frames (RFC 9113 section 6.10)"));
  }
  switch (type) {
    case kData:
      pad_length_next_ = (client_.flags() & kPadded) != 0;
      data_left_ = pad_length_next_ ? 0 : client_.length();
      if (pad_length_next_ && client_.length() == 0) {
        return Protocol(Cat("DATA on stream ", stream, ": padded, but empty"));
      }
      break;
    case kHeaders:
      block_open_ = true;
      block_stream_ = stream;
      block_bytes_ = 0;
      block_list_bytes_ = 0;
      block_encoding_.clear();
      block_new_stream_ = (stream & 1) != 0 && stream > last_stream_;
      if (block_new_stream_) {
        if (streams_.size() >= limits_.max_streams) {
          return Http2Refusal{
              Http2Bound::kStreams, Http2Error::kEnhanceYourCalm,
              Cat("stream ", stream, " would be call ", streams_.size() + 1,
                  " open at once on this connection; the server's SETTINGS_MAX_CONCURRENT_STREAMS is ",
                  limits_.max_streams)};
        }
        last_stream_ = stream;
      }
      [[fallthrough]];
    case kContinuation:
      if (!block_open_) {
        return Protocol(Cat("CONTINUATION on stream ", stream,
                            " follows no unfinished header block (RFC 9113 section 6.10)"));
      }
      block_bytes_ += client_.length();
      if (block_bytes_ > limits_.max_header_block) {
        return Http2Refusal{Http2Bound::kHeaderBlock, Http2Error::kEnhanceYourCalm,
                            Cat("the header block of stream ", stream, " passed ",
                                limits_.max_header_block,
                                " bytes, the most this server takes (--grpc-max-header-bytes)")};
      }
      fragment_.clear();
      break;
    default:
      break;
  }
  return std::nullopt;
}

std::optional<Http2Refusal> Http2Inspector::ClientFrameEnds() {
  const uint8_t type = client_.type();
  const uint8_t flags = client_.flags();
  const uint32_t stream = client_.stream();
  switch (type) {
    case kHeaders:
    case kContinuation: {
      std::string_view fragment = fragment_;
      if (type == kHeaders) {
        size_t pad = 0;
        if ((flags & kPadded) != 0) {
          if (fragment.empty()) return Protocol(Cat("HEADERS on stream ", stream, ": padded, but empty"));
          pad = static_cast<uint8_t>(fragment[0]);
          fragment.remove_prefix(1);
        }
        if ((flags & kPriority) != 0) {
          if (fragment.size() < 5) return Protocol(Cat("HEADERS on stream ", stream, ": priority cut short"));
          fragment.remove_prefix(5);
        }
        if (pad > fragment.size()) {
          return Protocol(Cat("HEADERS on stream ", stream, ": more padding than payload"));
        }
        fragment.remove_suffix(pad);
        block_end_stream_ = (flags & kEndStream) != 0;
      }
      const bool last = (flags & kEndHeaders) != 0;
      if (auto refusal = DecodeHeaderFragment(fragment, last)) return refusal;
      fragment_.clear();
      if (!last) break;
      block_open_ = false;
      if (block_new_stream_) {
        Stream& s = streams_[block_stream_];
        s.compression_named = block_encoding_ == "gzip" || block_encoding_ == "deflate";
        s.client_done = block_end_stream_;
      } else if (block_end_stream_) {
        if (auto it = streams_.find(block_stream_); it != streams_.end()) it->second.client_done = true;
      }
      break;
    }
    case kData:
      pad_length_next_ = false;
      if ((flags & kEndStream) != 0) {
        if (auto it = streams_.find(stream); it != streams_.end()) it->second.client_done = true;
      }
      break;
    case kRstStream:
      streams_.erase(stream);
      break;
    case kSettings:
      opened_ = true;
      break;
    default:
      break;
  }
  return std::nullopt;
}

void Http2Inspector::ClientData(std::string* to_server, size_t at, size_t n) {
  auto it = streams_.find(client_.stream());
  if (it == streams_.end() || it->second.refused) return;
  Stream& s = it->second;
  size_t i = 0;
  while (i < n) {
    if (s.prefix_at < 5) {
      const auto byte = static_cast<uint8_t>((*to_server)[at + i]);
      if (s.prefix_at == 0) {
        if (byte == 1 && !s.compression_named) {
          (*to_server)[at + i] = kRefusedFlag;
          s.refused = true;
          return;
        }
      } else {
        s.length_bytes[s.prefix_at - 1] = byte;
      }
      ++s.prefix_at;
      ++i;
      if (s.prefix_at == 5) {
        s.message_left = uint32_t{s.length_bytes[0]} << 24 | uint32_t{s.length_bytes[1]} << 16 |
                         uint32_t{s.length_bytes[2]} << 8 | s.length_bytes[3];
        if (s.message_left == 0) s.prefix_at = 0;
      }
    } else {
      const size_t take = std::min<size_t>(s.message_left, n - i);
      i += take;
      s.message_left -= static_cast<uint32_t>(take);
      if (s.message_left == 0) s.prefix_at = 0;
    }
  }
}

std::optional<Http2Refusal> Http2Inspector::DecodeHeaderFragment(std::string_view fragment,
                                                                 bool last) {
  if (hpack_ == nullptr && nghttp2_hd_inflate_new(&hpack_) != 0) {
    hpack_ = nullptr;
    return Http2Refusal{Http2Bound::kProtocol, Http2Error::kEnhanceYourCalm,
                        "out of memory for the header block's decoder"};
  }
  const auto* in = reinterpret_cast<const uint8_t*>(fragment.data());
  size_t left = fragment.size();
  while (true) {
    nghttp2_nv field;
    int flags = 0;
    const ssize_t used = nghttp2_hd_inflate_hd2(hpack_, &field, &flags, in, left, last ? 1 : 0);
    if (used < 0) {
      return Http2Refusal{Http2Bound::kProtocol, Http2Error::kCompression,
                          Cat("the header block of stream ", block_stream_,
                              " cannot be decoded (HPACK, RFC 7541): ", nghttp2_strerror(static_cast<int>(used)))};
    }
    in += used;
    left -= static_cast<size_t>(used);
    if ((flags & NGHTTP2_HD_INFLATE_EMIT) != 0) {
      block_list_bytes_ += field.namelen + field.valuelen + 32;
      if (block_list_bytes_ > limits_.max_header_list) {
        return Http2Refusal{Http2Bound::kHeaderList, Http2Error::kEnhanceYourCalm,
                            Cat("the headers of stream ", block_stream_, " passed ",
                                limits_.max_header_list,
                                " bytes decoded, the most this server takes (--grpc-max-header-bytes)")};
      }
      const std::string_view name(reinterpret_cast<const char*>(field.name), field.namelen);
      if (name == "grpc-encoding") {
        block_encoding_.assign(reinterpret_cast<const char*>(field.value), field.valuelen);
      }
    }
    if ((flags & NGHTTP2_HD_INFLATE_FINAL) != 0) {
      nghttp2_hd_inflate_end_headers(hpack_);
      break;
    }
    if ((flags & NGHTTP2_HD_INFLATE_EMIT) == 0 && left == 0) break;
  }
  return std::nullopt;
}

void Http2Inspector::FromServer(std::string_view bytes, std::string* to_client) {
  while (!bytes.empty() && !goaway_sent_) {
    if (!server_in_payload_) {
      const size_t n = std::min<size_t>(9 - server_.have, bytes.size());
      std::memcpy(server_.bytes + server_.have, bytes.data(), n);
      server_.have = static_cast<uint8_t>(server_.have + n);
      bytes.remove_prefix(n);
      if (server_.have < 9) break;
      server_.have = 0;
      if (goaway_pending_) {  // at a frame's end: the GOAWAY goes now, and nothing after it
        to_client->append(Goaway(*goaway_pending_));
        goaway_sent_ = true;
        return;
      }
      ServerFrameStarts(to_client);
      server_left_ = server_.length();
      server_in_payload_ = true;
      if (server_left_ == 0) {
        server_in_payload_ = false;
        ServerFrameEnds(to_client);
      }
      continue;
    }
    const size_t n = std::min<size_t>(server_left_, bytes.size());
    if (!server_dropping_) to_client->append(bytes.substr(0, n));
    server_left_ -= static_cast<uint32_t>(n);
    bytes.remove_prefix(n);
    if (server_left_ == 0) {
      server_in_payload_ = false;
      ServerFrameEnds(to_client);
    }
  }
}

void Http2Inspector::ServerFrameStarts(std::string* to_client) {
  const uint8_t type = server_.type();
  const uint32_t id = server_.stream();
  auto it = id != 0 ? streams_.find(id) : streams_.end();
  server_dropping_ = type == kRstStream && it != streams_.end() && it->second.refused;
  if (server_dropping_) return;
  to_client->append(reinterpret_cast<const char*>(server_.bytes), 9);
  server_spoke_ = true;
  if (it == streams_.end()) return;
  const bool ends = (server_.flags() & kEndStream) != 0;
  if (type == kHeaders) it->second.answered = true;
  if (type == kRstStream || ((type == kHeaders || type == kData) && ends)) streams_.erase(it);
}

void Http2Inspector::ServerFrameEnds(std::string* to_client) {
  if (server_dropping_) {
    server_dropping_ = false;
    const uint32_t id = server_.stream();
    if (auto it = streams_.find(id); it != streams_.end()) {
      to_client->append(RefusedAnswer(id, it->second));
      streams_.erase(it);
    }
  }
  if (goaway_pending_) {
    to_client->append(Goaway(*goaway_pending_));
    goaway_sent_ = true;
  }
}

std::string Http2Inspector::RefusedAnswer(uint32_t id, const Stream& stream) const {
  std::string block;
  if (!stream.answered) {  // trailers-only: the response's headers too
    block.push_back(static_cast<char>(0x88));  // :status 200, static index 8
    block.push_back(0x0f);                     // content-type, static index 31, literal value
    block.push_back(0x10);
    AppendHpackString(&block, "application/grpc");
  }
  AppendLiteralField(&block, "grpc-status", "13");  // INTERNAL, as the gRPC spec says
  AppendLiteralField(&block, "grpc-message", kRefusedMessage);
  std::string out = Frame(kHeaders, kEndStream | kEndHeaders, id, block);
  if (!stream.client_done) out += Frame(kRstStream, 0, id, std::string(4, '\0'));  // NO_ERROR
  return out;
}

void Http2Inspector::Refuse(const Http2Refusal& refusal, std::string* to_client) {
  if (goaway_sent_ || goaway_pending_) return;
  if (server_in_payload_) {
    goaway_pending_ = refusal;
    return;
  }
  to_client->append(Goaway(refusal));
  goaway_sent_ = true;
}

std::string Http2Inspector::Goaway(const Http2Refusal& refusal) const {
  std::string out;
  if (!server_spoke_) out = Frame(kSettings, 0, 0, "");  // a server's first frame is SETTINGS
  std::string payload;
  AppendUint32(&payload, last_stream_);
  AppendUint32(&payload, static_cast<uint32_t>(refusal.code));
  payload += refusal.reason.substr(0, 512);
  return out + Frame(kGoaway, 0, 0, payload);
}

}  // namespace puzzledb
