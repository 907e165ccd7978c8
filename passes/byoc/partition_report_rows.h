// The "not offloaded" rows of the partition report (partition_report.h),
// merged so that one pruning rule's many numbers read as one row.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace carve {

// One "not offloaded" row: `op  count  reason`.
struct HostRow {
  std::string op;
  int count = 0;
  std::string reason;
};

// The "not offloaded" rows, with the rows of one op whose reasons differ
// in one number only merged into one row that lists the values (with how
// many ops had each, when more than one): nnapi's cost rule gives every
// pruned partition its own cost, one row each before.
//   add  5  pruned: cost rule: static cost 92, 808, 1136 (x2) or 2472 below the minimum 4096
std::vector<HostRow> MergeByNumbers(const std::map<std::pair<std::string, std::string>, int>& rows);

}  // namespace carve
