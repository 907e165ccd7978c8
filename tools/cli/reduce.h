// The test-case reducer behind `carve reduce` (docs/reduce.md): shrinks a
// .relay module while a condition holds, keeping every candidate valid (it
// must parse and type-check before the condition is asked).
//
// Phases, repeated until none makes progress (each accepted candidate is
// strictly smaller, so the loop ends):
//   1. root: make one node of @main its whole body (smallest first);
//   2. outputs: drop fields of a tuple body;
//   3. bindings: delta debugging over @main's nodes (calls, tuples, tuple
//      fields, ifs, lets), replacing chunks of them by new parameters of
//      their types (halving the chunk size down to one node);
//   4. hoisting: replace a node by an operand of the same type;
//   5. functions: delete other global functions;
//   6. attributes: delete `name=value` attributes (back to their defaults);
//   7. numbers: shrink integer literals (shapes, attribute values) towards 1
//      and 0.
// Same input and condition, same output: no randomness, a fixed order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace carve::cli {

struct Command;
// Registers `carve reduce` (cmd_reduce.cc).
void AddReduceCommands(std::vector<Command>& commands);

struct ReduceStats {
  int candidates = 0;  // valid candidates the condition was asked about
  int invalid = 0;     // candidates that did not type-check (not asked)
  int accepted = 0;
  bool interrupted = false;  // Ctrl-C stopped it (CancellationRequested())
};

// Whether a candidate text still shows the behaviour being reduced.
using InterestingFn = std::function<bool(const std::string& text)>;

// Reduces `text` (which must satisfy `interesting`; the caller checks).
// Parameters of @main named in `pinned` are kept even when unused (the
// command names them, e.g. `run --input x=F.npy`). Returns the smallest text
// found; when cancellation is requested (support/cancellation.h) it stops
// asking `interesting` and returns the smallest so far.
std::string ReduceRelay(const std::string& text, const InterestingFn& interesting,
                        ReduceStats* stats = nullptr, const std::vector<std::string>& pinned = {});

// True when `text` parses and type-checks.
bool IsValidRelay(const std::string& text);
// OK when `text` parses and type-checks; else the first error, its spans in
// `name`. The text stays registered for rendering the error.
absl::Status CheckValidRelay(const std::string& name, const std::string& text);

}  // namespace carve::cli
