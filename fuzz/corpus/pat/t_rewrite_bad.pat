// A rule file with errors: Rewrite reports them at the file's lines and
// columns, with the source line and a caret, and exits 1.
// RUN: carve opt %shared/corpus/mlp.relay -p Rewrite(%s)
// EXIT: 1
// CHECK: rewrite_bad.pat:10:28: error: unknown operator 'nn.reluu'
// CHECK-NEXT: rule typo = nn.relu(?x) => nn.reluu(?x);
// CHECK-NEXT:                              ^

rule ok = nn.relu(nn.relu(?x)) => nn.relu(?x);
rule typo = nn.relu(?x) => nn.reluu(?x);  // expected-error@+0:28 {{unknown operator 'nn.reluu' (did you mean 'nn.relu'?)}}
rule unbound = nn.relu(?x) => nn.relu(?y);  // expected-error@+0:39 {{the replacement uses ?y, which the pattern does not bind}}
