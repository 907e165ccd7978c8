// RNN, GRU and LSTM cases ONNX's node tests leave out (reverse and
// bidirectional directions, GRU's sequence_lens both ways and
// linear_before_reset, activations with alpha / beta, layout 1):
// tests/frontend_onnx/data/recurrent_*.onnx with their input and outputs,
// computed by make_models.py from the operators' definitions in float64.
#include <cmath>

#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "frontend/onnx/model_reader.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "tests/common/file_util.h"
#include "tests/frontend_onnx/onnx_test_data.h"

namespace carve {
namespace {

using testing_util::OnnxTestData;
using testing_util::ReadFile;

void ExpectMatches(const std::string& name, std::vector<std::string> outputs) {
  SCOPED_TRACE(name);
  onnx_import::ImportOptions options;
  options.freeze = true;
  auto imported = onnx_import::ImportOnnx(ReadFile(OnnxTestData("recurrent_" + name + ".onnx")), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  auto x = onnx_import::ParseTensorFile(ReadFile(OnnxTestData("recurrent_" + name + ".X.pb")));
  ASSERT_TRUE(x.ok()) << x.status();
  Interpreter interp(imported->module);
  std::vector<Value> args = {Value(*x)};
  auto out = interp.Run("main", args);
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<NDArray> got = FlattenTensors(*out);
  ASSERT_EQ(got.size(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto want = onnx_import::ParseTensorFile(
        ReadFile(OnnxTestData(fmt::format("recurrent_{}.{}.pb", name, outputs[i]))));
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(got[i].shape(), want->shape()) << outputs[i];
    for (int64_t k = 0; k < want->num_elements(); ++k) {
      double a = got[i].GetAsDouble(k), b = want->GetAsDouble(k);
      EXPECT_NEAR(a, b, 1e-5 + 1e-4 * std::fabs(b)) << outputs[i] << " element " << k;
    }
  }
}

TEST(OnnxRecurrent, LstmBidirectionalWithPeepholes) {
  ExpectMatches("lstm_bidirectional", {"Y", "Y_h", "Y_c"});
}

// direction "reverse" runs backwards (TVM's converter runs a single
// direction forwards whatever it says), batch-major, three activations.
TEST(OnnxRecurrent, LstmReverseBatchMajorActivations) {
  ExpectMatches("lstm_reverse_batch_major", {"Y", "Y_h", "Y_c"});
}

// sequence_lens [3, 1]: Y is 0 past each sequence's end, Y_h the last
// state inside it; the reverse direction starts at the sequence's end.
TEST(OnnxRecurrent, GruBidirectionalSequenceLens) {
  ExpectMatches("gru_bidirectional_lens", {"Y", "Y_h"});
}

TEST(OnnxRecurrent, GruReverseSequenceLens) { ExpectMatches("gru_reverse_lens", {"Y", "Y_h"}); }

// LeakyRelu (alpha 0.2) forwards, HardSigmoid (alpha 0.3, beta 0.6)
// backwards: activation_alpha / _beta consumed by the activations that take them.
TEST(OnnxRecurrent, RnnBidirectionalActivations) {
  ExpectMatches("rnn_bidirectional_acts", {"Y", "Y_h"});
}

TEST(OnnxRecurrent, RnnReverseBatchMajor) { ExpectMatches("rnn_reverse", {"Y", "Y_h"}); }

}  // namespace
}  // namespace carve
