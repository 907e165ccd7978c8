#include "ir/structural_path.h"

#include "fmt/format.h"

namespace carve {
namespace {

constexpr size_t kMaxSteps = 64;
constexpr size_t kHeadSteps = 16;
constexpr size_t kTailSteps = kMaxSteps - kHeadSteps;

void AppendStep(std::string& out, const PathStep& step) {
  switch (step.field) {
    case PathField::kCallee:
      out += ".callee";
      return;
    case PathField::kArg:
      out += fmt::format(".args[{}]", step.index);
      return;
    case PathField::kField:
      out += fmt::format(".fields[{}]", step.index);
      return;
    case PathField::kTuple:
      out += ".tuple";
      return;
    case PathField::kVar:
      out += ".var";
      return;
    case PathField::kValue:
      out += ".value";
      return;
    case PathField::kBody:
      out += ".body";
      return;
    case PathField::kCond:
      out += ".cond";
      return;
    case PathField::kThen:
      out += ".then_branch";
      return;
    case PathField::kElse:
      out += ".else_branch";
      return;
    case PathField::kParam:
      out += fmt::format(".params[{}]", step.index);
      return;
    case PathField::kRef:
      out += ".ref";
      return;
    case PathField::kData:
      out += ".data";
      return;
    case PathField::kClause:
      out += fmt::format(".clauses[{}].rhs", step.index);
      return;
    case PathField::kPatternVar:
      out += fmt::format(".clauses[{}].lhs", step.index);
      return;
  }
}

}  // namespace

std::string RenderPath(std::string_view root, std::span<const PathStep> steps,
                       std::string_view suffix) {
  std::string out(root);
  if (steps.size() <= kMaxSteps) {
    for (const PathStep& step : steps) AppendStep(out, step);
  } else {
    for (size_t i = 0; i < kHeadSteps; ++i) AppendStep(out, steps[i]);
    out += fmt::format(".<...{} steps...>", steps.size() - kHeadSteps - kTailSteps);
    for (size_t i = steps.size() - kTailSteps; i < steps.size(); ++i) AppendStep(out, steps[i]);
  }
  out += suffix;
  return out;
}

}  // namespace carve
