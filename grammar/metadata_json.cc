// The metadata section's JSON reader (see metadata_json.h). Iterative (an
// explicit stack of open containers), so a deeply nested forged document
// cannot overflow the C++ stack; every read is bounds-checked.
#include "grammar/metadata_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "grammar/metadata.h"

namespace carve::metadata_json {

// Builds a Doc from its text, value by value.
class Builder {
 public:
  Builder(std::string_view text, const ReadOptions& options, Doc& doc)
      : t_(text), options_(options), doc_(doc) {}
  bool Run();

 private:
  using Value = Doc::Value;
  struct Frame {
    uint32_t value;
    bool object;
    bool tensors;  // the top-level "b64ndarrays" array
    std::vector<uint32_t> kids;
    std::vector<std::string_view> keys;
    std::string_view key;  // the member being read
  };

  int Peek() const { return pos_ < t_.size() ? static_cast<unsigned char>(t_[pos_]) : -1; }
  void SkipSpace() {
    while (pos_ < t_.size() &&
           (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) {
      ++pos_;
    }
  }
  uint32_t New(Kind kind, size_t begin) {
    Value v;
    v.kind = kind;
    v.begin = begin;
    doc_.values_.push_back(v);
    return static_cast<uint32_t>(doc_.values_.size() - 1);
  }
  bool String(std::string_view& out);
  bool SlowString(size_t start, std::string_view& out);
  bool Hex4(uint32_t& code);
  bool Number();
  bool Key(Frame& frame);
  void Attach(Frame& frame, uint32_t value);
  uint32_t Close(Frame& frame);
  // What a step of Run did: failed, read a whole value, or opened a
  // container whose members follow.
  enum class Step { kFail, kValue, kOpened };
  // Reads the value at pos_ (a scalar, an empty container, or the opening
  // of a container, pushed on stack_); sets `v` to a whole value read.
  Step ReadValue(uint32_t& v);
  Step OpenContainer(bool object, uint32_t& v);
  // What followed a value: another member, the end of the document (well
  // formed or not).
  enum class After { kNext, kEnd, kFail };
  // Attaches the whole value `v` to the open containers, closing every one
  // it completes; `end_ok` tells whether the document ended cleanly.
  After AttachValue(uint32_t v, bool& end_ok);

  std::string_view t_;
  const ReadOptions& options_;
  Doc& doc_;
  size_t pos_ = 0;
  size_t reported_ = 0;  // the last offset passed to options_.consumed
  std::vector<Frame> stack_;
};

bool Builder::String(std::string_view& out) {
  ++pos_;  // the opening quote
  const size_t start = pos_;
  // Printable ASCII without escapes (every base64 tensor) stays a view.
  while (pos_ < t_.size()) {
    const unsigned char c = static_cast<unsigned char>(t_[pos_]);
    if (c == '"') {
      out = t_.substr(start, pos_ - start);
      ++pos_;
      return true;
    }
    if (c == '\\' || c < 0x20 || c >= 0x80) return SlowString(start, out);
    ++pos_;
  }
  return false;
}

bool Builder::Hex4(uint32_t& code) {
  if (t_.size() - pos_ < 4) return false;
  code = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = t_[pos_++];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return false;
    code = code << 4 | uint32_t(d);
  }
  return true;
}

namespace {

void AppendUtf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out.push_back(char(code));
  } else if (code < 0x800) {
    out.push_back(char(0xC0 | code >> 6));
    out.push_back(char(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(char(0xE0 | code >> 12));
    out.push_back(char(0x80 | (code >> 6 & 0x3F)));
    out.push_back(char(0x80 | (code & 0x3F)));
  } else {
    out.push_back(char(0xF0 | code >> 18));
    out.push_back(char(0x80 | (code >> 12 & 0x3F)));
    out.push_back(char(0x80 | (code >> 6 & 0x3F)));
    out.push_back(char(0x80 | (code & 0x3F)));
  }
}

// The length of the well-formed UTF-8 sequence (RFC 3629, as nlohmann
// checks it) at the front of `s` whose first byte is >= 0x80, or 0.
size_t Utf8Length(std::string_view s) {
  auto at = [&s](size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0; };
  auto in = [](unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
  const unsigned char c = at(0);
  if (in(c, 0xC2, 0xDF)) return in(at(1), 0x80, 0xBF) ? 1 + 1 : 0;
  unsigned lo = 0x80, hi = 0xBF;
  size_t n = 0;
  if (c == 0xE0) {
    lo = 0xA0, n = 3;
  } else if (in(c, 0xE1, 0xEC) || in(c, 0xEE, 0xEF)) {
    n = 3;
  } else if (c == 0xED) {
    hi = 0x9F, n = 3;
  } else if (c == 0xF0) {
    lo = 0x90, n = 4;
  } else if (in(c, 0xF1, 0xF3)) {
    n = 4;
  } else if (c == 0xF4) {
    hi = 0x8F, n = 4;
  } else {
    return 0;
  }
  if (!in(at(1), lo, hi)) return 0;
  for (size_t i = 2; i < n; ++i) {
    if (!in(at(i), 0x80, 0xBF)) return 0;
  }
  return n;
}

}  // namespace

bool Builder::SlowString(size_t start, std::string_view& out) {
  std::string value(t_.substr(start, pos_ - start));
  bool escaped = false;
  while (pos_ < t_.size()) {
    const unsigned char c = static_cast<unsigned char>(t_[pos_]);
    if (c == '"') {
      ++pos_;
      out = escaped ? std::string_view(doc_.owned_.emplace_back(std::move(value)))
                    : t_.substr(start, pos_ - 1 - start);
      return true;
    }
    if (c < 0x20) return false;
    if (c >= 0x80) {
      const size_t n = Utf8Length(t_.substr(pos_));
      if (n == 0) return false;
      value.append(t_.substr(pos_, n));
      pos_ += n;
      continue;
    }
    ++pos_;
    if (c != '\\') {
      value.push_back(char(c));
      continue;
    }
    escaped = true;
    if (pos_ >= t_.size()) return false;
    const char e = t_[pos_++];
    switch (e) {
      case '"': value.push_back('"'); break;
      case '\\': value.push_back('\\'); break;
      case '/': value.push_back('/'); break;
      case 'b': value.push_back('\b'); break;
      case 'f': value.push_back('\f'); break;
      case 'n': value.push_back('\n'); break;
      case 'r': value.push_back('\r'); break;
      case 't': value.push_back('\t'); break;
      case 'u': {
        uint32_t code = 0;
        if (!Hex4(code)) return false;
        if (code >= 0xDC00 && code <= 0xDFFF) return false;  // a lone low surrogate
        if (code >= 0xD800 && code <= 0xDBFF) {
          uint32_t low = 0;
          if (t_.substr(pos_, 2) != "\\u") return false;
          pos_ += 2;
          if (!Hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        AppendUtf8(value, code);
        break;
      }
      default:
        return false;
    }
  }
  return false;
}

bool Builder::Number() {
  const size_t start = pos_;
  auto digit = [this] { return pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9'; };
  auto digits = [&] {
    if (!digit()) return false;
    while (digit()) ++pos_;
    return true;
  };
  const bool negative = Peek() == '-';
  if (negative) ++pos_;
  if (Peek() == '0') {
    ++pos_;
  } else if (!digits()) {
    return false;
  }
  bool integer = true;
  if (Peek() == '.') {
    ++pos_;
    if (!digits()) return false;
    integer = false;
  }
  if (Peek() == 'e' || Peek() == 'E') {
    ++pos_;
    if (Peek() == '+' || Peek() == '-') ++pos_;
    if (!digits()) return false;
    integer = false;
  }
  const std::string_view token = t_.substr(start, pos_ - start);
  if (integer) {
    // nlohmann keeps an integer that fits int64 (negative) or uint64, and
    // reads any other as a double, which must be finite.
    const char* end = token.data() + token.size();
    int64_t i = 0;
    uint64_t u = 0;
    if (negative ? std::from_chars(token.data(), end, i).ec == std::errc()
                 : std::from_chars(token.data(), end, u).ec == std::errc()) {
      return true;
    }
  }
  return std::isfinite(std::strtod(std::string(token).c_str(), nullptr));
}

bool Builder::Key(Frame& frame) {
  SkipSpace();
  if (Peek() != '"' || !String(frame.key)) return false;
  SkipSpace();
  if (Peek() != ':') return false;
  ++pos_;
  return true;
}

void Builder::Attach(Frame& frame, uint32_t value) {
  frame.kids.push_back(value);
  frame.keys.push_back(frame.object ? frame.key : std::string_view());
  Value& v = doc_.values_[value];
  if (!frame.tensors || v.kind != Kind::kString) return;
  // A tensor is decoded as soon as it has been read; a malformed one is
  // left to the reader, which reports it if a constant refers to it.
  if (std::optional<NDArray> array = TryDecodeNDArrayBase64(v.str)) {
    v.tensor = static_cast<int32_t>(doc_.tensors_.size());
    doc_.tensors_.push_back(*std::move(array));
    if (options_.consumed && pos_ - reported_ >= (64 << 10)) {
      reported_ = pos_;
      options_.consumed(pos_);
    }
  }
}

uint32_t Builder::Close(Frame& frame) {
  Value& v = doc_.values_[frame.value];
  v.end = pos_;
  v.first = static_cast<uint32_t>(doc_.kids_.size());
  std::vector<uint32_t> order(frame.kids.size());
  std::iota(order.begin(), order.end(), 0u);
  if (frame.object) {
    // As nlohmann's std::map: sorted by key, a repeated key's last value.
    std::stable_sort(order.begin(), order.end(),
                     [&frame](uint32_t a, uint32_t b) { return frame.keys[a] < frame.keys[b]; });
    std::vector<uint32_t> unique;
    for (size_t i = 0; i < order.size(); ++i) {
      if (i + 1 < order.size() && frame.keys[order[i]] == frame.keys[order[i + 1]]) continue;
      unique.push_back(order[i]);
    }
    order = std::move(unique);
  }
  for (uint32_t i : order) {
    doc_.kids_.push_back(frame.kids[i]);
    doc_.keys_.push_back(frame.keys[i]);
  }
  v.count = static_cast<uint32_t>(order.size());
  return frame.value;
}

Builder::Step Builder::OpenContainer(bool object, uint32_t& v) {
  v = New(object ? Kind::kObject : Kind::kArray, pos_);
  ++pos_;
  Frame frame{v, object,
              !object && stack_.size() == 1 && stack_[0].object && stack_[0].key == "b64ndarrays",
              {}, {}, {}};
  SkipSpace();
  if (Peek() == (object ? '}' : ']')) {
    ++pos_;
    v = Close(frame);
    return Step::kValue;
  }
  stack_.push_back(std::move(frame));
  if (object && !Key(stack_.back())) return Step::kFail;
  return Step::kOpened;
}

Builder::Step Builder::ReadValue(uint32_t& v) {
  const int c = Peek();
  const size_t begin = pos_;
  if (c == '{' || c == '[') return OpenContainer(c == '{', v);
  if (c == '"') {
    std::string_view s;
    if (!String(s)) return Step::kFail;
    v = New(Kind::kString, begin);
    doc_.values_[v].str = s;
  } else if (c == 't' || c == 'f' || c == 'n') {
    const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    if (t_.substr(pos_, word.size()) != word) return Step::kFail;
    pos_ += word.size();
    v = New(c == 'n' ? Kind::kNull : Kind::kBool, begin);
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    if (!Number()) return Step::kFail;
    v = New(Kind::kNumber, begin);
  } else {
    return Step::kFail;
  }
  return Step::kValue;
}

Builder::After Builder::AttachValue(uint32_t v, bool& end_ok) {
  for (;;) {
    if (stack_.empty()) {
      doc_.values_[0] = doc_.values_[v];
      SkipSpace();
      // nlohmann takes a NUL byte for the end of the input.
      end_ok = pos_ == t_.size() || t_[pos_] == '\0';
      return After::kEnd;
    }
    Frame& frame = stack_.back();
    Attach(frame, v);
    SkipSpace();
    const int d = Peek();
    if (d == ',') {
      ++pos_;
      if (frame.object && !Key(frame)) return After::kFail;
      return After::kNext;
    }
    if (d != (frame.object ? '}' : ']')) return After::kFail;
    ++pos_;
    v = Close(frame);
    stack_.pop_back();
  }
}

bool Builder::Run() {
  if (!t_.empty() && static_cast<unsigned char>(t_[0]) == 0xEF) {
    if (t_.substr(0, 3) != "\xEF\xBB\xBF") return false;
    pos_ = 3;
  }
  doc_.values_.emplace_back();  // the root's slot, filled at the end
  for (;;) {
    SkipSpace();
    uint32_t v = 0;
    Step step = ReadValue(v);
    if (step == Step::kFail) return false;
    if (step == Step::kOpened) continue;
    doc_.values_[v].end = std::max(doc_.values_[v].end, pos_);
    bool end_ok = false;
    switch (AttachValue(v, end_ok)) {
      case After::kNext:
        continue;
      case After::kEnd:
        return end_ok;
      case After::kFail:
        return false;
    }
  }
}

std::optional<Doc> Doc::Read(std::string_view text, const ReadOptions& options) {
  Doc doc;
  doc.text_ = text;
  if (!Builder(text, options, doc).Run()) return std::nullopt;
  return doc;
}

Kind Ref::kind() const { return doc_->values_[index_].kind; }

size_t Ref::size() const {
  const Doc::Value& v = doc_->values_[index_];
  return v.kind == Kind::kArray || v.kind == Kind::kObject ? v.count : 0;
}

Ref Ref::operator[](size_t i) const {
  return Ref(doc_, doc_->kids_[doc_->values_[index_].first + i]);
}

std::string_view Ref::key(size_t i) const { return doc_->keys_[doc_->values_[index_].first + i]; }

std::optional<Ref> Ref::find(std::string_view name) const {
  if (!is_object()) return std::nullopt;
  const Doc::Value& v = doc_->values_[index_];
  auto first = doc_->keys_.begin() + v.first;
  auto last = first + v.count;
  auto it = std::lower_bound(first, last, name);
  if (it == last || *it != name) return std::nullopt;
  return Ref(doc_, doc_->kids_[size_t(it - doc_->keys_.begin())]);
}

std::string_view Ref::str() const { return doc_->values_[index_].str; }

std::string_view Ref::raw() const {
  const Doc::Value& v = doc_->values_[index_];
  return doc_->text_.substr(v.begin, v.end - v.begin);
}

const NDArray* Ref::tensor() const {
  const int32_t t = doc_->values_[index_].tensor;
  return t < 0 ? nullptr : &doc_->tensors_[size_t(t)];
}

}  // namespace carve::metadata_json
