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

struct CliResult {
  int code;
  std::string out, err;
};

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
