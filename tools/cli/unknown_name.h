// The error for a name the user typed that names nothing: a parameter
// (--input, --bind, a --params DIR/*.npy file), a pass (--print-ir-before).
// It says what was expected, suggests the closest known name
// (passes/edit_distance.h) and lists the known ones.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"

namespace carve::cli {

// "{what} 'wieght' names no {kind} (did you mean 'weight'?; known: x, weight, bias)".
// At most 24 known names are listed, then "... (N in all)". `shown` replaces
// the name in the text when given (a file whose stem is the name).
std::string UnknownNameMessage(std::string_view what, std::string_view name, std::string_view kind,
                               std::span<const std::string> known, std::string_view shown = "");

// The parameter names of `fn`, in order.
std::vector<std::string> ParamNames(const Function& fn);

}  // namespace carve::cli
