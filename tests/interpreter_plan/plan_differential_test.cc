// Execution plans against the tree walker: every `carve run` command of the
// golden `run` cases and every model of ../shared/models (imported as
// `carve import --freeze` does) is evaluated both ways, and the outputs must
// be the same bytes (or both runs fail with the same message). This is the
// proof that plans keep the reference kernels' results bit for bit.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/onnx/import.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/plan.h"
#include "passes/infer/infer_type.h"
#include "tests/common/file_util.h"
#include "tools/cli/env.h"
#include "tools/cli/golden_case.h"
#include "tools/cli/golden_run.h"
#include "tools/cli/load.h"
#include "tools/cli/run_inputs.h"

namespace carve {
namespace {

using testing_util::ReadFile;

namespace fs = std::filesystem;

struct Outcome {
  absl::Status status;
  std::vector<NDArray> outputs;
  bool planned = false;  // @main ran as a plan
};

Outcome RunMain(const Module& mod, const std::vector<NDArray>& inputs, bool use_plans) {
  InterpreterOptions options;
  options.use_plans = use_plans;
  Interpreter interp(mod, options);
  Outcome o;
  auto result = interp.RunFlat("main", inputs);
  if (result.ok()) {
    o.outputs = *std::move(result);
  } else {
    o.status = result.status();
  }
  if (const Function* main = mod.Lookup("main")) o.planned = interp.PlanFor(main) != nullptr;
  return o;
}

// Runs @main of `mod` with plans and without; returns whether @main was
// planned. `what` names the case in failures.
bool ExpectSameBits(const Module& mod, const std::vector<NDArray>& inputs,
                    const std::string& what) {
  const Outcome walked = RunMain(mod, inputs, false);
  const Outcome planned = RunMain(mod, inputs, true);
  EXPECT_EQ(walked.status, planned.status) << what;
  EXPECT_EQ(walked.outputs.size(), planned.outputs.size()) << what;
  for (size_t i = 0; i < walked.outputs.size() && i < planned.outputs.size(); ++i) {
    EXPECT_TRUE(walked.outputs[i].BitwiseEqual(planned.outputs[i])) << what << ": output " << i;
  }
  return planned.planned;
}

// The options of a `carve run` command that select its module and inputs;
// false for commands that are not one run of one module (usage errors).
bool ParseRunWords(const std::vector<std::string>& words, std::string* file,
                   cli::RunInputOptions* inputs) {
  if (words.size() < 3 || words[0] != "carve" || words[1] != "run") return false;
  std::vector<std::string> positional;
  for (size_t i = 2; i < words.size(); ++i) {
    const std::string& w = words[i];
    const bool has_value = i + 1 < words.size();
    if (w == "--input" && has_value) {
      inputs->inputs.push_back(words[++i]);
    } else if (w == "--params" && has_value) {
      inputs->params_dir = words[++i];
    } else if (w == "--seed" && has_value) {
      try {
        inputs->seed = std::stoull(words[++i]);
      } catch (...) {
        return false;
      }
    } else if (w == "--input-dist" && has_value) {
      auto dist = cli::ParseInputDist(words[++i]);
      if (!dist) return false;
      inputs->dist = *dist;
    } else if (w.starts_with("--")) {
      // Options about the run's output, threads or comparison: the module
      // and inputs stay the same. Skip the value of those that take one.
      static const char* kWithValue[] = {"--threads", "--out",  "--compare",         "--rtol",
                                         "--atol",    "--bind", "--max-tensor-bytes"};
      for (const char* o : kWithValue) {
        if (w == o) ++i;
      }
    } else {
      positional.push_back(w);
    }
  }
  if (positional.size() != 1) return false;
  *file = positional[0];
  return true;
}

TEST(PlanDifferential, GoldenRunCasesGiveTheSameBits) {
  const fs::path dir = fs::path(CARVE_SOURCE_DIR) / "tests/golden/run";
  int compared = 0, planned = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".test") continue;
    const std::string text = ReadFile(entry.path());
    for (const cli::GoldenCase& c : cli::ParseGoldenCases(entry.path().string(), text, {})) {
      cli::Substitutions subst;
      subst.virtual_name = entry.path().string();
      subst.test_dir = dir.string();
      subst.shared_dir = CARVE_SHARED_DIR;
      for (const cli::RunLine& run : c.runs) {
        for (const cli::RunStage& stage : run.stages) {
          std::vector<std::string> words;
          for (const std::string& w : stage.words) words.push_back(cli::Substitute(w, subst));
          std::string file;
          cli::RunInputOptions input_options;
          if (!ParseRunWords(words, &file, &input_options)) continue;
          cli::Env env = cli::RealEnv();
          auto real_read = env.read_file;
          env.read_file = [&](const std::string& path) -> absl::StatusOr<std::string> {
            if (path == subst.virtual_name) return c.text;
            return real_read(path);
          };
          absl::StatusOr<Module> mod = cli::LoadTypedModule(env, file);
          if (!mod.ok() || mod->Lookup("main") == nullptr) continue;  // an error case
          auto inputs = cli::PrepareRunInputs(*mod->Lookup("main"), input_options);
          if (!inputs.ok()) continue;  // an error case
          const std::string what =
              entry.path().filename().string() + ":" + std::to_string(run.line);
          planned += ExpectSameBits(*mod, *inputs, what);
          ++compared;
        }
      }
    }
  }
  // Every golden run file contributes: the corpus models, control flow, the
  // compare cases' modules.
  EXPECT_GE(compared, 50);
  EXPECT_GE(planned, 30);
}

struct SharedModel {
  const char* file;
  const char* input;  // the ONNX input name
  std::vector<int64_t> shape;
};

TEST(PlanDifferential, SharedModelsGiveTheSameBits) {
  const SharedModel models[] = {
      {"fmnist_cnn.onnx", "input", {1, 1, 28, 28}},
      {"ch_ppocr_mobile_v2.0_cls_infer.onnx", "x", {1, 3, 48, 192}},
      {"squeezenet1_1.onnx", "", {}},
      {"tiny_transformer.onnx", "", {}},
  };
  for (const SharedModel& m : models) {
    const fs::path path = fs::path(CARVE_SHARED_DIR) / "models" / m.file;
    onnx_import::ImportOptions options;
    options.freeze = true;
    if (m.input[0] != '\0') options.shapes[m.input] = m.shape;
    auto imported = onnx_import::ImportOnnx(ReadFile(path), options);
    ASSERT_TRUE(imported.ok()) << m.file << ": " << imported.status();
    Module& mod = imported->module;
    ASSERT_TRUE(InferType(mod).ok()) << m.file;
    cli::RunInputOptions input_options;
    input_options.seed = 1;
    auto inputs = cli::PrepareRunInputs(*mod.Lookup("main"), input_options);
    ASSERT_TRUE(inputs.ok()) << m.file << ": " << inputs.status();
    EXPECT_TRUE(ExpectSameBits(mod, *inputs, m.file)) << m.file << ": @main was not planned";
  }
}

}  // namespace
}  // namespace carve
