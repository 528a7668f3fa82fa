// The server's TLS context, as both its ports use it (the gRPC port's guard and the HTTP
// server): a certificate chain and its key (PEM files), TLS 1.2 and later, and with a
// client CA, client certificates required and verified. Asio's wrapper over OpenSSL's
// SSL_CTX (Debian's libboost-dev and libssl-dev).
#ifndef PUZZLEDB_SERVER_TLS_CONTEXT_H_
#define PUZZLEDB_SERVER_TLS_CONTEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "boost/asio/ssl/context.hpp"

namespace puzzledb {

// INVALID_ARGUMENT "<port>: cannot use the TLS certificate ... : <OpenSSL's reason>" if a
// file cannot be read or used. `client_ca` may be empty (no client certificates asked).
absl::StatusOr<boost::asio::ssl::context> ServerTlsContext(std::string_view port,
                                                           const std::string& cert,
                                                           const std::string& key,
                                                           const std::string& client_ca);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_TLS_CONTEXT_H_
