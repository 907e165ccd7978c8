// The table of converters, built once from the family files' lists.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

const absl::flat_hash_map<std::string, ConverterFn>& Table() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string, ConverterFn>();
    for (auto family : {ElementwiseConverters, NNConverters, ShapeConverters, MathConverters,
                        ReduceConverters, ExtraConverters, LossConverters, IndexConverters,
                        RecurrentConverters, QuantConverters, VisionConverters}) {
      for (const ConverterEntry& e : family()) t->emplace(std::string(e.op_type), e.fn);
    }
    return t;
  }();
  return *table;
}

}  // namespace

ConverterFn FindConverter(std::string_view op_type) {
  auto it = Table().find(std::string(op_type));
  return it == Table().end() ? nullptr : it->second;
}

std::vector<std::string> SupportedOpTypes() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : Table()) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace carve::onnx_import
