// The printed text of a step, with what the REPL's `print` and `diff` need
// to find their way in it: the lines, the lines of each global function, and
// (made on first use) which line binds each `%name` and which lines read it.
// The text is exactly `carve fmt`'s, so `%N` names are the ones `match`,
// `why` and the user see.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "grammar/printer.h"
#include "ir/module.h"

namespace carve::repl {

struct StepText {
  std::string text;
  std::vector<size_t> line_starts;  // offset of each line in `text`

  // The lines of one global function (`def @f ... }`), or of the
  // `#[metadata]` section (named "#[metadata]").
  struct Block {
    std::string name;  // "@main"
    size_t first = 0;  // first line
    size_t end = 0;    // one past the last line
  };
  std::vector<Block> blocks;

  size_t num_lines() const { return line_starts.size(); }
  std::string_view Line(size_t i) const;
  // The block named `name`, or nullptr.
  const Block* FindBlock(std::string_view name) const;
  // The block holding line `i`, or nullptr.
  const Block* BlockOf(size_t i) const;

  // Bindings and uses, for `print %N DEPTH`.
  struct LineInfo {
    std::string_view binds;               // "%5" for `%5 = ...` / `let %5...`, or ""
    size_t end = 0;                       // one past the binding's last line
    std::vector<std::string_view> reads;  // the %names the line mentions
  };
  // Built on first call.
  const std::vector<LineInfo>& Lines() const;
  // The line binding `name` (`%5`, `%x` of a let), or SIZE_MAX.
  size_t BindingLine(std::string_view name) const;
  // The lines that mention `name` (other than its binding line).
  const std::vector<uint32_t>& Readers(std::string_view name) const;

 private:
  void BuildIndex() const;
  mutable bool indexed_ = false;
  mutable std::vector<LineInfo> lines_;
  mutable absl::flat_hash_map<std::string_view, size_t> binding_;
  mutable absl::flat_hash_map<std::string_view, std::vector<uint32_t>> readers_;
};

// Prints `mod` and indexes the text.
std::shared_ptr<StepText> MakeStepText(const Module& mod, const PrintOptions& options);

// The neighbourhood of `name` for `print %N DEPTH`: the lines of the nodes
// that produce it and that consume it, up to `depth` edges away, in text
// order, with "  ..." where lines are skipped. Error when no line binds or
// reads `name`.
absl::StatusOr<std::string> Neighbourhood(const StepText& text, std::string_view name, int depth);

}  // namespace carve::repl
