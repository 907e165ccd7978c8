// An execution plan's in-place step over an external runtime's result
// (ExternalCall::result_fresh): the host's `divide(x, 6f)` after a dnnl
// region writes into the region's output instead of a new, zero-filled
// tensor, only when the runtime said that output is storage nothing else
// holds and no observer was shown it.
#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/external.h"
#include "interpreter/plan.h"
#include "passes/infer/infer_type.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

constexpr const char* kModule = R"(#[version = "0.0.5"]
def @ext(%a: Tensor[(4), float32], Compiler="fresh_test") -> Tensor[(4), float32] {
  add(%a, %a)
}
def @main(%x: Tensor[(4), float32]) {
  %0 = @ext(%x);
  divide(%0, 6f)
}
)";

struct Handler {
  bool fresh = false;     // what the handler reports
  bool same = false;      // return the argument itself
  const void* data = nullptr;  // the storage of the last result
};

absl::StatusOr<NDArray> RunWith(Handler& h, bool observe) {
  auto mod = ParseModule("fresh.relay", kModule);
  if (!mod.ok()) return mod.status();
  CARVE_RETURN_IF_ERROR(InferType(*mod));
  ExternalRegistry registry;
  registry.RegisterRuntime("fresh_test", [&h](const ExternalCall& call) -> absl::StatusOr<Value> {
    const NDArray& a = call.args[0].tensor();
    NDArray out = a;
    if (!h.same) {
      out = NDArray::Uninitialized(DataType::Float(32), a.shape());
      for (int64_t i = 0; i < a.num_elements(); ++i) out.data<float>()[i] = 2 * a.data<float>()[i];
    }
    h.data = out.raw_data();
    call.result_fresh = h.fresh;
    return Value(out);
  });
  InterpreterOptions options;
  options.external = &registry;
  if (observe) options.observer = [](const ExternalCallEvent&) {};
  Interpreter interp(*mod, options);
  Value x(Tensor<float>({4}, {6, 12, -3, 0.5f}));
  CARVE_ASSIGN_OR_RETURN(Value out, interp.Run("main", std::span<const Value>(&x, 1)));
  EXPECT_NE(interp.PlanFor(mod->Lookup("main")), nullptr);
  if (h.same) EXPECT_THAT(Values<float>(x.tensor()), ElementsAre(6, 12, -3, 0.5f));
  return out.tensor();
}

TEST(PlanExternalFresh, FreshResultIsDividedInPlace) {
  Handler h{.fresh = true};
  auto out = RunWith(h, /*observe=*/false);
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->raw_data(), h.data);
  EXPECT_THAT(Values<float>(*out), ElementsAre(2, 4, -1, 1 / 6.f));
}

TEST(PlanExternalFresh, UnclaimedResultIsNotOverwritten) {
  Handler h{.fresh = false};
  auto out = RunWith(h, false);
  CARVE_ASSERT_OK(out);
  EXPECT_NE(out->raw_data(), h.data);
  EXPECT_THAT(Values<float>(*out), ElementsAre(2, 4, -1, 1 / 6.f));
}

TEST(PlanExternalFresh, ObservedResultIsNotOverwritten) {
  Handler h{.fresh = true};
  auto out = RunWith(h, /*observe=*/true);
  CARVE_ASSERT_OK(out);
  EXPECT_NE(out->raw_data(), h.data);
}

TEST(PlanExternalFresh, ArgumentReturnedAsIsIsNotOverwritten) {
  Handler h{.same = true};  // not claimed fresh: the parameter stays intact
  auto out = RunWith(h, false);
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, -0.5f, 0.5f / 6));
}

}  // namespace
}  // namespace carve::testing
