#include "passes/layout/convert_layout.h"

#include <charconv>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ir/layout.h"
#include "passes/layout/conv_rules.h"
#include "passes/layout/layout_rewriter.h"
#include "passes/simplify/cleanup_passes.h"
#include "support/status_macros.h"

namespace carve {

absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired, Arena* arena,
                                                      bool canonicalize) {
  // TVM's ConvertLayout requires CanonicalizeOps (bias_add -> add), which a
  // pass sequence runs first.
  const Function* canonical = fn;
  if (canonicalize) {
    CARVE_ASSIGN_OR_RETURN(canonical, CanonicalizeOpsFunction(fn, arena));
  }
  layout::LayoutRewriter rewriter(arena, desired);
  rewriter.ScanTupleUses(canonical);
  return Cast<Function>(rewriter.Mutate(canonical));
}

namespace {

absl::Status CheckEntry(std::string_view name, std::string_view data, std::string_view kernel,
                        absl::flat_hash_set<std::string>& seen) {
  const OpInfo* op = FindOp(name);
  if (op == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: '{}' is not an op whose layout ConvertLayout converts", name));
  }
  if (!seen.insert(std::string(name)).second) {
    return absl::InvalidArgumentError(
        fmt::format("ConvertLayout: '{}' is given a desired layout twice", name));
  }
  if (layout::ConvertsDataLayout(*op)) return layout::CheckDataConvertible(*op, data, kernel);
  return layout::CheckConvertible(*op, data, kernel);
}

}  // namespace

absl::StatusOr<OpLayout> ParseOpLayout(std::string_view entry) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t colon = entry.find(':', start);
    parts.push_back(entry.substr(start, colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  bool empty_part = false;
  for (std::string_view p : parts) empty_part = empty_part || p.empty();
  if (parts.size() < 2 || parts.size() > 3 || empty_part) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: layouts entry '{}' is not op:data_layout or op:data_layout:kernel_layout",
        entry));
  }
  OpLayout out{std::string(parts[0]), std::string(parts[1])};
  if (parts.size() == 3) {
    out.kernel = std::string(parts[2]);
    out.kernel_given = true;
  }
  return out;
}

std::string DescribeConvertLayout(const DesiredLayout& desired) {
  std::vector<std::string> args;
  if (!desired.data.empty()) {
    args.push_back(desired.data);
    if (desired.kernel != "default") args.push_back(desired.kernel);
    // Set only by a backend's recipe (ACL's optimize hook), never by
    // pipeline text: printed so the two depthwise layouts stay apart.
    if (!desired.depthwise_kernel.empty()) {
      args.push_back(fmt::format("depthwise_kernel_layout={}", desired.depthwise_kernel));
    }
    if (desired.ops != std::vector<std::string>{"nn.conv2d"}) {
      args.push_back(fmt::format("ops=[{}]", fmt::join(desired.ops, ",")));
    }
  }
  if (!desired.per_op.empty()) {
    std::vector<std::string> entries;
    for (const OpLayout& entry : desired.per_op) {
      entries.push_back(entry.kernel_given
                            ? fmt::format("{}:{}:{}", entry.op, entry.data, entry.kernel)
                            : fmt::format("{}:{}", entry.op, entry.data));
    }
    args.push_back(fmt::format("layouts=[{}]", fmt::join(entries, ",")));
  }
  if (!desired.skip_layers.empty()) {
    args.push_back(fmt::format("skip_layers=[{}]", fmt::join(desired.skip_layers, ",")));
  }
  return fmt::format("ConvertLayout({})", fmt::join(args, ","));
}

absl::StatusOr<int64_t> ParseSkipLayer(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: skip_layers entry '{}' is not a layer number (0, 1, ...)", text));
  }
  return value;
}

absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired) {
  if (desired.ops.empty() && desired.per_op.empty()) {
    return absl::InvalidArgumentError("ConvertLayout: no op to convert");
  }
  absl::flat_hash_set<std::string> seen;
  for (const std::string& name : desired.ops) {
    CARVE_RETURN_IF_ERROR(CheckEntry(name, desired.data, desired.kernel, seen));
  }
  for (const OpLayout& entry : desired.per_op) {
    CARVE_RETURN_IF_ERROR(CheckEntry(entry.op, entry.data, entry.kernel, seen));
  }
  bool skippable = false;
  for (const std::string& name : seen) {
    skippable = skippable || layout::CountsForSkipLayers(*FindOp(name));
  }
  if (!desired.skip_layers.empty() && !skippable) {
    return absl::InvalidArgumentError(
        "ConvertLayout: skip_layers applies only when nn.conv2d is converted");
  }
  for (int64_t layer : desired.skip_layers) {
    if (layer < 0) {
      return absl::InvalidArgumentError(
          fmt::format("ConvertLayout: skip_layers entry {} is negative", layer));
    }
  }
  return MakeFunctionPass(
      "ConvertLayout", DescribeConvertLayout(desired),
      [desired](const Function* fn, const Module& mod,
                PassContext&) -> absl::StatusOr<const Function*> {
        return ConvertLayoutFunction(fn, desired, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
