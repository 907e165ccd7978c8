// .npy reading and writing: round trips for every dtype, numpy's exact
// header bytes, versions 2 and 3, big-endian data, and malformed files
// (which must fail with a message, never crash).
#include "interpreter/npy.h"

#include <cstdio>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A .npy file with the given header dict (padded to 64 bytes) and data.
std::string MakeNpy(std::string dict, std::string_view data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  size_t total = prefix + dict.size() + 1;
  dict.append((total + 63) / 64 * 64 - total, ' ');
  dict.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  uint32_t len = dict.size();
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out.push_back(char((len >> (8 * i)) & 0xff));
  return out + dict + std::string(data);
}

TEST(Npy, RoundTripsEveryDtype) {
  const char* kDtypes[] = {"float16", "float32", "float64", "int8",   "int16",  "int32",
                           "int64",   "uint8",   "uint16",  "uint32", "uint64", "bool"};
  for (const char* name : kDtypes) {
    DataType dtype = *DataType::Parse(name);
    NDArray a = NDArray::Empty(dtype, {2, 3});
    for (int i = 0; i < 6; ++i) a.SetFromDouble(i, dtype.is_bool() ? i % 2 : i * 3 + 1);
    auto bytes = SerializeNpy(a);
    CARVE_ASSERT_OK(bytes);
    EXPECT_EQ(bytes->size() % 64, a.nbytes() % 64) << name;  // data starts 64-aligned
    auto back = ParseNpy(*bytes);
    CARVE_ASSERT_OK(back);
    EXPECT_TRUE(back->BitwiseEqual(a)) << name;
  }
}

TEST(Npy, HeaderMatchesNumpyByteForByte) {
  auto bytes = SerializeNpy(Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  CARVE_ASSERT_OK(bytes);
  // numpy.save(f, np.zeros((2, 3), np.float32)) writes this 128-byte header.
  std::string header = bytes->substr(0, 128);
  EXPECT_EQ(header.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(header.substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(header.back(), '\n');
  auto scalar = SerializeNpy(Tensor<int64_t>({}, {7}));
  auto vec = SerializeNpy(Tensor<uint8_t>({3}, {1, 2, 3}));
  CARVE_ASSERT_OK(scalar);
  CARVE_ASSERT_OK(vec);
  EXPECT_THAT(*scalar, HasSubstr("'descr': '<i8', 'fortran_order': False, 'shape': (), }"));
  EXPECT_THAT(*vec, HasSubstr("'descr': '|u1', 'fortran_order': False, 'shape': (3,), }"));
}

TEST(Npy, ReadsVersions2And3AndOddSpacing) {
  const float data[2] = {1.5f, -2.0f};
  std::string raw(reinterpret_cast<const char*>(data), sizeof(data));
  for (int major : {2, 3}) {
    auto a =
        ParseNpy(MakeNpy("{\"descr\":'<f4',\"shape\":( 2 , ),'fortran_order':False}", raw, major));
    CARVE_ASSERT_OK(a);
    EXPECT_THAT(Values<float>(*a), ElementsAre(1.5f, -2.0f));
  }
}

TEST(Npy, ByteSwapsBigEndian) {
  const char raw[] = {0x00, 0x00, 0x01, 0x02, char(0xff), char(0xff), char(0xff), char(0xfe)};
  auto a = ParseNpy(MakeNpy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
                            std::string_view(raw, 8)));
  CARVE_ASSERT_OK(a);
  EXPECT_THAT(Values<int32_t>(*a), ElementsAre(258, -2));
}

TEST(Npy, NormalisesBoolBytes) {
  auto a = ParseNpy(MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                            std::string_view("\x00\x07\x01", 3)));
  CARVE_ASSERT_OK(a);
  EXPECT_THAT(Values<bool>(*a), ElementsAre(false, true, true));
}

TEST(Npy, RejectsFortranOrderClearly) {
  auto a = ParseNpy(
      MakeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0')));
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("Fortran order"));
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string good_dict = "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }";
  struct Case {
    std::string bytes;
    const char* message;
  };
  const Case cases[] = {
      {"", "empty (0 bytes)"},
      {"NUMPY\x01\x00", "magic"},
      {std::string("\x93NUMPY\x07\x00\x10\x00", 10) + std::string(16, ' '), "version"},
      {std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17), "truncated header"},
      {MakeNpy(good_dict, std::string(3, '\0')), "truncated data"},
      {MakeNpy(good_dict, std::string(5, '\0')), "trailing"},
      {MakeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", ""), "dtype '<c8'"},
      {MakeNpy("{'descr': '<i2', 'shape': (2,), }", std::string(4, '\0')), "lacks"},
      {MakeNpy("{'descr': '<i2', 'fortran_order': False, 'shape': (-2,), }", ""), "dimension"},
      {MakeNpy("{'descr': '<i2', 'fortran_order': False, 'shape': [2], }", ""), "tuple"},
      {MakeNpy("{'descr': '<i2', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
       "too large"},
      {MakeNpy("{'descr': '<i2', 'fortran_order': Maybe, 'shape': (2,), }", ""), "True or False"},
      {MakeNpy("{'descr': '<i2' 'fortran_order': False}", ""), "expected ','"},
      {MakeNpy("{'descr: '<i2'}", ""), "expected ':'"},
  };
  for (const Case& c : cases) {
    auto a = ParseNpy(c.bytes);
    ASSERT_FALSE(a.ok()) << c.message;
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(a.status().message()), HasSubstr(c.message));
  }
}

TEST(Npy, EveryPrefixAndRandomCorruptionFailsCleanly) {
  auto good = SerializeNpy(Tensor<int32_t>({2, 2}, {1, 2, 3, 4}));
  CARVE_ASSERT_OK(good);
  for (size_t n = 0; n < good->size(); ++n) {
    EXPECT_FALSE(ParseNpy(good->substr(0, n)).ok()) << "prefix of " << n << " bytes";
  }
  std::mt19937 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes = *good;
    for (int flips = 0; flips < 3; ++flips) bytes[rng() % bytes.size()] = char(rng() & 0xff);
    (void)ParseNpy(bytes);  // any status is fine; it must not crash
  }
}

TEST(Npy, FileRoundTripAndMissingFile) {
  std::string path = ::testing::TempDir() + "/carve_npy_test.npy";
  auto a = Tensor<double>({3}, {1.25, -2.5, 1e300});
  CARVE_ASSERT_OK(WriteNpyFile(path, a));
  auto back = ReadNpyFile(path);
  CARVE_ASSERT_OK(back);
  EXPECT_TRUE(back->BitwiseEqual(a));
  std::remove(path.c_str());
  auto missing = ReadNpyFile(path);
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(path));
}

}  // namespace
}  // namespace carve::testing
