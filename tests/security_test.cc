// Transport security and access: TLS and client certificates (with certificates the test
// makes with openssl), replicas behind one client (round-robin, retries on UNAVAILABLE),
// and the limits on background table builds.
#include <filesystem>
#include <thread>

#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "gtest/gtest.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "puzzledb/client.h"
#include "server/server.h"
#include "tests/small_db.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string& CertDir() {
  static const std::string* dir = [] {
    auto* d = new std::string(testing::TempPath("certs"));
    const int status = std::system(
        (std::string("sh ") + PUZZLEDB_TESTS_DIR + "/make_test_certs.sh " + *d).c_str());
    EXPECT_EQ(status, 0) << "openssl failed";
    return d;
  }();
  return *dir;
}

std::unique_ptr<PuzzledbServer> StartServer(ServerOptions options, std::string* log = nullptr) {
  options.listen = "127.0.0.1:0";
  auto server = PuzzledbServer::Start(options, [log](std::string_view line) {
    if (log != nullptr) *log += std::string(line) + "\n";
  });
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

v1::SolveRequest SomeRequest() {
  v1::SolveRequest request;
  InstanceToWire(*RotationPuzzle::ParseCompact("111132323132231222312133"), request.mutable_puzzle());
  return request;
}

ClientOptions To(int port) {
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(port);
  options.timeout = 5000ms;
  return options;
}

class SecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { db_ = new std::string(testing::MakeSmallDb("security_db")); }
  static void TearDownTestSuite() {
    fs::remove_all(*db_);
    delete db_;
  }
  static std::string* db_;
};
std::string* SecurityTest::db_ = nullptr;

TEST_F(SecurityTest, TlsServesOnlyClientsThatTrustItsCertificate) {
  ServerOptions options;
  options.db = *db_;
  options.tls_cert_file = CertDir() + "/server.pem";
  options.tls_key_file = CertDir() + "/server.key";
  std::string log;
  auto server = StartServer(options, &log);
  ASSERT_NE(server, nullptr);
  EXPECT_NE(log.find("(TLS)"), std::string::npos) << log;

  ClientOptions trusted = To(server->port());
  trusted.tls_ca_file = CertDir() + "/ca.pem";
  auto answer = Client(trusted).Solve(SomeRequest());
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->source(), v1::TABLE);

  // By name rather than address: the certificate names localhost too.
  ClientOptions by_name = trusted;
  by_name.target = "localhost:" + std::to_string(server->port());
  EXPECT_TRUE(Client(by_name).Solve(SomeRequest()).ok());

  // Plaintext to a TLS server, and TLS with another CA: refused, saying what to check.
  const absl::Status plaintext = Client(To(server->port())).Solve(SomeRequest()).status();
  EXPECT_EQ(plaintext.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(plaintext.message().find("--tls-ca"), std::string::npos) << plaintext;
  ClientOptions wrong_ca = To(server->port());
  wrong_ca.tls_ca_file = CertDir() + "/other_ca.pem";
  const absl::Status untrusted = Client(wrong_ca).Solve(SomeRequest()).status();
  EXPECT_EQ(untrusted.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(untrusted.message().find("TLS failed"), std::string::npos) << untrusted;
  ClientOptions missing = To(server->port());
  missing.tls_ca_file = CertDir() + "/no_such.pem";
  auto refused = Client::Connect(missing);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.status().message()).find("no_such.pem"), std::string::npos);
}

TEST_F(SecurityTest, ClientCertificatesCanBeRequired) {
  ServerOptions options;
  options.db = *db_;
  options.tls_cert_file = CertDir() + "/server.pem";
  options.tls_key_file = CertDir() + "/server.key";
  options.tls_client_ca_file = CertDir() + "/ca.pem";
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  ClientOptions anonymous = To(server->port());
  anonymous.tls_ca_file = CertDir() + "/ca.pem";
  EXPECT_FALSE(Client(anonymous).Solve(SomeRequest()).ok());
  ClientOptions known = anonymous;
  known.tls_cert_file = CertDir() + "/client.pem";
  known.tls_key_file = CertDir() + "/client.key";
  auto answer = Client(known).Solve(SomeRequest());
  EXPECT_TRUE(answer.ok()) << answer.status();
}

// puzzledb bench makes its connections through the client library, so it loads a TLS
// server with the CLI's TLS flags, and refuses what the client library refuses.
TEST_F(SecurityTest, BenchLoadsATlsServer) {
  ServerOptions options;
  options.db = *db_;
  options.tls_cert_file = CertDir() + "/server.pem";
  options.tls_key_file = CertDir() + "/server.key";
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  const std::string cli = std::string(PUZZLEDB_CLI) + " --server 127.0.0.1:" +
                          std::to_string(server->port());
  for (const char* mode : {"unary", "stream"}) {
    const auto bench = testing::RunCommand(
        cli + " --tls-ca " + CertDir() + "/ca.pem bench --puzzle rotation --seconds 0.3 "
              "--concurrency 2 --json --mode " + mode, "");
    EXPECT_EQ(bench.exit_code, 0) << mode << ": " << bench.err;
    EXPECT_NE(bench.out.find(R"("errors":0,)"), std::string::npos) << mode << ": " << bench.out;
    EXPECT_EQ(bench.out.find(R"("solves":0,)"), std::string::npos) << mode << ": " << bench.out;
  }
  const auto plaintext = testing::RunCommand(cli + " bench --puzzle rotation --seconds 0.3", "");
  EXPECT_EQ(plaintext.exit_code, 1) << plaintext.out << plaintext.err;
  EXPECT_NE(plaintext.err.find("no puzzledb server answers at"), std::string::npos) << plaintext.err;
  const auto missing = testing::RunCommand(
      cli + " --tls-ca " + CertDir() + "/no_such.pem bench --puzzle rotation --seconds 0.3", "");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("no_such.pem"), std::string::npos) << missing.err;
}

TEST_F(SecurityTest, ServerRefusesUnreadableCertificates) {
  ServerOptions options;
  options.db = *db_;
  options.listen = "127.0.0.1:0";
  options.tls_cert_file = CertDir() + "/missing.pem";
  options.tls_key_file = CertDir() + "/server.key";
  auto server = PuzzledbServer::Start(options, nullptr);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(std::string(server.status().message()).find("missing.pem"), std::string::npos);
}

// Two replicas behind one client: calls go to both, and when one goes away the calls still
// succeed (gRPC's retry policy moves them to the other).
TEST_F(SecurityTest, ReplicasShareTheCallsAndOneMayGoAway) {
  const std::string other_db = testing::MakeSmallDb("security_db_replica");
  ServerOptions a_options, b_options;
  a_options.db = *db_;
  b_options.db = other_db;
  auto a = StartServer(a_options);
  auto b = StartServer(b_options);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ClientOptions both;
  both.target = "127.0.0.1:" + std::to_string(a->port()) + ",127.0.0.1:" + std::to_string(b->port());
  Client client(both);
  ASSERT_TRUE(client.WaitUntilServing(60000ms).ok());
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(client.Solve(SomeRequest()).ok());
  EXPECT_GT(a->counters().table_answers.load(), 20u);
  EXPECT_GT(b->counters().table_answers.load(), 20u);
  a->Shutdown(100ms);
  int failed = 0;
  for (int i = 0; i < 200; ++i) failed += !client.Solve(SomeRequest()).ok();
  EXPECT_EQ(failed, 0);
  b->Shutdown(100ms);
  EXPECT_EQ(client.Solve(SomeRequest(), 10000ms).status().code(),
            absl::StatusCode::kUnavailable);
  b.reset();
  fs::remove_all(other_db);
}

// A wiring with no table is searched; whether its table is then built is the operator's
// call: never with --no-build-missing-tables, and never past --max-tables.
TEST_F(SecurityTest, BackgroundBuildsCanBeTurnedOffOrCapped) {
  const auto wiring = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9002.in"))[0].instance;
  v1::SolveRequest request;
  InstanceToWire(wiring, request.mutable_puzzle());
  for (const bool capped : {false, true}) {
    ServerOptions options;
    options.db = *db_;
    if (capped) {
      options.max_tables = 2;  // the database holds 2 already
    } else {
      options.build_missing_tables = false;
    }
    std::string log;
    auto server = StartServer(options, &log);
    ASSERT_NE(server, nullptr);
    Client client(To(server->port()));
    auto answer = client.Solve(request);
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->source(), v1::SEARCH);
    std::this_thread::sleep_for(500ms);
    auto tables = client.ListTables();
    ASSERT_TRUE(tables.ok());
    EXPECT_EQ(tables->tables_size(), 2) << log;
    EXPECT_EQ(tables->building_size(), 0);
    server->Shutdown(100ms);
    if (capped) {
      EXPECT_NE(log.find("the cap (--max-tables)"), std::string::npos) << log;
    }
  }
}

}  // namespace
}  // namespace puzzledb
