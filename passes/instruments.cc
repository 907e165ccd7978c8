#include "passes/instruments.h"

#include <algorithm>

#include "fmt/format.h"
#include "passes/infer/infer_type.h"
#include "passes/byoc/region_verify.h"
#include "support/diagnostics.h"
#include "support/page_faults.h"

namespace carve {
namespace {

void Dump(std::ostream* out, const ModulePrinter& printer, std::string_view when,
          const Pass& pass, const Module& mod) {
  *out << fmt::format("// ----- IR {} {} -----\n", when, pass.Describe());
  std::string text = printer(mod);
  *out << text;
  if (!text.empty() && text.back() != '\n') *out << '\n';
}

// `status` with a note telling which pass produced the invalid module.
absl::Status AfterPassError(const absl::Status& status, const Pass& pass) {
  std::vector<Diagnostic> diags = StatusToDiagnostics(status);
  diags.front().notes.push_back(
      Note{Span{}, fmt::format("found by --verify-each after pass {}", pass.Describe())});
  return DiagnosticsToStatus(diags, status.code());
}

}  // namespace

absl::Status PrintIRInstrument::BeforePass(const Pass& pass, const Module& mod, int depth) {
  if (depth != 0) return absl::OkStatus();
  if (std::find(options_.before.begin(), options_.before.end(), pass.name()) !=
      options_.before.end()) {
    Dump(out_, printer_, "before", pass, mod);
  }
  return absl::OkStatus();
}

absl::Status PrintIRInstrument::AfterPass(const Pass& pass, const Module& mod, int depth,
                                          bool changed) {
  if (depth != 0) return absl::OkStatus();
  if (options_.after_all || (options_.after_change && changed)) {
    Dump(out_, printer_, "after", pass, mod);
  }
  return absl::OkStatus();
}

absl::Status TimingInstrument::BeforePass(const Pass& pass, const Module& mod, int depth) {
  records_.push_back(Record{pass.Describe(), depth, 0, 0});
  open_.push_back(Open{records_.size() - 1, Clock::now(), MinorPageFaults()});
  return absl::OkStatus();
}

absl::Status TimingInstrument::AfterPass(const Pass& pass, const Module& mod, int depth,
                                         bool changed) {
  if (open_.empty()) return absl::OkStatus();
  Open open = open_.back();
  open_.pop_back();
  Record& record = records_[open.index];
  record.ms = std::chrono::duration<double, std::milli>(Clock::now() - open.start).count();
  record.faults = MinorPageFaults() - open.faults;
  return absl::OkStatus();
}

std::string TimingInstrument::Render() const {
  double total = 0;
  long total_faults = 0;
  int top = records_.empty() ? 0 : records_.front().depth;
  for (const Record& r : records_) {
    if (r.depth != top) continue;
    total += r.ms;
    total_faults += r.faults;
  }
  std::string out = "===== pass timing =====\n  time (ms)   share     faults  pass\n";
  for (const Record& r : records_) {
    double share = total > 0 ? 100.0 * r.ms / total : 0;
    out += fmt::format("{:>11.3f} {:>6.1f}% {:>10}  {}{}\n", r.ms, share, r.faults,
                       std::string(2 * (r.depth - top), ' '), r.name);
  }
  out += fmt::format("{:>11.3f} {:>6.1f}% {:>10}  total\n", total, 100.0, total_faults);
  return out;
}

absl::Status VerifyInstrument::AfterPass(const Pass& pass, const Module& mod, int depth,
                                         bool changed) {
  if (depth != 0) return absl::OkStatus();
  Module copy = mod;  // InferType only refreshes type caches; the copy shares them
  absl::Status typed = InferType(copy);
  if (!typed.ok()) return AfterPassError(typed, pass);
  absl::Status acyclic = VerifyRegionsAcyclic(mod);
  if (!acyclic.ok()) return AfterPassError(acyclic, pass);
  return absl::OkStatus();
}

}  // namespace carve
