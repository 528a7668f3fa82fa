// The gRPC floor: a puzzledb.v1.Solver (gRPC's synchronous API) that answers every Solve
// and SolveStream request at once with an empty answer, and ListTables with no tables (the
// load generator asks it first). `puzzledb bench` against it measures what gRPC itself costs
// on this machine, next to the same load against puzzledb-server (docs/PERFORMANCE.md).
// Port 0 picks a free port; the start-up line names the one it got.
//
//   build/bench/grpc_floor_server 127.0.0.1:50098 &
//   build/client/puzzledb --server 127.0.0.1:50098 bench --puzzle knight --mode unary
#include <iostream>

#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"

namespace {

class FloorService final : public puzzledb::v1::Solver::Service {
  grpc::Status ListTables(grpc::ServerContext*, const puzzledb::v1::ListTablesRequest*,
                          puzzledb::v1::ListTablesResponse*) override {
    return grpc::Status::OK;
  }

  grpc::Status Solve(grpc::ServerContext*, const puzzledb::v1::SolveRequest* request,
                     puzzledb::v1::SolveResponse* response) override {
    response->set_id(request->id());
    return grpc::Status::OK;
  }

  grpc::Status SolveStream(
      grpc::ServerContext*,
      grpc::ServerReaderWriter<puzzledb::v1::SolveResponse, puzzledb::v1::SolveRequest>* stream)
      override {
    puzzledb::v1::SolveRequest request;
    puzzledb::v1::SolveResponse response;
    while (stream->Read(&request)) {
      response.set_id(request.id());
      if (!stream->Write(response)) break;
    }
    return grpc::Status::OK;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string address = argc > 1 ? argv[1] : "127.0.0.1:50098";
  FloorService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::cerr << "grpc_floor_server: cannot listen on " << address << "\n";
    return 1;
  }
  std::cerr << "grpc_floor_server: listening on "
            << address.substr(0, address.rfind(':') + 1) << port << std::endl;
  server->Wait();
}
