// What the command line prints, made safe for a terminal. A server's strings (puzzle names
// and titles, table statuses, error messages) reach its output, and a hostile or broken one
// could send control characters: ESC starts the sequences that clear a screen, retitle a
// window or rewrite lines, CR moves back over a line. Every C0 control but newline and tab,
// DEL, every C1 control (U+0080..U+009F, which some terminals obey too) and every byte that
// is not UTF-8 is written as an escape (\x1b, \u009b); everything else passes unchanged, so
// the puzzles' own output (ASCII) and a server's UTF-8 text read as they are. JSON output
// escapes its control characters itself.
#ifndef PUZZLEDB_CLIENT_TERMINAL_SAFE_H_
#define PUZZLEDB_CLIENT_TERMINAL_SAFE_H_

#include <ios>
#include <ostream>
#include <streambuf>
#include <string>

namespace puzzledb {

// A stream buffer that writes to `sink` with those escapes. A character split across two
// writes is read whole; one left incomplete is escaped when the buffer is destroyed.
class TerminalSafeBuf : public std::streambuf {
 public:
  explicit TerminalSafeBuf(std::streambuf* sink) : sink_(sink) {}
  ~TerminalSafeBuf() override;
  TerminalSafeBuf(const TerminalSafeBuf&) = delete;
  TerminalSafeBuf& operator=(const TerminalSafeBuf&) = delete;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void Put(unsigned char c);
  // The bytes of the UTF-8 sequence in progress, each escaped (it did not complete).
  void EscapePending();
  void Escape(unsigned char c);

  std::streambuf* sink_;
  unsigned char pending_[4] = {};
  int pending_size_ = 0;
  int wanted_ = 0;  // bytes the sequence in progress has in all (0: none in progress)
};

// Routes a stream through a TerminalSafeBuf for as long as it lives.
class TerminalSafeStream {
 public:
  explicit TerminalSafeStream(std::ostream& stream)
      : stream_(stream), safe_(stream.rdbuf()), original_(stream.rdbuf(&safe_)) {}
  ~TerminalSafeStream() {
    stream_.flush();
    stream_.rdbuf(original_);
  }
  TerminalSafeStream(const TerminalSafeStream&) = delete;
  TerminalSafeStream& operator=(const TerminalSafeStream&) = delete;

 private:
  std::ostream& stream_;
  TerminalSafeBuf safe_;
  std::streambuf* original_;
};

// `text` with those escapes, for one string.
std::string TerminalSafe(const std::string& text);

}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_TERMINAL_SAFE_H_
