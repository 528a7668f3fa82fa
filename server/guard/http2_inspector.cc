#include "server/guard/http2_inspector.h"

#include <algorithm>
#include <cstring>

#include "core/util/strings.h"
#include "nghttp2/nghttp2.h"

namespace puzzledb {
namespace {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// Frame types and flags (RFC 9113 section 6).
constexpr uint8_t kData = 0x0, kHeaders = 0x1, kPriorityFrame = 0x2, kRstStream = 0x3,
                  kSettings = 0x4, kPushPromise = 0x5, kPing = 0x6, kGoaway = 0x7,
                  kWindowUpdate = 0x8, kContinuation = 0x9;
constexpr uint16_t kSettingsEnablePush = 0x2, kSettingsInitialWindowSize = 0x4,
                   kSettingsMaxFrameSize = 0x5;
constexpr int64_t kMaxWindow = 0x7fffffff;  // 2^31-1 (RFC 9113 section 6.9.1)
constexpr uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4, kPadded = 0x8, kPriority = 0x20;

// What the client is told when a message of its call is refused (grpc-message).
constexpr std::string_view kUnnamedCompressionMessage =
    "a message flagged compressed on a call that names no compression (grpc-encoding absent or "
    "identity): send it uncompressed";
constexpr std::string_view kBadFlagMessage =
    "a message whose compressed-flag byte is neither 0 nor 1 (gRPC's length-prefixed message)";

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
Http2Refusal FrameSize(std::string reason) {
  return {Http2Bound::kProtocol, Http2Error::kFrameSize, std::move(reason)};
}

uint32_t ReadUint32(std::string_view bytes) {
  const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
}

// Whether a header block's representations change an HPACK decoder's state (RFC 7541
// section 6): a literal with incremental indexing adds to the dynamic table, a size update
// resizes it; indexed fields and literals without indexing (or never indexed) leave it as
// it was. Anything that does not parse counts as a change.
bool ChangesHpackTable(std::string_view block) {
  size_t i = 0;
  // An integer of `prefix` bits starting at block[i] (section 5.1).
  auto integer = [&](int prefix, uint64_t* value) {
    if (i >= block.size()) return false;
    const uint8_t mask = static_cast<uint8_t>((1 << prefix) - 1);
    *value = static_cast<uint8_t>(block[i++]) & mask;
    if (*value < mask) return true;
    for (int shift = 0; shift <= 56; shift += 7) {
      if (i >= block.size()) return false;
      const auto b = static_cast<uint8_t>(block[i++]);
      *value += uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  auto skip_string = [&] {  // section 5.2: a Huffman bit, then the length
    uint64_t length = 0;
    if (!integer(7, &length) || length > block.size() - i) return false;
    i += static_cast<size_t>(length);
    return true;
  };
  while (i < block.size()) {
    const auto first = static_cast<uint8_t>(block[i]);
    uint64_t index = 0;
    if ((first & 0x80) != 0) {  // indexed
      if (!integer(7, &index)) return true;
      continue;
    }
    if ((first & 0xc0) == 0x40 || (first & 0xe0) == 0x20) return true;
    if (!integer(4, &index) || (index == 0 && !skip_string()) || !skip_string()) return true;
  }
  return false;
}

// Frames held whole before gRPC reads them, so that their payload can be checked first
// (each at most kMaxFrameBytes: checked at the frame's start).
bool IsControl(uint8_t type) {
  return type == kPriorityFrame || type == kRstStream || type == kSettings || type == kPing ||
         type == kGoaway || type == kWindowUpdate;
}

}  // namespace

Http2Inspector::Http2Inspector(const Http2Limits& limits, Clock now, MemoryBudget* memory,
                               size_t calls_share)
    : limits_(limits),
      now_(now ? std::move(now) : Clock([] { return std::chrono::steady_clock::now(); })),
      memory_(memory),
      calls_share_(calls_share),
      resets_(limits.resets_per_second, limits.resets_burst),
      pings_(limits.pings_per_second, limits.pings_burst) {}

bool Http2Inspector::Allowance::Spend(std::chrono::steady_clock::time_point now) {
  if (refilled_ != std::chrono::steady_clock::time_point{}) {
    left_ = std::min(burst_,
                     left_ + per_second_ * std::chrono::duration<double>(now - refilled_).count());
  }
  refilled_ = now;
  if (left_ < 1) return false;
  left_ -= 1;
  return true;
}

Http2Inspector::~Http2Inspector() {
  if (hpack_ != nullptr) nghttp2_hd_inflate_del(hpack_);
}

std::optional<Http2Refusal> Http2Inspector::FromClient(std::string_view bytes,
                                                       std::string* to_server,
                                                       std::string* to_client) {
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
      const std::string_view header(reinterpret_cast<const char*>(client_.bytes), 9);
      holding_ = IsControl(client_.type()) ||
                 (client_.type() == kData && streams_.count(client_.stream()) > 0);
      if (holding_) {
        held_.assign(header);
      } else if (NewCallBlock()) {
        new_call_.append(header);
      } else {
        to_server->append(header);
      }
      client_left_ = client_.length();
      client_in_payload_ = true;
      if (client_left_ == 0) {
        client_in_payload_ = false;
        if (auto refusal = ClientFrameEnds(to_server, to_client)) return refusal;
      }
      continue;
    }
    const size_t n = std::min<size_t>(client_left_, bytes.size());
    const std::string_view chunk = bytes.substr(0, n);
    const uint8_t type = client_.type();
    if (holding_) {
      held_.append(chunk);  // within kMaxFrameBytes: checked at the frame's start
    } else {
      // Within max_header_block: checked at the frame's start.
      (NewCallBlock() ? new_call_ : *to_server).append(chunk);
      if (type == kHeaders || type == kContinuation) fragment_.append(chunk);
    }
    client_left_ -= static_cast<uint32_t>(n);
    bytes.remove_prefix(n);
    if (client_left_ == 0) {
      client_in_payload_ = false;
      if (auto refusal = ClientFrameEnds(to_server, to_client)) return refusal;
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
  if (client_.length() > kMaxFrameBytes && type != kHeaders && type != kContinuation) {
    return FrameSize(Cat("a frame of ", client_.length(), " bytes (type ", int{type}, ", stream ",
                         stream, "); the server's SETTINGS_MAX_FRAME_SIZE is ", kMaxFrameBytes));
  }
  if (auto refusal = CheckFrameHeader()) return refusal;
  switch (type) {
    case kHeaders:
      block_open_ = true;
      block_stream_ = stream;
      block_bytes_ = 0;
      block_list_bytes_ = 0;
      block_encoding_.clear();
      block_end_stream_ = (client_.flags() & kEndStream) != 0;
      block_new_stream_ = (stream & 1) != 0 && stream > last_stream_;
      if (block_new_stream_) {
        if (streams_.size() >= limits_.max_streams) {
          return Http2Refusal{
              Http2Bound::kStreams, Http2Error::kEnhanceYourCalm,
              Cat("stream ", stream, " would be call ", streams_.size() + 1,
                  " open at once on this connection; the server's "
                  "SETTINGS_MAX_CONCURRENT_STREAMS is ",
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

std::optional<Http2Refusal> Http2Inspector::CheckFrameHeader() const {
  const uint8_t type = client_.type();
  const uint8_t flags = client_.flags();
  const uint32_t stream = client_.stream();
  const uint32_t length = client_.length();
  // A stream the client has not opened: a server's (even) one, or past its last.
  const bool idle = stream != 0 && ((stream & 1) == 0 || stream > last_stream_);
  switch (type) {
    case kData: {
      if (stream == 0 || idle) {
        return Protocol(Cat("DATA on stream ", stream, ", which no call opened (RFC 9113 section ",
                            stream == 0 ? "6.1)" : "5.1)"));
      }
      auto it = streams_.find(stream);
      if (it != streams_.end() && it->second.client_done) {
        return {{Http2Bound::kProtocol, Http2Error::kStreamClosed,
                 Cat("DATA on stream ", stream, " after the client ended it (RFC 9113 section 5.1)")}};
      }
      return std::nullopt;
    }
    case kHeaders: {
      if (stream == 0 || (stream & 1) == 0) {
        return Protocol(Cat("HEADERS on stream ", stream, ": a client opens calls on odd streams "
                            "(RFC 9113 section 5.1.1)"));
      }
      if ((flags & kPadded) != 0) {
        return Protocol(Cat("HEADERS on stream ", stream, " padded: gRPC 1.51 cannot read a "
                            "padded header block; send it without padding"));
      }
      if (stream > last_stream_) return std::nullopt;  // a new call
      auto it = streams_.find(stream);
      const bool ends = (flags & kEndStream) != 0;
      // A HEADERS on a call already opened can only be its trailers, which end it.
      if ((it == streams_.end() && !ends) || (it != streams_.end() && it->second.client_done)) {
        return {{Http2Bound::kProtocol, Http2Error::kStreamClosed,
                 Cat("HEADERS on stream ", stream, ", which the client has already used: a new "
                     "call needs a new stream, above ", last_stream_, " (RFC 9113 section 5.1.1)")}};
      }
      if (!ends) {
        return Protocol(Cat("a second HEADERS on stream ", stream, " without END_STREAM: a "
                            "call's trailers end it (RFC 9113 section 8.1)"));
      }
      return std::nullopt;
    }
    case kPriorityFrame:
      if (stream == 0) return Protocol("PRIORITY on stream 0 (RFC 9113 section 6.3)");
      if (length != 5) return FrameSize(Cat("PRIORITY of ", length, " bytes, not 5"));
      return std::nullopt;
    case kRstStream:
      if (stream == 0 || idle) {
        return Protocol(Cat("RST_STREAM on stream ", stream, ", which no call opened (RFC 9113 "
                            "section 6.4)"));
      }
      if (length != 4) return FrameSize(Cat("RST_STREAM of ", length, " bytes, not 4"));
      return std::nullopt;
    case kSettings:
      if (stream != 0) return Protocol(Cat("SETTINGS on stream ", stream, ", not 0"));
      if ((flags & kAck) != 0 && length != 0) {
        return FrameSize(Cat("a SETTINGS acknowledgement of ", length, " bytes, not 0"));
      }
      if (length % 6 != 0) {
        return FrameSize(Cat("SETTINGS of ", length, " bytes, not a multiple of 6"));
      }
      return std::nullopt;
    case kPushPromise:
      return Protocol("PUSH_PROMISE from a client (RFC 9113 section 8.4: only servers push)");
    case kPing:
      if (stream != 0) return Protocol(Cat("PING on stream ", stream, ", not 0"));
      if (length != 8) return FrameSize(Cat("PING of ", length, " bytes, not 8"));
      return std::nullopt;
    case kGoaway:
      if (stream != 0) return Protocol(Cat("GOAWAY on stream ", stream, ", not 0"));
      if (length < 8) return FrameSize(Cat("GOAWAY of ", length, " bytes, fewer than 8"));
      return std::nullopt;
    case kWindowUpdate:
      if (idle) {
        return Protocol(Cat("WINDOW_UPDATE on stream ", stream, ", which no call opened (RFC "
                            "9113 section 5.1)"));
      }
      if (length != 4) return FrameSize(Cat("WINDOW_UPDATE of ", length, " bytes, not 4"));
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<Http2Refusal> Http2Inspector::SpendReset() {
  if (resets_.Spend(now_())) return std::nullopt;
  return Http2Refusal{Http2Bound::kResets, Http2Error::kEnhanceYourCalm,
                      Cat("calls reset before their answer faster than ", limits_.resets_per_second,
                          " a second (HTTP/2 rapid reset, CVE-2023-44487)")};
}

std::optional<Http2Refusal> Http2Inspector::GrowWindow(int64_t* window, uint32_t by,
                                                       uint32_t stream) {
  *window += by;
  if (*window <= kMaxWindow) return std::nullopt;
  return Http2Refusal{Http2Bound::kProtocol, Http2Error::kFlowControl,
                      Cat("a WINDOW_UPDATE took ",
                          stream == 0 ? std::string("the connection") : Cat("stream ", stream),
                          "'s window to ", *window, ", past 2^31-1 (RFC 9113 section 6.9.1)")};
}

std::optional<Http2Refusal> Http2Inspector::ClientControlEnds() {
  const std::string_view payload = std::string_view(held_).substr(9);
  const uint32_t stream = client_.stream();
  switch (client_.type()) {
    case kRstStream: {
      auto it = streams_.find(stream);
      if (it == streams_.end()) break;
      const bool unanswered = !it->second.answered;
      EraseStream(it);
      if (unanswered) return SpendReset();
      break;
    }
    case kSettings:
      if ((client_.flags() & kAck) != 0) break;
      for (size_t at = 0; at + 6 <= payload.size(); at += 6) {
        const auto* e = reinterpret_cast<const uint8_t*>(payload.data() + at);
        const auto id = static_cast<uint16_t>(e[0] << 8 | e[1]);
        const uint32_t value = ReadUint32(payload.substr(at + 2, 4));
        if (id == kSettingsEnablePush && value > 1) {
          return Protocol(Cat("SETTINGS_ENABLE_PUSH of ", value, ", not 0 or 1"));
        }
        if (id == kSettingsMaxFrameSize && (value < kMaxFrameBytes || value > 0xffffff)) {
          return Protocol(Cat("SETTINGS_MAX_FRAME_SIZE of ", value, ", not within 16384 and "
                              "2^24-1 (RFC 9113 section 6.5.2)"));
        }
        if (id == kSettingsInitialWindowSize) {
          if (value > kMaxWindow) {
            return Http2Refusal{Http2Bound::kProtocol, Http2Error::kFlowControl,
                                Cat("SETTINGS_INITIAL_WINDOW_SIZE of ", value,
                                    ", past 2^31-1 (RFC 9113 section 6.5.2)")};
          }
          // Every open call's window moves by the difference (section 6.9.2).
          const int64_t delta = int64_t{value} - initial_window_;
          initial_window_ = value;
          for (auto& [id, s] : streams_) {
            s.send_window += delta;
            if (s.send_window > kMaxWindow) {
              return Http2Refusal{Http2Bound::kProtocol, Http2Error::kFlowControl,
                                  Cat("SETTINGS_INITIAL_WINDOW_SIZE of ", value, " took stream ",
                                      id, "'s window past 2^31-1 (RFC 9113 section 6.9.2)")};
            }
          }
        }
      }
      opened_ = true;
      break;
    case kPing:
      if ((client_.flags() & kAck) != 0 || pings_.Spend(now_())) break;
      return Http2Refusal{Http2Bound::kPings, Http2Error::kEnhanceYourCalm,
                          Cat("PINGs faster than ", limits_.pings_per_second, " a second, in "
                              "bursts of ", limits_.pings_burst)};
    case kWindowUpdate: {
      const uint32_t by = ReadUint32(payload) & 0x7fffffff;
      if (by == 0) {
        return Protocol(Cat("a WINDOW_UPDATE of 0 on stream ", stream, " (RFC 9113 section 6.9)"));
      }
      if (stream == 0) return GrowWindow(&send_window_, by, 0);
      if (auto it = streams_.find(stream); it != streams_.end()) {
        return GrowWindow(&it->second.send_window, by, stream);
      }
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

std::optional<Http2Refusal> Http2Inspector::ClientFrameEnds(std::string* to_server,
                                                            std::string* to_client) {
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
          if (fragment.empty()) {
            return Protocol(Cat("HEADERS on stream ", stream, ": padded, but empty"));
          }
          pad = static_cast<uint8_t>(fragment[0]);
          fragment.remove_prefix(1);
        }
        if ((flags & kPriority) != 0) {
          if (fragment.size() < 5) {
            return Protocol(Cat("HEADERS on stream ", stream, ": its priority cut short"));
          }
          fragment.remove_prefix(5);
        }
        if (pad > fragment.size()) {
          return Protocol(Cat("HEADERS on stream ", stream, ": more padding than payload"));
        }
        fragment.remove_suffix(pad);
      }
      const bool last = (flags & kEndHeaders) != 0;
      if (auto refusal = DecodeHeaderFragment(fragment, last)) return refusal;
      if (block_new_stream_) new_call_hpack_.append(fragment);
      fragment_.clear();
      if (!last) break;
      block_open_ = false;
      if (block_new_stream_) {
        if (auto refusal = OpenCall(to_server, to_client)) return refusal;
      } else if (block_end_stream_) {
        if (auto it = streams_.find(block_stream_); it != streams_.end()) {
          it->second.client_done = true;
        }
      }
      break;
    }
    case kData:
      if (holding_) {
        holding_ = false;
        return ClientDataEnds(to_server, to_client);
      }
      break;
    default:
      if (holding_) {
        holding_ = false;
        if (auto refusal = ClientControlEnds()) return refusal;
        to_server->append(held_);
        held_.clear();
      }
      break;
  }
  return std::nullopt;
}

bool Http2Inspector::NewCallBlock() const {
  return block_open_ && block_new_stream_ &&
         (client_.type() == kHeaders || client_.type() == kContinuation);
}

std::optional<Http2Refusal> Http2Inspector::OpenCall(std::string* to_server,
                                                     std::string* to_client) {
  const uint32_t id = block_stream_;
  Stream s;
  s.send_window = initial_window_;
  s.compression_named = block_encoding_ == "gzip" || block_encoding_ == "deflate";
  s.client_done = block_end_stream_;
  s.cost = CallCost(block_list_bytes_);
  std::string why;
  if (open_call_bytes_ + s.cost > limits_.max_open_call_bytes) {
    why = Cat("this connection's calls not yet ended hold ", Megabytes(open_call_bytes_),
              " and this one ", Megabytes(s.cost), " (", kCallBytes >> 10, " KiB and ",
              kCallHeaderFactor, " times its headers' ", block_list_bytes_,
              " bytes); a connection's may hold ", Megabytes(limits_.max_open_call_bytes),
              " (--grpc-max-open-call-bytes): fewer calls at once, or smaller headers");
  } else if (memory_ != nullptr &&
             !memory_->TryChargeShare(MemoryUse::kGrpcCall, s.cost, calls_share_, &s.charge)) {
    why = Cat("the server's memory for calls is spent: calls not yet ended hold ",
              Megabytes(memory_->held(MemoryUse::kGrpcCall)), " of the ", Megabytes(calls_share_),
              " they may (a quarter of --memory-budget), and this one needs ", Megabytes(s.cost),
              "; retry later");
  }
  const bool changes_hpack = ChangesHpackTable(new_call_hpack_);
  std::string block;
  block.swap(new_call_);
  std::string().swap(new_call_hpack_);
  if (why.empty()) {
    to_server->append(block);
    open_call_bytes_ += s.cost;
    streams_.emplace(id, std::move(s));
    return std::nullopt;
  }
  // A refused call counts as a reset: a client that opens nothing but refused calls is a
  // rapid reset of its own. The client is answered from here.
  if (auto refusal = SpendReset()) return refusal;
  if (changes_hpack) {
    // gRPC reads the header block (its HPACK table must follow the client's) and a reset
    // (CANCEL) of the call it makes of it.
    to_server->append(block);
    to_server->append(Frame(kRstStream, 0, id, std::string("\0\0\0\x08", 4)));
  }
  // Otherwise gRPC never sees the call: it takes what the client sends on it later as
  // frames of a stream it does not know (skipped, their flow control counted).
  ToClient(RefusedAnswer(id, s, 8, why), to_client);  // RESOURCE_EXHAUSTED
  return std::nullopt;
}

void Http2Inspector::EraseStream(std::unordered_map<uint32_t, Stream>::iterator it) {
  open_call_bytes_ -= it->second.cost;
  streams_.erase(it);
}

std::optional<Http2Refusal> Http2Inspector::ClientDataEnds(std::string* to_server,
                                                           std::string* to_client) {
  const uint32_t id = client_.stream();
  const uint32_t length = client_.length();
  std::string_view data = std::string_view(held_).substr(9);
  if ((client_.flags() & kPadded) != 0) {
    const size_t pad = data.empty() ? 0 : static_cast<uint8_t>(data[0]);
    if (data.empty() || pad >= data.size()) {
      return Protocol(Cat("DATA on stream ", id, ": padding of ", pad, " bytes in a frame of ",
                          length));
    }
    data = data.substr(1, data.size() - 1 - pad);
  }
  auto it = streams_.find(id);
  if (it == streams_.end()) {
    // gRPC ended the call while its frame was held: passed on as it is, for gRPC to account
    // for and drop.
    to_server->append(held_);
    held_.clear();
    return std::nullopt;
  }
  Stream& s = it->second;
  if ((client_.flags() & kEndStream) != 0) s.client_done = true;
  if (const auto why = CheckMessages(s, data)) {
    // A reset of a call from here counts as the client's would: a client that sends
    // nothing but refused messages is a rapid reset of its own.
    if (auto refusal = SpendReset()) return refusal;
    // gRPC never reads the frame: its call is reset instead (CANCEL), the client is
    // answered from here, and the connection's flow-control window gets back what the
    // frame took (gRPC, which never saw it, will not give it back).
    to_server->append(Frame(kRstStream, 0, id, std::string("\0\0\0\x08", 4)));
    std::string answer = RefusedAnswer(id, s, 13, *why);  // INTERNAL, as the gRPC spec says
    if (length > 0) {
      std::string window;
      AppendUint32(&window, length);
      answer += Frame(kWindowUpdate, 0, 0, window);
    }
    ToClient(std::move(answer), to_client);
    EraseStream(it);
  } else {
    to_server->append(held_);
  }
  held_.clear();
  return std::nullopt;
}

std::optional<std::string_view> Http2Inspector::CheckMessages(Stream& s,
                                                              std::string_view data) const {
  size_t i = 0;
  while (i < data.size()) {
    if (s.prefix_at < 5) {
      const auto byte = static_cast<uint8_t>(data[i]);
      if (s.prefix_at == 0) {
        if (byte > 1) return kBadFlagMessage;
        if (byte == 1 && !s.compression_named) return kUnnamedCompressionMessage;
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
      const size_t take = std::min<size_t>(s.message_left, data.size() - i);
      i += take;
      s.message_left -= static_cast<uint32_t>(take);
      if (s.message_left == 0) s.prefix_at = 0;
    }
  }
  return std::nullopt;
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
    if (server_.type() == kSettings) {
      settings_.append(bytes.substr(0, n));
    } else {
      to_client->append(bytes.substr(0, n));
    }
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
  server_spoke_ = true;
  if (type == kSettings) {  // held whole: its MAX_FRAME_SIZE may be rewritten
    settings_.assign(reinterpret_cast<const char*>(server_.bytes), 9);
    return;
  }
  to_client->append(reinterpret_cast<const char*>(server_.bytes), 9);
  const uint32_t id = server_.stream();
  if (type == kData) send_window_ -= server_.length();
  auto it = id != 0 ? streams_.find(id) : streams_.end();
  if (it == streams_.end()) return;
  if (type == kData) it->second.send_window -= server_.length();
  const bool ends = (server_.flags() & kEndStream) != 0;
  if (type == kHeaders) it->second.answered = true;
  if (type == kRstStream || ((type == kHeaders || type == kData) && ends)) EraseStream(it);
}

void Http2Inspector::ServerFrameEnds(std::string* to_client) {
  if (server_.type() == kSettings) {
    // gRPC raises its SETTINGS_MAX_FRAME_SIZE as it measures the connection (up to 16 MB);
    // the client is told the default, so that a DATA frame can be held whole.
    for (size_t at = 9; at + 6 <= settings_.size(); at += 6) {
      const auto* e = reinterpret_cast<const uint8_t*>(settings_.data() + at);
      const auto id = static_cast<uint16_t>(e[0] << 8 | e[1]);
      const uint32_t value = ReadUint32(std::string_view(settings_).substr(at + 2, 4));
      if (id == kSettingsMaxFrameSize && value > kMaxFrameBytes) {
        std::string capped;
        AppendUint32(&capped, kMaxFrameBytes);
        settings_.replace(at + 2, 4, capped);
      }
    }
    to_client->append(settings_);
    settings_.clear();
  }
  if (!queued_to_client_.empty()) {
    to_client->append(queued_to_client_);
    std::string().swap(queued_to_client_);
  }
  if (goaway_pending_) {
    to_client->append(Goaway(*goaway_pending_));
    goaway_sent_ = true;
  }
}

void Http2Inspector::ToClient(std::string bytes, std::string* to_client) {
  if (goaway_sent_ || goaway_pending_) return;
  // A server's first frame is its SETTINGS (RFC 9113 section 3.4): nothing from here before
  // gRPC's.
  if (server_in_payload_ || !server_spoke_) {
    queued_to_client_ += bytes;
  } else {
    to_client->append(bytes);
  }
}

std::string Http2Inspector::RefusedAnswer(uint32_t id, const Stream& stream, int status,
                                          std::string_view why) const {
  std::string block;
  if (!stream.answered) {  // trailers-only: the response's headers too
    block.push_back(static_cast<char>(0x88));  // :status 200, static index 8
    block.push_back(0x0f);                     // content-type, static index 31, literal value
    block.push_back(0x10);
    AppendHpackString(&block, "application/grpc");
  }
  AppendLiteralField(&block, "grpc-status", std::to_string(status));
  AppendLiteralField(&block, "grpc-message", why);
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

std::string Http2Inspector::Goaway(const Http2Refusal& refusal) {
  std::string out;
  if (!server_spoke_) out = Frame(kSettings, 0, 0, "");  // a server's first frame is SETTINGS
  out += queued_to_client_;  // what was answered from here before gRPC spoke
  std::string().swap(queued_to_client_);
  std::string payload;
  AppendUint32(&payload, last_stream_);
  AppendUint32(&payload, static_cast<uint32_t>(refusal.code));
  payload += refusal.reason.substr(0, 512);
  return out + Frame(kGoaway, 0, 0, payload);
}

}  // namespace puzzledb
