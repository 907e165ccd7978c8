// SVG through Graphviz's C library (libgvc), linked only into the CLI.
#include <graphviz/gvc.h>

#include "fmt/format.h"
#include "tools/cli/viz_writers.h"

namespace carve::viz {

absl::StatusOr<std::string> DotToSvg(const std::string& dot) {
  GVC_t* gvc = gvContext();
  if (gvc == nullptr) return absl::InternalError("graphviz: cannot create a context");
  Agraph_t* graph = agmemread(dot.c_str());
  if (graph == nullptr) {
    gvFreeContext(gvc);
    return absl::InternalError("graphviz: cannot read the DOT text carve wrote");
  }
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
  gvFreeContext(gvc);
  if (!status.ok()) return status;
  return svg;
}

}  // namespace carve::viz
