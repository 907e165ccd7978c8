// TypeToString on deeply nested types: linear in the text it makes.
#include <time.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/type.h"

namespace carve {
namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

TEST(TypeText, NestedTypesPrintAsTvmDoes) {
  const Type* f32 = TensorTy(DataType::Float(32), std::vector<Dim>{Dim{2, false}});
  const Type* pair = TupleTy(std::vector<const Type*>{f32, ScalarTy(DataType::Int(64))});
  EXPECT_EQ(TypeToString(TupleTy(std::vector<const Type*>{pair})),
            "((Tensor[(2), float32], int64),)");
  EXPECT_EQ(TypeToString(FuncTy(std::vector<const Type*>{f32}, RefTy(pair), {})),
            "fn (Tensor[(2), float32]) -> ref((Tensor[(2), float32], int64))");
}

// Each level's text was built as its own string and copied into its
// parent's: O(N^2) for a type nested N deep (a chain of 5000 nested tuples
// printed with --types took 70 s; 0.3 s now).
TEST(TypeText, DeeplyNestedTupleTypeIsLinear) {
  constexpr int kDepth = 50000;
  const Type* t = ScalarTy(DataType::Float(32));
  for (int i = 0; i < kDepth; ++i) t = TupleTy(std::vector<const Type*>{t});
  double start = CpuSeconds();
  std::string text = TypeToString(t);
  double seconds = CpuSeconds() - start;
  EXPECT_EQ(text.size(), size_t(kDepth) * 3 + 7);  // "(" ... "float32" ... ",)"
  EXPECT_TRUE(text.starts_with("(((") && text.ends_with(",),),)"));
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(seconds, 1.0);  // linear: about 1 ms; quadratic: seconds
#endif
}

}  // namespace
}  // namespace carve
