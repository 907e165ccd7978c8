// Tests of the #[metadata] section: NDArray bytes, base64, JSON read/write.
#include "grammar/metadata.h"

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

std::string ReadCorpus(const std::string& name) {
  std::ifstream in(std::string(CARVE_SHARED_DIR) + "/corpus/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The JSON text after the `#[metadata]` marker line of a corpus file.
std::string CorpusMetadata(const std::string& name) {
  std::string text = ReadCorpus(name);
  size_t at = text.find("#[metadata]\n");
  return at == std::string::npos ? "" : text.substr(at + 12);
}

NDArray Filled(DataType dtype, std::initializer_list<int64_t> shape) {
  NDArray a = NDArray::Empty(dtype, shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) a.SetFromDouble(i, double(i % 7) - 3);
  return a;
}

TEST(Base64, RoundTripsEveryLength) {
  std::string bytes;
  for (int n = 0; n < 40; ++n) {
    auto decoded = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, bytes);
    bytes.push_back(char(n * 37));
  }
  EXPECT_EQ(Base64Encode("Man"), "TWFu");
  EXPECT_EQ(Base64Encode("Ma"), "TWE=");
  EXPECT_EQ(Base64Encode("M"), "TQ==");
}

TEST(Base64, RejectsMalformedText) {
  EXPECT_THAT(Base64Decode("TWF").status().message(), HasSubstr("not a multiple of 4"));
  EXPECT_THAT(Base64Decode("TW!u").status().message(),
              HasSubstr("invalid base64 character '!' at offset 2"));
  EXPECT_FALSE(Base64Decode("T=Fu").ok());
}

TEST(NDArrayCodec, DecodesTvmBytes) {
  // b64ndarrays[3] of conv_bound_constants.relay: int8 (2, 2) = [1, -2, 3, -4].
  auto bytes = Base64Decode(
      "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAAIAQACAAAAAAAAAAIAAAAAAAAABAAAAAAAAAAB/gP8");
  ASSERT_TRUE(bytes.ok());
  auto array = DecodeNDArray(*bytes);
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_EQ(array->dtype(), DataType::Int(8));
  EXPECT_EQ(array->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(array->GetAsDouble(0), 1);
  EXPECT_EQ(array->GetAsDouble(3), -4);
  EXPECT_EQ(EncodeNDArray(*array), *bytes);
}

TEST(NDArrayCodec, RoundTripsEveryDType) {
  for (DataType dtype :
       {DataType::Bool(), DataType::Float(16), DataType::Float(32), DataType::Float(64),
        DataType::Int(8), DataType::Int(16), DataType::Int(32), DataType::Int(64),
        DataType::UInt(8), DataType::UInt(16), DataType::UInt(32), DataType::UInt(64)}) {
    NDArray a = Filled(dtype, {2, 3});
    auto back = DecodeNDArray(EncodeNDArray(a));
    ASSERT_TRUE(back.ok()) << dtype.ToString() << ": " << back.status();
    EXPECT_TRUE(back->BitwiseEqual(a)) << dtype.ToString();
  }
  std::string bool_bytes = EncodeNDArray(Filled(DataType::Bool(), {3}));
  EXPECT_EQ(bool_bytes.size(), 40u + 8 + 3);  // one byte per bool element
  EXPECT_EQ(bool_bytes[28], 1);               // code uint
  EXPECT_EQ(bool_bytes[29], 1);               // 1 bit
}

TEST(NDArrayCodec, RejectsCorruptBytes) {
  std::string good = EncodeNDArray(Filled(DataType::Float(32), {2, 2}));
  EXPECT_THAT(DecodeNDArray("").status().message(), HasSubstr("truncated"));
  std::string bad_magic = good;
  bad_magic[0] = 0;
  EXPECT_THAT(DecodeNDArray(bad_magic).status().message(), HasSubstr("magic"));
  EXPECT_THAT(DecodeNDArray(good.substr(0, good.size() - 1)).status().message(),
              HasSubstr("holds 15 data bytes, but its size field says 16"));
  std::string bad_size = good;
  bad_size[48] = 15;  // the size field
  EXPECT_THAT(DecodeNDArray(bad_size).status().message(),
              HasSubstr("size field says 15 bytes, but a float32 tensor of shape (2, 2) needs 16"));
  std::string huge = good;
  int64_t big = int64_t(1) << 62;
  std::memcpy(&huge[32], &big, 8);  // first dim
  EXPECT_THAT(DecodeNDArray(huge).status().message(), HasSubstr("needs more data"));
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_FALSE(DecodeNDArray(good.substr(0, cut)).ok()) << cut;
  }
}

TEST(Metadata, ReadsCorpusConstants) {
  auto meta = ParseMetadata(CorpusMetadata("conv_bound_constants.relay"));
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_EQ(meta->constants.size(), 5u);
  EXPECT_EQ(meta->constants[0].dtype(), DataType::Float(32));
  EXPECT_EQ(meta->constants[0].shape(), (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_EQ(meta->constants[2].dtype(), DataType::Int(64));
  EXPECT_EQ(meta->constants[2].GetAsDouble(0), 0);
  EXPECT_EQ(meta->constants[2].GetAsDouble(1), 2);
  EXPECT_EQ(meta->constants[4].dtype(), DataType::UInt(8));
  EXPECT_EQ(meta->constants[4].GetAsDouble(2), 3);
  EXPECT_TRUE(meta->attrs.empty());
}

TEST(Metadata, ReadsCompilerAttrs) {
  auto meta = ParseMetadata(CorpusMetadata("demo_2_annotate_target.relay"));
  ASSERT_TRUE(meta.ok()) << meta.status();
  const auto& list = meta->attrs["relay.attrs.CompilerAttrs"];
  ASSERT_EQ(list.size(), 26u);
  EXPECT_EQ(list[0].type_key, "relay.attrs.CompilerAttrs");
  ASSERT_EQ(list[3].fields.size(), 1u);
  EXPECT_EQ(list[3].fields[0].first, "compiler");
  EXPECT_EQ(list[3].fields[0].second, AttrValue::Str("byoc_target"));
}

TEST(Metadata, WritesTvmBytesForScalars) {
  // TVM shares shape IntImm nodes by object identity, which carve cannot
  // know; for scalars (empty shapes) the whole section must match TVM's.
  std::string tvm = CorpusMetadata("scalars_let_if_fn.relay");
  auto meta = ParseMetadata(tvm);
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_EQ(meta->constants.size(), 2u);
  EXPECT_EQ(WriteMetadata(meta->constants), tvm);
}

TEST(Metadata, RoundTripsConstants) {
  std::vector<NDArray> constants;
  for (DataType dtype : {DataType::Float(32), DataType::Int(64), DataType::Bool(),
                         DataType::Float(16), DataType::UInt(8)}) {
    constants.push_back(Filled(dtype, {3, 2}));
  }
  constants.push_back(Filled(DataType::Int(8), {}));
  constants.push_back(Filled(DataType::Float(64), {0, 4}));
  std::string json = WriteMetadata(constants);
  auto meta = ParseMetadata(json);
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_EQ(meta->constants.size(), constants.size());
  for (size_t i = 0; i < constants.size(); ++i) {
    EXPECT_EQ(EncodeNDArray(meta->constants[i]), EncodeNDArray(constants[i])) << i;
  }
  EXPECT_EQ(WriteMetadata(meta->constants), json);  // deterministic
}

TEST(Metadata, ReportsMalformedDocuments) {
  auto message = [](std::string_view json) {
    return std::string(ParseMetadata(json).status().message());
  };
  EXPECT_THAT(message("{\"root\": 1,"), HasSubstr("parse error"));
  EXPECT_THAT(message("[]"), HasSubstr("not a JSON object"));
  EXPECT_THAT(message("{\"root\": 1, \"nodes\": []}"), HasSubstr("out of range"));
  EXPECT_THAT(message("{\"root\": 0, \"nodes\": [{\"type_key\": \"\"}]}"),
              HasSubstr("root is not a Map"));
  EXPECT_THAT(message(R"({"root": 1, "nodes": [{}, {"type_key": "Map", "keys": ["relay.Constant"],
      "data": [2]}, {"type_key": "Array", "data": [3]}, {"type_key": "relay.Constant",
      "attrs": {"data": "0"}}], "b64ndarrays": ["!!!!"]})"),
              HasSubstr("b64ndarrays[0]: invalid base64 character '!'"));
  EXPECT_THAT(message(R"({"root": 1, "nodes": [{}, {"type_key": "Map", "keys": ["k"],
      "data": [1]}]})"),
              HasSubstr("not an Array"));
  std::string deep(100000, '[');
  EXPECT_FALSE(ParseMetadata(deep).ok());
  std::string garbage;
  for (int i = 0; i < 2000; ++i) garbage.push_back(char(i * 7919 % 256));
  EXPECT_FALSE(ParseMetadata(garbage).ok());
}

TEST(Metadata, EveryTruncationFailsCleanly) {
  std::string json = WriteMetadata({Filled(DataType::Float(32), {2})});
  for (size_t cut = 0; cut < json.size(); ++cut) {
    EXPECT_FALSE(ParseMetadata(json.substr(0, cut)).ok()) << cut;
  }
}

}  // namespace
}  // namespace carve
