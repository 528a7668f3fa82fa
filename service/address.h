// Checks of "host:port" addresses as the command lines and the client library take them,
// so that "127.0.0.1" (no port) or "127.0.0.1:99999" is refused with a reason instead of
// being read by gRPC as port 443 or as the port modulo 65536. Header-only: the installed
// client library uses it without linking core/.
#ifndef PUZZLEDB_SERVICE_ADDRESS_H_
#define PUZZLEDB_SERVICE_ADDRESS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace puzzledb {

namespace address_internal {
// "'<address>'<what>" (built by appending: GCC 12 warns falsely on chains of operator+).
inline std::string Quoted(std::string_view address, std::string_view what) {
  std::string out = "'";
  out.append(address);
  out.append("'");
  out.append(what);
  return out;
}
}  // namespace address_internal

// "host:port" or "[v6]:port" with a port in 1..65535 (0 too when `allow_port_zero`).
inline absl::Status CheckHostPort(std::string_view address, bool allow_port_zero) {
  using address_internal::Quoted;
  if (address.empty()) return absl::InvalidArgumentError("the address is empty; give host:port");
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || (address.front() == '[' && address[colon - 1] != ']')) {
    return absl::InvalidArgumentError(
        Quoted(address, " has no port; give host:port, e.g. 127.0.0.1:50051"));
  }
  const std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  if (host.empty() || host == "[]") {
    return absl::InvalidArgumentError(
        Quoted(address, " has no host; give host:port, e.g. 127.0.0.1:50051"));
  }
  if (host.front() != '[' && host.find(':') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        Quoted(address, ": write an IPv6 address in brackets, e.g. [::1]:50051"));
  }
  long value = 0;
  bool digits = !port.empty() && port.size() <= 6;
  for (char c : port) {
    if (c < '0' || c > '9') digits = false;
    else value = value * 10 + (c - '0');
  }
  if (!digits || value > 65535 || (value == 0 && !allow_port_zero)) {
    std::string what = ": the port must be a number from ";
    what.append(allow_port_zero ? "0" : "1");
    what.append(" to 65535, got '");
    what.append(port);
    what.append("'");
    return absl::InvalidArgumentError(Quoted(address, what));
  }
  return absl::OkStatus();
}

// A client target: one "host:port", several separated by commas (replicas), or a gRPC
// target with a scheme ("dns:///host:port", "ipv4:a:1,b:2", "unix:/path").
inline absl::Status CheckTarget(std::string_view target) {
  if (target.empty()) return absl::InvalidArgumentError("the server address is empty; give host:port");
  if (target.rfind("unix:", 0) == 0 || target.rfind("unix-abstract:", 0) == 0) {
    return target.size() > target.find(':') + 1
               ? absl::OkStatus()
               : absl::InvalidArgumentError(address_internal::Quoted(target, " names no socket path"));
  }
  std::string_view list = target;
  for (std::string_view scheme : {"dns:///", "dns:", "ipv4:", "ipv6:"}) {
    if (list.rfind(scheme, 0) == 0) {
      list.remove_prefix(scheme.size());
      break;
    }
  }
  if (list.find("://") != std::string_view::npos) {
    return absl::InvalidArgumentError(address_internal::Quoted(
        target, ": unknown scheme; use host:port, dns:///host:port, ipv4:, ipv6: or unix:"));
  }
  while (true) {
    const size_t comma = list.find(',');
    const absl::Status one = CheckHostPort(list.substr(0, comma), false);
    if (!one.ok()) return one;
    if (comma == std::string_view::npos) return absl::OkStatus();
    list.remove_prefix(comma + 1);
  }
}

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_ADDRESS_H_
