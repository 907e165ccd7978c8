// The text of `run --compare` (RenderCompareReport, RenderCompareResult):
// one line per output and composite with its largest errors, the lines
// under it (counts, worst element, the rule applied, warnings) and the
// verdict. An integer's differences print as integers, its worst values
// exactly.
#include <algorithm>
#include <cmath>
#include <string>

#include "backends/compare.h"
#include "backends/compare_internal.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace carve {
namespace compare_internal {

bool LikelyCancellation(const ErrorStats& s, double inputs) {
  return !s.within && s.norm_rule && s.nan_one_side == 0 &&
         inputs > kCancellationRatio * std::max(s.scale, 1e-30);
}

}  // namespace compare_internal

namespace {

using compare_internal::LikelyCancellation;

std::string StatsText(const ErrorStats& s) {
  if (s.integral) {
    return fmt::format("max_abs={} max_rel={:.1e} {}", s.max_abs_integer, s.max_rel,
                       s.within ? "ok" : "FAIL");
  }
  return fmt::format("max_abs={:.1e} max_rel={:.1e} {}", s.max_abs, s.max_rel,
                     s.within ? "ok" : "FAIL");
}

// NaN without its sign bit (printf's "-nan" depends on how it was made).
std::string ValueText(double v) { return std::isnan(v) ? "nan" : fmt::format("{:.6e}", v); }

std::string IndexText(const std::vector<int64_t>& index) {
  return fmt::format("[{}]", fmt::join(index, ", "));
}

std::string CancellationNote(const ErrorStats& s, double inputs, const char* where) {
  if (!LikelyCancellation(s, inputs)) return "";
  return fmt::format(
      "    note: {} reach {:.1e}, {:.0f} times these values (max|b|={:.1e}): sums of such terms "
      "that cancel keep rounding errors relative to the terms, not to the result, so this can be "
      "float rounding rather than a backend bug; inputs of a realistic size (--input, "
      "--input-dist) tell them apart\n",
      where, inputs, inputs / std::max(s.scale, 1e-30), s.scale);
}

// The lines under an output or composite: counts and worst element, the
// rule, warnings.
std::string DetailText(const ErrorStats& s) {
  std::string out = fmt::format("    {} of {} out of tolerance", s.out_of_tolerance, s.elements);
  if (s.nan_one_side > 0) {
    out += fmt::format(
        " ({} of them NaN on one side only: the reference keeps NaN, oneDNN's "
        "and TVM's relu/clip give a number)",
        s.nan_one_side);
  }
  if (!s.has_worst) {
    out += "; all equal\n";
  } else {
    out += fmt::format("; worst {}{}: {} vs reference {}\n", IndexText(s.worst_index),
                       s.count > 1 ? fmt::format(" in call {}", s.worst_call + 1) : "",
                       s.integral ? s.worst_got_text : ValueText(s.worst_got),
                       s.integral ? s.worst_ref_text : ValueText(s.worst_ref));
  }
  out += fmt::format("    rule: |a-b| <= atol + rtol*|b| with rtol={:g} atol={:g}", s.rtol, s.atol);
  if (s.norm_rule) {
    out += fmt::format(
        ", or |a-b| <= rtol*max|b| with max|b|={:.1e} ({} elements within this rule only)",
        s.scale, s.by_norm_rule);
  } else if (s.quantized && s.rtol == 0 && s.atol == 1) {
    // Integer kernels round (requantize) at different points: TVM's qnn
    // tests accept one step (atol=1); --atol 0 asks for exact equality.
    out += " (quantized integers: one rounding step apart allowed, as TVM's qnn tests; "
           "--atol 0 for exact)";
  } else if (s.rtol == 0 && s.atol == 0) {
    out += " (exact)";
  }
  out += "\n";
  if (s.norm_rule && s.max_magnitude > kExplodedMagnitude) {
    out += fmt::format(
        "    warning: values reach {:.1e} (beyond {:.0e}): errors relative to such "
        "values say little; see --input-dist\n",
        s.max_magnitude, kExplodedMagnitude);
  }
  if (s.nonfinite_both > 0) {
    out += fmt::format("    warning: {} element{} inf or NaN on both sides\n", s.nonfinite_both,
                       s.nonfinite_both == 1 ? " is" : "s are");
  }
  return out;
}

}  // namespace

std::string RenderCompareReport(const CompareReport& report) {
  std::string out = fmt::format("compare: {} offloaded function{} for {}\n", report.offloaded,
                                report.offloaded == 1 ? "" : "s", report.backends);
  if (report.offloaded == 0) {
    out +=
        "compare: nothing offloaded: both runs used the reference kernels, so their "
        "agreement says nothing about the backend\n";
  }
  out += "outputs:\n";
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    out += fmt::format("  out{}  {}  {}\n", i, report.outputs[i].type,
                       StatsText(report.outputs[i].error));
    out += DetailText(report.outputs[i].error);
    out += CancellationNote(report.outputs[i].error, report.inner_magnitude,
                            "values inside the graph (inputs of its composites)");
  }
  if (GrewInHostOps(report)) {
    out += fmt::format(
        "note: each offloaded function call ({}) agrees with the reference kernels on its own "
        "inputs: the difference grew in the host ops after them (float rounding made large by "
        "an ill-conditioned computation, such as a log of a sum that cancels), not in the "
        "backend\n",
        report.function_calls);
  }
  out += report.composites.empty() ? "composites: none\n" : "composites:\n";
  size_t width = 0;
  for (const CompositeComparison& c : report.composites) width = std::max(width, c.name.size());
  for (const CompositeComparison& c : report.composites) {
    out += fmt::format("  {:<{}}  x{:<3} {}\n", c.name, width, c.error.count, StatsText(c.error));
    out += DetailText(c.error);
    out += CancellationNote(c.error, c.input_magnitude, "its inputs");
  }
  return out;
}

bool ComparePassed(const CompareReport& report, bool require_offload) {
  return report.ok && (report.offloaded > 0 || !require_offload);
}

std::string RenderCompareResult(const CompareReport& report, bool require_offload) {
  int warned = 0, cancelling = 0, failed = 0;
  auto count = [&](const ErrorStats& s, double inputs) {
    warned += s.exploded();
    failed += !s.within;
    cancelling += LikelyCancellation(s, inputs);
  };
  for (const OutputComparison& o : report.outputs) count(o.error, report.inner_magnitude);
  for (const CompositeComparison& c : report.composites) count(c.error, c.input_magnitude);
  if (GrewInHostOps(report)) {
    return "result: FAIL: beyond tolerance (the offloaded functions agree with the reference on "
           "their own inputs: see the note)\n";
  }
  if (!report.ok) {
    return cancelling == failed
               ? "result: FAIL: beyond tolerance (each failure may be float rounding of large "
                 "values: see the notes)\n"
               : "result: FAIL: beyond tolerance\n";
  }
  if (report.offloaded > 0) {
    return warned == 0 ? "result: ok\n"
                       : fmt::format("result: ok, but with {} warning{} above: values that large "
                                     "or not finite make the agreement say little\n",
                                     warned, warned == 1 ? "" : "s");
  }
  return require_offload ? "result: FAIL: nothing offloaded (--require-offload)\n"
                         : "result: nothing offloaded\n";
}

}  // namespace carve
