#include "client/terminal_safe.h"

#include <cstdint>
#include <sstream>

namespace puzzledb {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Printable ASCII, newline and tab: written as they are.
bool Plain(unsigned char c) { return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t'; }

}  // namespace

TerminalSafeBuf::~TerminalSafeBuf() {
  EscapePending();
  sink_->pubsync();
}

void TerminalSafeBuf::Escape(unsigned char c) {
  const char text[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
  sink_->sputn(text, 4);
}

void TerminalSafeBuf::EscapePending() {
  for (int i = 0; i < pending_size_; ++i) Escape(pending_[i]);
  pending_size_ = 0;
  wanted_ = 0;
}

void TerminalSafeBuf::Put(unsigned char c) {
  if (wanted_ > 0) {
    if ((c & 0xc0) == 0x80) {
      pending_[pending_size_++] = c;
      if (pending_size_ < wanted_) return;
      // The whole sequence: its code point, checked (RFC 3629: no overlong form, no
      // surrogate, nothing past U+10FFFF).
      uint32_t code = pending_[0] & (0x7f >> wanted_);
      for (int i = 1; i < wanted_; ++i) code = code << 6 | (pending_[i] & 0x3f);
      static constexpr uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
      if (code < kLeast[wanted_] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        EscapePending();
      } else if (code <= 0x9f) {  // a C1 control
        const char text[6] = {'\\', 'u', '0', '0', kHex[code >> 4], kHex[code & 15]};
        sink_->sputn(text, 6);
        pending_size_ = 0;
        wanted_ = 0;
      } else {
        sink_->sputn(reinterpret_cast<const char*>(pending_), pending_size_);
        pending_size_ = 0;
        wanted_ = 0;
      }
      return;
    }
    EscapePending();  // cut short: escaped, and `c` read afresh
  }
  if (Plain(c)) {
    sink_->sputc(static_cast<char>(c));
  } else if (c >= 0xc2 && c <= 0xf4) {
    pending_[0] = c;
    pending_size_ = 1;
    wanted_ = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
  } else {
    Escape(c);
  }
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  Put(static_cast<unsigned char>(traits_type::to_char_type(c)));
  return c;
}

std::streamsize TerminalSafeBuf::xsputn(const char* s, std::streamsize n) {
  std::streamsize at = 0;
  while (at < n) {
    // A run of plain bytes goes out in one write.
    std::streamsize run = at;
    if (wanted_ == 0) {
      while (run < n && Plain(static_cast<unsigned char>(s[run]))) ++run;
    }
    if (run > at) {
      sink_->sputn(s + at, run - at);
      at = run;
      continue;
    }
    Put(static_cast<unsigned char>(s[at++]));
  }
  return n;
}

int TerminalSafeBuf::sync() { return sink_->pubsync(); }

std::string TerminalSafe(const std::string& text) {
  std::ostringstream out;
  {
    TerminalSafeBuf safe(out.rdbuf());
    safe.sputn(text.data(), static_cast<std::streamsize>(text.size()));
  }
  return out.str();
}

}  // namespace puzzledb
