// The metadata section's own JSON reader (grammar/metadata_json.h) against
// nlohmann::json, the reader it replaces: the same documents accepted, the
// same values (objects sorted by key, a repeated key's last value), and the
// direct base64 tensor decoder against Base64Decode + DecodeNDArray.
#include "grammar/metadata_json.h"

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "gmock/gmock.h"
#include "grammar/metadata.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace carve {
namespace {

using metadata_json::Doc;
using metadata_json::Kind;
using metadata_json::Ref;
using Json = nlohmann::json;

std::string CorpusMetadata(const std::string& name) {
  std::ifstream in(std::string(CARVE_SHARED_DIR) + "/corpus/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  size_t at = text.find("#[metadata]\n");
  return at == std::string::npos ? "" : text.substr(at + 12);
}

// Whether `ours` holds the same value as nlohmann's `theirs`.
::testing::AssertionResult Same(Ref ours, const Json& theirs, int depth = 0) {
  if (depth > 200) return ::testing::AssertionSuccess();  // the test's own stack
  switch (ours.kind()) {
    case Kind::kNull:
      if (theirs.is_null()) return ::testing::AssertionSuccess();
      break;
    case Kind::kBool:
      if (theirs.is_boolean() && Json::parse(ours.raw()) == theirs) {
        return ::testing::AssertionSuccess();
      }
      break;
    case Kind::kNumber:
      if (theirs.is_number() && Json::parse(ours.raw()) == theirs) {
        return ::testing::AssertionSuccess();
      }
      break;
    case Kind::kString:
      if (theirs.is_string() && ours.str() == theirs.get_ref<const std::string&>()) {
        return ::testing::AssertionSuccess();
      }
      break;
    case Kind::kArray:
      if (!theirs.is_array() || ours.size() != theirs.size()) break;
      for (size_t i = 0; i < ours.size(); ++i) {
        if (auto r = Same(ours[i], theirs[i], depth + 1); !r) return r;
      }
      return ::testing::AssertionSuccess();
    case Kind::kObject: {
      if (!theirs.is_object() || ours.size() != theirs.size()) break;
      size_t i = 0;
      for (auto it = theirs.begin(); it != theirs.end(); ++it, ++i) {
        if (ours.key(i) != it.key()) {
          return ::testing::AssertionFailure() << "key " << ours.key(i) << " vs " << it.key();
        }
        if (auto r = Same(ours[i], *it, depth + 1); !r) return r;
        std::optional<Ref> found = ours.find(it.key());
        if (!found) return ::testing::AssertionFailure() << "find(" << it.key() << ")";
      }
      return ::testing::AssertionSuccess();
    }
  }
  return ::testing::AssertionFailure() << "'" << ours.raw() << "' vs " << theirs.dump();
}

// Reads `text` both ways: accepted by both or by neither, with equal values.
void Check(const std::string& text) {
  std::optional<Doc> ours = Doc::Read(text);
  const bool theirs_ok = Json::accept(text);
  ASSERT_EQ(ours.has_value(), theirs_ok) << "text: " << ::testing::PrintToString(text);
  if (ours) EXPECT_TRUE(Same(ours->root(), Json::parse(text))) << text;
}

TEST(MetadataJson, EdgeCasesAgreeWithNlohmann) {
  const char* cases[] = {
      "", " ", "{}", "[]", "{ }", "[ ]", "0", "-0", "-", "01", "1.", "1.5", "1e5", "1E+5",
      "1e-5", "1e", "1e+", ".5", "+1", "1e999", "-1e999", "18446744073709551615",
      "18446744073709551616", "9223372036854775808", "-9223372036854775808",
      "-9223372036854775809", "123456789012345678901234567890",
      "true", "tru", "truex", "false", "null", "nul", "[1,]",
      "[,1]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{\"a\":1,}", "{,}", "{1:2}", "{\"a\":1 \"b\":2}",
      "\"abc\"", "\"a\\\"b\"", "\"\\u00e9\"", "\"\\u00E9\"", "\"\\ud83d\\ude00\"",
      "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83dx\"", "\"\\ud83d\\u0041\"", "\"\\u12\"",
      "\"\\x\"", "\"\\/\"", "\"\\b\\f\\n\\r\\t\"", "\"\\u0000\"", "\"tab\there\"",
      "\"\xc3\xa9\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xe0\x80\xaf\"", "\"\xed\xa0\x80\"",
      "\"\xf4\x90\x80\x80\"", "\"\xf0\x9f\x98\x80\"", "\"\xff\"", "\"\x7f\"", "\"abc",
      "\xef\xbb\xbf{}", "\xef\xbb{}", "\xef{}", "{} ", "{} x", "{}{}", "[[[]]]",
      "{\"b\":1,\"a\":2}", "{\"a\":1,\"a\":2}", "{\"a\":{\"x\":1},\"a\":[2],\"b\":0}",
      "{\"\\u0061\":1,\"a\":2}", " \t\r\n[ 1 , 2 ]\n", "[\f]", "[\v1]",
  };
  for (const char* c : cases) Check(c);
  Check(std::string(400, '9'));
  // A NUL byte ends nlohmann's input.
  Check(std::string("{}\0junk", 7));
  Check(std::string("[1,\0]", 5));
  Check(std::string("\0", 1));
  Check(std::string("\"a\0\"", 4));
  Check(std::string(5000, '[') + std::string(5000, ']'));
  Check(std::string(5000, '['));
}

TEST(MetadataJson, RepeatedKeysKeepTheLastValueInKeyOrder) {
  std::optional<Doc> doc = Doc::Read(R"({"b": 1, "a": 2, "b": 3, "c": {"z": 0, "y": 1}})");
  ASSERT_TRUE(doc);
  Ref root = doc->root();
  ASSERT_EQ(root.size(), 3u);
  EXPECT_EQ(root.key(0), "a");
  EXPECT_EQ(root.key(1), "b");
  EXPECT_EQ(root[1].raw(), "3");
  EXPECT_EQ(root.find("c")->key(0), "y");
  EXPECT_FALSE(root.find("d"));
}

// Documents near the real ones: the corpus sections, every prefix of a small
// one, and a few thousand seeded mutations (bytes replaced, inserted and
// deleted, with the characters JSON treats specially).
TEST(MetadataJson, MutatedSectionsAgreeWithNlohmann) {
  std::vector<std::string> seeds = {
      CorpusMetadata("conv_bound_constants.relay"),
      CorpusMetadata("demo_2_annotate_target.relay"),
      CorpusMetadata("scalars_let_if_fn.relay"),
  };
  for (const std::string& s : seeds) ASSERT_FALSE(s.empty());
  const std::string& small = seeds[2];
  for (size_t cut = 0; cut <= small.size(); cut += 1 + small.size() / 400) {
    Check(small.substr(0, cut));
  }
  static const char kSpecial[] = "{}[],:\"\\/0123456789-+.eEtrufalsn \t\n\x00\x1f\x7f\x80\xc3\xef\xff";
  const std::string special(kSpecial, sizeof(kSpecial) - 1);
  std::mt19937 rng(18);
  for (int round = 0; round < 3000; ++round) {
    std::string text = seeds[round % seeds.size()];
    if (text.size() > 4000) text.resize(4000 + rng() % 64);  // many rejected as cut
    int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t at = rng() % text.size();
      char c = special[rng() % special.size()];
      switch (rng() % 3) {
        case 0: text[at] = c; break;
        case 1: text.insert(text.begin() + long(at), c); break;
        default: text.erase(at, 1); break;
      }
    }
    Check(text);
    if (HasFailure()) break;
  }
}

NDArray Filled(DataType dtype, std::vector<int64_t> shape) {
  NDArray a = NDArray::Empty(dtype, shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) a.SetFromDouble(i, double(i % 11) - 5);
  return a;
}

// The direct decoder and the two steps it replaces: the same tensor, or the
// same error, for every tensor, every cut and every single-character edit.
void CheckDecode(const std::string& b64) {
  absl::StatusOr<NDArray> direct = DecodeNDArrayBase64(b64);
  absl::StatusOr<NDArray> steps = [&]() -> absl::StatusOr<NDArray> {
    absl::StatusOr<std::string> bytes = Base64Decode(b64);
    if (!bytes.ok()) return bytes.status();
    return DecodeNDArray(*bytes);
  }();
  ASSERT_EQ(direct.ok(), steps.ok()) << b64;
  EXPECT_EQ(TryDecodeNDArrayBase64(b64).has_value(), steps.ok()) << b64;
  if (!steps.ok()) {
    EXPECT_EQ(direct.status(), steps.status()) << b64;
    return;
  }
  EXPECT_EQ(direct->dtype(), steps->dtype());
  EXPECT_EQ(direct->shape(), steps->shape());
  ASSERT_EQ(direct->nbytes(), steps->nbytes());
  EXPECT_EQ(std::memcmp(direct->raw_data(), steps->raw_data(), steps->nbytes()), 0) << b64;
}

TEST(MetadataJson, DirectTensorDecodingMatchesTheTwoSteps) {
  std::vector<NDArray> arrays = {
      Filled(DataType::Float(32), {}),      Filled(DataType::Float(32), {1}),
      Filled(DataType::Float(32), {2, 3}),  Filled(DataType::Int(8), {1}),
      Filled(DataType::Int(8), {2}),        Filled(DataType::Int(8), {3}),
      Filled(DataType::Int(8), {7, 5}),     Filled(DataType::Int(64), {4, 1, 2}),
      Filled(DataType::Float(64), {0, 3}),  Filled(DataType::Float(32), {64, 3, 3, 3}),
      Filled(DataType::Float(32), std::vector<int64_t>(32, 1)),
  };
  std::mt19937 rng(5);
  for (const NDArray& a : arrays) {
    const std::string b64 = Base64Encode(EncodeNDArray(a));
    CheckDecode(b64);
    for (size_t cut = 0; cut < b64.size(); cut += 1 + b64.size() / 300) {
      CheckDecode(b64.substr(0, cut));
    }
    for (int k = 0; k < 200; ++k) {
      std::string edited = b64;
      edited[rng() % edited.size()] = "A/+=!z9\n"[rng() % 8];
      CheckDecode(edited);
    }
    if (HasFailure()) break;
  }
}

// Tensors of the top-level b64ndarrays array are decoded while the text is
// read; a string elsewhere, or a malformed tensor, is not.
TEST(MetadataJson, DecodesTopLevelTensorsWhileReading) {
  const std::string good = Base64Encode(EncodeNDArray(Filled(DataType::Float(32), {3})));
  const std::string text = "{\"b64ndarrays\": [\"" + good + "\", \"!!!!\", 1], \"x\": [\"" +
                           good + "\"]}";
  size_t consumed = 0;
  metadata_json::ReadOptions options;
  options.consumed = [&consumed](size_t at) { consumed = at; };
  std::optional<Doc> doc = Doc::Read(text, options);
  ASSERT_TRUE(doc);
  Ref tensors = *doc->root().find("b64ndarrays");
  ASSERT_NE(tensors[0].tensor(), nullptr);
  EXPECT_EQ(tensors[0].tensor()->shape(), std::vector<int64_t>{3});
  EXPECT_EQ(tensors[1].tensor(), nullptr);
  EXPECT_EQ(tensors[2].tensor(), nullptr);
  EXPECT_EQ((*doc->root().find("x"))[0].tensor(), nullptr);
  EXPECT_EQ(consumed, 0u);  // reported every 64 KiB only
}

}  // namespace
}  // namespace carve
