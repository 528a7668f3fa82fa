#include "core/puzzles/cube2.h"

#include <algorithm>

#include "core/puzzles/drawing.h"
#include "core/puzzles/model_puzzle.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

// Faces, as the compact form orders them.
constexpr char kFaceLetters[] = "URFDLB";
constexpr int kU = 0, kR = 1, kF = 2, kD = 3, kL = 4, kB = 5;

constexpr std::string_view kCornerNames[8] = {"URF", "UFL", "ULB", "UBR",
                                              "DFR", "DLF", "DBL", "DRB"};
// Each place's stickers (indices into the compact form), clockwise from its U or D sticker.
constexpr int kPlaceStickers[8][3] = {{3, 4, 9},   {2, 8, 17},  {0, 16, 21}, {1, 20, 5},
                                      {13, 11, 6}, {12, 19, 10}, {14, 23, 18}, {15, 7, 22}};
// Each piece's faces, clockwise from its U or D face.
constexpr int kPieceFaces[8][3] = {{kU, kR, kF}, {kU, kF, kL}, {kU, kL, kB}, {kU, kB, kR},
                                   {kD, kF, kR}, {kD, kL, kF}, {kD, kB, kL}, {kD, kR, kB}};
constexpr int kFixedPlace = 6;  // DBL

// A move as a cubie permutation: the place each place takes its piece from, and the twist
// it adds (Kociemba's tables for U, R and F).
struct CubieMove {
  std::array<uint8_t, 8> from;
  std::array<uint8_t, 8> twist;
};

constexpr CubieMove kQuarterTurns[3] = {
    {{3, 0, 1, 2, 4, 5, 6, 7}, {0, 0, 0, 0, 0, 0, 0, 0}},  // U
    {{4, 1, 2, 0, 7, 5, 6, 3}, {2, 0, 0, 1, 1, 0, 0, 2}},  // R
    {{1, 5, 2, 3, 0, 4, 6, 7}, {1, 2, 0, 0, 2, 1, 0, 0}},  // F
};

// `a` then `b`.
CubieMove Then(const CubieMove& a, const CubieMove& b) {
  CubieMove out;
  for (int i = 0; i < 8; ++i) {
    out.from[i] = a.from[b.from[i]];
    out.twist[i] = static_cast<uint8_t>((a.twist[b.from[i]] + b.twist[i]) % 3);
  }
  return out;
}

// The nine moves in canonical order: each face's quarter, half and three-quarter turn.
const std::array<CubieMove, Cube2Puzzle::kNumMoves>& Moves() {
  static const std::array<CubieMove, Cube2Puzzle::kNumMoves> moves = [] {
    std::array<CubieMove, Cube2Puzzle::kNumMoves> all;
    for (int face = 0; face < 3; ++face) {
      all[3 * face] = kQuarterTurns[face];
      all[3 * face + 1] = Then(all[3 * face], kQuarterTurns[face]);
      all[3 * face + 2] = Then(all[3 * face + 1], kQuarterTurns[face]);
    }
    return all;
  }();
  return moves;
}

// The seven places that move (all but DBL), and the rank of a piece among the seven.
constexpr int kMovingPlaces[7] = {0, 1, 2, 3, 4, 5, 7};
constexpr int PieceIndex(int piece) { return piece == 7 ? 6 : piece; }
constexpr int kFactorials[8] = {1, 1, 2, 6, 24, 120, 720, 5040};

// The faces of every sticker, in face indices.
std::array<int, Cube2Puzzle::kStickers> Stickers(const Cube2State& s) {
  std::array<int, Cube2Puzzle::kStickers> faces{};
  for (int place = 0; place < 8; ++place) {
    for (int k = 0; k < 3; ++k) {
      faces[kPlaceStickers[place][k]] = kPieceFaces[s.piece[place]][(k - s.twist[place] + 3) % 3];
    }
  }
  return faces;
}

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// A cube from its 24 sticker colours: the faces named by the corner at DBL (docs/PUZZLES.md,
// section 6), then every corner found among the pieces.
absl::StatusOr<Cube2Puzzle::Instance> FromColours(std::string_view colours) {
  if (colours.size() != Cube2Puzzle::kStickers) {
    return Invalid(Cat("a cube has 24 stickers, got ", colours.size(), " characters"));
  }
  std::string distinct;
  for (int i = 0; i < Cube2Puzzle::kStickers; ++i) {
    const unsigned char c = static_cast<unsigned char>(colours[i]);
    if (c < 0x21 || c > 0x7e) {
      return Invalid(Cat("sticker ", i + 1, " is ", QuoteInput(colours.substr(i, 1)),
                         "; a colour is a printable character"));
    }
    if (distinct.find(colours[i]) == std::string::npos) distinct += colours[i];
  }
  if (distinct.size() != 6) {
    return Invalid(Cat(distinct.size(), " colours (", QuoteInput(distinct), "); a cube has 6"));
  }
  for (const char colour : distinct) {
    const auto n = std::count(colours.begin(), colours.end(), colour);
    if (n != 4) {
      return Invalid(Cat("colour ", QuoteInput(std::string(1, colour)), " appears ", n,
                         " times, not 4"));
    }
  }
  // The corner at DBL names three faces; each of the other three is the colour that never
  // shares a corner with its opposite face's.
  std::array<char, 6> face_colour{};
  face_colour[kD] = colours[kPlaceStickers[kFixedPlace][0]];
  face_colour[kB] = colours[kPlaceStickers[kFixedPlace][1]];
  face_colour[kL] = colours[kPlaceStickers[kFixedPlace][2]];
  if (face_colour[kD] == face_colour[kB] || face_colour[kD] == face_colour[kL] ||
      face_colour[kB] == face_colour[kL]) {
    return Invalid("corner DBL: two of its stickers have one colour");
  }
  auto share_a_corner = [&](char a, char b) {
    for (const auto& stickers : kPlaceStickers) {
      bool has_a = false, has_b = false;
      for (const int s : stickers) {
        has_a |= colours[s] == a;
        has_b |= colours[s] == b;
      }
      if (has_a && has_b) return true;
    }
    return false;
  };
  for (const auto& [face, opposite] : {std::pair{kU, kD}, std::pair{kR, kL}, std::pair{kF, kB}}) {
    for (const char colour : distinct) {
      if (std::find(face_colour.begin(), face_colour.end(), colour) != face_colour.end()) continue;
      if (!share_a_corner(colour, face_colour[opposite])) face_colour[face] = colour;
    }
    if (face_colour[face] == 0) {
      return Invalid(Cat("no colour is opposite ", QuoteInput(std::string(1, face_colour[opposite])),
                         " (the ", kFaceLetters[opposite], " face's, from corner DBL): every "
                         "colour shares a corner with it"));
    }
  }
  auto face_of = [&](char colour) {
    return static_cast<int>(std::find(face_colour.begin(), face_colour.end(), colour) -
                            face_colour.begin());
  };
  Cube2Puzzle::Instance instance;
  instance.colours = face_colour;
  Cube2State& state = instance.state;
  std::array<int, 8> seen_at;
  seen_at.fill(-1);
  int twists = 0;
  for (int place = 0; place < 8; ++place) {
    int faces[3];
    std::string shown;
    for (int k = 0; k < 3; ++k) {
      faces[k] = face_of(colours[kPlaceStickers[place][k]]);
      shown += colours[kPlaceStickers[place][k]];
    }
    const std::string where = Cat("corner ", kCornerNames[place], " (", QuoteInput(shown), ")");
    int twist = -1;
    for (int k = 0; k < 3; ++k) {
      if (faces[k] == kU || faces[k] == kD) {
        if (twist >= 0) return Invalid(Cat(where, ": two stickers of opposite faces"));
        twist = k;
      }
    }
    if (twist < 0) return Invalid(Cat(where, ": no sticker of the U or D face"));
    int piece = -1;
    bool mirrored = false;
    for (int p = 0; p < 8; ++p) {
      bool same = true, reversed = true;
      for (int k = 0; k < 3; ++k) {
        same &= faces[(twist + k) % 3] == kPieceFaces[p][k];
        reversed &= faces[(twist + 3 - k) % 3] == kPieceFaces[p][k];
      }
      if (same) piece = p;
      mirrored |= reversed;
    }
    if (piece < 0) {
      return Invalid(Cat(where, mirrored ? ": mirrored (its colours run counter-clockwise)"
                                         : ": no corner has these colours"));
    }
    if (seen_at[piece] >= 0) {
      return Invalid(Cat("corners ", kCornerNames[seen_at[piece]], " and ", kCornerNames[place],
                         " are both the ", kCornerNames[piece], " piece"));
    }
    seen_at[piece] = place;
    state.piece[place] = static_cast<uint8_t>(piece);
    state.twist[place] = static_cast<uint8_t>(twist);
    twists += twist;
  }
  if (twists % 3 != 0) {
    return Invalid(Cat("twisted: the corners' twists add up to ", twists,
                       ", not a multiple of 3 (a corner was turned in place)"));
  }
  return instance;
}

std::string Squeezed(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') out += c;
  }
  return out;
}

}  // namespace

uint64_t Cube2Puzzle::Rank(const State& s) const {
  uint64_t perm = 0;
  for (int i = 0; i < 7; ++i) {
    const int a = PieceIndex(s.piece[kMovingPlaces[i]]);
    int smaller = 0;
    for (int j = i + 1; j < 7; ++j) smaller += PieceIndex(s.piece[kMovingPlaces[j]]) < a;
    perm += static_cast<uint64_t>(smaller * kFactorials[6 - i]);
  }
  uint64_t twist = 0;
  for (int place = 0; place < 6; ++place) twist = twist * 3 + s.twist[place];
  return perm * 729 + twist;
}

Cube2State Cube2Puzzle::Unrank(uint64_t index) const {
  State s;
  uint64_t twist = index % 729;
  uint64_t perm = index / 729;
  int free_pieces[7] = {0, 1, 2, 3, 4, 5, 7};
  int left = 7;
  for (int i = 0; i < 7; ++i) {
    const int k = static_cast<int>(perm / static_cast<uint64_t>(kFactorials[6 - i]));
    perm %= static_cast<uint64_t>(kFactorials[6 - i]);
    s.piece[kMovingPlaces[i]] = static_cast<uint8_t>(free_pieces[k]);
    for (int j = k; j + 1 < left; ++j) free_pieces[j] = free_pieces[j + 1];
    --left;
  }
  s.piece[kFixedPlace] = kFixedPlace;
  int sum = 0;
  for (int place = 5; place >= 0; --place) {
    s.twist[place] = static_cast<uint8_t>(twist % 3);
    sum += s.twist[place];
    twist /= 3;
  }
  s.twist[kFixedPlace] = 0;
  s.twist[7] = static_cast<uint8_t>((3 - sum % 3) % 3);
  return s;
}

bool Cube2Puzzle::Apply(const State& s, int move, State* out) const {
  const CubieMove& m = Moves()[move];
  State next;
  for (int i = 0; i < 8; ++i) {
    next.piece[i] = s.piece[m.from[i]];
    next.twist[i] = static_cast<uint8_t>((s.twist[m.from[i]] + m.twist[i]) % 3);
  }
  *out = next;
  return true;
}

absl::StatusOr<Cube2Puzzle::Instance> Cube2Puzzle::ParseCompact(std::string_view text) {
  return FromColours(Squeezed(text));
}

std::string Cube2Puzzle::FormatCompact(const Instance& instance) {
  std::string out;
  for (const int face : Stickers(instance.state)) out += instance.colours[face];
  return out;
}

std::vector<ParsedCase<Cube2Puzzle::Instance>> Cube2Puzzle::ParseOriginal(std::string_view text) {
  return ParseCaseLines<Instance>(
      text, [](std::string_view line) { return ParseCompact(line); },
      "the input is empty; each line is a cube of 24 stickers, face by face (U R F D L B)");
}

std::string Cube2Puzzle::FormatOriginal(const std::vector<Instance>& instances) {
  std::string out;
  for (const Instance& instance : instances) out += FormatCompact(instance) + "\n";
  return out;
}

std::string Cube2Puzzle::FormatOriginalAnswer(const Instance&, const Cube2Puzzle& model,
                                              const Solution& solution) {
  if (solution.outcome != Outcome::kSolved) return "-1\n";
  std::string out = std::to_string(solution.distance);
  for (const uint8_t m : solution.moves) out += Cat(" ", model.MoveName(State{}, m));
  return out + "\n";
}

// The net: U above F, then L F R B in a row, D below F.
namespace {
constexpr int kNetRow[Cube2Puzzle::kStickers] = {0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3,
                                                 4, 4, 5, 5, 2, 2, 3, 3, 2, 2, 3, 3};
constexpr int kNetColumn[Cube2Puzzle::kStickers] = {2, 3, 2, 3, 4, 5, 4, 5, 2, 3, 2, 3,
                                                    2, 3, 2, 3, 0, 1, 0, 1, 6, 7, 6, 7};
}  // namespace

std::string Cube2Puzzle::Draw(const Instance& now, const Instance* before) {
  static const GridLayout kLayout = [] {
    GridLayout layout;
    layout.columns = 8;
    for (int i = 0; i < kStickers; ++i) layout.places.push_back(kNetRow[i] * 8 + kNetColumn[i]);
    return layout;
  }();
  return DrawGrid(kLayout, FormatCompact(now), before != nullptr ? FormatCompact(*before) : "");
}

BoardLayout Cube2Puzzle::Layout() {
  BoardLayout layout;
  layout.width = 8;
  layout.height = 6;
  for (int i = 0; i < kStickers; ++i) {
    layout.cells.push_back({static_cast<double>(kNetColumn[i]), static_cast<double>(kNetRow[i]),
                            Cat(kFaceLetters[i / 4], i % 4 + 1), ""});
  }
  layout.symbols = {{kU, "U", "#ffffff"}, {kR, "R", "#e53935"}, {kF, "F", "#43a047"},
                    {kD, "D", "#fdd835"}, {kL, "L", "#fb8c00"}, {kB, "B", "#1e88e5"}};
  layout.hint =
      "Click two stickers to swap them. The goal: each face one colour, as the corner at DBL "
      "(left of the bottom face's last row) says.";
  return layout;
}

// The page's six values stand for six colours: the face letters where the cube was given in
// them (held any way), else the cube's own colours, face by face.
namespace {
Cube2Puzzle::Colours CellColours(const Cube2Puzzle::Instance& instance) {
  Cube2Puzzle::Colours letters;
  std::copy_n(kFaceLetters, 6, letters.begin());
  return std::is_permutation(instance.colours.begin(), instance.colours.end(), letters.begin())
             ? letters
             : instance.colours;
}
}  // namespace

std::vector<int> Cube2Puzzle::Cells(const Instance& instance) {
  const Colours alphabet = CellColours(instance);
  std::vector<int> cells;
  for (const int face : Stickers(instance.state)) {
    const char colour = instance.colours[face];
    cells.push_back(static_cast<int>(std::find(alphabet.begin(), alphabet.end(), colour) -
                                     alphabet.begin()));
  }
  return cells;
}

absl::StatusOr<Cube2Puzzle::Instance> Cube2Puzzle::FromCells(const Instance& base,
                                                             std::span<const int> cells) {
  const Colours alphabet = CellColours(base);
  std::string colours;
  for (const int value : cells) colours += alphabet[value];
  return ParseCompact(colours);
}

PUZZLEDB_REGISTER_PUZZLE(Cube2Puzzle)

}  // namespace puzzledb
