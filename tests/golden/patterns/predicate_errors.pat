// Predicates that could never hold are load errors with a span: an
// attribute the op does not have, a dtype that does not exist.
// RUN: carve match @%s:p %shared/corpus/mlp.relay
// EXIT: 1
// CHECK: error: ?c.grups: nn.conv2d has no attribute 'grups' (its attributes: strides
pattern p = nn.conv2d(?x, ?w) as ?c where ?c.grups == 1;
// -----
// RUN: carve match @%s:p %shared/corpus/mlp.relay
// EXIT: 1
// CHECK: error: ?.foo: nn.relu has no attribute 'foo' (it has no attributes)
backend b {
  op nn.relu where ?.foo == 1;
}
pattern p = nn.relu(?x);
// -----
// RUN: carve match @%s:p %shared/corpus/mlp.relay
// EXIT: 1
// CHECK: error: unknown dtype 'float33'
pattern p = nn.dense(?x, ?w) where dtype(?x) in [float32, float33];
// -----
// RUN: carve match @%s:p %shared/corpus/mlp.relay
// EXIT: 1
// CHECK: error: unknown dtype 'float33'
pattern p = nn.dense(?x, ?w : Tensor[(_, _), float33]);
// -----
// Known attributes and dtypes load and match.
// RUN: carve match @%s:p %shared/corpus/mlp.relay
// CHECK: matches:
pattern p = nn.dense(?x, ?w) as ?d where ?d.units == None and dtype(?x) in [float32, float16];
