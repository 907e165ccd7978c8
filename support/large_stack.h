// Runs a recursive algorithm on a thread with a large stack, for the few
// passes whose natural form is recursion over the expression tree (TVM's
// ToANormalForm) where an explicit stack would obscure the algorithm. The
// stack is reserved address space: only the pages a run touches are used.
#pragma once

#include <cstddef>
#include <functional>

namespace carve {

// Calls `fn` on a new thread with a stack of `bytes` and waits for it. Falls
// back to calling it on this thread when no such thread can be made.
void RunWithLargeStack(const std::function<void()>& fn, size_t bytes = size_t{1} << 30);

}  // namespace carve
