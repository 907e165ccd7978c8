// Two rules that undo each other (with the operands swapped): rewriting
// never converges. The pass stops at max_rounds and names the rules.
// RUN: carve opt %shared/corpus/lstm.relay -p Rewrite(%s,max_rounds=7)
// EXIT: 1
// CHECK: error: Rewrite: @main: rewriting did not converge after 7 rounds; still firing: to_mul

rule to_mul = add(?x, ?y) => multiply(?x, ?y);
rule to_add = multiply(?x, ?y) => add(?y, ?x);
