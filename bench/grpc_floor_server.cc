// The gRPC floor: a puzzledb.v1.Solver that answers every Solve (gRPC's synchronous API)
// and every SolveStream request (its callback API, as the server) at once with an empty
// answer, and ListTables with no tables (the load generator asks it first). `puzzledb bench`
// against it measures what gRPC itself costs on this machine, next to the same load against
// puzzledb-server (docs/PERFORMANCE.md, bench/server_vs_floor.sh).
// Port 0 picks a free port; the start-up line names the one it got.
//
//   build/bench/grpc_floor_server 127.0.0.1:50098 &
//   build/client/puzzledb --server 127.0.0.1:50098 bench --puzzle knight --mode unary
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"

namespace {

// One stream answered the way puzzledb-server answers a stream (server/grpc/solve_stream.cc),
// with no work per request: the callback API, the next request read while answers are
// written, answers queued while one is being written and written with the buffer hint
// while more are queued (never on the first write), response objects reused. So the
// floor's stream differs from the server's by the server's work alone.
class EchoStream final
    : public grpc::ServerBidiReactor<puzzledb::v1::SolveRequest, puzzledb::v1::SolveResponse> {
 public:
  EchoStream() { StartRead(&request_); }

  void OnReadDone(bool ok) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ok) {
      reads_done_ = true;
      MaybeFinishLocked(lock);
      return;
    }
    std::unique_ptr<puzzledb::v1::SolveResponse> response;
    if (spare_.empty()) {
      response = std::make_unique<puzzledb::v1::SolveResponse>();
    } else {
      response = std::move(spare_.back());
      spare_.pop_back();
      response->Clear();
    }
    response->set_id(request_.id());
    queue_.push_back(std::move(response));
    WriteNextLocked(lock);
    if (queue_.size() < kWindow) {
      lock.unlock();
      StartRead(&request_);
    } else {
      read_paused_ = true;  // OnWriteDone resumes
    }
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock<std::mutex> lock(mutex_);
    writing_ = false;
    spare_.push_back(std::move(queue_.front()));
    queue_.pop_front();
    if (!ok) {
      broken_ = true;
      queue_.clear();
    }
    WriteNextLocked(lock);
    const bool resume = read_paused_ && !broken_ && queue_.size() < kWindow;
    if (resume) read_paused_ = false;
    MaybeFinishLocked(lock);
    lock.unlock();
    if (resume) StartRead(&request_);
  }

  void OnDone() override { delete this; }

 private:
  static constexpr size_t kWindow = 4096;  // as puzzledb-server's --stream-window

  void WriteNextLocked(std::unique_lock<std::mutex>& lock) {
    if (writing_ || queue_.empty() || finished_ || broken_) return;
    writing_ = true;
    grpc::WriteOptions options;
    if (wrote_ && queue_.size() > 1) options.set_buffer_hint();
    wrote_ = true;
    const puzzledb::v1::SolveResponse* next = queue_.front().get();
    lock.unlock();
    StartWrite(next, options);
    lock.lock();
  }

  // Finishes once every answer is written and the client has sent everything (a paused
  // read means the client has not), or at once when a write failed.
  void MaybeFinishLocked(std::unique_lock<std::mutex>& lock) {
    if (finished_ || writing_ || (!queue_.empty() && !broken_) || !(reads_done_ || broken_)) return;
    finished_ = true;
    lock.unlock();
    Finish(grpc::Status::OK);
    lock.lock();
  }

  puzzledb::v1::SolveRequest request_;
  std::mutex mutex_;
  std::deque<std::unique_ptr<puzzledb::v1::SolveResponse>> queue_;  // front() is being written
  std::vector<std::unique_ptr<puzzledb::v1::SolveResponse>> spare_;
  bool writing_ = false;
  bool wrote_ = false;
  bool reads_done_ = false;
  bool read_paused_ = false;
  bool broken_ = false;
  bool finished_ = false;
};

class FloorService final
    : public puzzledb::v1::Solver::WithCallbackMethod_SolveStream<puzzledb::v1::Solver::Service> {
  grpc::Status ListTables(grpc::ServerContext*, const puzzledb::v1::ListTablesRequest*,
                          puzzledb::v1::ListTablesResponse*) override {
    return grpc::Status::OK;
  }

  grpc::Status Solve(grpc::ServerContext*, const puzzledb::v1::SolveRequest* request,
                     puzzledb::v1::SolveResponse* response) override {
    response->set_id(request->id());
    return grpc::Status::OK;
  }

  grpc::ServerBidiReactor<puzzledb::v1::SolveRequest, puzzledb::v1::SolveResponse>* SolveStream(
      grpc::CallbackServerContext*) override {
    return new EchoStream();
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
