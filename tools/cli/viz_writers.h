// Writers for `carve viz`: DOT (written by carve, deterministic), SVG (DOT
// laid out by Graphviz's library), one self-contained HTML page (the SVG
// inline with a small script for pan, zoom and node details) and an indented
// terminal tree in the manner of TVM's relay_viz TermPlotter.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "tools/cli/viz_graph.h"

namespace carve::viz {

std::string WriteDot(const Graph& g);

// Lays `dot` out with Graphviz's `dot` engine and renders SVG.
absl::StatusOr<std::string> DotToSvg(const std::string& dot);

// `svg` is DotToSvg(WriteDot(g)).
std::string WriteHtml(const Graph& g, const std::string& svg);

std::string WriteTerm(const Graph& g);

}  // namespace carve::viz
