// A preload library that makes some TCP connect() calls fail as gRPC 1.51 sometimes makes
// them fail on its own: -1 with errno ENOENT ("No such file or directory"), the errno that
// gRPC reads after another call overwrote connect()'s (docs/OPERATIONS.md, "Known gRPC
// faults"). FAIL_CONNECT=N fails the 1st, (N+1)th, (2N+1)th ... TCP connect of the
// process; unset, it changes nothing. Used by e2e_test.cc to show that the CLI, the client
// library and the load generator ride over such a failure.
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdlib>

namespace {
std::atomic<long> connects{0};
}

extern "C" int connect(int fd, const struct sockaddr* address, socklen_t length) {
  using Connect = int (*)(int, const struct sockaddr*, socklen_t);
  static const Connect real = reinterpret_cast<Connect>(dlsym(RTLD_NEXT, "connect"));
  static const long every = [] {
    const char* text = std::getenv("FAIL_CONNECT");
    return text == nullptr ? 0L : std::atol(text);
  }();
  const bool tcp = address->sa_family == AF_INET || address->sa_family == AF_INET6;
  if (every > 0 && tcp && connects.fetch_add(1) % every == 0) {
    errno = ENOENT;
    return -1;
  }
  return real(fd, address, length);
}
