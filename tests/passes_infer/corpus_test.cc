// InferType against TVM's ground truth: every TVM-printed program in
// shared/corpus carries each node's inferred type in a `/* ty=... */`
// comment. Each file is parsed, typed by carve, printed again with types, and
// the sequence of `ty=` comments must be TVM's, comment for comment.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "support/diagnostics.h"
#include "tests/common/file_util.h"

namespace carve {
namespace {

using testing_util::ReadFile;

std::vector<std::filesystem::path> CorpusFiles() {
  std::vector<std::filesystem::path> files;
  std::filesystem::path dir = std::filesystem::path(CARVE_SHARED_DIR) / "corpus";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".relay") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The contents of every `/* ty=... */` comment, in text order.
std::vector<std::string> TypeComments(const std::string& text) {
  std::vector<std::string> out;
  const std::string open = "/* ty=";
  for (size_t pos = text.find(open); pos != std::string::npos; pos = text.find(open, pos)) {
    pos += open.size();
    size_t end = text.find(" */", pos);
    if (end == std::string::npos) break;
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

class CorpusTest : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(CorpusTest, InferredTypesMatchTvm) {
  std::string text = ReadFile(GetParam());
  absl::StatusOr<Module> mod = ParseModule(GetParam().filename().string(), text);
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  absl::Status typed = InferType(*mod);
  ASSERT_TRUE(typed.ok()) << RenderStatus(typed);

  // Independent of the printer: every node of every function has a type, and
  // each function's type is the signature TVM printed on its `def` line.
  for (const auto& [gv, fn] : mod->Functions()) {
    PostOrderVisit(fn, [&, name = gv->name()](const Expr* e) {
      if (!Isa<OpExpr>(e)) {
        EXPECT_NE(e->checked_type(), nullptr) << "in @" << name;
      }
    });
    std::vector<const Type*> params;
    for (const Var* p : fn->params()) params.push_back(p->annotation());
    if (fn->ret_type() != nullptr) {
      EXPECT_EQ(fn->checked_type(), FuncTy(params, fn->ret_type())) << "@" << gv->name();
    }
  }

  PrintOptions options;
  options.show_types = true;
  std::vector<std::string> expected = TypeComments(text);
  std::vector<std::string> actual = TypeComments(PrintModule(*mod, options));
  ASSERT_FALSE(expected.empty());
  for (size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
    ASSERT_EQ(actual[i], expected[i]) << "type comment #" << i;
  }
  EXPECT_EQ(actual.size(), expected.size());
}

INSTANTIATE_TEST_SUITE_P(SharedCorpus, CorpusTest, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::filesystem::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace carve
