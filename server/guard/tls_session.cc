#include "server/guard/tls_session.h"

#include <algorithm>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "core/util/strings.h"

namespace puzzledb {
namespace {

int SelectH2(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
             unsigned int inlen, void*) {
  static const unsigned char kH2[] = {2, 'h', '2'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kH2, sizeof kH2, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;  // no h2 offered: the client learns it from what follows
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

void SelectHttp2ByAlpn(SSL_CTX* ctx) { SSL_CTX_set_alpn_select_cb(ctx, SelectH2, nullptr); }

TlsSession::TlsSession(SSL_CTX* ctx) : ssl_(SSL_new(ctx)), in_(BIO_new(BIO_s_mem())), out_(BIO_new(BIO_s_mem())) {
  // A read of an empty memory BIO says "retry", not end of file.
  BIO_set_mem_eof_return(in_, -1);
  BIO_set_mem_eof_return(out_, -1);
  SSL_set_bio(ssl_, in_, out_);
  SSL_set_accept_state(ssl_);
  SSL_set_mode(ssl_, SSL_MODE_RELEASE_BUFFERS);
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

bool TlsSession::established() const { return SSL_is_init_finished(ssl_) == 1; }

bool TlsSession::Receive(std::string_view from_network, std::string* plain,
                         std::string* to_network) {
  if (!error_.empty()) return false;
  if (!from_network.empty() &&
      BIO_write(in_, from_network.data(), static_cast<int>(from_network.size())) !=
          static_cast<int>(from_network.size())) {
    error_ = "out of memory for TLS records";
    return false;
  }
  char buffer[16 << 10];
  while (!closed_) {
    const int n = SSL_read(ssl_, buffer, sizeof buffer);
    if (n > 0) {
      plain->append(buffer, static_cast<size_t>(n));
      continue;
    }
    const int why = SSL_get_error(ssl_, n);
    if (why == SSL_ERROR_WANT_READ) break;
    if (why == SSL_ERROR_ZERO_RETURN) {
      closed_ = true;
      break;
    }
    Drain(to_network);  // an alert, if TLS has one to send
    return Failed(n);
  }
  Drain(to_network);
  return true;
}

bool TlsSession::Send(std::string_view plain, std::string* to_network) {
  if (!error_.empty()) return false;
  while (!plain.empty()) {
    const int n = SSL_write(ssl_, plain.data(), static_cast<int>(std::min<size_t>(plain.size(), 1 << 20)));
    if (n <= 0) return Failed(n);
    plain.remove_prefix(static_cast<size_t>(n));
  }
  Drain(to_network);
  return true;
}

void TlsSession::Drain(std::string* to_network) {
  char buffer[16 << 10];
  while (BIO_ctrl_pending(out_) > 0) {
    const int n = BIO_read(out_, buffer, sizeof buffer);
    if (n <= 0) break;
    to_network->append(buffer, static_cast<size_t>(n));
  }
}

bool TlsSession::Failed(int result) {
  const int why = SSL_get_error(ssl_, result);
  const unsigned long code = ERR_get_error();
  char text[256] = "";
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  ERR_clear_error();
  error_ = code != 0 ? std::string(text) : Cat("TLS error ", why);
  return false;
}

}  // namespace puzzledb
