#include "ir/einsum_equation.h"

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace carve {
namespace {

absl::Status Bad(std::string_view equation, std::string_view why) {
  return absl::InvalidArgumentError(fmt::format("bad equation \"{}\": {}", equation, why));
}

// One side's subscripts with "..." folded into '.'; fails on other
// characters or a second ellipsis.
absl::StatusOr<std::string> Subscripts(std::string_view equation, std::string_view part) {
  std::string out;
  for (size_t i = 0; i < part.size(); ++i) {
    char c = part[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (part.substr(i, 3) != "..." || out.find('.') != std::string::npos) {
        return Bad(equation, "an ellipsis is \"...\", at most once per operand");
      }
      out += '.';
      i += 2;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      out += c;
    } else {
      return Bad(equation, fmt::format("unexpected character '{}'", c));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<EinsumEquation> ParseEinsumEquation(std::string_view equation, size_t num_inputs) {
  EinsumEquation eq;
  size_t arrow = equation.find("->");
  std::string_view lhs = equation.substr(0, arrow);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    std::string_view part =
        lhs.substr(start, comma == std::string_view::npos ? lhs.npos : comma - start);
    auto s = Subscripts(equation, part);
    if (!s.ok()) return s.status();
    eq.inputs.push_back(*s);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (eq.inputs.size() != num_inputs) {
    return Bad(equation,
               fmt::format("it has {} operands, got {} tensors", eq.inputs.size(), num_inputs));
  }
  bool ellipsis = false;
  std::map<char, int> count;
  for (const std::string& in : eq.inputs) {
    for (char c : in) {
      if (c == '.')
        ellipsis = true;
      else
        ++count[c];
    }
  }
  if (arrow != std::string_view::npos) {
    auto s = Subscripts(equation, equation.substr(arrow + 2));
    if (!s.ok()) return s.status();
    eq.output = *s;
    for (char c : eq.output) {
      if (c != '.' && count.find(c) == count.end()) {
        return Bad(equation, fmt::format("output label '{}' appears in no operand", c));
      }
      if (c != '.' && std::count(eq.output.begin(), eq.output.end(), c) > 1) {
        return Bad(equation, fmt::format("output label '{}' appears twice", c));
      }
    }
    if (eq.output.find('.') == std::string::npos && ellipsis) {
      // numpy requires the ellipsis in an explicit output unless its dims
      // are all 1; carve keeps the stricter rule.
      return Bad(equation, "the output must keep the ellipsis");
    }
  } else {
    if (ellipsis) eq.output += '.';
    for (const auto& [c, n] : count) {
      if (n == 1) eq.output += c;
    }
  }
  return eq;
}

absl::StatusOr<EinsumDims> BindEinsumDims(const EinsumEquation& eq,
                                          const std::vector<std::vector<int64_t>>& shapes) {
  EinsumDims dims;
  // Joins extent `d` into `have`: equal, or one of them 1 (broadcast) or
  // unknown (-1).
  auto merge = [](int64_t& have, int64_t d) {
    if (have == d || d == 1) return true;
    if (d == -1) {
      if (have == 1) have = -1;
      return true;
    }
    if (have == -1 || have == 1) {
      have = d;
      return true;
    }
    return false;
  };
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const std::string& sub = eq.inputs[i];
    const std::vector<int64_t>& shape = shapes[i];
    const bool has_ellipsis = sub.find('.') != std::string::npos;
    const size_t named = sub.size() - (has_ellipsis ? 1 : 0);
    if (shape.size() < named || (!has_ellipsis && shape.size() != named)) {
      return absl::InvalidArgumentError(fmt::format(
          "operand {} has rank {}, its subscripts \"{}\" need {}", i, shape.size(), sub, named));
    }
    const size_t ell = shape.size() - named;
    dims.ellipsis_rank.push_back(has_ellipsis ? ell : 0);
    size_t axis = 0;
    for (char c : sub) {
      if (c == '.') {
        if (dims.ellipsis.size() < ell)
          dims.ellipsis.insert(dims.ellipsis.begin(), ell - dims.ellipsis.size(), 1);
        for (size_t k = 0; k < ell; ++k) {
          int64_t& have = dims.ellipsis[dims.ellipsis.size() - ell + k];
          if (!merge(have, shape[axis + k])) {
            return absl::InvalidArgumentError(
                fmt::format("operand {}'s ellipsis dim {} does not broadcast with {}", i,
                            shape[axis + k], have));
          }
        }
        axis += ell;
        continue;
      }
      auto [it, fresh] = dims.label.emplace(c, shape[axis]);
      if (!fresh && !merge(it->second, shape[axis])) {
        return absl::InvalidArgumentError(
            fmt::format("label '{}' has extents {} and {}", c, it->second, shape[axis]));
      }
      ++axis;
    }
  }
  for (char c : eq.output) {
    if (c == '.')
      dims.output.insert(dims.output.end(), dims.ellipsis.begin(), dims.ellipsis.end());
    else
      dims.output.push_back(dims.label[c]);
  }
  return dims;
}

}  // namespace carve
