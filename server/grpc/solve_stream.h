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
  // A stream's requests searched or waiting for a search slot at once before it stops
  // reading.
  int stream_searches = 2;
};

// A reactor for one call; it deletes itself. What `env` points to must outlive it.
grpc::ServerBidiReactor<v1::SolveRequest, v1::SolveResponse>* NewSolveStreamReactor(
    const CallEnv& env, const StreamOptions& options, grpc::CallbackServerContext* context);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_GRPC_SOLVE_STREAM_H_
