// The printed text of a step, with what the REPL's `print` and `diff` need
// to find their way in it: the lines, the lines of each global function, and
// (made on first use) which line binds each `%name` and which lines read it.
// The text is exactly `carve fmt`'s, so `%N` names are the ones `match`,
// `why` and the user see.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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

  // Bindings and uses, for `print %N DEPTH` and completion. Names are
  // small integers (`%N` -> 2N, other names 2k+1 in order of appearance),
  // and uses are kept in flat arrays (no allocation per line or name): the
  // index of a 100k-op module is built in a few tens of milliseconds.
  static constexpr uint32_t kNoName = UINT32_MAX;
  struct LineInfo {
    std::string_view binds;  // "%5" for `%5 = ...` / `let %5...`, or ""
    uint32_t binds_id = kNoName;
    uint32_t end = 0;                         // one past the binding's last line
    uint32_t reads_begin = 0, reads_end = 0;  // into ReadIds()
  };
  // Built on first call.
  const std::vector<LineInfo>& Lines() const;
  // The ids of the names line i reads: ReadIds()[l.reads_begin, l.reads_end).
  const std::vector<uint32_t>& ReadIds() const { return reads_; }
  // The id of `name`, or kNoName when the text never mentions it.
  uint32_t NameId(std::string_view name) const;
  // The line binding name `id` (`%5`, `%x` of a let), or SIZE_MAX.
  size_t BindingLine(uint32_t id) const;
  // The lines that mention name `id` (other than its binding line), in order.
  std::span<const uint32_t> Readers(uint32_t id) const;

 private:
  void BuildIndex() const;
  uint32_t IdOf(std::string_view name, bool add) const;
  mutable bool indexed_ = false;
  mutable std::vector<LineInfo> lines_;
  mutable std::vector<uint32_t> reads_;  // name ids, by line
  mutable absl::flat_hash_map<std::string_view, uint32_t> other_names_;
  mutable std::vector<uint32_t> binding_;         // by id: line, or UINT32_MAX
  mutable std::vector<uint32_t> reader_offsets_;  // by id: into readers_
  mutable std::vector<uint32_t> readers_;
};

// Prints `mod` and indexes the text.
std::shared_ptr<StepText> MakeStepText(const Module& mod, const PrintOptions& options);

// The neighbourhood of `name` for `print %N DEPTH`: the lines of the nodes
// that produce it and that consume it, up to `depth` edges away, in text
// order, with "  ..." where lines are skipped. Error when no line binds or
// reads `name`.
absl::StatusOr<std::string> Neighbourhood(const StepText& text, std::string_view name, int depth);

}  // namespace carve::repl
