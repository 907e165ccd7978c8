// `carve viz` (cmd_viz.cc), registered by cli.cc, and the parts of it the
// REPL's `viz` shares.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/cli/cli.h"
#include "tools/cli/viz_graph.h"

namespace carve::cli {

void AddVizCommands(std::vector<Command>& commands);  // viz

// Graphs with more nodes than this are drawn as the region summary unless
// --max-nodes says otherwise: Graphviz takes minutes on ~10k nodes and the
// picture is unreadable long before.
constexpr int kVizDefaultMaxNodes = 400;

// The format an output file's extension names (.dot/.gv, .svg, .html, .txt
// for term); "" when it names none carve writes.
std::string VizFormatOfPath(const std::string& path);

// `graph` drawn as `format` ("dot", "svg", "html" or "term"). svg and html
// (Graphviz's layout) are ResourceExhausted above 5,000 nodes.
absl::StatusOr<std::string> RenderViz(const viz::Graph& graph, const std::string& format);

}  // namespace carve::cli
