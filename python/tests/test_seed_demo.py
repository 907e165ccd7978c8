"""The seed BYOC demo (shared/seeds/byoc-annotation-demo.txt), written against TVM's Python
API, run with only its imports changed:

    import tvm                     ->  import carve as tvm
    from tvm import relay          ->  from carve import relay
    from tvm.relay.dataflow_pattern import is_op, wildcard
                                   ->  from carve.relay.dataflow_pattern import is_op, wildcard

Each step's module is compared with what TVM v0.16 printed for it (shared/corpus).
"""

import carve as tvm
from carve import relay


# ---- the demo, verbatim from here on (In [2] .. In [12]) ----

def get_demo_mod():
    # Loop
    iter1 = relay.var("iter1", shape=(), dtype="int32")
    cond = relay.less(iter1, relay.const(2, dtype="int32"))
    inc = iter1 + relay.const(1, dtype="int32")
    loop_var = relay.var("while_loop")

    # Loop body
    d1 = relay.var("d1", shape=(1, 32, 56, 56), dtype="float32")
    w1 = relay.var("w1", shape=(32, 32, 3, 3), dtype="float32")
    b1 = relay.var("b1", shape=(32,), dtype="float32")
    conv = relay.nn.conv2d(d1, w1, strides=(1, 1), padding=(1, 1))
    bias = relay.nn.bias_add(conv, b1)
    relu = relay.nn.relu(bias)
    loop_cond_out = loop_var(inc, relu, w1, b1)

    conv = relay.nn.conv2d(d1, w1, strides=(1, 1), padding=(1, 1))
    bias = relay.nn.bias_add(conv, b1)
    relu = relay.nn.relu(bias)
    loop_break_out = relay.reshape(relu, (1, 56, 56, 32))

    ife = relay.If(cond, loop_cond_out, loop_break_out)

    data = relay.var("data", shape=(1, 32, 56, 56), dtype="float32")
    weight = relay.var("weight", shape=(32, 32, 3, 3), dtype="float32")
    bias = relay.var("bias", shape=(32,), dtype="float32")
    loop_func = relay.Function([iter1, d1, w1, b1], ife)

    out = relay.Let(loop_var, loop_func, loop_var(relay.const(0, dtype="int32"), data, weight, bias))
    func = relay.Function([data, weight, bias], out)
    mod = tvm.IRModule.from_expr(func)
    mod = relay.transform.InferType()(mod)
    return mod


demo_target = "byoc-target"


@tvm.ir.register_op_attr("reshape", "target.byoc-target")
def reshape(expr):
    return True


@tvm.ir.register_op_attr("add", "target.byoc-target")
def add(expr):
    return True


def make_pattern(with_bias=True):
    from carve.relay.dataflow_pattern import is_op, wildcard
    data = wildcard()
    weight = wildcard()
    bias = wildcard()
    conv = is_op("nn.conv2d")(data, weight)
    if with_bias:
        conv_out = is_op("nn.bias_add")(conv, bias)
    else:
        conv_out = conv
    return is_op("nn.relu")(conv_out)


conv2d_bias_relu_pat = ("byoc-target.conv2d_relu_with_bias", make_pattern(with_bias=True))
conv2d_relu_pat = ("byoc-target.conv2d_relu_wo_bias", make_pattern(with_bias=False))
patterns = [conv2d_bias_relu_pat, conv2d_relu_pat]


def run_demo():
    mod = get_demo_mod()
    print(mod["main"].astext(show_meta_data=False))
    mod2 = relay.transform.MergeComposite(patterns)(mod)
    print(mod2["main"].astext(show_meta_data=False))
    mod3 = relay.transform.AnnotateTarget("byoc-target")(mod2)
    print(mod3["main"].astext(show_meta_data=False))
    mod4 = relay.transform.MergeCompilerRegions()(mod3)
    print(mod4["main"].astext(show_meta_data=False))
    mod5 = relay.transform.PartitionGraph()(mod4)
    print(mod5["main"].astext(show_meta_data=False))
    for name in ["tvmgen_default_byoc_target_main_0", "tvmgen_default_byoc_target_main_2",
                 "tvmgen_default_byoc_target_main_5"]:
        print("%s: " % name)
        print(mod5[name].astext(show_meta_data=False))
        print("==================")
    return [mod, mod2, mod3, mod4, mod5]

# ---- end of the demo ----


def test_seed_demo_matches_tvm_step_by_step(corpus, capsys):
    steps = run_demo()
    expected = [
        "demo_0_input.relay",
        "demo_seed_name_1_merge_composite.relay",
        "demo_seed_name_2_annotate_target.relay",
        "demo_seed_name_3_merge_compiler_regions.relay",
    ]
    for mod, name in zip(steps, expected):
        tvm.ir.assert_structural_equal(mod, tvm.parse(corpus(name), name))
    # TVM printed the partitioned module only in part (demo_seed_name_4_partition_graph.txt);
    # its three offloaded functions and what stays in @main are checked here.
    final = steps[-1]
    assert sorted(gv.name_hint for gv in final.functions if gv.name_hint != "main") == [
        "tvmgen_default_byoc_target_main_0",
        "tvmgen_default_byoc_target_main_2",
        "tvmgen_default_byoc_target_main_5",
    ]
    first = final["tvmgen_default_byoc_target_main_0"]
    assert first.attrs["Compiler"] == "byoc-target"
    assert first.attrs["global_symbol"] == "tvmgen_default_byoc_target_main_0"
    assert "add(%byoc-target_0_i0, 1" in first.astext(show_meta_data=False)
    printed = capsys.readouterr().out
    assert 'Composite="byoc-target.conv2d_relu_with_bias"' in printed
    assert "@tvmgen_default_byoc_target_main_2(" in printed


def test_seed_demo_input_prints_as_tvm(corpus):
    mod = get_demo_mod()
    assert mod["main"].astext(show_meta_data=False).startswith(
        '#[version = "0.0.5"]\nfn (%data: Tensor[(1, 32, 56, 56), float32] '
        "/* ty=Tensor[(1, 32, 56, 56), float32] */")
    assert "nn.conv2d(%d1, %w1, padding=[1, 1, 1, 1])" in mod.astext()
