// A JSON reader for the `#[metadata]` section that holds the document's
// strings as views into the text and decodes the `b64ndarrays` tensors
// straight into their NDArrays as it reaches them, so that reading the
// section costs the node graph plus the weights, not the whole document
// again as a DOM of std::strings (nlohmann::json holds each base64 tensor as
// a string, and its lexer's token buffers grow to the largest one).
//
// It accepts exactly what nlohmann::json::parse accepts (the same grammar,
// UTF-8 and escape checks, a BOM, a NUL byte ending the input, overflowing
// numbers rejected) and presents objects as nlohmann's DOM does (members
// sorted by key, a repeated key's last value). On a syntax error it reports
// nothing itself: grammar/metadata.cc asks nlohmann for the message, so the
// diagnostics are the ones it always gave. tests/grammar_parser/
// metadata_json_test.cc checks the acceptance against nlohmann's.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ndarray.h"

namespace carve::metadata_json {

enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

class Doc;

// A value of a Doc (cheap to copy; valid while the Doc and its text live).
class Ref {
 public:
  Ref(const Doc* doc, uint32_t index) : doc_(doc), index_(index) {}
  Kind kind() const;
  bool is_object() const { return kind() == Kind::kObject; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_number() const { return kind() == Kind::kNumber; }
  // Elements of an array, members of an object (sorted by key).
  size_t size() const;
  Ref operator[](size_t i) const;
  // The key of member i of an object.
  std::string_view key(size_t i) const;
  // The member `name` of an object (nullopt when absent or not an object).
  std::optional<Ref> find(std::string_view name) const;
  // A string's value (escapes decoded).
  std::string_view str() const;
  // The value's bytes in the text (a number's token; for error messages).
  std::string_view raw() const;
  // The tensor decoded while reading, for a string element of the
  // top-level `b64ndarrays` array whose decoding succeeded.
  const NDArray* tensor() const;

 private:
  const Doc* doc_;
  uint32_t index_;
};

struct ReadOptions {
  // Called with the offset up to which the text has been read whenever a
  // tensor has been decoded (the bytes before it are not read again while
  // the DOM is built; reading them later is allowed, only slower).
  std::function<void(size_t)> consumed;
};

class Doc {
 public:
  // The document in `text`, or nullopt on a syntax error.
  static std::optional<Doc> Read(std::string_view text, const ReadOptions& options = {});
  Ref root() const { return Ref(this, 0); }

 private:
  friend class Ref;
  friend class Builder;
  struct Value {
    Kind kind = Kind::kNull;
    int32_t tensor = -1;            // index into tensors_
    size_t begin = 0, end = 0;      // raw bytes in the text
    uint32_t first = 0, count = 0;  // children in kids_ (array, object)
    std::string_view str;           // a string's value: in the text, or in owned_
  };
  std::string_view text_;
  std::vector<Value> values_;
  std::vector<uint32_t> kids_;
  std::vector<std::string_view> keys_;  // parallel to kids_ (objects' members)
  // Escaped strings' values; a deque so that views into them stay valid.
  std::deque<std::string> owned_;
  std::vector<NDArray> tensors_;
};

}  // namespace carve::metadata_json
