// Messages from and to JSON for the tests that compare HTTP answers with gRPC ones.
#ifndef PUZZLEDB_TESTS_PROTO_JSON_H_
#define PUZZLEDB_TESTS_PROTO_JSON_H_

#include <string>

#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "service/wire.h"

namespace puzzledb::testing {

// The message a JSON body holds (a test failure if it does not parse).
template <class Message>
Message FromJson(const std::string& json) {
  Message message;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(status.ok()) << status.message() << " in " << json;
  return message;
}

// The answer as both transports give it, without the time it took.
template <class Message>
std::string Comparable(Message message) {
  message.clear_micros();
  return ToJsonLine(message);
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_PROTO_JSON_H_
