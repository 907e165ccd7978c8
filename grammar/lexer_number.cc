// Numeric literals: integers and floats with TVM's suffixes (plus carve's
// i8 / u8..u64), negative folding, and range checks against the literal's
// dtype. Values are decoded here, once, so the parser never re-reads digits.
#include <charconv>
#include <cmath>
#include <limits>

#include "fmt/format.h"
#include "grammar/lexer.h"
#include "grammar/lexer_chars.h"

namespace carve {
namespace {

struct Suffix {
  std::string_view text;
  DataType dtype;
};
constexpr Suffix kSuffixes[] = {
    {"i", DataType::Int(32)},     {"i8", DataType::Int(8)},     {"i16", DataType::Int(16)},
    {"i32", DataType::Int(32)},   {"i64", DataType::Int(64)},   {"u8", DataType::UInt(8)},
    {"u16", DataType::UInt(16)},  {"u32", DataType::UInt(32)},  {"u64", DataType::UInt(64)},
    {"f", DataType::Float(32)},   {"f16", DataType::Float(16)}, {"f32", DataType::Float(32)},
    {"f64", DataType::Float(64)},
};

const Suffix* FindSuffix(std::string_view text) {
  for (const Suffix& s : kSuffixes) {
    if (s.text == text) return &s;
  }
  return nullptr;
}

// Whether -magnitude (negative) or +magnitude fits `dtype`.
bool IntFits(uint64_t magnitude, bool negative, DataType dtype) {
  if (dtype.is_uint()) {
    if (negative) return magnitude == 0;
    return dtype.bits == 64 || magnitude <= (uint64_t(1) << dtype.bits) - 1;
  }
  uint64_t limit = uint64_t(1) << (dtype.bits - 1);  // |min|; max is limit - 1
  return negative ? magnitude <= limit : magnitude < limit;
}

// Parses the digits of a float literal (already validated by the caller).
// Values beyond double range come back as infinity, tiny ones as 0; range
// checks against the literal's dtype are the caller's.
double ParseFloatDigits(std::string_view digits) {
  double v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves `v` untouched on overflow *and* underflow; long double
    // has the range to tell them apart.
    long double wide = 0;
    std::from_chars(digits.data(), digits.data() + digits.size(), wide);
    return wide > 1 ? std::numeric_limits<double>::infinity() : 0.0;
  }
  return v;
}

bool FloatFits(double v, DataType dtype) {
  double a = std::fabs(v);
  if (dtype.bits == 16) return a <= 65504.0;
  if (dtype.bits == 32) return a <= double(std::numeric_limits<float>::max());
  return !std::isinf(v);
}

// The digits, fraction and exponent of a literal whose first digit is at
// `p`, scanned once: the value is decoded from them, and the suffix starts
// at `end`.
struct NumberBody {
  const char* end;
  uint64_t magnitude;  // of the integer digits
  bool overflow;       // the integer digits exceed uint64
  bool float_form;     // a fraction or an exponent follows them
};

NumberBody ScanNumberBody(const char* p, const char* end) {
  NumberBody body{p, 0, false, false};
  for (; p < end && IsDigit(*p); ++p) {
    uint64_t d = uint64_t(*p - '0');
    if (body.magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) body.overflow = true;
    body.magnitude = body.magnitude * 10 + d;
  }
  if (p + 1 < end && *p == '.' && IsDigit(p[1])) {
    body.float_form = true;
    for (p += 2; p < end && IsDigit(*p); ++p) {
    }
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    const char* e = p + 1;
    if (e < end && (*e == '+' || *e == '-')) ++e;
    if (e < end && IsDigit(*e)) {
      body.float_form = true;
      for (p = e; p < end && IsDigit(*p); ++p) {
      }
    }
  }
  body.end = p;
  return body;
}

}  // namespace

Token Lexer::LexNumber(const char* begin, const char* digits, bool negative) {
  const NumberBody body = ScanNumberBody(digits, end_);
  const uint64_t magnitude = body.magnitude;
  const bool float_form = body.float_form;
  const char* const body_end = body.end;
  const char* p = body_end;
  while (p < end_ && IsAlnum(*p)) ++p;
  std::string_view suffix_text(body_end, size_t(p - body_end));
  std::string_view lexeme(begin, size_t(p - begin));

  DataType dtype = DataType::Int(32);
  if (suffix_text.empty()) {
    if (float_form) {
      return Error(begin, p,
                   fmt::format("float literal '{0}' needs a suffix: write '{0}f'", lexeme));
    }
    if (!IntFits(magnitude, negative, dtype)) dtype = DataType::Int(64);
  } else if (const Suffix* suffix = FindSuffix(suffix_text)) {
    dtype = suffix->dtype;
  } else {
    return Error(begin, p,
                 fmt::format("invalid suffix '{}' on numeric literal '{}'", suffix_text, lexeme));
  }

  if (dtype.is_float()) {
    double v = ParseFloatDigits(std::string_view(digits, size_t(body_end - digits)));
    if (!FloatFits(v, dtype)) {
      return Error(begin, p,
                   fmt::format("{} literal '{}' is out of range", dtype.ToString(), lexeme));
    }
    Token t = Make(TokenKind::kFloat, begin, p);
    t.dtype = dtype;
    t.float_value = negative ? -v : v;
    return t;
  }
  if (float_form) {
    return Error(begin, p,
                 fmt::format("integer literal '{}' cannot have a fraction or exponent", lexeme));
  }
  if (body.overflow || !IntFits(magnitude, negative, dtype)) {
    return Error(begin, p,
                 fmt::format("{} literal '{}' is out of range", dtype.ToString(), lexeme));
  }
  Token t = Make(TokenKind::kInt, begin, p);
  t.dtype = dtype;
  // Two's complement negation in unsigned arithmetic: -2^63 is representable.
  t.int_value = static_cast<int64_t>(negative ? uint64_t(0) - magnitude : magnitude);
  return t;
}

Token Lexer::LexTupleIndex(const char* p) {
  const char* q = p;
  int64_t index = 0;
  for (; q < end_ && IsDigit(*q); ++q) {
    if (index <= std::numeric_limits<int32_t>::max()) index = index * 10 + (*q - '0');
  }
  if (index > std::numeric_limits<int32_t>::max()) return Error(p, q, "tuple index is too large");
  Token t = Make(TokenKind::kInt, p, q);
  t.dtype = DataType::Int(32);
  t.int_value = index;
  return t;
}

size_t Lexer::InfNanLength(const char* p) const {
  size_t avail = size_t(end_ - p);
  if (avail < 4) return 0;
  std::string_view head(p, 4);
  if (head != "inff" && head != "nanf") return 0;
  size_t n = 4;
  if (avail >= 6) {
    std::string_view width(p + 4, 2);
    if (width == "16" || width == "32" || width == "64") n = 6;
  }
  if (n < avail && IsIdentContinue(p[n])) return 0;
  return n;
}

Token Lexer::LexInfNan(const char* begin, const char* word, size_t length, bool negative) {
  DataType dtype = DataType::Float(32);
  if (length == 6) dtype = DataType::Float(word[4] == '1' ? 16 : word[4] == '3' ? 32 : 64);
  double v = word[0] == 'i' ? std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::quiet_NaN();
  Token t = Make(TokenKind::kFloat, begin, word + length);
  t.dtype = dtype;
  t.float_value = negative ? -v : v;
  return t;
}

}  // namespace carve
