#include "server/tls_context.h"

#include "core/util/strings.h"

namespace puzzledb {

absl::StatusOr<boost::asio::ssl::context> ServerTlsContext(std::string_view port,
                                                           const std::string& cert,
                                                           const std::string& key,
                                                           const std::string& client_ca) {
  namespace ssl = boost::asio::ssl;
  ssl::context context(ssl::context::tls_server);
  context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  context.use_certificate_chain_file(cert, ec);
  if (!ec) context.use_private_key_file(key, ssl::context::pem, ec);
  if (!ec && !client_ca.empty()) {
    context.load_verify_file(client_ca, ec);
    context.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  if (ec) {
    return absl::InvalidArgumentError(
        Cat(port, ": cannot use the TLS certificate ", cert, " with key ", key,
            client_ca.empty() ? "" : " and client CA " + client_ca, ": ", ec.message()));
  }
  return context;
}

}  // namespace puzzledb
