// Raw gRPC channels for the tests that speak to the server below the client library.
#ifndef PUZZLEDB_TESTS_CHANNEL_H_
#define PUZZLEDB_TESTS_CHANNEL_H_

#include <chrono>
#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"

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

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_CHANNEL_H_
