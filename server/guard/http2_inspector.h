// One gRPC connection's HTTP/2 frames, read in both directions as they pass between the
// client and gRPC's transport, with the bounds that gRPC 1.51 (Debian 12's) does not keep
// (docs/OPERATIONS.md, "gRPC connections"):
//   - a header block (HEADERS and its CONTINUATION frames) of at most `max_header_block`
//     bytes, and `max_header_list` once decoded (RFC 9113 section 6.5.2's measure). gRPC
//     1.51 checks its limit per frame, not per block, and only once the client has
//     acknowledged its SETTINGS: a block of 20,000 CONTINUATION frames held 333 MB;
//   - at most `max_streams` calls open at once, acknowledged or not (gRPC 1.51 counts them
//     only against acknowledged SETTINGS);
//   - frames of at most 16,384 bytes (RFC 9113's default SETTINGS_MAX_FRAME_SIZE; gRPC's
//     SETTINGS are rewritten to say no more), so that a DATA frame can be held whole;
//   - calls reset before gRPC has answered them (HTTP/2 "rapid reset", CVE-2023-44487):
//     gRPC 1.51 makes a call of every stream before it reads the reset, and 220,000 such
//     streams made the server hold 2.3 GB. A connection may have `resets_per_second` of them
//     a second, in bursts of up to `resets_burst`: the client's resets and the ones made
//     here (a refused message, below) alike;
//   - the client's PINGs: gRPC 1.51 queues 2-3 KB for each before its strike policy looks
//     at it (20 connections of 20,000 held 1.3 GB). `pings_per_second`, in bursts of up to
//     `pings_burst` (a client's keepalive and bandwidth probes stay far below);
//   - what the calls open on a connection hold in gRPC (its header list kept for each call,
//     at least 12 KB a call, 82 KB for one of 444 fields): reckoned as kCallBytes and
//     kCallHeaderFactor times the call's decoded headers, from its header block until the
//     call ends, within `max_open_call_bytes` a connection and charged to the server's
//     memory budget (MemoryUse::kGrpcCall) within a share of it. A new call's header block
//     is held until it is whole; a call past either bound is answered RESOURCE_EXHAUSTED
//     from here, and gRPC never sees it, unless its block changes HPACK's dynamic table
//     (which gRPC's decoder must follow): then gRPC reads the block and a reset of the call;
//   - the client's preface and first SETTINGS before anything is handed to gRPC;
//   - what RFC 9113 makes an error and gRPC 1.51 lets pass, so that gRPC never reads it:
//     padded HEADERS (gRPC 1.51 does not strip the padding, and a padding that is valid HPACK
//     would enter its decoder's table and not this one's), HEADERS on stream 0, on a
//     server's (even) stream or on one the client has closed, a client's PUSH_PROMISE,
//     frames on streams never opened, SETTINGS, PING, WINDOW_UPDATE, RST_STREAM and PRIORITY
//     of the wrong size or values, and a WINDOW_UPDATE that takes a window past 2^31-1
//     (section 6.9.1: gRPC's sending windows are followed here from its DATA frames).
// A bound passed ends the connection with a GOAWAY that says which and why.
//
// And the messages of each call (gRPC's length-prefixed framing inside DATA frames): a
// message flagged compressed on a call that names no compression (grpc-encoding absent or
// identity), or flagged neither 0 nor 1, never reaches gRPC (1.51 reads the first as plain
// and answers the second as an empty request): its DATA frame is held back, gRPC's call is
// reset, and the client is answered INTERNAL with a message that says why.
//
// Bytes in, bytes out: no sockets, no threads (server/guard/connection_guard.h does the
// I/O). Not thread-safe: one connection's bytes, from one thread at a time. The header
// blocks are decoded with nghttp2's HPACK decoder (Debian's libnghttp2), the reference
// implementation that curl and nginx use, so that the decoder's state follows the
// client's encoder exactly as gRPC's does.
#ifndef PUZZLEDB_SERVER_GUARD_HTTP2_INSPECTOR_H_
#define PUZZLEDB_SERVER_GUARD_HTTP2_INSPECTOR_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "service/memory_budget.h"

struct nghttp2_hd_inflater;

namespace puzzledb {

// The error codes of RFC 9113 section 7 that a GOAWAY from here carries.
enum class Http2Error : uint32_t {
  kNoError = 0x0,
  kProtocol = 0x1,
  kFlowControl = 0x3,
  kStreamClosed = 0x5,
  kFrameSize = 0x6,
  kCompression = 0x9,
  kEnhanceYourCalm = 0xb,
};

// The largest frame a client may send (RFC 9113's default, which gRPC's SETTINGS are made
// to keep).
inline constexpr uint32_t kMaxFrameBytes = 16384;

// What gRPC 1.51 holds for a call open on a connection, reckoned from its decoded header
// list (RFC 9113 section 6.5.2's measure): a call of a client's usual headers held 12 KB,
// one of 444 fields (16 KiB decoded) 82 KB (docs/PERFORMANCE.md, issue 64).
inline constexpr size_t kCallBytes = 12 << 10;
inline constexpr size_t kCallHeaderFactor = 5;
inline constexpr size_t CallCost(size_t header_list_bytes) {
  return kCallBytes + kCallHeaderFactor * header_list_bytes;
}

struct Http2Limits {
  size_t max_header_block = 16 << 10;  // one block's HEADERS and CONTINUATION payloads
  size_t max_header_list = 16 << 10;   // decoded: each field's name, value and 32
  uint32_t max_streams = 100;          // calls open at once (SETTINGS_MAX_CONCURRENT_STREAMS)
  double resets_per_second = 100;      // calls reset before gRPC answered them
  double resets_burst = 200;
  double pings_per_second = 10;        // the client's PINGs (not their ACKs)
  double pings_burst = 100;
  size_t max_open_call_bytes = 2 << 20;  // by CallCost, the calls open at once
};

// Why a connection ends (the metrics' reasons).
enum class Http2Bound : uint8_t {
  kHeaderBlock,  // a header block over max_header_block bytes
  kHeaderList,   // decoded over max_header_list bytes
  kStreams,      // more than max_streams calls open at once
  kResets,       // calls reset before an answer, faster than resets_per_second
  kPings,        // PINGs faster than pings_per_second
  kProtocol,     // not HTTP/2 as RFC 9113 frames it (or its HPACK)
};

struct Http2Refusal {
  Http2Bound bound;
  Http2Error code;
  std::string reason;  // the GOAWAY's debug data
};

class Http2Inspector {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // `now` tells the time (the rate of resets); the steady clock's unless a test's. `memory`
  // (may be null; must outlive the inspector) is charged for the calls open, and refuses
  // one when their charges, all connections', would pass `calls_share`.
  explicit Http2Inspector(const Http2Limits& limits, Clock now = {},
                          MemoryBudget* memory = nullptr, size_t calls_share = SIZE_MAX);
  ~Http2Inspector();
  Http2Inspector(const Http2Inspector&) = delete;
  Http2Inspector& operator=(const Http2Inspector&) = delete;

  // Bytes the client sent: appends to `to_server` what gRPC is to read (the same bytes,
  // but for a refused message's DATA frame, which gives way to a reset of its call), and to
  // `to_client` what the client is answered from here (a refused call's end). Returns a
  // refusal when the connection must end, and nothing more may be fed from the client: a
  // frame over a bound of bytes is refused at its header, before any of it is appended; a
  // header list found too long once decoded, at the end of the frame that made it so.
  std::optional<Http2Refusal> FromClient(std::string_view bytes, std::string* to_server,
                                         std::string* to_client);

  // Bytes gRPC sent: appends to `to_client` what the client is to read (the same bytes, but
  // for SETTINGS_MAX_FRAME_SIZE kept at kMaxFrameBytes, and with what FromClient answered
  // between two of gRPC's frames).
  void FromServer(std::string_view bytes, std::string* to_client);

  // Ends the connection: appends the GOAWAY to `to_client` now if gRPC's bytes are at the
  // end of a frame, else once FromServer has passed the rest of that frame; nothing of
  // gRPC's is passed after it.
  void Refuse(const Http2Refusal& refusal, std::string* to_client);
  bool goaway_sent() const { return goaway_sent_; }

  // The client's preface and its first frame, SETTINGS, have arrived whole: from here on
  // the connection may be handed to gRPC.
  bool opened() const { return opened_; }

  // Calls open now, and what they are reckoned to hold (for tests).
  size_t open_streams() const { return streams_.size(); }
  size_t open_call_bytes() const { return open_call_bytes_; }

 private:
  // A bucket of `burst` tokens refilled at `per_second`: false once empty.
  class Allowance {
   public:
    Allowance(double per_second, double burst) : per_second_(per_second), burst_(burst), left_(burst) {}
    bool Spend(std::chrono::steady_clock::time_point now);

   private:
    double per_second_, burst_, left_;
    std::chrono::steady_clock::time_point refilled_{};
  };

  struct Stream {
    int64_t send_window = 0;         // what gRPC may still send on it (RFC 9113 section 6.9)
    bool compression_named = false;  // grpc-encoding names one gRPC decompresses
    bool client_done = false;        // the client ended its side (END_STREAM)
    bool answered = false;           // gRPC has sent HEADERS on it
    uint8_t prefix_at = 0;           // bytes of the current message's 5-byte prefix read
    uint32_t message_left = 0;       // bytes of the current message's body still to come
    uint8_t length_bytes[4] = {};
    size_t cost = 0;                 // CallCost of its headers
    MemoryBudget::Charge charge;     // the cost, charged to the budget
  };
  // A frame's 9-byte header as it arrives.
  struct FrameHeader {
    uint8_t bytes[9] = {};
    uint8_t have = 0;
    uint32_t length() const { return uint32_t{bytes[0]} << 16 | uint32_t{bytes[1]} << 8 | bytes[2]; }
    uint8_t type() const { return bytes[3]; }
    uint8_t flags() const { return bytes[4]; }
    uint32_t stream() const {
      return (uint32_t{bytes[5]} << 24 | uint32_t{bytes[6]} << 16 | uint32_t{bytes[7]} << 8 |
              bytes[8]) & 0x7fffffff;
    }
  };

  std::optional<Http2Refusal> ClientFrameStarts();
  // The frame at hand is of a new call's header block (held until it is whole).
  bool NewCallBlock() const;
  // The rules of RFC 9113 a frame's header alone can break (its type, size, flags, stream).
  std::optional<Http2Refusal> CheckFrameHeader() const;
  // A held control frame, whole: its payload checked, what it changes followed.
  std::optional<Http2Refusal> ClientControlEnds();
  // A call reset before gRPC answered it, by the client or from here.
  std::optional<Http2Refusal> SpendReset();
  std::optional<Http2Refusal> GrowWindow(int64_t* window, uint32_t by, uint32_t stream);
  std::optional<Http2Refusal> ClientFrameEnds(std::string* to_server, std::string* to_client);
  // A held DATA frame, whole: passed on, or its call refused.
  std::optional<Http2Refusal> ClientDataEnds(std::string* to_server, std::string* to_client);
  // Why a message among `data` (the frame's data, padding excluded) may not reach gRPC, or
  // nothing; advances the call's message framing.
  std::optional<std::string_view> CheckMessages(Stream& s, std::string_view data) const;
  std::optional<Http2Refusal> DecodeHeaderFragment(std::string_view fragment, bool last);
  // A new call's header block, whole: the call is opened, or refused for what it would hold.
  std::optional<Http2Refusal> OpenCall(std::string* to_server, std::string* to_client);
  void EraseStream(std::unordered_map<uint32_t, Stream>::iterator it);
  // Appends bytes of this side's own for the client, at the end of one of gRPC's frames.
  void ToClient(std::string bytes, std::string* to_client);
  void ServerFrameStarts(std::string* to_client);
  void ServerFrameEnds(std::string* to_client);
  // A call's end from here: its grpc-status (`status`) and grpc-message (`why`).
  std::string RefusedAnswer(uint32_t id, const Stream& stream, int status,
                            std::string_view why) const;
  // The GOAWAY, after what waits in queued_to_client_ (and gRPC's SETTINGS if it has not
  // spoken: a server's first frame).
  std::string Goaway(const Http2Refusal& refusal);

  const Http2Limits limits_;
  const Clock now_;
  MemoryBudget* const memory_;
  const size_t calls_share_;

  // The client's direction.
  size_t preface_have_ = 0;
  bool opened_ = false;
  FrameHeader client_;
  uint32_t client_left_ = 0;         // payload bytes of the current frame still to come
  bool client_in_payload_ = false;
  std::string held_;                 // a DATA frame of a call, or a control frame, held until
  bool holding_ = false;             // it is whole
  // Header blocks: one at a time per connection (section 6.10).
  std::string fragment_;             // the current HEADERS or CONTINUATION payload
  bool block_open_ = false;          // a block waits for its CONTINUATION
  uint32_t block_stream_ = 0;
  size_t block_bytes_ = 0;
  size_t block_list_bytes_ = 0;
  bool block_new_stream_ = false;
  // A new call's header block, its frames as they came (at most max_header_block and their
  // headers), held until it is whole: gRPC gets it if the call is opened, or if the call is
  // refused and its HPACK representations change the table; otherwise never. And its HPACK
  // bytes (padding and priority left out).
  std::string new_call_;
  std::string new_call_hpack_;
  bool block_end_stream_ = false;    // the block's HEADERS ended the client's side
  std::string block_encoding_;
  nghttp2_hd_inflater* hpack_ = nullptr;  // made with the first header block
  uint32_t last_stream_ = 0;         // the highest call the client has opened
  std::unordered_map<uint32_t, Stream> streams_;
  size_t open_call_bytes_ = 0;       // the streams' costs
  Allowance resets_;                 // calls reset before an answer
  Allowance pings_;
  // Flow control of gRPC's sending (section 6.9): the connection's window, and a new
  // call's (the client's SETTINGS_INITIAL_WINDOW_SIZE).
  int64_t send_window_ = 65535;
  int64_t initial_window_ = 65535;

  // gRPC's direction.
  FrameHeader server_;
  uint32_t server_left_ = 0;
  bool server_in_payload_ = false;
  std::string settings_;             // a SETTINGS frame of gRPC's, held until it is whole
  bool server_spoke_ = false;        // a frame of gRPC's has been passed
  std::string queued_to_client_;     // this side's own bytes, for the end of gRPC's frame
                                     // (or its first, SETTINGS)
  std::optional<Http2Refusal> goaway_pending_;
  bool goaway_sent_ = false;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_GUARD_HTTP2_INSPECTOR_H_
