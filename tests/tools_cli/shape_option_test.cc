// `--shape NAME=D1,D2,...`, parsed by one function for `carve import`,
// `carve repl` and the REPL's `load` (tools/cli/shared_options.h).
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/cli/shared_options.h"

namespace carve::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Shapes = std::map<std::string, std::vector<int64_t>>;

std::string ErrorOf(std::string_view spec) {
  Shapes shapes;
  absl::Status st = ParseShapeOption(spec, shapes);
  EXPECT_FALSE(st.ok()) << spec;
  return std::string(st.message());
}

TEST(ShapeOption, ParsesDimensionsAndScalars) {
  Shapes shapes;
  ASSERT_TRUE(ParseShapeOption("x=1,3,224,224", shapes).ok());
  ASSERT_TRUE(ParseShapeOption("y=0", shapes).ok());
  ASSERT_TRUE(ParseShapeOption("s=", shapes).ok());  // a scalar input
  // The last '=' splits: a name may hold one.
  ASSERT_TRUE(ParseShapeOption("a=b=2", shapes).ok());
  EXPECT_THAT(shapes["x"], ElementsAre(1, 3, 224, 224));
  EXPECT_THAT(shapes["y"], ElementsAre(0));
  EXPECT_TRUE(shapes.at("s").empty());
  EXPECT_THAT(shapes["a=b"], ElementsAre(2));
}

TEST(ShapeOption, RejectsMalformedSpecs) {
  EXPECT_THAT(ErrorOf("x"), HasSubstr("--shape expects NAME=D1,D2,..., got 'x'"));
  EXPECT_THAT(ErrorOf("=1"), HasSubstr("--shape expects NAME=D1,D2,..."));
  EXPECT_THAT(ErrorOf("x=1,"), HasSubstr("'' is not a dimension"));
  EXPECT_THAT(ErrorOf("x=,1"), HasSubstr("'' is not a dimension"));
  EXPECT_THAT(ErrorOf("x=-1"), HasSubstr("'-1' is not a dimension"));
  EXPECT_THAT(ErrorOf("x=?"), HasSubstr("'?' is not a dimension"));
  EXPECT_THAT(ErrorOf("x=99999999999999999999"), HasSubstr("is not a dimension"));
}

TEST(ShapeOption, RejectsASecondShapeForOneName) {
  Shapes shapes;
  ASSERT_TRUE(ParseShapeOption("x=1", shapes).ok());
  absl::Status st = ParseShapeOption("x=2", shapes);
  EXPECT_THAT(std::string(st.message()), HasSubstr("a shape for 'x' is given twice"));
  EXPECT_THAT(shapes["x"], ElementsAre(1));
}

}  // namespace
}  // namespace carve::cli
