#include "tools/cli/golden_run.h"

#include <sstream>

#include "fmt/format.h"
#include "tools/cli/cli.h"

namespace carve::cli {

std::string Substitute(const std::string& w, const Substitutions& subst) {
  std::string out;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w.compare(i, 7, "%shared") == 0) {
      out += subst.shared_dir;
      i += 6;
    } else if (w.compare(i, 2, "%s") == 0) {
      out += subst.virtual_name;
      i += 1;
    } else if (w.compare(i, 2, "%S") == 0) {
      out += subst.test_dir;
      i += 1;
    } else if (w.compare(i, 2, "%t") == 0) {
      out += subst.temp_path;
      i += 1;
    } else if (w.compare(i, 2, "%%") == 0) {
      out += '%';
      i += 1;
    } else {
      out.push_back(w[i]);  // %0, %x: Relay names, kept as lit keeps them
    }
  }
  return out;
}

// How many RUN lines are running, one inside another: a RUN line may be
// `carve test` (tests of the runner itself), and one that tests its own file
// would recurse in this process until the stack overflows.
constexpr int kMaxRunNesting = 8;
thread_local int run_nesting = 0;

// Runs the carve commands of `run` in process, each reading the previous
// one's output.
RunOutput RunPipeline(const RunLine& run, const Substitutions& subst, const std::string& case_text,
                      Env& outer) {
  RunOutput result;
  std::string stdin_text;
  for (const RunStage& stage : run.stages) {
    std::vector<std::string> args;
    for (size_t i = 1; i < stage.words.size(); ++i) {
      args.push_back(Substitute(stage.words[i], subst));
    }
    std::istringstream in(stdin_text);
    std::ostringstream out, err;
    Env env = outer;
    env.in = &in;
    env.out = &out;
    env.err = &err;
    env.prefault_heap = nullptr;  // cases are small, and many run in one process
    auto real_read = outer.read_file;
    env.read_file = [&, real_read](const std::string& path) -> absl::StatusOr<std::string> {
      if (path == subst.virtual_name) return case_text;
      if (path == "-") return stdin_text;
      return real_read(path);
    };
    auto real_write = outer.write_file;
    env.write_file = [&, real_write](const std::string& path, const std::string& text) {
      if (path == "-") {
        out << text;
        return absl::OkStatus();
      }
      return real_write(path, text);
    };
    int code = kExitUserError;
    if (run_nesting >= kMaxRunNesting) {
      err << fmt::format(
          "carve: RUN lines nested more than {} deep (does a case run `carve test` on its own "
          "file?)\n",
          kMaxRunNesting);
    } else {
      ++run_nesting;
      code = RunCarve(args, env);
      --run_nesting;
    }
    const int effective = stage.negate ? (code == 0 ? 1 : 0) : code;
    if (effective != 0) result.exit_code = effective;
    result.exit_report +=
        fmt::format("{}{}carve {} exited {}", result.exit_report.empty() ? "" : "; ",
                    stage.negate ? "not " : "", stage.words.size() > 1 ? stage.words[1] : "", code);
    stdin_text = out.str();
    if (stage.merge_stderr) {
      stdin_text += err.str();
    } else {
      result.err += err.str();
    }
  }
  result.out = stdin_text;
  return result;
}

}  // namespace carve::cli
