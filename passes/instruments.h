// Pass instruments, as MLIR's pass manager options: IR printing around
// passes, a timing table, and verification after every pass.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace carve {

// Renders a module as text. The pass library does not link the printer, so
// tools hand one in (grammar/printer.h's PrintModule).
using ModulePrinter = std::function<std::string(const Module& mod)>;

// Prints the module around the passes of the top-level pipeline, each dump
// preceded by a `// ----- IR after PASS -----` line.
class PrintIRInstrument : public PassInstrument {
 public:
  struct Options {
    bool after_all = false;     // after every pass
    bool after_change = false;  // after every pass that changed the module
    // Before every pass of these names (TVM names, e.g. "PartitionGraph").
    std::vector<std::string> before;
  };
  PrintIRInstrument(Options options, ModulePrinter printer, std::ostream* out)
      : options_(std::move(options)), printer_(std::move(printer)), out_(out) {}

  absl::Status BeforePass(const Pass& pass, const Module& mod, int depth) override;
  absl::Status AfterPass(const Pass& pass, const Module& mod, int depth, bool changed) override;

 private:
  Options options_;
  ModulePrinter printer_;
  std::ostream* out_;
};

// Measures every pass (nested ones too) and renders a table.
class TimingInstrument : public PassInstrument {
 public:
  absl::Status BeforePass(const Pass& pass, const Module& mod, int depth) override;
  absl::Status AfterPass(const Pass& pass, const Module& mod, int depth, bool changed) override;

  // The table: one row per pass run, in start order, nested passes indented,
  // with wall time in ms, the share of the top-level total, and the minor page
  // faults the pass took (memory it touched for the first time: on large
  // graphs the kernel's zero-filling is a visible part of a pass's time).
  std::string Render() const;

 private:
  struct Record {
    std::string name;
    int depth = 0;
    double ms = 0;
    long faults = 0;
  };
  using Clock = std::chrono::steady_clock;
  std::vector<Record> records_;
  struct Open {
    size_t index;
    Clock::time_point start;
    long faults;
  };
  std::vector<Open> open_;
};

// After every top-level pass: the module type-checks (InferType) and no two
// annotated regions depend on each other (VerifyRegionsAcyclic). A failure
// stops the pipeline with the error and a note naming the pass.
class VerifyInstrument : public PassInstrument {
 public:
  absl::Status AfterPass(const Pass& pass, const Module& mod, int depth, bool changed) override;
};

}  // namespace carve
