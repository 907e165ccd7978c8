// A fixture for tests that run the carve command line in process on files
// of their own: a fresh folder per test (named after it, removed after),
// Write(name, text) into it, Run(args) with the output and exit code.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {

// A one-op module for tests that need a valid file and care only about
// options and messages.
inline constexpr char kReluModule[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 8), float32]) {\n"
    "  nn.relu(%x)\n"
    "}\n";

struct CliResult {
  int code;
  std::string out, err;
};

// What `carve test FILE` did: its exit code and everything it wrote
// (standard output, then standard error).
struct TestOutcome {
  int code;
  std::string out;
};

// `carve test PATH` with `extra` options.
inline TestOutcome RunCarveTest(const std::string& path, std::vector<std::string> extra = {}) {
  std::ostringstream out, err;
  Env env = RealEnv();
  env.out = &out;
  env.err = &err;
  std::vector<std::string> args = {"test", path};
  args.insert(args.end(), extra.begin(), extra.end());
  int code = RunCarve(args, env);
  return {code, out.str() + err.str()};
}

// `carve test` (with `extra` options) on `text` written to `name` in the
// test temporary folder, for tests that need no folder of their own.
inline TestOutcome RunTestOn(const std::string& name, const std::string& text,
                             std::vector<std::string> extra = {}) {
  std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  std::ofstream(path) << text;
  return RunCarveTest(path, std::move(extra));
}

class CliTestDir : public ::testing::Test {
 protected:
  // `prefix` starts the folder's name ("carve_strict_").
  explicit CliTestDir(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (prefix_ + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  CliResult Run(std::vector<std::string> args) {
    std::ostringstream out, err;
    Env env = RealEnv();
    env.prefault_heap = nullptr;
    env.out = &out;
    env.err = &err;
    int code = RunCarve(args, env);
    return {code, out.str(), err.str()};
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace carve::cli
