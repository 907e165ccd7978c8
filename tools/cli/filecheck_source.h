// A named text with line lookup, for FileCheck-style messages
// (`name:line:col: kind: message`, the line, a caret). Private to
// filecheck*.cc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmt/format.h"

namespace carve::filecheck {

class SourceText {
 public:
  SourceText(std::string name, std::string_view text) : name_(std::move(name)), text_(text) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // 0-based line index of `offset`.
  size_t LineIndex(size_t offset) const {
    return size_t(std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) -
                  line_starts_.begin()) -
           1;
  }
  size_t line_count() const { return line_starts_.size(); }

  // The text of a line without its end (and without a '\r' before it).
  std::string_view Line(size_t index) const {
    size_t b = line_starts_[index];
    size_t e = text_.find('\n', b);
    if (e == std::string_view::npos) e = text_.size();
    if (e > b && text_[e - 1] == '\r') --e;
    return text_.substr(b, e - b);
  }

  // `name:line:col: kind: message`, the line and a caret under `offset`.
  std::string Render(size_t offset, std::string_view kind, std::string_view message) const {
    offset = std::min(offset, text_.size());
    size_t line = LineIndex(offset);
    size_t col = offset - line_starts_[line];
    std::string_view src = Line(line);
    // Keep tabs so that the caret lines up under the same characters.
    std::string pad;
    for (size_t i = 0; i < col && i < src.size(); ++i) pad.push_back(src[i] == '\t' ? '\t' : ' ');
    if (col > src.size()) pad.append(col - src.size(), ' ');
    return fmt::format("{}:{}:{}: {}: {}\n{}\n{}^\n", name_, line + 1, col + 1, kind, message, src,
                       pad);
  }

 private:
  std::string name_;
  std::string_view text_;
  std::vector<size_t> line_starts_;
};

}  // namespace carve::filecheck
