#include "tools/cli/run_inputs.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "interpreter/evaluator.h"
#include "interpreter/npy.h"
#include "ir/tensor_limit.h"
#include "ir/visit.h"
#include "support/status_macros.h"
#include "tools/cli/unknown_name.h"

namespace carve::cli {
namespace {

// splitmix64: a tiny, portable generator (identical streams everywhere).
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Parameters of `main` passed directly as an op argument the registry names
// `moving_var` (nn.batch_norm's variance).
absl::flat_hash_set<const Var*> VarianceParams(const Function& main) {
  absl::flat_hash_set<const Var*> params(main.params().begin(), main.params().end());
  absl::flat_hash_set<const Var*> out;
  PostOrderVisit(main.body(), [&](const Expr* e) {
    const Call* call = DynCast<Call>(e);
    if (call == nullptr || call->op() == nullptr) return;
    const auto& names = call->op()->arg_names;
    for (size_t i = 0; i < call->args().size() && i < names.size(); ++i) {
      const Var* v = DynCast<Var>(call->args()[i]);
      if (names[i] == "moving_var" && v != nullptr && params.contains(v)) out.insert(v);
    }
  });
  return out;
}

double Uniform01(uint64_t& state) {
  return double(NextRandom(state) >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
}

absl::StatusOr<NDArray> RandomTensor(const Var& param, uint64_t seed, size_t index, bool variance,
                                     InputDist dist, int64_t max_bytes) {
  const TensorType* t = DynCast<TensorType>(param.annotation());
  if (t == nullptr || !t->is_static() || !IsSupportedTensorDType(t->dtype())) {
    // A `?` dimension usually comes from an ONNX model's symbolic batch.
    // The option that fixes it, with the static dimensions filled in (D0,
    // D1, ... for the `?`), as `carve import --summary` writes it.
    std::string dynamic;
    if (t != nullptr && !t->is_static()) {
      std::vector<std::string> dims;
      for (size_t i = 0; i < t->shape().size(); ++i) {
        const Dim& d = t->shape()[i];
        dims.push_back(d.is_any() ? fmt::format("D{}", i) : std::to_string(d.value));
      }
      dynamic = fmt::format(
          ", or fix its `?` dimensions when importing the model (carve import MODEL.onnx "
          "--shape {}={}; in the REPL, load MODEL.onnx --shape ...)",
          param.name(), fmt::join(dims, ","));
    }
    // A tuple or a function cannot come from an .npy file either: naming
    // --input there sent the user to a dead end.
    if (t == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "cannot give a value to %{} of type {}: carve run reads and generates tensors only; "
          "give @main tensor parameters (and build the {} inside it)",
          param.name(), TypeToString(param.annotation()),
          DynCast<TupleType>(param.annotation()) != nullptr ? "tuple" : "value"));
    }
    return absl::InvalidArgumentError(
        fmt::format("cannot generate a value for %{} of type {}; pass --input {}=FILE.npy{}",
                    param.name(), TypeToString(param.annotation()), param.name(), dynamic));
  }
  if (absl::Status fits = CheckTensorFits(t, max_bytes, fmt::format("input %{}:", param.name()));
      !fits.ok()) {
    return fits;
  }
  std::vector<int64_t> shape;
  for (const Dim& d : t->shape()) shape.push_back(d.value);
  NDArray a = NDArray::Empty(t->dtype(), shape);
  uint64_t state = seed * 0x100000001B3ull + index;
  const DataType d = t->dtype();
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (dist == InputDist::kOnes) {
      a.SetFromDouble(i, 1.0);
      continue;
    }
    uint64_t r = NextRandom(state);
    double u = double(r >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    double v = d.is_float()  ? (variance ? u + 0.5 : 2 * u - 1)
               : d.is_bool() ? double(r & 1)
                             : double(r % 10);
    if (dist == InputDist::kNormal && d.is_float() && !variance) {
      // Box-Muller with a second draw: portable (no std:: distribution,
      // whose algorithm differs between standard libraries).
      double u2 = Uniform01(state);
      v = std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(2.0 * M_PI * u2);
    }
    a.SetFromDouble(i, v);
  }
  return a;
}

}  // namespace

std::optional<InputDist> ParseInputDist(const std::string& name) {
  if (name == "uniform" || name == "uniform[-1,1)") return InputDist::kUniform;
  if (name == "normal" || name == "normal(0,1)") return InputDist::kNormal;
  if (name == "ones") return InputDist::kOnes;
  return std::nullopt;
}

std::string InputDistName(InputDist dist) {
  switch (dist) {
    case InputDist::kUniform: return "uniform[-1,1)";
    case InputDist::kNormal: return "normal(0,1)";
    case InputDist::kOnes: return "ones";
  }
  return "";
}

absl::Status CheckParamsDir(const std::string& dir, const Function& main) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::NotFoundError(fmt::format("--params: '{}' is not a directory", dir));
  }
  const std::vector<std::string> known = ParamNames(main);
  std::vector<std::string> stems;
  std::string other_case;  // "w.NPY": skipped by every reader, so an error
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".npy") {
      stems.push_back(entry.path().stem().string());
    } else if (absl::AsciiStrToLower(ext) == ".npy" &&
               (other_case.empty() || entry.path().string() < other_case)) {
      other_case = entry.path().string();
    }
  }
  if (ec) {
    return absl::NotFoundError(fmt::format("--params: cannot list '{}': {}", dir, ec.message()));
  }
  if (!other_case.empty()) {
    std::filesystem::path p(other_case);
    return absl::InvalidArgumentError(fmt::format(
        "--params: '{}': parameter files are read as NAME.npy (lower case); rename it '{}'",
        other_case, p.stem().string() + ".npy"));
  }
  std::sort(stems.begin(), stems.end());  // the first error does not depend on the listing order
  for (const std::string& stem : stems) {
    if (std::find(known.begin(), known.end(), stem) != known.end()) continue;
    return absl::InvalidArgumentError(
        UnknownNameMessage("--params", stem, "parameter of @main", known,
                           (std::filesystem::path(dir) / (stem + ".npy")).string()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, std::string>> ParseInputSpecs(
    const std::vector<std::string>& specs) {
  std::map<std::string, std::string> files;
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    const bool no_name = eq == 0 || (eq == 1 && spec[0] == '%');
    if (eq == std::string::npos || no_name || eq + 1 == spec.size()) {
      return absl::InvalidArgumentError(
          fmt::format("--input expects NAME=FILE.npy, got '{}'", spec));
    }
    std::string name = spec.substr(0, eq);
    if (name[0] == '%') name = name.substr(1);
    auto [it, added] = files.emplace(name, spec.substr(eq + 1));
    if (!added) {
      return absl::InvalidArgumentError(fmt::format(
          "--input '{}' given twice ('{}' and '{}')", name, it->second, spec.substr(eq + 1)));
    }
  }
  return files;
}

namespace {

absl::StatusOr<NDArray> ReadInputFile(const std::string& path, const RunInputOptions& options) {
  if (!options.read_file) return ReadNpyFile(path);
  CARVE_ASSIGN_OR_RETURN(std::string bytes, options.read_file(path));
  absl::StatusOr<NDArray> a = ParseNpy(bytes);
  if (!a.ok()) {
    return absl::Status(a.status().code(),
                        fmt::format("{}: {}", path == "-" ? "<stdin>" : path,
                                    std::string(a.status().message())));
  }
  return a;
}

}  // namespace

absl::StatusOr<std::vector<NDArray>> PrepareRunInputs(const Function& main,
                                                      const RunInputOptions& options) {
  CARVE_ASSIGN_OR_RETURN(auto files, ParseInputSpecs(options.inputs));
  const std::vector<std::string> known = ParamNames(main);
  for (const auto& [name, path] : files) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return absl::InvalidArgumentError(
          UnknownNameMessage("--input", name, "parameter of @main", known));
    }
  }
  if (!options.params_dir.empty()) {
    if (absl::Status dir = CheckParamsDir(options.params_dir, main); !dir.ok()) return dir;
  }
  const int64_t max_bytes =
      options.max_tensor_bytes > 0 ? options.max_tensor_bytes : MaxTensorBytes();
  const absl::flat_hash_set<const Var*> variances = VarianceParams(main);
  std::vector<NDArray> values;
  for (size_t i = 0; i < main.params().size(); ++i) {
    const Var* p = main.params()[i];
    std::string name(p->name());
    std::string path;
    std::string from_dir;
    if (!options.params_dir.empty()) {
      std::filesystem::path candidate = std::filesystem::path(options.params_dir) / (name + ".npy");
      std::error_code ec;
      if (std::filesystem::exists(candidate, ec)) from_dir = candidate.string();
    }
    if (auto it = files.find(name); it != files.end()) {
      // Two values for one parameter: one of them would be ignored (as
      // Python's carve.run refuses one name in both inputs and params).
      if (!from_dir.empty()) {
        return absl::InvalidArgumentError(fmt::format(
            "parameter %{} is given twice: by --input ({}) and by --params ({})", name,
            it->second, from_dir));
      }
      path = it->second;
      files.erase(it);
    } else {
      path = from_dir;
    }
    if (path.empty()) {
      absl::StatusOr<NDArray> r = RandomTensor(*p, options.seed, i, variances.contains(p),
                                                 options.dist, max_bytes);
      if (!r.ok()) return r.status();
      values.push_back(*std::move(r));
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(NDArray a, ReadInputFile(path, options));
    // Checked here, where the file is known: the interpreter's own check
    // names the parameter only, and a user with several .npy files is left
    // to guess which one has the wrong shape or dtype.
    const Type* want = p->annotation() ? p->annotation() : p->checked_type();
    if (absl::Status fits = CheckValueType(Value(a), want); !fits.ok()) {
      return absl::InvalidArgumentError(fmt::format("parameter %{} from '{}': {}", name, path,
                                                    std::string(fits.message())));
    }
    values.push_back(std::move(a));
  }
  return values;
}

}  // namespace carve::cli
