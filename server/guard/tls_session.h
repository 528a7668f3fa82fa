// The server side of one TLS connection over memory buffers (OpenSSL's memory BIOs): the
// bytes read from the socket go in, the plaintext comes out, and what TLS has to send (its
// handshake, its records) is handed back for the caller to write. No socket, no blocking:
// the connection guard (connection_guard.h) does the I/O on its own event loop, so that
// TLS costs a connection no thread and no buffer while it is idle (SSL_MODE_RELEASE_BUFFERS).
// Not thread-safe: one connection's bytes, from one thread at a time.
#ifndef PUZZLEDB_SERVER_GUARD_TLS_SESSION_H_
#define PUZZLEDB_SERVER_GUARD_TLS_SESSION_H_

#include <string>
#include <string_view>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct bio_st BIO;

namespace puzzledb {

// Makes `ctx` offer HTTP/2 by ALPN (RFC 7301), which gRPC's clients require of a TLS server.
void SelectHttp2ByAlpn(SSL_CTX* ctx);

class TlsSession {
 public:
  // `ctx` (its certificate, key and client verification) must outlive the session.
  explicit TlsSession(SSL_CTX* ctx);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // Bytes read from the socket: appends the plaintext they complete to `plain`, and what
  // TLS sends in return to `to_network`. False when the session failed (error() says
  // why); `closed()` once the client sent its close_notify.
  bool Receive(std::string_view from_network, std::string* plain, std::string* to_network);
  // Plaintext to send: appends its records to `to_network`.
  bool Send(std::string_view plain, std::string* to_network);

  bool established() const;
  bool closed() const { return closed_; }
  const std::string& error() const { return error_; }

 private:
  void Drain(std::string* to_network);
  bool Failed(int result);

  SSL* ssl_;
  BIO* in_;   // owned by ssl_
  BIO* out_;  // owned by ssl_
  bool closed_ = false;
  std::string error_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_GUARD_TLS_SESSION_H_
