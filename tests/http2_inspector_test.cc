// The gRPC port's reading of HTTP/2 (server/guard/http2_inspector.h), bytes in and bytes out:
// what passes unchanged, each bound and the GOAWAY that ends a connection past it, and the
// calls whose messages are refused. Header blocks are written by nghttp2's HPACK encoder (as
// a real client's, with Huffman codes and its dynamic table) and the inspector's own
// answers read back by its decoder.
#include "server/guard/http2_inspector.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nghttp2/nghttp2.h"

namespace puzzledb {
namespace inspector_test {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
  std::string f;
  const auto n = static_cast<uint32_t>(payload.size());
  for (uint32_t v : {n >> 16, n >> 8, n}) f.push_back(static_cast<char>(v));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  for (uint32_t v : {stream >> 24, stream >> 16, stream >> 8, stream}) f.push_back(static_cast<char>(v));
  f.append(payload);
  return f;
}

std::string Uint32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// A gRPC message: its flag, its length, its bytes.
std::string Message(std::string_view body, char flag = 0) {
  return std::string(1, flag) + Uint32(static_cast<uint32_t>(body.size())) + std::string(body);
}

using Fields = std::vector<std::pair<std::string, std::string>>;

// A client's HPACK encoder: one per connection, as its dynamic table is.
class Encoder {
 public:
  Encoder() { nghttp2_hd_deflate_new(&deflater_, 4096); }
  ~Encoder() { nghttp2_hd_deflate_del(deflater_); }
  // `never_indexed`: every field a literal never indexed (RFC 7541 6.2.3), which leaves the
  // dynamic table as it was.
  std::string Block(const Fields& fields, bool never_indexed = false) {
    std::vector<nghttp2_nv> nv;
    for (const auto& [name, value] : fields) {
      nv.push_back({reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                    value.size(),
                    static_cast<uint8_t>(never_indexed ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE)});
    }
    std::string out(nghttp2_hd_deflate_bound(deflater_, nv.data(), nv.size()), '\0');
    const ssize_t n = nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<uint8_t*>(out.data()),
                                            out.size(), nv.data(), nv.size());
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return out;
  }

 private:
  nghttp2_hd_deflater* deflater_ = nullptr;
};

Fields Call(std::string_view encoding = "") {
  Fields f = {{":method", "POST"},
              {":scheme", "http"},
              {":path", "/puzzledb.v1.Solver/Solve"},
              {":authority", "localhost"},
              {"content-type", "application/grpc"},
              {"te", "trailers"}};
  if (!encoding.empty()) f.push_back({"grpc-encoding", std::string(encoding)});
  return f;
}

// The frames of one direction, whole.
struct Parsed {
  uint8_t type, flags;
  uint32_t stream;
  std::string payload;
};
std::vector<Parsed> Frames(std::string_view bytes) {
  std::vector<Parsed> out;
  while (bytes.size() >= 9) {
    const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
    const uint32_t n = uint32_t{b[0]} << 16 | uint32_t{b[1]} << 8 | b[2];
    if (bytes.size() < 9 + n) break;
    out.push_back({b[3], b[4],
                   (uint32_t{b[5]} << 24 | uint32_t{b[6]} << 16 | uint32_t{b[7]} << 8 | b[8]) &
                       0x7fffffff,
                   std::string(bytes.substr(9, n))});
    bytes.remove_prefix(9 + n);
  }
  return out;
}

// A header block of the inspector's own, decoded.
Fields Decode(std::string_view block) {
  nghttp2_hd_inflater* inflater = nullptr;
  nghttp2_hd_inflate_new(&inflater);
  Fields out;
  const auto* in = reinterpret_cast<const uint8_t*>(block.data());
  size_t left = block.size();
  while (true) {
    nghttp2_nv nv;
    int flags = 0;
    const ssize_t used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, in, left, 1);
    if (used < 0) break;
    in += used;
    left -= static_cast<size_t>(used);
    if ((flags & NGHTTP2_HD_INFLATE_EMIT) != 0) {
      out.push_back({std::string(reinterpret_cast<char*>(nv.name), nv.namelen),
                     std::string(reinterpret_cast<char*>(nv.value), nv.valuelen)});
    }
    if ((flags & NGHTTP2_HD_INFLATE_FINAL) != 0 || ((flags & NGHTTP2_HD_INFLATE_EMIT) == 0 && left == 0)) break;
  }
  nghttp2_hd_inflate_del(inflater);
  return out;
}

std::string ValueOf(const Fields& fields, std::string_view name) {
  for (const auto& [n, v] : fields) {
    if (n == name) return v;
  }
  return "(absent)";
}

class Http2InspectorTest : public ::testing::Test {
 protected:
  // Feeds the client's bytes in pieces of `piece` bytes; the refusal, if any.
  std::optional<Http2Refusal> Client(std::string_view bytes, size_t piece = SIZE_MAX) {
    while (!bytes.empty()) {
      const size_t n = std::min(piece, bytes.size());
      if (auto refusal = inspector_.FromClient(bytes.substr(0, n), &to_server_, &to_client_)) {
        return refusal;
      }
      bytes.remove_prefix(n);
    }
    return std::nullopt;
  }
  void Server(std::string_view bytes) { inspector_.FromServer(bytes, &to_client_); }
  std::string Opening() { return std::string(kPreface) + Frame(4, 0, 0, ""); }

  Http2Limits limits_;
  Http2Inspector inspector_{limits_};
  Encoder encoder_;
  std::string to_server_, to_client_;
};

TEST_F(Http2InspectorTest, AConversationPassesUnchangedWhateverItsPieces) {
  for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, SIZE_MAX}) {
    Http2Inspector inspector(limits_);
    Encoder encoder;
    std::string in = Opening() + Frame(4, 1, 0, "") + Frame(8, 0, 0, Uint32(1 << 20));
    // Three calls: a message in one frame, one split across three frames (padded one), and
    // two messages in one frame.
    in += Frame(1, 0x4, 1, encoder.Block(Call())) + Frame(0, 0x1, 1, Message("abc"));
    const std::string split = Message(std::string(300, 'x'));
    in += Frame(1, 0x4, 3, encoder.Block(Call("identity")));
    in += Frame(0, 0, 3, split.substr(0, 3));
    in += Frame(0, 0x8, 3, std::string(1, '\x02') + split.substr(3, 100) + std::string(2, '\0'));
    in += Frame(0, 0x1, 3, split.substr(103));
    in += Frame(1, 0x4, 5, encoder.Block(Call())) + Frame(0, 0x1, 5, Message("a") + Message(""));
    in += Frame(6, 0, 0, "pingpong") + Frame(3, 0, 5, Uint32(8));
    std::string to_server, to_client;
    std::string_view rest = in;
    while (!rest.empty()) {
      const size_t n = std::min(piece, rest.size());
      ASSERT_FALSE(inspector.FromClient(rest.substr(0, n), &to_server, &to_client)) << piece;
      rest.remove_prefix(n);
    }
    EXPECT_EQ(to_server, in) << "in pieces of " << piece;
    EXPECT_EQ(to_client, "");
    EXPECT_TRUE(inspector.opened());
  }
}

TEST_F(Http2InspectorTest, OpensOnlyOnThePrefaceAndSettings) {
  EXPECT_FALSE(Client(kPreface.substr(0, 10)));
  EXPECT_FALSE(inspector_.opened());
  EXPECT_FALSE(Client(kPreface.substr(10)));
  EXPECT_FALSE(inspector_.opened());
  EXPECT_FALSE(Client(Frame(4, 0, 0, std::string(6, '\0')).substr(0, 12)));
  EXPECT_FALSE(inspector_.opened()) << "SETTINGS not yet whole";
  EXPECT_FALSE(Client(std::string(3, '\0')));
  EXPECT_TRUE(inspector_.opened());

  Http2Inspector http1(limits_);
  auto refusal = http1.FromClient("GET / HTTP/1.1\r\n", &to_server_, &to_client_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->bound, Http2Bound::kProtocol);
  EXPECT_NE(refusal->reason.find("not an HTTP/2 connection preface"), std::string::npos);

  Http2Inspector ping_first(limits_);
  refusal = ping_first.FromClient(std::string(kPreface) + Frame(6, 0, 0, "12345678"),
                                  &to_server_, &to_client_);
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->reason.find("first frame after the preface must be SETTINGS"), std::string::npos);
}

// The finding: a HEADERS frame and 20,000 CONTINUATION frames held 333 MB in gRPC 1.51.
// Here the block's one field never ends (its declared length is 60,000 bytes), so nothing
// is decoded: the raw bytes are the bound that holds.
TEST_F(Http2InspectorTest, AHeaderBlockPastItsBytesEndsTheConnection) {
  std::string start = encoder_.Block(Call());
  start += std::string("\x00\x05x-pad\x7f", 8);  // literal, new name, value length 127 + ...
  start += std::string("\xe1\xd3\x03", 3);        // ... 59,873: 60,000 bytes
  ASSERT_FALSE(Client(Opening() + Frame(1, 0, 1, start)));
  std::optional<Http2Refusal> refusal;
  int frames = 0;
  for (; frames < 100 && !refusal; ++frames) {
    const size_t before = to_server_.size();
    refusal = Client(Frame(9, 0, 1, std::string(1000, 'p')));
    if (refusal) {
      EXPECT_EQ(to_server_.size(), before) << "nothing of the frame past the bound";
    }
  }
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->bound, Http2Bound::kHeaderBlock);
  EXPECT_EQ(refusal->code, Http2Error::kEnhanceYourCalm);
  EXPECT_NE(refusal->reason.find("passed 16384 bytes"), std::string::npos) << refusal->reason;
  EXPECT_EQ(frames, 17) << "refused at the frame that passed 16 KiB";
  EXPECT_LE(to_server_.size(), 16384u + 100);
  // The GOAWAY goes out at once: gRPC has sent nothing, so a SETTINGS frame comes first.
  inspector_.Refuse(*refusal, &to_client_);
  ASSERT_TRUE(inspector_.goaway_sent());
  const auto frames_out = Frames(to_client_);
  ASSERT_EQ(frames_out.size(), 2u);
  EXPECT_EQ(frames_out[0].type, 4);
  EXPECT_EQ(frames_out[1].type, 7);
  EXPECT_EQ(frames_out[1].payload.substr(0, 8), Uint32(1) + Uint32(0xb)) << "last stream 1";
  EXPECT_NE(frames_out[1].payload.find("--grpc-max-header-bytes"), std::string::npos);
}

// HPACK can make a small block large: a field in the dynamic table, then referred to by one
// byte each time.
TEST_F(Http2InspectorTest, AHeaderListPastItsDecodedBytesEndsTheConnection) {
  std::string block = encoder_.Block(Call());
  block += '\x40';  // literal with incremental indexing, new name
  block += '\x05';
  block += "x-big";
  block += '\x7f';  // a value of 127 + 1,873 = 2,000 bytes
  block += '\xd1';
  block += '\x0e';
  block += std::string(2000, 'b');
  for (int i = 0; i < 100; ++i) block += '\xbe';  // indexed: dynamic table entry 62
  ASSERT_LT(block.size(), 16384u);
  auto refusal = Client(Opening() + Frame(1, 0x5, 1, block));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->bound, Http2Bound::kHeaderList);
  EXPECT_NE(refusal->reason.find("bytes decoded"), std::string::npos) << refusal->reason;
}

TEST_F(Http2InspectorTest, CallsOpenAtOnceAreBoundedAndFreedWhenGrpcEndsThem) {
  limits_.max_streams = 3;
  Http2Inspector inspector(limits_);
  std::string to_server, to_client;
  auto open = [&](uint32_t id) {
    return inspector.FromClient(Frame(1, 0x4, id, encoder_.Block(Call())), &to_server, &to_client);
  };
  ASSERT_FALSE(inspector.FromClient(Opening(), &to_server, &to_client));
  ASSERT_FALSE(open(1));
  ASSERT_FALSE(open(3));
  ASSERT_FALSE(open(5));
  EXPECT_EQ(inspector.open_streams(), 3u);
  // gRPC answers call 1 (trailers ending it) and resets call 3: two places free.
  inspector.FromServer(Frame(1, 0x5, 1, "\x88") + Frame(3, 0, 3, Uint32(8)), &to_client);
  EXPECT_EQ(inspector.open_streams(), 1u);
  ASSERT_FALSE(open(7));
  ASSERT_FALSE(open(9));
  const auto refusal = open(11);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->bound, Http2Bound::kStreams);
  EXPECT_NE(refusal->reason.find("SETTINGS_MAX_CONCURRENT_STREAMS is 3"), std::string::npos);
  // The client's own reset frees a place too.
  Http2Inspector again(limits_);
  Encoder encoder;
  ASSERT_FALSE(again.FromClient(Opening(), &to_server, &to_client));
  for (uint32_t id = 1; id < 200; id += 2) {
    ASSERT_FALSE(again.FromClient(Frame(1, 0x4, id, encoder.Block(Call())) + Frame(3, 0, id, Uint32(8)),
                                  &to_server, &to_client))
        << id;
  }
}

// Issue 64, D5: what the calls open hold in gRPC, reckoned from their headers, within a
// connection's bound and the budget's share; a call past either is answered
// RESOURCE_EXHAUSTED from here and reset towards gRPC, which still reads its header block.
TEST_F(Http2InspectorTest, OpenCallsAreChargedAndBoundedPerConnectionAndInTheBudget) {
  Fields heavy = Call();
  for (int i = 0; i < 100; ++i) heavy.push_back({"x-field-" + std::to_string(i), "v"});
  auto list_bytes = [](const Fields& fields) {
    size_t bytes = 0;
    for (const auto& [name, value] : fields) bytes += name.size() + value.size() + 32;
    return bytes;
  };
  const size_t heavy_list = list_bytes(heavy), small_list = list_bytes(Call());
  limits_.max_open_call_bytes = 3 * CallCost(heavy_list) + CallCost(small_list) + 100;
  MemoryBudget budget(0);
  Http2Inspector inspector(limits_, {}, &budget, SIZE_MAX);
  std::string to_server, to_client;
  ASSERT_FALSE(inspector.FromClient(Opening(), &to_server, &to_client));
  inspector.FromServer(Frame(4, 0, 0, ""), &to_client);  // gRPC's SETTINGS
  for (uint32_t id : {1, 3, 5}) {
    ASSERT_FALSE(inspector.FromClient(Frame(1, 0x4, id, encoder_.Block(heavy)), &to_server, &to_client));
  }
  EXPECT_EQ(inspector.open_streams(), 3u);
  EXPECT_EQ(inspector.open_call_bytes(), 3 * CallCost(heavy_list));
  EXPECT_EQ(budget.held(MemoryUse::kGrpcCall), 3 * CallCost(heavy_list));
  to_server.clear();
  to_client.clear();
  ASSERT_FALSE(inspector.FromClient(Frame(1, 0x4, 7, encoder_.Block(heavy)), &to_server, &to_client));
  EXPECT_EQ(inspector.open_streams(), 3u);
  // gRPC reads the block and then a reset (CANCEL) of the call it makes of it.
  auto to_grpc = Frames(to_server);
  ASSERT_EQ(to_grpc.size(), 2u);
  EXPECT_EQ(to_grpc[0].type, 1);
  EXPECT_EQ(to_grpc[1].type, 3);
  EXPECT_EQ(to_grpc[1].stream, 7u);
  EXPECT_EQ(to_grpc[1].payload, Uint32(8));
  // The client: trailers-only RESOURCE_EXHAUSTED that says why, and a reset of its side.
  auto answer = Frames(to_client);
  ASSERT_EQ(answer.size(), 2u);
  EXPECT_EQ(answer[0].type, 1);
  EXPECT_EQ(answer[0].stream, 7u);
  const Fields fields = Decode(answer[0].payload);
  EXPECT_EQ(ValueOf(fields, "grpc-status"), "8");
  EXPECT_NE(ValueOf(fields, "grpc-message").find("--grpc-max-open-call-bytes"), std::string::npos)
      << ValueOf(fields, "grpc-message");
  EXPECT_EQ(answer[1].type, 3);
  // A refused call whose block leaves HPACK's table as it was never reaches gRPC; what the
  // client sends on it later passes, for gRPC to skip as a stream it does not know.
  to_server.clear();
  to_client.clear();
  const std::string plain = Frame(1, 0x4, 9, encoder_.Block(heavy, /*never_indexed=*/true));
  ASSERT_FALSE(inspector.FromClient(plain, &to_server, &to_client));
  EXPECT_EQ(to_server, "") << "the refused call's block is dropped";
  ASSERT_EQ(Frames(to_client).size(), 2u);
  EXPECT_EQ(ValueOf(Decode(Frames(to_client)[0].payload), "grpc-status"), "8");
  const std::string data = Frame(0, 0x1, 9, Message("abc"));
  ASSERT_FALSE(inspector.FromClient(data, &to_server, &to_client));
  EXPECT_EQ(to_server, data);
  EXPECT_EQ(inspector.open_streams(), 3u);
  // A small call still fits; once gRPC ends one, a heavy one does again.
  ASSERT_FALSE(inspector.FromClient(Frame(1, 0x4, 11, encoder_.Block(Call())), &to_server, &to_client));
  EXPECT_EQ(inspector.open_streams(), 4u);
  inspector.FromServer(Frame(1, 0x5, 1, "\x88"), &to_client);
  EXPECT_EQ(budget.held(MemoryUse::kGrpcCall), inspector.open_call_bytes());
  ASSERT_FALSE(inspector.FromClient(Frame(1, 0x4, 13, encoder_.Block(heavy)), &to_server, &to_client));
  EXPECT_EQ(inspector.open_streams(), 4u);

  // The budget's share, all connections' together: a second connection's call past it is
  // refused, whatever its own bound.
  {
    Http2Limits roomy = limits_;
    roomy.max_open_call_bytes = size_t{1} << 30;
    Http2Inspector other(roomy, {}, &budget, budget.held(MemoryUse::kGrpcCall) + CallCost(small_list) + 100);
    std::string server_side, client_side;
    Encoder encoder;
    ASSERT_FALSE(other.FromClient(Opening(), &server_side, &client_side));
    // Its answer waits for gRPC's first frame, SETTINGS (RFC 9113 section 3.4).
    ASSERT_FALSE(other.FromClient(Frame(1, 0x4, 1, encoder.Block(heavy)), &server_side, &client_side));
    EXPECT_TRUE(client_side.empty());
    other.FromServer(Frame(4, 0, 0, ""), &client_side);
    auto frames = Frames(client_side);
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[0].type, 4);
    EXPECT_EQ(ValueOf(Decode(frames[1].payload), "grpc-status"), "8");
    EXPECT_NE(ValueOf(Decode(frames[1].payload), "grpc-message").find("--memory-budget"),
              std::string::npos);
    EXPECT_EQ(budget.refused(MemoryUse::kGrpcCall), 1u);
    ASSERT_FALSE(other.FromClient(Frame(1, 0x4, 3, encoder.Block(Call())), &server_side, &client_side));
    EXPECT_EQ(other.open_streams(), 1u);
  }
  // A connection gone lets go of its calls' charges.
  EXPECT_EQ(budget.held(MemoryUse::kGrpcCall), inspector.open_call_bytes());
}

// HTTP/2 rapid reset: calls opened and reset before gRPC answers them. Resets of answered
// calls (a client giving up on a stream it has read from) are not counted.
TEST_F(Http2InspectorTest, ResetsBeforeAnswersAreBoundedInRate) {
  limits_.resets_per_second = 10;
  limits_.resets_burst = 20;
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  Http2Inspector inspector(limits_, [&] { return now; });
  std::string to_server, to_client;
  ASSERT_FALSE(inspector.FromClient(Opening(), &to_server, &to_client));
  uint32_t id = 1;
  auto open_and_reset = [&](bool answered) {
    const uint32_t stream = id;
    id += 2;
    if (auto refusal = inspector.FromClient(Frame(1, 0x4, stream, encoder_.Block(Call())),
                                            &to_server, &to_client)) {
      return refusal;
    }
    if (answered) inspector.FromServer(Frame(1, 0x4, stream, "\x88"), &to_client);
    return inspector.FromClient(Frame(3, 0, stream, Uint32(8)), &to_server, &to_client);
  };
  for (int i = 0; i < 20; ++i) ASSERT_FALSE(open_and_reset(false)) << i;  // the burst
  for (int i = 0; i < 100; ++i) ASSERT_FALSE(open_and_reset(true)) << "answered: not counted";
  now += std::chrono::milliseconds(500);  // five more
  for (int i = 0; i < 5; ++i) ASSERT_FALSE(open_and_reset(false)) << i;
  const auto refusal = open_and_reset(false);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->bound, Http2Bound::kResets);
  EXPECT_EQ(refusal->code, Http2Error::kEnhanceYourCalm);
  EXPECT_NE(refusal->reason.find("rapid reset"), std::string::npos);
}

TEST_F(Http2InspectorTest, ACompressedMessageOnACallWithoutEncodingIsAnsweredFromHere) {
  for (std::string_view encoding : {"", "identity"}) {
    Http2Inspector inspector(limits_);
    Encoder encoder;
    std::string to_server, to_client;
    ASSERT_FALSE(inspector.FromClient(Opening() + Frame(1, 0x4, 1, encoder.Block(Call(encoding))),
                                      &to_server, &to_client));
    const size_t before = to_server.size();
    const std::string data = Frame(0, 0x1, 1, Message("abc", 1));
    ASSERT_FALSE(inspector.FromClient(data, &to_server, &to_client));
    // gRPC gets a reset of the call instead of the frame.
    EXPECT_EQ(to_server.substr(before), Frame(3, 0, 1, Uint32(8)));
    // The answer waits for gRPC's first frame, its SETTINGS (RFC 9113 section 3.4).
    EXPECT_TRUE(to_client.empty());
    inspector.FromServer(Frame(4, 0, 0, ""), &to_client);
    ASSERT_EQ(to_client.substr(0, 9), Frame(4, 0, 0, ""));
    to_client.erase(0, 9);
    const auto answer = Frames(to_client);
    ASSERT_EQ(answer.size(), 2u) << "trailers-only and the window back (the client had ended)";
    EXPECT_EQ(answer[0].type, 1);
    EXPECT_EQ(answer[0].flags, 0x5);
    const Fields fields = Decode(answer[0].payload);
    EXPECT_EQ(ValueOf(fields, ":status"), "200");
    EXPECT_EQ(ValueOf(fields, "content-type"), "application/grpc");
    EXPECT_EQ(ValueOf(fields, "grpc-status"), "13");
    EXPECT_NE(ValueOf(fields, "grpc-message").find("flagged compressed"), std::string::npos);
    EXPECT_EQ(answer[1].type, 8);
    EXPECT_EQ(answer[1].payload, Uint32(static_cast<uint32_t>(data.size() - 9)));
    EXPECT_EQ(inspector.open_streams(), 0u);
  }
}

TEST_F(Http2InspectorTest, AMessageFlaggedNeitherZeroNorOneIsRefusedAfterAnswers) {
  ASSERT_FALSE(Client(Opening() + Frame(1, 0x4, 1, encoder_.Block(Call()))));
  // gRPC has answered the call's first message (its HEADERS are out): the refusal is
  // trailers, without :status, and the call is reset as the client has not ended it.
  ASSERT_FALSE(Client(Frame(0, 0, 1, Message("first"))));
  Server(Frame(1, 0x4, 1, "\x88") + Frame(0, 0, 1, Message("answer")));
  to_client_.clear();
  const size_t before = to_server_.size();
  ASSERT_FALSE(Client(Frame(0, 0, 1, Message("second", 2))));
  EXPECT_EQ(to_server_.substr(before), Frame(3, 0, 1, Uint32(8)));
  const auto answer = Frames(to_client_);
  ASSERT_EQ(answer.size(), 3u);
  const Fields fields = Decode(answer[0].payload);
  EXPECT_EQ(ValueOf(fields, ":status"), "(absent)");
  EXPECT_EQ(ValueOf(fields, "grpc-status"), "13");
  EXPECT_NE(ValueOf(fields, "grpc-message").find("neither 0 nor 1"), std::string::npos);
  EXPECT_EQ(answer[1].type, 3);
  EXPECT_EQ(answer[1].payload, Uint32(0));
  EXPECT_EQ(answer[2].type, 8);
}

TEST_F(Http2InspectorTest, AFlagInTheMiddleOfAFrameIsFoundWhereverMessagesEnd) {
  ASSERT_FALSE(Client(Opening() + Frame(1, 0x4, 1, encoder_.Block(Call()))));
  // A message whose length prefix ends in the next frame, then a compressed one after it.
  const std::string first = Message(std::string(40, 'a'));
  ASSERT_FALSE(Client(Frame(0, 0, 1, first.substr(0, 3))));
  const size_t before = to_server_.size();
  ASSERT_FALSE(Client(Frame(0, 0, 1, first.substr(3) + Message("zz", 1)), 5));
  EXPECT_EQ(to_server_.substr(before), Frame(3, 0, 1, Uint32(8)));
}

TEST_F(Http2InspectorTest, AHeldFrameOfACallGrpcEndedMeanwhilePassesAsItIs) {
  ASSERT_FALSE(Client(Opening() + Frame(1, 0x4, 1, encoder_.Block(Call()))));
  const std::string data = Frame(0, 0x1, 1, Message(std::string(100, 'd'), 1));
  ASSERT_FALSE(Client(data.substr(0, 50)));
  Server(Frame(1, 0x5, 1, "\x88"));  // gRPC refused the call at its headers
  const size_t before = to_server_.size();
  ASSERT_FALSE(Client(data.substr(50)));
  EXPECT_EQ(to_server_.substr(before), data);
}

TEST_F(Http2InspectorTest, FramesOverTheDefaultSizeAreRefusedAndGrpcSettingsKeepIt) {
  // gRPC's SETTINGS: MAX_FRAME_SIZE (5) raised by its measurements, INITIAL_WINDOW_SIZE (4).
  Server(Frame(4, 0, 0, std::string("\0\x05", 2) + Uint32(1 << 20) + std::string("\0\x04", 2) +
                            Uint32(1 << 22)));
  EXPECT_EQ(to_client_, Frame(4, 0, 0, std::string("\0\x05", 2) + Uint32(16384) +
                                           std::string("\0\x04", 2) + Uint32(1 << 22)));
  ASSERT_FALSE(Client(Opening() + Frame(1, 0x4, 1, encoder_.Block(Call()))));
  const auto refusal = Client(Frame(0, 0, 1, std::string(16385, 'x')));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->code, Http2Error::kFrameSize);
}

TEST_F(Http2InspectorTest, TheGoawayWaitsForTheEndOfGrpcsFrame) {
  ASSERT_FALSE(Client(Opening() + Frame(1, 0x4, 1, encoder_.Block(Call()))));
  const std::string answer = Frame(0, 0, 1, std::string(100, 'a'));
  Server(answer.substr(0, 40));
  inspector_.Refuse({Http2Bound::kProtocol, Http2Error::kProtocol, "why"}, &to_client_);
  EXPECT_FALSE(inspector_.goaway_sent());
  Server(answer.substr(40) + Frame(0, 0, 1, "more, never passed"));
  ASSERT_TRUE(inspector_.goaway_sent());
  const auto frames = Frames(to_client_);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].payload, std::string(100, 'a'));
  EXPECT_EQ(frames[1].type, 7);
  EXPECT_EQ(frames[1].payload, Uint32(1) + Uint32(1) + "why");
}

TEST_F(Http2InspectorTest, MalformedFramingIsRefused) {
  struct Case {
    std::function<std::string(Encoder&)> bytes;
    std::string says;
    Http2Error code;
  };
  const std::vector<Case> cases = {
      {[](Encoder&) { return Frame(9, 0x4, 1, "\x82"); }, "follows no unfinished header block",
       Http2Error::kProtocol},
      {[](Encoder& e) { return Frame(1, 0, 1, e.Block(Call())) + Frame(0, 0, 1, "x"); },
       "must go on in CONTINUATION", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(1, 0, 1, "\x82") + Frame(9, 0x4, 3, "\x84"); },
       "must go on in CONTINUATION", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(1, 0x4, 1, "\xff\xff\xff\xff\x0f"); },
       "cannot be decoded (HPACK", Http2Error::kCompression},
      {[](Encoder&) { return Frame(1, 0xc, 1, "\x09\x82"); }, "padded: gRPC 1.51 cannot read",
       Http2Error::kProtocol},
      {[](Encoder& e) { return Frame(1, 0x4, 1, e.Block(Call())) + Frame(0, 0x8, 1, "\x05" "abc"); },
       "padding of 5 bytes", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(6, 0, 0, std::string(20000, 'p')); }, "a frame of 20000 bytes",
       Http2Error::kFrameSize},
  };
  for (const Case& c : cases) {
    Http2Inspector inspector(limits_);
    Encoder encoder;
    std::string to_server, to_client;
    const auto refusal = inspector.FromClient(Opening() + c.bytes(encoder), &to_server, &to_client);
    ASSERT_TRUE(refusal) << c.says;
    EXPECT_NE(refusal->reason.find(c.says), std::string::npos) << refusal->reason;
    EXPECT_EQ(refusal->code, c.code) << c.says;
  }
}


// Issue 64, D3: calls refused from here (a message flagged compressed without grpc-encoding)
// are resets too: 180,000 of them on one connection held 1.7 GB and never met a GOAWAY.
TEST_F(Http2InspectorTest, ResetsMadeHereCountAgainstTheSameAllowance) {
  limits_.resets_per_second = 0.001;
  limits_.resets_burst = 5;
  Http2Inspector inspector(limits_);
  std::string to_server, to_client;
  ASSERT_FALSE(inspector.FromClient(Opening(), &to_server, &to_client));
  std::optional<Http2Refusal> refusal;
  uint32_t id = 1;
  for (; id < 100 && !refusal; id += 2) {
    refusal = inspector.FromClient(
        Frame(1, 0x4, id, encoder_.Block(Call())) + Frame(0, 0x1, id, Message("abc", 2)),
        &to_server, &to_client);
  }
  ASSERT_TRUE(refusal);
  EXPECT_EQ(id, 13u) << "five refused, the sixth ends the connection";
  EXPECT_EQ(refusal->bound, Http2Bound::kResets);
  EXPECT_EQ(refusal->code, Http2Error::kEnhanceYourCalm);
}

// Issue 64, D4: PINGs cost gRPC 2-3 KB each before its strike policy sees them: 20
// connections of 20,000 held 1.3 GB.
TEST_F(Http2InspectorTest, PingsAreBoundedInRateAndTheirAcksAreNot) {
  limits_.pings_per_second = 2;
  limits_.pings_burst = 10;
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  Http2Inspector inspector(limits_, [&] { return now; });
  std::string to_server, to_client;
  ASSERT_FALSE(inspector.FromClient(Opening(), &to_server, &to_client));
  const std::string ping = Frame(6, 0, 0, "abcdefgh"), ack = Frame(6, 1, 0, "abcdefgh");
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(inspector.FromClient(ping, &to_server, &to_client)) << i;
  for (int i = 0; i < 100; ++i) ASSERT_FALSE(inspector.FromClient(ack, &to_server, &to_client)) << i;
  now += std::chrono::milliseconds(500);  // one more
  const size_t before = to_server.size();
  ASSERT_FALSE(inspector.FromClient(ping, &to_server, &to_client));
  EXPECT_EQ(to_server.substr(before), ping) << "passed to gRPC whole";
  const size_t passed = to_server.size();
  const auto refusal = inspector.FromClient(ping, &to_server, &to_client);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->bound, Http2Bound::kPings);
  EXPECT_EQ(refusal->code, Http2Error::kEnhanceYourCalm);
  EXPECT_NE(refusal->reason.find("PINGs faster than 2 a second"), std::string::npos) << refusal->reason;
  EXPECT_EQ(to_server.size(), passed) << "the PING past the bound never reaches gRPC";
}

// Issue 64, D6 and D9: what RFC 9113 makes an error and gRPC 1.51 passes over (a caller left
// hanging to its deadline, a header table out of step with the port's) ends the connection
// with the RFC's code, and no byte of the frame reaches gRPC.
TEST_F(Http2InspectorTest, FramesTheRfcForbidsNeverReachGrpc) {
  struct Case {
    std::function<std::string(Encoder&)> bytes;  // after the opening and call 1 opened
    std::string says;
    Http2Error code;
  };
  auto settings = [](uint16_t id, uint32_t value) {
    return Frame(4, 0, 0, std::string{static_cast<char>(id >> 8), static_cast<char>(id)} + Uint32(value));
  };
  const std::vector<Case> cases = {
      {[](Encoder& e) { return Frame(1, 0xc, 3, std::string(1, '\x02') + e.Block(Call()) + "\x40\x00"); },
       "HEADERS on stream 3 padded", Http2Error::kProtocol},
      {[](Encoder& e) { return Frame(1, 0x4, 0, e.Block(Call())); }, "HEADERS on stream 0",
       Http2Error::kProtocol},
      {[](Encoder& e) { return Frame(1, 0x4, 4, e.Block(Call())); }, "HEADERS on stream 4",
       Http2Error::kProtocol},
      {[](Encoder& e) { return Frame(0, 0x1, 1, Message("a")) + Frame(1, 0x4, 1, e.Block(Call())); },
       "which the client has already used", Http2Error::kStreamClosed},
      {[](Encoder& e) { return Frame(1, 0x4, 1, e.Block(Call())); }, "without END_STREAM",
       Http2Error::kProtocol},
      {[](Encoder& e) { return Frame(5, 0x4, 1, Uint32(2) + e.Block(Call())); }, "PUSH_PROMISE",
       Http2Error::kProtocol},
      {[](Encoder&) { return Frame(4, 0, 0, "12345"); }, "not a multiple of 6", Http2Error::kFrameSize},
      {[](Encoder&) { return Frame(4, 0x1, 0, "123456"); }, "acknowledgement of 6 bytes",
       Http2Error::kFrameSize},
      {[](Encoder&) { return Frame(4, 0, 1, ""); }, "SETTINGS on stream 1", Http2Error::kProtocol},
      {[&](Encoder&) { return settings(2, 2); }, "SETTINGS_ENABLE_PUSH of 2", Http2Error::kProtocol},
      {[&](Encoder&) { return settings(4, 0x80000000u); }, "SETTINGS_INITIAL_WINDOW_SIZE of 2147483648",
       Http2Error::kFlowControl},
      {[&](Encoder&) { return settings(5, 100); }, "SETTINGS_MAX_FRAME_SIZE of 100", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(6, 0, 0, "1234567"); }, "PING of 7 bytes", Http2Error::kFrameSize},
      {[](Encoder&) { return Frame(6, 0, 1, "12345678"); }, "PING on stream 1", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(8, 0, 0, Uint32(0)); }, "WINDOW_UPDATE of 0", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(8, 0, 0, Uint32(0x7fffffff)); }, "the connection's window to",
       Http2Error::kFlowControl},
      {[](Encoder&) { return Frame(8, 0, 1, Uint32(0x7fffffff)); }, "stream 1's window to",
       Http2Error::kFlowControl},
      {[](Encoder&) { return Frame(8, 0, 5, Uint32(1)); }, "WINDOW_UPDATE on stream 5",
       Http2Error::kProtocol},
      {[](Encoder&) { return Frame(8, 0, 0, "123"); }, "WINDOW_UPDATE of 3 bytes", Http2Error::kFrameSize},
      {[](Encoder&) { return Frame(3, 0, 0, Uint32(8)); }, "RST_STREAM on stream 0", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(3, 0, 9, Uint32(8)); }, "RST_STREAM on stream 9", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(0, 0, 7, Message("a")); }, "DATA on stream 7", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(0, 0, 0, Message("a")); }, "DATA on stream 0", Http2Error::kProtocol},
      {[](Encoder&) { return Frame(0, 0x1, 1, Message("a")) + Frame(0, 0, 1, Message("b")); },
       "after the client ended it", Http2Error::kStreamClosed},
      {[](Encoder&) { return Frame(2, 0, 1, "1234"); }, "PRIORITY of 4 bytes", Http2Error::kFrameSize},
      {[](Encoder&) { return Frame(7, 0, 0, "1234"); }, "GOAWAY of 4 bytes", Http2Error::kFrameSize},
  };
  for (const Case& c : cases) {
    Http2Inspector inspector(limits_);
    Encoder encoder;
    std::string to_server, to_client;
    ASSERT_FALSE(inspector.FromClient(Opening() + Frame(1, 0x4, 1, encoder.Block(Call())),
                                      &to_server, &to_client));
    const std::string bytes = c.bytes(encoder);
    const auto frames = Frames(bytes);
    std::string allowed;  // the frames before the last pass
    for (size_t i = 0; i + 1 < frames.size(); ++i) {
      allowed += Frame(frames[i].type, frames[i].flags, frames[i].stream, frames[i].payload);
    }
    const size_t before = to_server.size();
    std::optional<Http2Refusal> refusal;
    for (size_t piece : {size_t{1}}) {  // byte by byte: nothing passed before the refusal
      std::string_view rest = bytes;
      while (!rest.empty() && !refusal) {
        refusal = inspector.FromClient(rest.substr(0, piece), &to_server, &to_client);
        rest.remove_prefix(std::min(piece, rest.size()));
      }
    }
    ASSERT_TRUE(refusal) << c.says;
    EXPECT_NE(refusal->reason.find(c.says), std::string::npos) << refusal->reason;
    EXPECT_EQ(refusal->code, c.code) << c.says;
    EXPECT_EQ(to_server.substr(before), allowed) << c.says;
  }
}

// The windows gRPC sends under are followed from its DATA frames: a client may give back
// what it was sent up to 2^31-1 in all, and not one byte more.
TEST_F(Http2InspectorTest, WindowsAreFollowedFromGrpcsData) {
  const std::string settings = Frame(4, 0, 0, std::string("\0\x04", 2) + Uint32(1000));
  ASSERT_FALSE(Client(std::string(kPreface) + settings + Frame(1, 0x4, 1, encoder_.Block(Call()))));
  Server(Frame(0, 0, 1, std::string(600, 'a')));
  // The connection: 65,535 - 600; call 1: 1,000 - 600.
  ASSERT_FALSE(Client(Frame(8, 0, 0, Uint32(0x7fffffff - 65535 + 600))));
  ASSERT_FALSE(Client(Frame(8, 0, 1, Uint32(0x7fffffff - 400))));
  // A new initial window moves call 1's by the difference: one more byte is past the end.
  const auto by_settings = Client(Frame(4, 0, 0, std::string("\0\x04", 2) + Uint32(1001)));
  ASSERT_TRUE(by_settings);
  EXPECT_EQ(by_settings->code, Http2Error::kFlowControl);
  EXPECT_NE(by_settings->reason.find("took stream 1's window"), std::string::npos) << by_settings->reason;
  Http2Inspector fresh(limits_);
  std::string to_server, to_client;
  ASSERT_FALSE(fresh.FromClient(Opening(), &to_server, &to_client));
  ASSERT_FALSE(fresh.FromClient(Frame(8, 0, 0, Uint32(0x7fffffff - 65535)), &to_server, &to_client));
  const auto past = fresh.FromClient(Frame(8, 0, 0, Uint32(1)), &to_server, &to_client);
  ASSERT_TRUE(past);
  EXPECT_EQ(past->code, Http2Error::kFlowControl);
}

}  // namespace inspector_test
}  // namespace puzzledb
