// libFuzzer target: wire requests as the server receives them (protobuf bytes), through
// the request handler's validation and table path. The first byte picks the call: even, a
// Solve of all the bytes; odd, an Analyze (bit 1 clear) or a Sample (bit 1 set) of the rest. With no tables every valid request
// asks for a search, which this target does not run; every other outcome must be an
// INVALID_ARGUMENT that names a field.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "core/solver.h"
#include "puzzledb/v1/solver.pb.h"
#include "service/request_handler.h"
#include "core/util/strings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static puzzledb::Solver* solver = new puzzledb::Solver(nullptr);
  static puzzledb::RequestHandler* handler =
      new puzzledb::RequestHandler(solver, nullptr, puzzledb::HandlerOptions{});
  const bool analyze = size > 0 && (data[0] & 1) && !(data[0] & 2);
  const bool sample = size > 0 && (data[0] & 1) && (data[0] & 2);
  absl::Status status;
  bool needs_search = false;
  if (sample) {
    puzzledb::v1::SampleRequest request;
    if (!request.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
    puzzledb::v1::SampleResponse response;
    auto routed = handler->Answer(request, &response);
    status = routed.status;
    needs_search = routed.NeedsSearch();
  } else if (analyze) {
    puzzledb::v1::AnalyzeRequest request;
    if (!request.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
    puzzledb::v1::AnalyzeResponse response;
    auto routed = handler->Answer(request, &response);
    status = routed.status;
    needs_search = routed.NeedsSearch();
  } else {
    puzzledb::v1::SolveRequest request;
    if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
    puzzledb::v1::SolveResponse response;
    auto routed = handler->Answer(request, &response);
    status = routed.status;
    needs_search = routed.NeedsSearch();
  }
  if (needs_search) return 0;
  if (status.ok()) std::abort();  // nothing can be answered without tables
  const std::string_view message = puzzledb::Message(status);
  if (!absl::IsInvalidArgument(status) && !absl::IsFailedPrecondition(status)) std::abort();
  if (absl::IsInvalidArgument(status) && message.find(':') == std::string_view::npos) std::abort();
  return 0;
}
