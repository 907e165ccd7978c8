// A backend registered from this test-only folder, as docs/backends.md
// ("Adding a backend") says: one descriptor, no edit to shared code. The
// toy backend offloads nn.relu and a composite add + relu whose C++ check
// wants a constant addend; its recipe runs a pass it registers itself; its
// pruning inlines back the partitions without an add; its codegen adds one
// text file per function. Each fact is observed through the shared entry
// points (BuiltinBackendNames, ResolveBackends, PartitionForBackend,
// ArtifactFiles).
#include <atomic>
#include <fstream>
#include <sstream>

#include "../backends/backends_test_util.h"
#include "backends/backend.h"
#include "backends/backend_passes.h"
#include "backends/json/codegen.h"
#include "backends/partition.h"
#include "backends/placement.h"
#include "backends/specs.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "passes/pass_registry.h"

namespace carve {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Key;

std::atomic<int> toy_pass_runs{0};

constexpr std::string_view kToySpec = R"(
backend toy {
  ops nn.relu;
  composite add_relu = nn.relu(add(?a, ?b));
}
)";

// The composite check the DSL above does not state: the addend is a constant.
RootRefusal ToyCompositeCheck(std::string_view composite) {
  if (composite != "toy.add_relu") return nullptr;
  return [](const Expr* root) -> std::string {
    const Call* add = DynCast<Call>(Cast<Call>(root)->args()[0]);
    return add != nullptr && Isa<Constant>(add->args()[1]) ? "" : "the addend is not a constant";
  };
}

// Inlines back the toy partitions that compute no add.
absl::StatusOr<bool> PruneToy(Module& mod, PruneLog* log) {
  std::vector<PrunedPartition> remove;
  for (const auto& [name, fn] : PartitionsOf(mod, "toy")) {
    bool adds = false;
    PostOrderVisit(fn->body(), [&](const Expr* e) {
      const Call* c = DynCast<Call>(e);
      adds = adds || (c != nullptr && c->op() != nullptr && c->op()->pattern == OpPattern::kBroadcast);
    });
    if (!adds) remove.push_back({name, "toy pruning: no add among the partition's ops"});
  }
  return PrunePartitions(mod, std::move(remove), log);
}

BackendDescriptor MakeToyBackend() {
  BackendDescriptor d;
  d.name = "toy";
  d.order = 1000;
  d.spec_text = std::string(kToySpec);
  d.spec_path = "tests/backend_toy/toy.pat";
  d.recipe = {"InferType,ToyCount", true, false};
  d.composite_check = ToyCompositeCheck;
  d.prune = PruneToy;
  d.codegen_files = [](const SerializedFunction& fn, std::map<std::string, std::string>& files) {
    files[fn.graph.symbol + ".toy.txt"] = fmt::format("{} nodes\n", fn.graph.nodes.size());
    return absl::OkStatus();
  };
  d.register_passes = [](PassRegistry& registry) {
    registry.Register(MakeSimplePass("ToyCount", "count the toy recipe's runs",
                                     [](Module&, PassContext&) -> absl::StatusOr<bool> {
                                       ++toy_pass_runs;
                                       return false;
                                     }));
  };
  return d;
}

CARVE_REGISTER_BACKEND(MakeToyBackend);

constexpr std::string_view kProgram = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4), float32], %y: Tensor[(1, 4), float32]) {
  %0 = add(%x, %y);
  %1 = nn.relu(%0);
  %2 = add(%1, 1f);
  nn.relu(%2)
}
)";

// The names of the global functions offloaded to the toy backend.
std::vector<std::string> ToyFunctions(const Module& mod) {
  std::vector<std::string> out;
  for (const auto& [name, fn] : PartitionsOf(mod, "toy")) out.push_back(name);
  return out;
}

TEST(ToyBackend, IsListedAfterTheBuiltinBackends) {
  std::vector<std::string_view> names = BuiltinBackendNames();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.back(), "toy");  // order 1000: after every built-in backend
  EXPECT_THAT(names, ::testing::IsSupersetOf({"bnns", "arm_compute_lib", "nnapi", "dnnl",
                                              "tensorrt"}));
  ASSERT_NE(FindBackend("toy"), nullptr);
  EXPECT_EQ(RecipeFor("toy").prep_pipeline, "InferType,ToyCount");
}

TEST(ToyBackend, SpecComesFromTheDescriptor) {
  absl::StatusOr<SpecSource> source = BuiltinSpecSource("toy");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(source->path, "tests/backend_toy/toy.pat");
  absl::StatusOr<std::vector<TargetSpecPtr>> specs = ResolveBackends("toy");
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_EQ(specs->size(), 1u);
  EXPECT_EQ((*specs)[0]->name(), "toy");
}

// Without pruning: the relu of a non-constant sum is offloaded alone (the
// C++ check rejects it as a composite), and the composite is offloaded.
TEST(ToyBackend, RecipeAndCompositeCheckApply) {
  int runs = toy_pass_runs;
  BackendPartitionOptions options;
  options.prune = false;
  absl::StatusOr<Module> mod = PartitionForBackend(testing::ParseTyped(kProgram), "toy", options);
  ASSERT_TRUE(mod.ok()) << mod.status();
  EXPECT_GT(toy_pass_runs, runs);
  EXPECT_EQ(ToyFunctions(*mod).size(), 2u) << testing::Show(*mod);
  std::string text = testing::Show(*mod);
  EXPECT_NE(text.find("Composite=\"toy.add_relu\""), std::string::npos) << text;
}

// With pruning: the partition holding only the relu goes back into @main.
TEST(ToyBackend, PruningAndCodegenHooksApply) {
  absl::StatusOr<Module> mod = PartitionForBackend(testing::ParseTyped(kProgram), "toy");
  ASSERT_TRUE(mod.ok()) << mod.status();
  std::vector<std::string> offloaded = ToyFunctions(*mod);
  ASSERT_EQ(offloaded.size(), 1u) << testing::Show(*mod);
  absl::StatusOr<std::vector<CodegenArtifact>> artifacts = CodegenModule(*mod, "toy");
  ASSERT_TRUE(artifacts.ok()) << artifacts.status();
  ASSERT_EQ(artifacts->size(), 1u);
  absl::StatusOr<std::map<std::string, std::string>> files = ArtifactFiles(*artifacts);
  ASSERT_TRUE(files.ok()) << files.status();
  std::string symbol = (*artifacts)[0].function.graph.symbol;
  EXPECT_THAT(*files, Contains(Key(symbol + ".toy.txt")));
  EXPECT_THAT(*files, Contains(Key(symbol + ".json")));
}

// The placement record names the partition the toy pruning removed and the
// reason its hook gave; the composite it kept stays offloaded.
TEST(ToyBackend, PruneReasonShowsInThePlacementRecord) {
  absl::StatusOr<std::vector<TargetSpecPtr>> specs = ResolveBackends("toy");
  ASSERT_TRUE(specs.ok()) << specs.status();
  absl::StatusOr<PartitionResult> result =
      PartitionWithRecord(testing::ParseTyped(kProgram), *specs);
  ASSERT_TRUE(result.ok()) << result.status();
  int pruned = 0, offloaded = 0;
  for (const Placement& p : result->record.placements()) {
    ASSERT_EQ(p.verdicts.size(), 1u);
    const Verdict& v = p.verdicts[0];
    if (v.kind == Verdict::Kind::kPruned) {
      ++pruned;
      EXPECT_EQ(p.op, "nn.relu");
      EXPECT_EQ(v.detail, "toy pruning: no add among the partition's ops");
      EXPECT_THAT(v.region, ::testing::StartsWith("tvmgen_default_toy_main_"));
      EXPECT_EQ(p.backend, -1);
    }
    if (p.backend == 0) ++offloaded;
  }
  EXPECT_EQ(pruned, 1);
  EXPECT_EQ(offloaded, 2);  // the add and relu of the composite
}

// The shared files name no backend: each backend's facts come from its
// folder. (A string literal holding a registered backend's name in one of
// them is the kind of special case this registry replaces.)
TEST(ToyBackend, SharedCodeNamesNoBackend) {
  const char* kShared[] = {"backends/specs.cc",          "backends/partition.cc",
                           "backends/backend.cc",        "backends/builtin_registration.cc",
                           "backends/json/codegen.cc",   "tools/cli/cmd_codegen.cc",
                           "backends/placement.cc",      "passes/byoc/placement_record.cc"};
  for (const char* file : kShared) {
    std::ifstream in(fmt::format("{}/{}", CARVE_SOURCE_DIR, file));
    ASSERT_TRUE(in) << file;
    std::stringstream text;
    text << in.rdbuf();
    for (std::string_view name : BuiltinBackendNames()) {
      EXPECT_EQ(text.str().find(fmt::format("\"{}\"", name)), std::string::npos)
          << file << " compares or names backend '" << name << "'";
    }
  }
}

}  // namespace
}  // namespace carve
