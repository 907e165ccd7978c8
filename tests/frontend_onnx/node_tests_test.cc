// ONNX's backend node tests (Debian's libonnx-testdata, 1.12) through
// `carve import` and the interpreter: each test folder holds model.onnx and
// test_data_set_*/{input,output}_N.pb. Every test is imported (its input
// shapes fixed from the test data), run and compared at ONNX's backend-test
// tolerances (rtol 1e-3, atol 1e-7). The suite asserts the coverage targets;
// CARVE_UPDATE_ONNX_DOC=1 regenerates docs/onnx.md's table (CARVE_ONNX_TABLE=
// FILE writes it to FILE, CARVE_ONNX_VERBOSE=1 lists every test not passed).
// Skips when the package is not installed. Takes a few seconds.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "frontend/onnx/model_reader.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "onnx/onnx_pb.h"
#include "tests/common/file_util.h"

namespace carve {
namespace {

using testing_util::ReadFile;

namespace fs = std::filesystem;

constexpr const char* kNodeRoot = "/usr/share/libonnx-testdata/data/node";

enum class Outcome { kPass, kMismatch, kUnsupported, kImportError, kRunError, kBadTest };

struct Result {
  std::string name;
  std::string op_type;
  Outcome outcome = Outcome::kPass;
  std::string detail;
};

// "ReduceLogSumExp" -> "reduce_log_sum_exp", as the test names spell ops.
std::string Snake(const std::string& op) {
  std::string out;
  for (size_t i = 0; i < op.size(); ++i) {
    bool upper = std::isupper(uint8_t(op[i]));
    bool prev_lower = i > 0 && (std::islower(uint8_t(op[i - 1])) || std::isdigit(uint8_t(op[i - 1])));
    bool next_lower = i + 1 < op.size() && std::islower(uint8_t(op[i + 1]));
    bool prev_upper = i > 0 && std::isupper(uint8_t(op[i - 1]));
    if (upper && i > 0 && (prev_lower || (prev_upper && next_lower))) out += '_';
    out += char(std::tolower(uint8_t(op[i])));
  }
  return out;
}

// |a - b| <= atol + rtol * |b| elementwise; NaN matches NaN.
std::string Compare(const NDArray& got, const NDArray& want) {
  if (got.shape() != want.shape()) {
    std::string g, w;
    for (int64_t d : got.shape()) g += fmt::format("{},", d);
    for (int64_t d : want.shape()) w += fmt::format("{},", d);
    return fmt::format("shape ({}) != expected ({})", g, w);
  }
  if (got.dtype() != want.dtype()) {
    return fmt::format("dtype {} != expected {}", got.dtype().ToString(), want.dtype().ToString());
  }
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    double a = got.GetAsDouble(i), b = want.GetAsDouble(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;
    if (!(std::fabs(a - b) <= 1e-7 + 1e-3 * std::fabs(b))) {
      return fmt::format("element {}: {} != expected {}", i, a, b);
    }
  }
  return "";
}

Result RunOne(const fs::path& dir) {
  Result r;
  r.name = dir.filename().string();
  onnx::ModelProto model;
  std::string bytes = ReadFile(dir / "model.onnx");
  if (!model.ParseFromString(bytes)) {
    r.outcome = Outcome::kBadTest;
    r.detail = "model.onnx does not parse";
    return r;
  }
  if (model.graph().node_size() == 1) r.op_type = model.graph().node(0).op_type();
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  std::vector<std::string> input_names;
  bool tensor_inputs = true;
  for (const auto& in : model.graph().input()) {
    if (initializers.count(in.name())) continue;
    input_names.push_back(in.name());
    tensor_inputs &= in.type().has_tensor_type();
  }
  if (!tensor_inputs) {
    // A sequence or optional input's .pb is no TensorProto: the importer's
    // own message (what a user of `carve import` sees) is the reason.
    onnx_import::ImportOptions options;
    options.base_dir = dir.string();
    auto imported = onnx_import::ImportOnnx(bytes, options);
    r.outcome = Outcome::kUnsupported;
    r.detail = imported.ok() ? "inputs that are not plain tensors"
                             : std::string(imported.status().message());
    return r;
  }
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().starts_with("test_data_set_")) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  for (const fs::path& set : sets) {
    std::vector<Value> inputs;
    onnx_import::ImportOptions options;
    options.freeze = true;
    options.base_dir = dir.string();
    for (size_t i = 0; fs::exists(set / fmt::format("input_{}.pb", i)); ++i) {
      auto t = onnx_import::ParseTensorFile(ReadFile(set / fmt::format("input_{}.pb", i)));
      if (!t.ok() || i >= input_names.size()) {
        r.outcome = Outcome::kBadTest;
        r.detail = t.ok() ? "more inputs than the graph has" : std::string(t.status().message());
        return r;
      }
      options.shapes[input_names[i]] = t->shape();
      // The values are known to converters that need an operand at import
      // time (shapes, axes, scales); the inputs stay parameters.
      options.input_values[input_names[i]] = *t;
      inputs.push_back(*t);
    }
    if (inputs.size() != input_names.size()) {
      // Optional-typed or sequence inputs the test data does not give as
      // tensors.
      r.outcome = Outcome::kUnsupported;
      r.detail = "inputs that are not plain tensors";
      return r;
    }
    auto imported = onnx_import::ImportOnnx(bytes, options);
    if (!imported.ok()) {
      r.outcome = imported.status().code() == absl::StatusCode::kUnimplemented
                      ? Outcome::kUnsupported
                      : Outcome::kImportError;
      r.detail = std::string(imported.status().message());
      return r;
    }
    Interpreter interp(imported->module);
    auto out = interp.Run("main", inputs);
    if (!out.ok()) {
      r.outcome = Outcome::kRunError;
      r.detail = std::string(out.status().message());
      return r;
    }
    std::vector<NDArray> got = FlattenTensors(*out);
    for (size_t i = 0; fs::exists(set / fmt::format("output_{}.pb", i)); ++i) {
      auto want = onnx_import::ParseTensorFile(ReadFile(set / fmt::format("output_{}.pb", i)));
      if (!want.ok()) {
        r.outcome = Outcome::kBadTest;
        r.detail = std::string(want.status().message());
        return r;
      }
      if (i >= got.size()) {
        r.outcome = Outcome::kMismatch;
        r.detail = fmt::format("output {} missing", i);
        return r;
      }
      if (std::string diff = Compare(got[i], *want); !diff.empty()) {
        r.outcome = Outcome::kMismatch;
        r.detail = fmt::format("output {}: {}", i, diff);
        return r;
      }
    }
  }
  return r;
}

std::vector<Result> RunAll() {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(kNodeRoot)) {
    if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<Result> results;
  for (const fs::path& d : dirs) results.push_back(RunOne(d));
  // Multi-node tests (function expansions) count for the op type whose
  // snake-case name is the longest prefix of the test name.
  std::set<std::string> ops;
  for (const Result& r : results) {
    if (!r.op_type.empty()) ops.insert(r.op_type);
  }
  for (Result& r : results) {
    if (!r.op_type.empty()) continue;
    size_t best = 0;
    for (const std::string& op : ops) {
      std::string prefix = "test_" + Snake(op);
      if (r.name.starts_with(prefix) && prefix.size() > best &&
          (r.name.size() == prefix.size() || r.name[prefix.size()] == '_')) {
        best = prefix.size();
        r.op_type = op;
      }
    }
    if (r.op_type.empty()) r.op_type = "(other)";
  }
  return results;
}

struct OpTally {
  int pass = 0, fail = 0, unsupported = 0;
  std::string reason;  // first unsupported / failure message
  std::vector<std::string> failed;
};

std::map<std::string, OpTally> Tally(const std::vector<Result>& results) {
  std::map<std::string, OpTally> by_op;
  for (const Result& r : results) {
    OpTally& t = by_op[r.op_type];
    if (r.outcome == Outcome::kPass) {
      ++t.pass;
    } else if (r.outcome == Outcome::kUnsupported || r.outcome == Outcome::kBadTest) {
      ++t.unsupported;
      if (t.reason.empty()) t.reason = r.detail;
    } else {
      ++t.fail;
      t.failed.push_back(fmt::format("{} ({})", r.name, r.detail));
    }
  }
  return by_op;
}

// An op type is supported when at least one of its tests imports.
bool Supported(const OpTally& t) { return t.pass + t.fail > 0; }

std::string Table(const std::map<std::string, OpTally>& by_op) {
  std::string out =
      "| op type | passed | failed | unsupported | why unsupported / first failure |\n"
      "| --- | ---: | ---: | ---: | --- |\n";
  for (const auto& [op, t] : by_op) {
    std::string why = t.unsupported ? t.reason : "";
    if (!t.failed.empty()) why += (why.empty() ? "" : "; ") + std::string("failed: ") + t.failed[0];
    for (char& ch : why) {
      if (ch == '|' || ch == '\n') ch = ' ';
    }
    if (why.size() > 160) why = why.substr(0, 157) + "...";
    out += fmt::format("| {} | {} | {} | {} | {} |\n", op, t.pass, t.fail, t.unsupported, why);
  }
  return out;
}

// What `carve import` says of models it cannot take names the op and the
// node by a name the user can find in the model.
TEST(OnnxNodeTests, UnsupportedModelsAreNamedClearly) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  auto message = [](const std::string& test) {
    fs::path dir = fs::path(kNodeRoot) / test;
    onnx_import::ImportOptions options;
    options.base_dir = dir.string();
    absl::StatusOr<onnx_import::ImportResult> r =
        onnx_import::ImportOnnx(ReadFile(dir / "model.onnx"), options);
    EXPECT_FALSE(r.ok()) << test;
    return r.ok() ? std::string() : std::string(r.status().message());
  };
  EXPECT_EQ(message("test_det_2d"), "unsupported ONNX op 'Det' (node with output 'y', opset 11)");
  // Another domain's op gives that domain's opset, not the default one's 0.
  EXPECT_EQ(message("test_adagrad"),
            "unsupported ONNX op 'Adagrad' of domain 'ai.onnx.preview.training' (node with "
            "output 'X_new', ai.onnx.preview.training opset 1); carve imports the default "
            "domain only");
  // Both static-operand readers name the operand (StaticDoubles did not).
  EXPECT_EQ(message("test_resize_downsample_scales_cubic"),
            "node with output 'Y' (Resize, opset 13) is not supported: input 2 ('scales') must "
            "be known at import time (carve imports static shapes only)");
  EXPECT_EQ(message("test_sequence_insert_at_back"),
            "graph input 'sequence' is not a tensor (sequences, maps and optionals are not "
            "supported)");
}

// ONNX's Round rounds half to even (2.5 -> 2, -2.5 -> -2), which Relay's
// `round` does not: the converter composes it as TVM's does.
TEST(OnnxNodeTests, RoundRoundsHalfToEven) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  Result r = RunOne(fs::path(kNodeRoot) / "test_round");
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.detail;
}

// Reshape's allowzero (opset 14) passes on as reshape's attribute, as in
// TVM's converter: a 0 in the shape is an empty axis, not a copied one.
TEST(OnnxNodeTests, ReshapeAllowzero) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  Result r = RunOne(fs::path(kNodeRoot) / "test_reshape_allowzero_reordered");
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.detail;
}

// The converters of transformer and detection exports (Einsum, GatherND,
// ScatterND, NonZero, ReverseSequence, GridSample) and Split into parts of
// extent 0 (which the registry's split refuses, so they are slices): ONNX's
// own tests of each pass.
TEST(OnnxNodeTests, IndexOpsMatchOnnx) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  for (const char* test :
       {"test_einsum_batch_matmul", "test_einsum_transpose", "test_einsum_sum",
        "test_einsum_batch_diagonal", "test_einsum_inner_prod", "test_gathernd_example_int32",
        "test_gathernd_example_float32", "test_gathernd_example_int32_batch_dim1",
        "test_scatternd", "test_scatternd_add", "test_scatternd_multiply", "test_nonzero_example",
        "test_reversesequence_time", "test_reversesequence_batch", "test_gridsample",
        "test_split_zero_size_splits"}) {
    if (!fs::exists(fs::path(kNodeRoot) / test)) continue;
    Result r = RunOne(fs::path(kNodeRoot) / test);
    EXPECT_EQ(r.outcome, Outcome::kPass) << test << ": " << r.detail;
  }
}

// RNN, GRU and LSTM unrolled over the sequence (TVM's cells): every
// direction, layout 1, initial biases, GRU's sequence_lens and LSTM's
// peepholes. test_rnn_seq_length leaves its first output (Y) out.
TEST(OnnxNodeTests, RecurrentOpsMatchOnnx) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  for (const char* test :
       {"test_rnn_seq_length", "test_simple_rnn_defaults", "test_simple_rnn_with_initial_bias",
        "test_simple_rnn_batchwise", "test_gru_defaults", "test_gru_seq_length",
        "test_gru_with_initial_bias", "test_gru_batchwise", "test_lstm_defaults",
        "test_lstm_with_initial_bias", "test_lstm_with_peepholes", "test_lstm_batchwise"}) {
    Result r = RunOne(fs::path(kNodeRoot) / test);
    EXPECT_EQ(r.outcome, Outcome::kPass) << test << ": " << r.detail;
  }
}

// QLinearConv, QLinearMatMul (2-D and batched) and DynamicQuantizeLinear
// onto the qnn ops, as TVM.
TEST(OnnxNodeTests, QuantizedOpsMatchOnnx) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  for (const char* test :
       {"test_qlinearconv", "test_qlinearmatmul_2D", "test_qlinearmatmul_3D",
        "test_dynamicquantizelinear", "test_dynamicquantizelinear_max_adjusted",
        "test_dynamicquantizelinear_min_adjusted"}) {
    Result r = RunOne(fs::path(kNodeRoot) / test);
    EXPECT_EQ(r.outcome, Outcome::kPass) << test << ": " << r.detail;
  }
}

// NonMaxSuppression (a dynamic extent), RoiAlign (both coordinate
// transformations), Unique without an axis and MaxUnpool (an output_shape
// padding the unpooled values).
TEST(OnnxNodeTests, DetectionOpsMatchOnnx) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  for (const char* test :
       {"test_nonmaxsuppression_center_point_box_format", "test_nonmaxsuppression_flipped_coordinates",
        "test_nonmaxsuppression_identical_boxes", "test_nonmaxsuppression_limit_output_size",
        "test_nonmaxsuppression_single_box", "test_nonmaxsuppression_suppress_by_IOU",
        "test_nonmaxsuppression_suppress_by_IOU_and_scores", "test_nonmaxsuppression_two_batches",
        "test_nonmaxsuppression_two_classes", "test_roialign_aligned_false",
        "test_roialign_aligned_true", "test_unique_not_sorted_without_axis",
        "test_unique_sorted_without_axis", "test_maxunpool_export_with_output_shape",
        "test_maxunpool_export_without_output_shape"}) {
    Result r = RunOne(fs::path(kNodeRoot) / test);
    EXPECT_EQ(r.outcome, Outcome::kPass) << test << ": " << r.detail;
  }
}

TEST(OnnxNodeTests, CoverageTargets) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::vector<Result> results = RunAll();
  std::map<std::string, OpTally> by_op = Tally(results);
  int ops = 0, supported = 0, tests_supported = 0, passed_supported = 0;
  for (const auto& [op, t] : by_op) {
    if (op == "(other)") continue;
    ++ops;
    if (!Supported(t)) continue;
    ++supported;
    tests_supported += t.pass + t.fail;
    passed_supported += t.pass;
  }
  std::string summary = fmt::format(
      "{} tests; {} of {} op types supported; {} of {} tests of supported op types pass",
      results.size(), supported, ops, passed_supported, tests_supported);
  std::cout << summary << "\n";
  if (std::getenv("CARVE_ONNX_VERBOSE")) {
    for (const Result& r : results) {
      if (r.outcome != Outcome::kPass) std::cout << r.name << ": " << r.detail << "\n";
    }
  }
  if (const char* path = std::getenv("CARVE_ONNX_TABLE")) {
    std::ofstream(path) << summary << "\n\n" << Table(by_op);
  }
  // CARVE_UPDATE_ONNX_DOC=1 rewrites docs/onnx.md after its marker line.
  if (std::getenv("CARVE_UPDATE_ONNX_DOC")) {
    fs::path doc = fs::path(CARVE_SOURCE_DIR) / "docs/onnx.md";
    std::string text = ReadFile(doc);
    const std::string marker = "<!-- node-test table: generated, do not edit below -->\n";
    size_t at = text.find(marker);
    ASSERT_NE(at, std::string::npos) << "no marker in " << doc;
    std::ofstream(doc) << text.substr(0, at + marker.size()) << "\n" << summary << ".\n\n"
                       << Table(by_op);
  }
  // Regression floors: the figures reached (docs/onnx.md); raise them as
  // coverage grows.
  EXPECT_GE(supported, 147) << summary;
  EXPECT_GE(passed_supported * 100, tests_supported * 95) << summary;
}

}  // namespace
}  // namespace carve
