// TVM's attribute encoding and its schema-driven inverse.
#include "backends/json/attr_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/op.h"

namespace carve {
namespace {

using Strings = std::vector<std::string>;

TEST(AttrCodecTest, EncodesAsOpAttrExtractor) {
  EXPECT_EQ(EncodeAttrValue(AttrValue::Int(3)), Strings{"3"});
  EXPECT_EQ(EncodeAttrValue(AttrValue::Int(-7, 64)), Strings{"-7"});
  EXPECT_EQ(EncodeAttrValue(AttrValue::Bool(true)), Strings{"1"});
  EXPECT_EQ(EncodeAttrValue(AttrValue::Bool(false)), Strings{"0"});
  // max_digits10 significant digits, as an ostream with precision 17.
  EXPECT_EQ(EncodeAttrValue(AttrValue::Float(0.1)), Strings{"0.10000000000000001"});
  EXPECT_EQ(EncodeAttrValue(AttrValue::Float(1e-5)), Strings{"1.0000000000000001e-05"});
  EXPECT_EQ(EncodeAttrValue(AttrValue::Float(6)), Strings{"6"});
  EXPECT_EQ(EncodeAttrValue(AttrValue::Str("NCHW")), Strings{"NCHW"});
  EXPECT_EQ(EncodeAttrValue(AttrValue()), Strings{""});
  EXPECT_EQ(EncodeAttrValue(AttrValue::Ints({1, 2, 3})), (Strings{"1", "2", "3"}));
  // Nested arrays (pad_width) are flattened row by row.
  AttrValue pads = AttrValue::Array({AttrValue::Ints({0, 0}), AttrValue::Ints({1, 2})});
  EXPECT_EQ(EncodeAttrValue(pads), (Strings{"0", "0", "1", "2"}));
}

TEST(AttrCodecTest, EncodesEveryFieldOfASchema) {
  const OpInfo* conv = FindOp("nn.conv2d");
  ASSERT_NE(conv, nullptr);
  std::map<std::string, Strings> out;
  EncodeAttrs(DefaultAttrs(conv->attrs), "", out);
  EXPECT_EQ(out.size(), conv->attrs->fields.size());
  EXPECT_EQ(out["strides"], (Strings{"1", "1"}));
  EXPECT_EQ(out["data_layout"], Strings{"NCHW"});
  EXPECT_EQ(out["channels"], Strings{""});  // None
  EXPECT_EQ(out["out_dtype"], Strings{""});
  std::map<std::string, Strings> prefixed;
  EncodeAttrs(DefaultAttrs(conv->attrs), "nn.conv2d.", prefixed);
  EXPECT_TRUE(prefixed.contains("nn.conv2d.groups"));
}

TEST(AttrCodecTest, DecodesThroughTheSchemaWithDefaults) {
  const OpInfo* conv = FindOp("nn.conv2d");
  JsonNode node;
  node.name = "nn.conv2d";
  node.attrs = {{"strides", {"2", "2"}}, {"padding", {"1", "1", "1", "1"}},
                {"channels", {"16"}}, {"data_layout", {"NHWC"}}, {"kernel_size", {""}}};
  absl::StatusOr<const Attrs*> attrs = DecodeOpAttrs(conv, node);
  ASSERT_TRUE(attrs.ok()) << attrs.status();
  EXPECT_EQ((*attrs)->GetInts("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ((*attrs)->GetInt("channels"), 16);
  EXPECT_EQ((*attrs)->GetString("data_layout"), "NHWC");
  EXPECT_EQ((*attrs)->GetString("kernel_layout"), "OIHW");  // default
  EXPECT_TRUE((*attrs)->Find("kernel_size")->is_null());
  // Encoding the decoded attributes gives the same strings back.
  std::map<std::string, Strings> again;
  EncodeAttrs(*attrs, "", again);
  for (const auto& [key, value] : node.attrs) EXPECT_EQ(again[key], value) << key;
}

TEST(AttrCodecTest, DecodesPadWidthPairsAndFloats) {
  JsonNode node;
  node.name = "nn.pad";
  node.attrs = {{"pad_width", {"0", "0", "1", "1", "2", "2", "0", "0"}}};
  absl::StatusOr<const Attrs*> attrs = DecodeOpAttrs(FindOp("nn.pad"), node);
  ASSERT_TRUE(attrs.ok()) << attrs.status();
  const AttrValue* pw = (*attrs)->Find("pad_width");
  ASSERT_EQ(pw->as_array().size(), 4u);
  EXPECT_EQ(pw->as_array()[2].AsInts(), (std::vector<int64_t>{2, 2}));
  JsonNode clip;
  clip.name = "clip";
  clip.attrs = {{"a_min", {"-1.5"}}, {"a_max", {"6"}}};
  absl::StatusOr<const Attrs*> c = DecodeOpAttrs(FindOp("clip"), clip);
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ((*c)->GetFloat("a_min"), -1.5);
}

TEST(AttrCodecTest, RejectsMalformedValues) {
  JsonNode node;
  node.name = "nn.conv2d";
  node.attrs = {{"groups", {"two"}}};
  absl::StatusOr<const Attrs*> attrs = DecodeOpAttrs(FindOp("nn.conv2d"), node);
  ASSERT_FALSE(attrs.ok());
  EXPECT_THAT(std::string(attrs.status().message()),
              ::testing::HasSubstr("attribute 'groups' 'two' is not an integer"));
  node.attrs = {{"pad_width", {"1", "2", "3"}}};
  node.name = "nn.pad";
  EXPECT_FALSE(DecodeOpAttrs(FindOp("nn.pad"), node).ok());
  EXPECT_FALSE(NodeInt(node, "missing").ok());
  EXPECT_EQ(NodeInts(node, "pad_width").value(), (std::vector<int64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace carve
