// One iterative post-order walk over a DAG, for the passes and analyses that
// walk their own node handles (node indices, tagged keys, expressions with a
// pass-specific visited set) instead of an ExprVisitor: an explicit stack,
// so a chain of a million nodes cannot overflow the C++ stack, and one place
// where a long walk polls for cancellation (support/cancellation.h).
//
//   WalkPostOrder(root, enter, children, leave)
//     enter(n) -> bool        n reached the top of the stack for the first
//                             time? Return false when n was entered before
//                             (it is dropped); the caller's visited set.
//     children(n, push)       calls push(c) for each child of n to visit, in
//                             order (the first child is visited first); push
//                             nothing to not descend.
//     leave(n)                after every child of n was left; returns void
//                             or absl::Status (an error stops the walk).
//
// A node is pushed once per edge and entered once: on a DAG, a node is left
// after all its children, as in ExprVisitor's post order. (A node entered
// but not yet left that is reached again is on a cycle; `enter` can tell,
// as its state says so.)
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "support/cancellation.h"

namespace carve {

// How many nodes a walk leaves between two looks at the cancellation flag.
inline constexpr size_t kWalkCancellationPeriod = 4096;

// The walk described above. OK, leave's first error, or CancelledError when
// cancellation was requested during the walk (the caller discards what the
// walk computed).
template <typename Node, typename Enter, typename Children, typename Leave>
absl::Status WalkPostOrder(Node root, Enter&& enter, Children&& children, Leave&& leave) {
  struct Item {
    Node node;
    bool expanded;
  };
  std::vector<Item> stack = {{root, false}};
  std::vector<Node> kids;
  size_t left = 0;
  while (!stack.empty()) {
    Item& top = stack.back();
    Node n = top.node;
    if (top.expanded) {
      stack.pop_back();
      if constexpr (std::is_same_v<decltype(leave(n)), absl::Status>) {
        absl::Status status = leave(n);
        if (!status.ok()) return status;
      } else {
        leave(n);
      }
      // The hook point: one relaxed load every few thousand nodes.
      if (++left % kWalkCancellationPeriod == 0 && CancellationRequested()) {
        return absl::CancelledError("interrupted");
      }
      continue;
    }
    if (!enter(n)) {
      stack.pop_back();
      continue;
    }
    top.expanded = true;  // `top` is not used past the pushes below
    kids.clear();
    children(n, [&](Node c) { kids.push_back(c); });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, false});
  }
  return absl::OkStatus();
}

}  // namespace carve
