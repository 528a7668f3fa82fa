// SolveStream: many Solve requests on one gRPC stream, answered as they come (see the
// reactor's comment in solve_stream.cc for reading, writing and lifetime).
#ifndef PUZZLEDB_SERVER_GRPC_SOLVE_STREAM_H_
#define PUZZLEDB_SERVER_GRPC_SOLVE_STREAM_H_

#include <cstddef>

#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "server/call.h"

namespace puzzledb {

struct StreamOptions {
  // Responses a stream may have waiting to be written before it stops reading.
  size_t stream_window = 4096;
  // Bytes of requests read but not answered and of answers not yet written a stream may
  // hold before it stops reading (it also stops while the server's memory budget is spent,
  // unless it holds nothing): a client that sends and never reads holds at most this much,
  // and one answer more.
  size_t window_bytes = 8 << 20;
  // A stream's requests searched or waiting for a search slot at once before it stops
  // reading.
  int stream_searches = 2;
};

// A reactor for one call; it deletes itself. What `env` points to must outlive it. Its
// messages come and go as bytes (the method is registered raw: SolverCallbackBase), so
// that a message that does not parse ends the stream with INVALID_ARGUMENT, and the
// window counts the bytes held.
grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* NewSolveStreamReactor(
    const CallEnv& env, const StreamOptions& options, grpc::CallbackServerContext* context);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_GRPC_SOLVE_STREAM_H_
