// A suggestion for a node name the user mistyped: `--at 3` for `%3`,
// `--at main` for `@main`. Shared by `carve why`, `carve viz --around` and
// the REPL's `why`, whose names are those `carve fmt` prints.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace carve::cli {

// The name `at` most likely meant, given `exists` (whether a node has that
// name): `at` with `%` or `@` added, or with one swapped for the other. ""
// when no such name exists.
std::string SuggestNodeName(std::string_view at,
                            const std::function<bool(const std::string&)>& exists);

}  // namespace carve::cli
