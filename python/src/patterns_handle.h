// Patterns and pattern libraries as Python objects.
#pragma once

#include <memory>

#include "patterns/library.h"
#include "patterns/pattern.h"

namespace carve::python {

struct PatternHandle {
  Pattern pattern;
};

// A loaded `.pat` text (patterns, rules and backends).
struct PatternLibraryHandle {
  std::shared_ptr<const PatternLibrary> library;
};

}  // namespace carve::python
