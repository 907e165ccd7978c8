// The prelude's List and Option data types (TVM v0.16's
// python/tvm/relay/std/prelude.rly), as module text for the ADT tests of
// the parser, InferType, the interpreter and the BYOC passes: one copy, so
// that the tests agree on the definitions they exercise. Header-only: a
// string constant needs no library.
#pragma once

namespace carve::testing {

// The version header, then `type Option[A]`.
inline constexpr char kOptionPrelude[] = R"(#[version = "0.0.5"]
type Option[A] {
  Some(A),
  None,
}
)";

// The version header, then `type List[A]` and `type Option[A]`.
inline constexpr char kListOptionPrelude[] = R"(#[version = "0.0.5"]
type List[A] {
  Cons(A, List[A]),
  Nil,
}

type Option[A] {
  Some(A),
  None,
}
)";

}  // namespace carve::testing
