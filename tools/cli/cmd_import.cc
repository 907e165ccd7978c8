// `carve import MODEL.onnx [-o OUT.relay] [--params-out DIR | --freeze]
// [--shape NAME=D1,D2,...]... [--summary]`: an ONNX model to Relay text
// (frontend/onnx). `-` reads the model from standard input.
#include <filesystem>
#include <map>

#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "grammar/printer.h"
#include "interpreter/npy.h"
#include "support/cancellation.h"
#include "support/diagnostics.h"
#include "tools/cli/cli.h"
#include "tools/cli/cmd_import_summary.h"
#include "tools/cli/shared_options.h"

namespace carve::cli {
namespace {

namespace fs = std::filesystem;

absl::Status WriteParams(Env& env, const std::string& dir,
                         const std::vector<onnx_import::ImportedParam>& params) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        fmt::format("cannot create --params-out folder '{}': {}", dir, ec.message()));
  }
  for (const auto& p : params) {
    auto bytes = SerializeNpy(p.value);
    if (!bytes.ok()) return bytes.status();
    if (absl::Status s = env.write_file((fs::path(dir) / (p.name + ".npy")).string(), *bytes);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// The same file or folder, however spelled (`D`, `D/`, `./D`, `E/../D`).
bool SamePath(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  fs::path pa = fs::weakly_canonical(fs::absolute(a), ec1);
  fs::path pb = fs::weakly_canonical(fs::absolute(b), ec2);
  if (ec1 || ec2) return a == b;
  // weakly_canonical keeps a trailing separator of a path that does not exist yet.
  if (!pa.has_filename()) pa = pa.parent_path();
  if (!pb.has_filename()) pb = pb.parent_path();
  return pa == pb;
}

// -o and --params-out, checked before the import writes anything: a clash
// found after the .npy files were written would leave them behind.
absl::Status CheckOutputPaths(const ParsedArgs& args, const std::string& model) {
  const std::string out = args.GetOr("--output", "-");
  if (std::optional<std::string> dir = args.Get("--params-out")) {
    if (*dir == "-") {
      return absl::InvalidArgumentError(
          "--params-out needs a folder for the .npy files ('-' would be standard output, which "
          "holds one text)");
    }
    if (out != "-" && SamePath(out, *dir)) {
      return absl::InvalidArgumentError(fmt::format(
          "-o '{}' and --params-out '{}' are the same path: -o is the module's file, "
          "--params-out the folder of its .npy weights",
          out, *dir));
    }
    if (model != "-" && SamePath(model, *dir)) {
      return absl::InvalidArgumentError(
          fmt::format("--params-out '{}' is the model file itself", *dir));
    }
  }
  if (std::error_code ec; out != "-" && fs::is_directory(out, ec)) {
    return absl::InvalidArgumentError(
        fmt::format("-o '{}' is a folder; -o names the module's file", out));
  }
  if (out != "-" && model != "-" && SamePath(out, model)) {
    return absl::InvalidArgumentError(
        fmt::format("-o '{}' is the model file itself: it would be overwritten", out));
  }
  return absl::OkStatus();
}

int RunImport(const Command& cmd, const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1) return UsageError(env, cmd, "expected exactly one MODEL");
  const std::string& path = args.positional()[0];
  onnx_import::ImportOptions options;
  // TVM's from_onnx defaults to freeze_params=True: the weights become
  // constants unless the user asks for them as parameters with values on disk.
  options.freeze = !args.Has("--params-out");
  if (args.Has("--freeze") && args.Has("--params-out")) {
    return UsageError(env, cmd, "--params-out does not apply with --freeze (no parameters)");
  }
  if (absl::Status paths = CheckOutputPaths(args, path); !paths.ok()) {
    return UsageError(env, cmd, std::string(paths.message()));
  }
  for (const std::string& s : args.GetAll("--shape")) {
    if (absl::Status st = ParseShapeOption(s, options.shapes); !st.ok()) {
      return UsageError(env, cmd, std::string(st.message()));
    }
  }
  if (path != "-") {
    fs::path parent = fs::path(path).parent_path();
    options.base_dir = parent.empty() ? "." : parent.string();
  }
  absl::StatusOr<std::string> bytes = ReadInput(env, path);
  if (!bytes.ok()) return ReportError(env, bytes.status());
  auto result = onnx_import::ImportOnnx(*bytes, options);
  // The importer does not poll for Ctrl-C: a request that came meanwhile
  // stops the command before it writes anything.
  if (CancellationRequested()) {
    return ReportError(env, absl::CancelledError(fmt::format("interrupted while importing '{}'", path)));
  }
  const std::string out_path = args.GetOr("--output", "-");
  std::ostream& summary_out = *(out_path == "-" ? env.err : env.out);
  if (!result.ok()) {
    // The summary is what a failed import most needs: it shows the inputs'
    // symbolic dimensions that --shape must fix.
    if (args.Has("--summary")) summary_out << ImportSummary(*bytes, options, nullptr);
    *env.err << RenderStatus(result.status(), path == "-" ? "<stdin>" : path);
    return kExitUserError;
  }
  if (args.Has("--summary")) summary_out << ImportSummary(*bytes, options, &*result);
  if (args.Has("--params-out")) {
    if (absl::Status s = WriteParams(env, *args.Get("--params-out"), result->params); !s.ok()) {
      return ReportError(env, s);
    }
  }
  // The text is printed as `carve fmt` prints it once read back, so that
  // import -> fmt -> fmt gives the same bytes: the parser builds an untyped
  // module, and the #[metadata] section's shape objects depend on types
  // (which dims of the constants are one IntImm in TVM comes from InferType).
  onnx_import::ForgetImportedTypes(result->module);
  PrintOptions print;
  absl::Status s = WriteOutputChunks(env, out_path, [&](const ChunkWriter& write) {
    PrintModuleTo(result->module, print, write);
  });
  if (!s.ok()) return ReportError(env, s);
  return kExitOk;
}

}  // namespace

void AddImportCommands(std::vector<Command>& commands) {
  Command cmd;
  cmd.name = "import";
  cmd.usage =
      "carve import MODEL.onnx [-o OUT.relay] [--params-out DIR | --freeze] "
      "[--shape NAME=D1,D2,...]... [--summary]";
  cmd.summary = "import an ONNX model as Relay text (TVM's ONNX frontend mapping)";
  cmd.options = {
      {"--output", true, false, "-o", "write the module to OUT instead of standard output"},
      {"--params-out", true, false, "",
       "write the initializers as DIR/NAME.npy (for `carve run --params DIR`)"},
      {"--freeze", false, false, "", "embed the initializers as constants (the default, as TVM's freeze_params=True)"},
      {"--shape", true, true, "", "NAME=D1,D2,...: the shape of graph input NAME"},
      {"--summary", false, false, "", "list inputs, parameter bytes and ONNX ops"},
  };
  cmd.run = [cmd](const ParsedArgs& args, Env& env) { return RunImport(cmd, args, env); };
  cmd.cancellable = true;
  commands.push_back(std::move(cmd));
}

}  // namespace carve::cli
