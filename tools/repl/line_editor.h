// Line editing for the interactive REPL, on libedit: emacs keys, a history
// kept in a file, and Tab completion through a callback.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tools/repl/completion.h"

struct editline;
struct history;

namespace carve::repl {

class LineEditor {
 public:
  using Completer = std::function<Completion(std::string_view before_cursor)>;

  // Edits on the terminal `in`/`out`. `history_file` ("" for none) is read
  // now and written by AddHistory.
  LineEditor(FILE* in, FILE* out, std::string history_file, Completer completer);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  enum class Result { kLine, kEof, kInterrupted };
  // Reads one line (without its newline) into `line`.
  Result ReadLine(const std::string& prompt, std::string& line);
  // Adds a non-empty line to the history and saves the history file.
  void AddHistory(const std::string& line);

 private:
  static unsigned char CompleteKey(editline* el, int ch);
  static char* Prompt(editline* el);

  editline* el_ = nullptr;
  history* hist_ = nullptr;
  FILE* out_;
  std::string history_file_;
  Completer completer_;
  std::string prompt_;
};

}  // namespace carve::repl
