// What every HTTP answer follows (docs/API.md, "HTTP"), in-process over raw sockets: strict
// query parameters on every path, X-Request-Id, cross-origin requests (CORS), caching as
// RFC 9110 defines it, compression both ways, and retry hints (HTTP's Retry-After, gRPC's
// pushback trailer; a batch's in-band retry_after_ms is service_test.cc's). Then the rules beneath them on their
// own: content codings, entity tags and HTTP dates.
#include <brotli/decode.h>
#include <zlib.h>

#include <mutex>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "puzzledb/client.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "server/http/content_coding.h"
#include "server/http/response.h"
#include "server/http/routes.h"
#include "tests/raw_http.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
using testing::BodyOf;
using testing::HeaderOf;
using testing::Raw;
using testing::StatusOf;

constexpr char kEight[] = "/v1/solve?puzzle=eight&state=283104765";
// A knight board whose search outlasts every wait here (policy=search_only).
constexpr char kFar[] = "/v1/solve?puzzle=knight&state=0000000000001%2A11111111111&policy=search_only";

std::string Request(const std::string& method, const std::string& target,
                    const std::string& headers = "", const std::string& body = "") {
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: x\r\n" + headers;
  if (!body.empty() || method == "POST") {
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return request + "\r\n" + body;
}

std::string Post(const std::string& target, const std::string& body,
                 const std::string& headers = "") {
  return Request("POST", target, "Content-Type: application/json\r\n" + headers, body);
}

// gzip with zlib (not the server's libdeflate), and back.
std::string Gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Gunzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + 15), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buffer[1 << 16];
  int result = Z_OK;
  while (result == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    result = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
  }
  EXPECT_EQ(result, Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

std::string Unbrotli(const std::string& data) {
  std::string out(8 << 20, '\0');
  size_t size = out.size();
  EXPECT_EQ(BrotliDecoderDecompress(data.size(), reinterpret_cast<const uint8_t*>(data.data()),
                                    &size, reinterpret_cast<uint8_t*>(out.data())),
            BROTLI_DECODER_RESULT_SUCCESS);
  out.resize(size);
  return out;
}

class HttpRulesTest : public testing::InProcessHttpTest {
 protected:
  void SetUp() override { Start(ServerOptions{}); }

  // A far knight search over gRPC, without retries: "<code>, grpc-retry-pushback-ms <its
  // trailer>" (or "none").
  std::string FarSearchOverGrpc() {
    auto stub = v1::Solver::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 30s);
    v1::SolveRequest request;
    request.mutable_puzzle()->mutable_knight()->set_board("0000000000001*11111111111");
    request.set_policy(v1::SEARCH_ONLY);
    v1::SolveResponse response;
    const grpc::Status status = stub->Solve(&context, request, &response);
    const auto& trailers = context.GetServerTrailingMetadata();
    const auto pushback = trailers.find("grpc-retry-pushback-ms");
    return absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code())) +
           ", grpc-retry-pushback-ms " +
           (pushback == trailers.end() ? std::string("none")
                                       : std::string(pushback->second.data(), pushback->second.size()));
  }

  // The error body's code, checking its shape.
  static std::string CodeOf(const std::string& answer) {
    const std::string body = BodyOf(answer);
    const size_t at = body.find("{\"code\":\"");
    if (at != 0 || body.find("\"message\":\"") == std::string::npos) return "not an error: " + body;
    return body.substr(9, body.find('"', 9) - 9);
  }
};

TEST_F(HttpRulesTest, EveryPathRefusesQueryParametersItDoesNotTake) {
  for (const auto& [path, methods] : HttpRoutes::Endpoints()) {
    SCOPED_TRACE(std::string(path));
    const std::string target = std::string(path) + "?foo=1";
    const std::string answer = methods == "POST" ? Ask(Post(target, "{}"))
                                                 : Ask(Request("GET", target));
    EXPECT_EQ(StatusOf(answer), 400) << answer;
    EXPECT_EQ(CodeOf(answer), "INVALID_ARGUMENT");
    EXPECT_NE(BodyOf(answer).find("unknown parameter 'foo'"), std::string::npos) << answer;
  }
  // A POST reads its body, never its query.
  const std::string posted = Ask(Post("/v1/solve?puzzle=eight", R"({"puzzle":{"eight":{"board":"283104765"}}})"));
  EXPECT_EQ(StatusOf(posted), 400);
  EXPECT_NE(BodyOf(posted).find("POST /v1/solve takes no query parameters"), std::string::npos);
  // The page takes what a shared link carries, once each.
  EXPECT_EQ(StatusOf(Ask(Request("GET", "/?puzzle=eight&state=283104765&view=analyze&max_moves=9"))), 200);
  const std::string twice = Ask(Request("GET", "/?puzzle=eight&puzzle=knight"));
  EXPECT_EQ(StatusOf(twice), 400);
  EXPECT_NE(BodyOf(twice).find("'puzzle' is given 2 times"), std::string::npos) << twice;
}

TEST_F(HttpRulesTest, RequestIdsAreEchoedMadeAndLogged) {
  TearDown();
  std::mutex mutex;
  std::vector<std::string> lines;
  ServerOptions options;
  options.http_access_log = true;
  Start(options, [&](std::string_view line) {
    std::lock_guard<std::mutex> lock(mutex);
    lines.emplace_back(line);
  });
  const std::string sent = Ask(Request("GET", kEight, "X-Request-Id: trace-7f3a:1\r\n"));
  EXPECT_EQ(StatusOf(sent), 200);
  EXPECT_EQ(HeaderOf(sent, "X-Request-Id"), "trace-7f3a:1");
  const std::string made = HeaderOf(Ask(Request("GET", kEight)), "X-Request-Id");
  EXPECT_EQ(made.size(), 16u) << made;
  EXPECT_EQ(made.find_first_not_of("0123456789abcdef"), std::string::npos) << made;
  EXPECT_NE(made, HeaderOf(Ask(Request("GET", kEight)), "X-Request-Id"));
  // A bad one is refused, with a new id to quote.
  const std::string bad = Ask(Request("GET", kEight, "X-Request-Id: " + std::string(129, 'a') + "\r\n"));
  EXPECT_EQ(StatusOf(bad), 400);
  EXPECT_NE(BodyOf(bad).find("X-Request-Id: 'aaaa"), std::string::npos) << bad;
  EXPECT_EQ(HeaderOf(bad, "X-Request-Id").size(), 16u);
  // An answer the engine makes before the request is whole (a body over the limit) too.
  const std::string large = Ask(
      "POST /v1/solve HTTP/1.1\r\nHost: x\r\nX-Request-Id: big-1\r\nContent-Length: 70000\r\n\r\n");
  EXPECT_EQ(StatusOf(large), 413);
  EXPECT_EQ(HeaderOf(large, "X-Request-Id"), "big-1");
  TearDown();  // the log outlives the server no longer
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("GET '/v1/solve' 200 ") != std::string::npos &&
           line.find("id=trace-7f3a:1") != std::string::npos;
  })) << ::testing::PrintToString(lines);
}

TEST_F(HttpRulesTest, CrossOriginRequestsAreOffUnlessOriginsAreGiven) {
  const std::string preflight =
      Ask(Request("OPTIONS", "/v1/solve",
                  "Origin: http://page.test\r\nAccess-Control-Request-Method: POST\r\n"));
  EXPECT_EQ(StatusOf(preflight), 405) << preflight;
  EXPECT_NE(BodyOf(preflight).find("--http-cors-origins"), std::string::npos) << preflight;
  const std::string get = Ask(Request("GET", kEight, "Origin: http://page.test\r\n"));
  EXPECT_EQ(StatusOf(get), 200);
  EXPECT_EQ(HeaderOf(get, "Access-Control-Allow-Origin"), "");
}

TEST_F(HttpRulesTest, CrossOriginRequestsFromTheOriginsGiven) {
  TearDown();
  ServerOptions options;
  options.http_cors_origins = {"http://page.test:8000", "https://other.test"};
  Start(options);
  const std::string origin = "Origin: http://page.test:8000\r\n";
  const std::string preflight = Ask(Request(
      "OPTIONS", "/v1/solve",
      origin + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n"));
  EXPECT_EQ(StatusOf(preflight), 204) << preflight;
  EXPECT_EQ(HeaderOf(preflight, "Access-Control-Allow-Origin"), "http://page.test:8000");
  EXPECT_EQ(HeaderOf(preflight, "Access-Control-Allow-Methods"), "GET, HEAD, POST");
  EXPECT_NE(HeaderOf(preflight, "Access-Control-Allow-Headers").find("Content-Type"), std::string::npos);
  EXPECT_EQ(HeaderOf(preflight, "Access-Control-Max-Age"), "600");
  EXPECT_EQ(HeaderOf(preflight, "Content-Length"), "");  // a 204 has none (RFC 9110, 8.6)
  // The call itself: allowed, with what a page may read of it.
  const std::string get = Ask(Request("GET", kEight, origin));
  EXPECT_EQ(HeaderOf(get, "Access-Control-Allow-Origin"), "http://page.test:8000");
  EXPECT_NE(HeaderOf(get, "Access-Control-Expose-Headers").find("ETag"), std::string::npos);
  EXPECT_NE(HeaderOf(get, "Vary").find("Origin"), std::string::npos);
  // Another origin: refused at the preflight, and no header lets a browser read the answer.
  const std::string stranger = "Origin: https://evil.test\r\n";
  const std::string refused = Ask(Request("OPTIONS", "/v1/solve",
                                          stranger + "Access-Control-Request-Method: POST\r\n"));
  EXPECT_EQ(StatusOf(refused), 403);
  EXPECT_EQ(CodeOf(refused), "PERMISSION_DENIED");
  EXPECT_NE(BodyOf(refused).find("'https://evil.test' may not call"), std::string::npos);
  EXPECT_EQ(HeaderOf(Ask(Request("GET", kEight, stranger)), "Access-Control-Allow-Origin"), "");
  // A method the path does not take.
  const std::string put = Ask(Request("OPTIONS", "/v1/play", origin + "Access-Control-Request-Method: GET\r\n"));
  EXPECT_EQ(StatusOf(put), 405);
  EXPECT_EQ(HeaderOf(put, "Allow"), "POST");

  TearDown();
  options.http_cors_origins = {"*"};
  Start(options);
  const std::string any = Ask(Request("GET", kEight, stranger));
  EXPECT_EQ(HeaderOf(any, "Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(HeaderOf(any, "Vary").find("Origin"), std::string::npos);

  TearDown();
  for (const char* wrong : {"page.test", "http://page.test/", "HTTP://PAGE.TEST", "http://a b"}) {
    options.http_cors_origins = {wrong};
    options.db = *db_;
    options.listen = "127.0.0.1:0";
    auto started = PuzzledbServer::Start(options, nullptr);
    ASSERT_FALSE(started.ok()) << wrong;
    EXPECT_NE(started.status().message().find("--http-cors-origins: '"), std::string::npos)
        << started.status();
    EXPECT_NE(started.status().message().find("is not an origin"), std::string::npos);
  }
}

TEST_F(HttpRulesTest, ConditionalRequestsFollowRfc9110) {
  const std::string first = Ask(Request("GET", kEight));
  ASSERT_EQ(StatusOf(first), 200);
  const std::string tag = HeaderOf(first, "ETag");
  EXPECT_EQ(tag.rfind("W/\"eight.", 0), 0u) << tag;
  const std::string built = HeaderOf(first, "Last-Modified");
  ASSERT_TRUE(ParseHttpDate(built).has_value()) << built;
  auto status = [&](const std::string& headers) { return StatusOf(Ask(Request("GET", kEight, headers))); };
  EXPECT_EQ(status("If-None-Match: " + tag + "\r\n"), 304);
  EXPECT_EQ(status("If-None-Match: *\r\n"), 304);
  EXPECT_EQ(status("If-None-Match: W/\"other\", " + tag + "\r\n"), 304);
  EXPECT_EQ(status("If-None-Match: " + tag.substr(2) + "\r\n"), 304);  // weak comparison
  EXPECT_EQ(status("If-None-Match: W/\"other\"\r\n"), 200);
  EXPECT_EQ(status("If-Modified-Since: " + built + "\r\n"), 304);
  EXPECT_EQ(status("If-Modified-Since: " + HttpDate(*ParseHttpDate(built) - 1) + "\r\n"), 200);
  EXPECT_EQ(status("If-Modified-Since: yesterday\r\n"), 200);
  // If-None-Match decides when both are given.
  EXPECT_EQ(status("If-None-Match: W/\"other\"\r\nIf-Modified-Since: " + built + "\r\n"), 200);
  const std::string not_modified = Ask(Request("GET", kEight, "If-None-Match: *\r\n"));
  EXPECT_EQ(HeaderOf(not_modified, "ETag"), tag);
  EXPECT_EQ(HeaderOf(not_modified, "Last-Modified"), built);
  // The page's files.
  EXPECT_EQ(StatusOf(Ask(Request("GET", "/app.js", "If-None-Match: *\r\n"))), 304);
  const std::string page_tag = HeaderOf(Ask(Request("GET", "/app.js")), "ETag");
  EXPECT_EQ(page_tag.rfind("W/\"", 0), 0u) << page_tag;
}

TEST_F(HttpRulesTest, AnswersAreCompressedWhenAskedAndWorthIt) {
  const std::string plain = Ask(Request("GET", "/v1/openapi.json"));
  ASSERT_EQ(StatusOf(plain), 200);
  EXPECT_EQ(HeaderOf(plain, "Content-Encoding"), "");
  EXPECT_NE(HeaderOf(plain, "Vary").find("Accept-Encoding"), std::string::npos);
  const std::string document = BodyOf(plain);
  const std::string gzipped = Ask(Request("GET", "/v1/openapi.json", "Accept-Encoding: gzip\r\n"));
  EXPECT_EQ(HeaderOf(gzipped, "Content-Encoding"), "gzip");
  EXPECT_LT(BodyOf(gzipped).size(), document.size() / 5);
  EXPECT_EQ(Gunzip(BodyOf(gzipped)), document);
  const std::string brotli = Ask(Request("GET", "/v1/openapi.json", "Accept-Encoding: gzip, deflate, br\r\n"));
  EXPECT_EQ(HeaderOf(brotli, "Content-Encoding"), "br");
  EXPECT_EQ(Unbrotli(BodyOf(brotli)), document);
  // A file's codings are the ones made once at start (at the higher levels), not encoded
  // per answer; the page's script likewise.
  const EncodedBodies once = EncodeOnce(document);
  EXPECT_EQ(BodyOf(gzipped), once.gzip);
  EXPECT_EQ(BodyOf(brotli), once.brotli);
  EXPECT_LT(once.brotli.size(), Encode(ContentCoding::kBrotli, document).size());
  const std::string script = BodyOf(Ask(Request("GET", "/app.js")));
  EXPECT_EQ(Unbrotli(BodyOf(Ask(Request("GET", "/app.js", "Accept-Encoding: br\r\n")))), script);
  EXPECT_EQ(Gunzip(BodyOf(Ask(Request("GET", "/app.js", "Accept-Encoding: gzip\r\n")))), script);
  EXPECT_EQ(HeaderOf(Ask(Request("GET", "/v1/openapi.json", "Accept-Encoding: br;q=0.5, gzip\r\n")),
                     "Content-Encoding"),
            "gzip");
  EXPECT_EQ(HeaderOf(Ask(Request("GET", "/v1/openapi.json", "Accept-Encoding: gzip;q=0, br;q=0\r\n")),
                     "Content-Encoding"),
            "");
  // HEAD says the length GET would send.
  const std::string head = Ask(Request("HEAD", "/v1/openapi.json", "Accept-Encoding: gzip\r\n"));
  EXPECT_EQ(HeaderOf(head, "Content-Length"), std::to_string(BodyOf(gzipped).size()));
  // A short answer is not worth it.
  EXPECT_EQ(HeaderOf(Ask(Request("GET", kEight, "Accept-Encoding: gzip\r\n")), "Content-Encoding"), "");
  // A batch's answer, the case compression is for.
  std::string batch = R"({"requests":[)";
  for (int i = 0; i < 200; ++i) batch += std::string(i ? "," : "") + R"({"puzzle":{"eight":{"board":"283104765"}}})";
  batch += "]}";
  const std::string many = Ask(Post("/v1/solve/batch", batch, "Accept-Encoding: gzip\r\n"));
  ASSERT_EQ(StatusOf(many), 200) << many;
  EXPECT_EQ(HeaderOf(many, "Content-Encoding"), "gzip");
  const std::string answers = Gunzip(BodyOf(many));
  EXPECT_EQ(answers.rfind("{\"responses\":[", 0), 0u);
  EXPECT_LT(BodyOf(many).size() * 10, answers.size());
}

TEST_F(HttpRulesTest, GzippedRequestBodiesAreDecodedUnderTheLimit) {
  const std::string body = R"({"puzzle":{"eight":{"board":"283104765"}}})";
  const std::string gzip = "Content-Encoding: gzip\r\n";
  const std::string decoded = Ask(Post("/v1/solve", Gzip(body), gzip));
  EXPECT_EQ(StatusOf(decoded), 200) << decoded;
  EXPECT_NE(BodyOf(decoded).find("\"distance\":4"), std::string::npos) << decoded;
  // A small body that decodes to more than a request may be: decoded no further than the
  // limit, and refused.
  const std::string bomb = Gzip("{\"puzzle\":" + std::string(10 << 20, ' ') + "{}}");
  EXPECT_LT(bomb.size(), 64u << 10);
  const std::string refused = Ask(Post("/v1/solve", bomb, gzip));
  EXPECT_EQ(StatusOf(refused), 413) << refused;
  EXPECT_NE(BodyOf(refused).find("more than the 65536 bytes this path takes"), std::string::npos)
      << refused;
  // A trailer that understates the size: the decoder stops at it.
  std::string liar = bomb;
  liar[liar.size() - 4] = 100;
  liar[liar.size() - 3] = liar[liar.size() - 2] = liar[liar.size() - 1] = 0;
  const std::string lied = Ask(Post("/v1/solve", liar, gzip));
  EXPECT_EQ(StatusOf(lied), 400) << lied;
  EXPECT_NE(BodyOf(lied).find("not valid gzip"), std::string::npos) << lied;
  const std::string garbage = Ask(Post("/v1/solve", std::string(40, 'x'), gzip));
  EXPECT_EQ(StatusOf(garbage), 400);
  EXPECT_NE(BodyOf(garbage).find("does not start as gzip does"), std::string::npos);
  const std::string unknown = Ask(Post("/v1/solve", body, "Content-Encoding: br\r\n"));
  EXPECT_EQ(StatusOf(unknown), 415);
  EXPECT_NE(BodyOf(unknown).find("Content-Encoding: 'br' is not taken"), std::string::npos);
}

TEST_F(HttpRulesTest, RefusalsThatMayPassLaterSayWhenToRetry) {
  TearDown();
  ServerOptions options;
  options.max_concurrent_searches = 1;
  options.search_queue = 0;
  Start(options);
  // One long search holds the only slot.
  Raw holder(port());
  ASSERT_TRUE(holder.Send(Request("GET", std::string(kFar) + "&timeout_ms=20000")));
  while (server_->searches_running() == 0) std::this_thread::sleep_for(1ms);
  const std::string refused = Ask(Request("GET", kFar));
  EXPECT_EQ(StatusOf(refused), 429) << refused;
  EXPECT_EQ(HeaderOf(refused, "Retry-After"), "1");
  // gRPC: the pushback trailer gRPC's own retry policy reads.
  EXPECT_EQ(FarSearchOverGrpc(), "RESOURCE_EXHAUSTED, grpc-retry-pushback-ms 1000");
  holder.Close();

  // A refusal that asking again will not change carries no hint.
  const std::string bad = Ask(Request("GET", "/v1/solve?puzzle=eight&state=1"));
  EXPECT_EQ(StatusOf(bad), 400);
  EXPECT_EQ(HeaderOf(bad, "Retry-After"), "");
  // Health while stopping.
  server_->StopServing();
  const std::string health = Ask(Request("GET", "/healthz"));
  EXPECT_EQ(StatusOf(health), 503);
  EXPECT_EQ(HeaderOf(health, "Retry-After"), "1");
}

// A search that used its node budget will use it again: no hint, and over gRPC a pushback of
// -1, which stops gRPC's retry policy (the C++ client's) from trying again.
TEST_F(HttpRulesTest, RefusalsThatWillNotPassSayNotToRetry) {
  TearDown();
  ServerOptions options;
  options.search_node_budget = 20000;
  Start(options);
  const std::string spent = Ask(Request("GET", kFar));
  EXPECT_EQ(StatusOf(spent), 429) << spent;
  EXPECT_NE(BodyOf(spent).find("budget"), std::string::npos) << spent;
  EXPECT_EQ(HeaderOf(spent, "Retry-After"), "");
  EXPECT_EQ(FarSearchOverGrpc(), "RESOURCE_EXHAUSTED, grpc-retry-pushback-ms -1");
  // The client library (4 attempts for what may pass) asks once.
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("0000000000001*11111111111");
  request.set_policy(v1::SEARCH_ONLY);
  ClientOptions client_options;
  client_options.target = "127.0.0.1:" + std::to_string(server_->port());
  Client client(client_options);
  EXPECT_EQ(client.Solve(request).status().code(), absl::StatusCode::kResourceExhausted);
  const std::string counted =
      "puzzledb_calls_total{code=\"RESOURCE_EXHAUSTED\",method=\"Solve\",source=\"search\",transport=\"grpc\"} 2\n";
  EXPECT_NE(server_->MetricsText().find(counted), std::string::npos)
      << server_->MetricsText().substr(0, 3000);
}

TEST(HttpCodingTest, ChoosesTheCodingTheClientWeighsHighest) {
  EXPECT_EQ(ChooseCoding(""), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseCoding("gzip"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseCoding("GZIP;Q=1.0"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseCoding("gzip, br"), ContentCoding::kBrotli);
  EXPECT_EQ(ChooseCoding("br;q=0.4, gzip;q=0.5"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseCoding("br;q=0, gzip;q=0"), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseCoding("*"), ContentCoding::kBrotli);
  EXPECT_EQ(ChooseCoding("*;q=0.1, br;q=0"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseCoding("deflate, identity"), ContentCoding::kIdentity);
  EXPECT_TRUE(Compressible("application/json"));
  EXPECT_TRUE(Compressible("text/plain; version=0.0.4; charset=utf-8"));
  EXPECT_FALSE(Compressible("image/png"));
}

TEST(HttpCodingTest, DecodesGzipOnlyUpToTheLimit) {
  const std::string text(5000, 'a');
  auto decoded = DecodeBody("gzip", Gzip(text), 5000);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, text);
  EXPECT_EQ(DecodeBody("x-gzip", Gzip(text), 5000).value_or(""), text);
  EXPECT_EQ(DecodeBody("gzip", Gzip(text), 4999).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(DecodeBody("gzip", Gzip(text) + "more", 5000).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::string truncated = Gzip(text);
  truncated.erase(truncated.size() / 2, 4);
  EXPECT_EQ(DecodeBody("gzip", truncated, 5000).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeBody("compress", "x", 10).status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(DecodeBody("identity", "plain", 10).value_or(""), "plain");
  EXPECT_EQ(DecodeErrorStatus(absl::UnimplementedError("")), 415);
  EXPECT_EQ(DecodeErrorStatus(absl::ResourceExhaustedError("")), 413);
  // What the server sends, read back by zlib.
  EXPECT_EQ(Gunzip(Encode(ContentCoding::kGzip, text)), text);
  EXPECT_EQ(Unbrotli(Encode(ContentCoding::kBrotli, text)), text);
}

TEST(HttpCodingTest, EntityTagsAndDates) {
  const std::string tag = EntityTag("eight", 2, 0xabc);
  EXPECT_EQ(tag, "W/\"eight.2.00000abc\"");
  EXPECT_EQ(EntityTag("", 2, 1), "");
  EXPECT_TRUE(Matches(tag, tag));
  EXPECT_TRUE(Matches("\"eight.2.00000abc\"", tag));
  EXPECT_TRUE(Matches(" W/\"a\" ,W/\"eight.2.00000abc\"", tag));
  EXPECT_TRUE(Matches("*", ""));
  EXPECT_FALSE(Matches("W/\"eight.2.00000abd\"", tag));
  EXPECT_FALSE(Matches("W/\"eight.2.00000abc", tag));
  EXPECT_FALSE(Matches("", tag));
  EXPECT_FALSE(Matches("W/\"a\"", ""));
  EXPECT_EQ(HttpDate(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");  // RFC 9110's example
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
  EXPECT_EQ(ParseHttpDate(HttpDate(1796274591)), 1796274591);
  EXPECT_FALSE(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT").has_value());  // RFC 850: not taken
  EXPECT_FALSE(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 UTC").has_value());
  EXPECT_FALSE(ParseHttpDate("Sun, 06 Nox 1994 08:49:37 GMT").has_value());
  EXPECT_FALSE(ParseHttpDate("").has_value());
}

}  // namespace
}  // namespace puzzledb
