// libFuzzer target: any bytes as the two directions of one gRPC connection through the gRPC
// port's HTTP/2 inspector (server/guard/http2_inspector.h), with small bounds so that the
// fuzzer reaches them. The input is a sequence of pieces, each a control byte (its low bit
// the direction: 0 the client's, 1 gRPC's; the rest the piece's length, 1 to 128) and that
// many bytes; when the first byte is odd, the client's side starts with a valid preface and
// SETTINGS, so that the frames after them are read. Nothing may crash, hang or read out of
// bounds; calls open stay within the bound; what they are charged to the memory budget is
// what the inspector reckons, and all of it comes back when the connection goes; a refusal
// says why; and what goes to gRPC is never much more than the client sent (a refused call's
// DATA frame gives way to a 13-byte reset, and a call refused for its memory, its HEADERS
// of at least 9 bytes, is followed by one).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "server/guard/http2_inspector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  puzzledb::Http2Limits limits;
  limits.max_header_block = 256;
  limits.max_header_list = 512;
  limits.max_streams = 4;
  // Two calls of no headers fit a connection, a third is refused; with the first byte's
  // second bit, the budget's share refuses the second.
  limits.max_open_call_bytes = 2 * puzzledb::CallCost(0) + puzzledb::CallCost(0) / 2;
  const bool tight_share = !input.empty() && (input[0] & 2) != 0;
  puzzledb::MemoryBudget budget(0);
  auto owned = std::make_unique<puzzledb::Http2Inspector>(
      limits, puzzledb::Http2Inspector::Clock(), &budget,
      tight_share ? puzzledb::CallCost(0) + puzzledb::CallCost(0) / 2 : SIZE_MAX);
  puzzledb::Http2Inspector& inspector = *owned;
  std::string to_server, to_client;
  size_t client_bytes = 0;
  bool refused = false;
  if (!input.empty() && (input[0] & 1) != 0) {
    const std::string opening = std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") +
                                std::string("\0\0\0\x04\0\0\0\0\0", 9);
    if (inspector.FromClient(opening, &to_server, &to_client)) std::abort();
    client_bytes += opening.size();
    input.remove_prefix(1);
  }
  while (!input.empty()) {
    const auto control = static_cast<uint8_t>(input[0]);
    input.remove_prefix(1);
    const size_t n = std::min<size_t>(1 + (control >> 1), input.size());
    const std::string_view piece = input.substr(0, n);
    input.remove_prefix(n);
    if ((control & 1) == 0) {
      if (refused) continue;  // nothing more is read from a refused client
      const auto refusal = inspector.FromClient(piece, &to_server, &to_client);
      client_bytes += piece.size();
      if (refusal) {
        if (refusal->reason.empty()) std::abort();
        inspector.Refuse(*refusal, &to_client);
        refused = true;
      }
    } else {
      inspector.FromServer(piece, &to_client);
    }
    if (inspector.open_streams() > limits.max_streams) std::abort();
    if (inspector.open_call_bytes() > limits.max_open_call_bytes) std::abort();
    if (budget.held(puzzledb::MemoryUse::kGrpcCall) != inspector.open_call_bytes()) std::abort();
    // A reset (13 bytes) after a refused call's HEADERS (at least 9).
    if (to_server.size() > client_bytes * 5 / 2 + 16) std::abort();
  }
  owned.reset();  // the connection gone: every charge let go
  if (budget.held() != 0) std::abort();
  return 0;
}
