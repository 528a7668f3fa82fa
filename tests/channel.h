// Raw gRPC channels for the tests that speak to the server below the client library.
#ifndef PUZZLEDB_TESTS_CHANNEL_H_
#define PUZZLEDB_TESTS_CHANNEL_H_

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"

namespace puzzledb::testing {

// A channel to `address` that has connected before it is returned. The gRPC of Debian 12
// (1.51) now and then fails a connect to a live server with a stray errno ("No such file
// or directory"; docs/OPERATIONS.md, "Known gRPC faults"), and a call that is not
// wait-for-ready fails with it; the client library retries such calls, raw stubs do not. A
// channel that is waited for connects again.
inline std::shared_ptr<grpc::Channel> ConnectedChannel(const std::string& address) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(60));
  return channel;
}

// Every request over one SolveStream call, a message each (id = its index), written from a
// second thread while this one reads: the answers in the requests' order, or the call's
// status. For the tests of the stream itself (the client library's SolveAll sends batches
// as SolveBatch calls).
inline grpc::Status StreamAll(grpc::Channel& channel, const std::vector<v1::SolveRequest>& requests,
                              std::chrono::milliseconds timeout,
                              std::vector<v1::SolveResponse>* answers) {
  auto stub = v1::Solver::NewStub(std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  auto stream = stub->SolveStream(&context);
  std::thread writer([&] {
    for (size_t i = 0; i < requests.size(); ++i) {
      v1::SolveRequest message = requests[i];
      message.set_id(i);
      if (!stream->Write(message)) break;
    }
    stream->WritesDone();
  });
  answers->assign(requests.size(), v1::SolveResponse());
  v1::SolveResponse response;
  while (stream->Read(&response)) {
    if (response.id() < answers->size()) (*answers)[response.id()] = response;
  }
  writer.join();
  return stream->Finish();
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_CHANNEL_H_
