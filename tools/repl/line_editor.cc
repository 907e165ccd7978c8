#include "tools/repl/line_editor.h"

#include <histedit.h>

#include <cerrno>
#include <clocale>

#include "fmt/format.h"

namespace carve::repl {

LineEditor::LineEditor(FILE* in, FILE* out, std::string history_file, Completer completer)
    : out_(out), history_file_(std::move(history_file)), completer_(std::move(completer)) {
  // libedit reads multibyte characters by the C library's LC_CTYPE, which is
  // "C" until set: without this, `load modèle.relay` typed at a UTF-8
  // terminal reached the REPL as "load modle.relay". Only LC_CTYPE is taken
  // from the environment (numbers keep the "C" formatting).
  std::setlocale(LC_CTYPE, "");
  el_ = el_init("carve", in, out, stderr);
  el_set(el_, EL_CLIENTDATA, this);
  el_set(el_, EL_PROMPT, &LineEditor::Prompt);
  el_set(el_, EL_EDITOR, "emacs");
  el_set(el_, EL_ADDFN, "carve-complete", "complete the word at the cursor",
         &LineEditor::CompleteKey);
  el_set(el_, EL_BIND, "^I", "carve-complete", nullptr);
  hist_ = history_init();
  HistEvent ev;
  history(hist_, &ev, H_SETSIZE, 1000);
  history(hist_, &ev, H_SETUNIQUE, 1);
  if (!history_file_.empty()) history(hist_, &ev, H_LOAD, history_file_.c_str());
  el_set(el_, EL_HIST, history, hist_);
}

LineEditor::~LineEditor() {
  history_end(hist_);
  el_end(el_);
}

char* LineEditor::Prompt(editline* el) {
  void* self = nullptr;
  el_get(el, EL_CLIENTDATA, &self);
  return const_cast<char*>(static_cast<LineEditor*>(self)->prompt_.c_str());
}

LineEditor::Result LineEditor::ReadLine(const std::string& prompt, std::string& line) {
  prompt_ = prompt;
  int count = 0;
  errno = 0;
  const char* text = el_gets(el_, &count);
  if (text == nullptr) {
    // A signal (Ctrl-C) interrupts the terminal read; end of input is Ctrl-D.
    if (count == -1 && errno == EINTR) {
      el_reset(el_);
      return Result::kInterrupted;
    }
    return Result::kEof;
  }
  line.assign(text, size_t(count));
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return Result::kLine;
}

void LineEditor::AddHistory(const std::string& line) {
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  HistEvent ev;
  history(hist_, &ev, H_ENTER, line.c_str());
  if (!history_file_.empty()) history(hist_, &ev, H_SAVE, history_file_.c_str());
}

unsigned char LineEditor::CompleteKey(editline* el, int) {
  void* data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  auto* self = static_cast<LineEditor*>(data);
  const LineInfo* info = el_line(el);
  std::string before(info->buffer, size_t(info->cursor - info->buffer));
  Completion c = self->completer_(before);
  if (c.candidates.empty()) return CC_ERROR;
  std::string typed = before.substr(c.start);
  std::string common = CommonPrefix(c.candidates);
  if (common.size() > typed.size()) {
    el_insertstr(el, common.substr(typed.size()).c_str());
    // One pass left: show its argument list, as the users asked.
    if (c.candidates.size() == 1 && c.candidates[0].display != c.candidates[0].text) {
      fmt::print(self->out_, "\n{}\n", c.candidates[0].display);
      return CC_REDISPLAY;
    }
    return CC_REFRESH;
  }
  if (c.candidates.size() == 1) {
    if (c.candidates[0].display != c.candidates[0].text) {
      fmt::print(self->out_, "\n{}\n", c.candidates[0].display);
      return CC_REDISPLAY;
    }
    return CC_REFRESH;
  }
  // Several: list them (at most a screenful).
  constexpr size_t kShown = 60;
  std::string list = "\n";
  for (size_t i = 0; i < c.candidates.size() && i < kShown; ++i) {
    list += fmt::format("  {}\n", c.candidates[i].display);
  }
  if (c.candidates.size() > kShown) list += fmt::format("  ... ({} in all)\n", c.candidates.size());
  fmt::print(self->out_, "{}", list);
  return CC_REDISPLAY;
}

}  // namespace carve::repl
