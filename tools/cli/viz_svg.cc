// SVG through Graphviz's C library (libgvc), linked only into the CLI.
#include <graphviz/gvc.h>

#include <mutex>

#include "tools/cli/viz_writers.h"

namespace carve::viz {
namespace {

// One Graphviz context for the whole process, never freed. Graphviz 2.42
// (Debian 12) cannot lay out twice in a process with a fresh context each
// time: its pango plugin caches a pointer to the last font name, which
// lives in the context's font table, so the next layout after
// gvFreeContext strcmp()s freed memory (a use-after-free that ASan reports
// and valgrind shows in a plain build; a 20-line C program doing
// gvContext/agmemread/gvLayout/gvRenderData/gvFreeContext twice reproduces
// it, docs/fuzzing.md "Sanitizers"). With one context the font table, and
// the cached name, stay alive. Graphviz is not thread-safe: the mutex
// serializes layouts.
GVC_t* Context() {
  static GVC_t* const gvc = gvContext();
  return gvc;
}

std::mutex& GraphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

absl::StatusOr<std::string> DotToSvg(const std::string& dot) {
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  GVC_t* gvc = Context();
  if (gvc == nullptr) return absl::InternalError("graphviz: cannot create a context");
  Agraph_t* graph = agmemread(dot.c_str());
  if (graph == nullptr) return absl::InternalError("graphviz: cannot read the DOT text carve wrote");
  std::string svg;
  absl::Status status;
  if (gvLayout(gvc, graph, "dot") != 0) {
    status = absl::InternalError("graphviz: layout failed (is the dot plugin installed?)");
  } else {
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, graph, "svg", &data, &length) != 0 || data == nullptr) {
      status = absl::InternalError("graphviz: SVG rendering failed");
    } else {
      svg.assign(data, length);
    }
    if (data != nullptr) gvFreeRenderData(data);
    gvFreeLayout(gvc, graph);
  }
  agclose(graph);
  if (!status.ok()) return status;
  return svg;
}

}  // namespace carve::viz
