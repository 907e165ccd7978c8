// WalkPostOrder (ir/post_order.h): children before parents, each node once,
// no recursion, errors and cancellation stop the walk.
#include "ir/post_order.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "support/cancellation.h"

namespace carve {
namespace {

// A DAG over node numbers: kids[n] are n's children.
struct Graph {
  std::vector<std::vector<int>> kids;

  absl::Status Walk(int root, std::vector<int>& order) {
    std::vector<uint8_t> entered(kids.size(), 0);
    return WalkPostOrder(
        root,
        [&](int n) {
          if (entered[n]) return false;
          entered[n] = 1;
          return true;
        },
        [&](int n, auto push) {
          for (int c : kids[n]) push(c);
        },
        [&](int n) { order.push_back(n); });
  }
};

TEST(WalkPostOrder, ChildrenFirstInOrderEachNodeOnce) {
  // 0 -> (1, 2), 1 -> 3, 2 -> (3, 1): 1 is reached first as 0's child.
  Graph g{{{1, 2}, {3}, {3, 1}, {}}};
  std::vector<int> order;
  ASSERT_TRUE(g.Walk(0, order).ok());
  EXPECT_EQ(order, (std::vector<int>{3, 1, 2, 0}));
}

// A child reached first through a later sibling's subtree is still left
// before every node that reads it.
TEST(WalkPostOrder, SharedChildLeftBeforeEveryReader) {
  // 0 -> (2, 1), 2 -> 1.
  Graph g{{{2, 1}, {}, {1}}};
  std::vector<int> order;
  ASSERT_TRUE(g.Walk(0, order).ok());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 0}));
}

TEST(WalkPostOrder, MillionNodeChainNeedsNoRecursion) {
  constexpr int kNodes = 1'000'000;
  Graph g;
  g.kids.resize(kNodes);
  for (int n = 0; n + 1 < kNodes; ++n) g.kids[n] = {n + 1};
  std::vector<int> order;
  ASSERT_TRUE(g.Walk(0, order).ok());
  ASSERT_EQ(order.size(), static_cast<size_t>(kNodes));
  EXPECT_EQ(order.front(), kNodes - 1);
  EXPECT_EQ(order.back(), 0);
}

TEST(WalkPostOrder, LeaveErrorStopsTheWalk) {
  Graph g{{{1, 2}, {}, {}}};
  std::vector<int> order;
  absl::Status status = WalkPostOrder(
      0, [](int) { return true; }, [&](int n, auto push) { for (int c : g.kids[n]) push(c); },
      [&](int n) -> absl::Status {
        order.push_back(n);
        return n == 1 ? absl::InvalidArgumentError("stop") : absl::OkStatus();
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(order, (std::vector<int>{1}));
}

TEST(WalkPostOrder, CancellationStopsALongWalk) {
  constexpr int kNodes = 3 * static_cast<int>(kWalkCancellationPeriod);
  Graph g;
  g.kids.resize(kNodes);
  for (int n = 0; n + 1 < kNodes; ++n) g.kids[n] = {n + 1};
  RequestCancellation();
  std::vector<int> order;
  absl::Status status = g.Walk(0, order);
  ClearCancellation();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(order.size(), kWalkCancellationPeriod);
  // Once cleared, the same walk completes.
  order.clear();
  EXPECT_TRUE(g.Walk(0, order).ok());
  EXPECT_EQ(order.size(), static_cast<size_t>(kNodes));
}

}  // namespace
}  // namespace carve
