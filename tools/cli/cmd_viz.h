// `carve viz` (cmd_viz.cc), registered by cli.cc.
#pragma once

#include <vector>

#include "tools/cli/cli.h"

namespace carve::cli {

void AddVizCommands(std::vector<Command>& commands);  // viz

}  // namespace carve::cli
