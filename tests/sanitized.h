// PUZZLEDB_TEST_SANITIZED: 1 when this code is built with AddressSanitizer or
// ThreadSanitizer, else 0. g++ says so with __SANITIZE_ADDRESS__/__SANITIZE_THREAD__, clang
// 14 (the sanitizer tree's compiler, scripts/configure-sanitizer-tree) only through
// __has_feature. Tests of resident memory or of latency bounds read it: the sanitizers'
// quarantine and instrumentation make both say nothing about the real build.
#ifndef PUZZLEDB_TESTS_SANITIZED_H_
#define PUZZLEDB_TESTS_SANITIZED_H_

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PUZZLEDB_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PUZZLEDB_TEST_SANITIZED 1
#endif
#endif
#ifndef PUZZLEDB_TEST_SANITIZED
#define PUZZLEDB_TEST_SANITIZED 0
#endif

#endif  // PUZZLEDB_TESTS_SANITIZED_H_
