"""carve.transform: each pass on a module, Sequential and parse_pipeline."""

import os

import pytest

import carve
from carve import relay, transform
from carve.dataflow_pattern import is_op, wildcard

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DNNL_EXAMPLE = os.path.join(SOURCE, "examples", "dnnl", "conv_add_relu.relay")

CONV = """#[version = "0.0.5"]
def @main(%data: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(8, 8, 3, 3), float32],
          %b: Tensor[(8), float32]) {
  %0 = nn.conv2d(%data, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = tanh(%2);
  nn.relu(%3)
}
"""

TABLE = [("mine.conv_bias_relu", is_op("nn.relu")(is_op("nn.bias_add")(is_op("nn.conv2d")(wildcard(), wildcard()), wildcard())))]


def test_infer_type():
    mod = carve.parse(CONV)
    typed = transform.InferType()(mod)
    assert str(typed["main"].ret_type) == "Tensor[(1, 8, 8, 8), float32]"


def test_merge_composite_with_a_python_table_leaves_its_input():
    mod = carve.parse(CONV)
    merged = transform.MergeComposite(TABLE)(mod)
    assert 'Composite="mine.conv_bias_relu"' in merged.astext()
    assert "Composite" not in mod.astext()  # passes return new modules


def test_merge_composite_check_function_is_called():
    seen = []

    def check(root):
        seen.append(root.op.name)
        return False

    table = [(TABLE[0][0], TABLE[0][1], check)]
    merged = transform.MergeComposite(table)(carve.parse(CONV))
    assert seen == ["nn.relu"]
    assert "Composite" not in merged.astext()


def test_check_function_errors_propagate():
    def check(root):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        transform.MergeComposite([(TABLE[0][0], TABLE[0][1], check)])(carve.parse(CONV))


def test_merge_composite_with_a_backend_name():
    # DNNL's table (TVM's): conv2d with `channels` + add + relu.
    merged = transform.MergeComposite("dnnl")(carve.load(DNNL_EXAMPLE))
    assert 'Composite="dnnl.conv2d_bias_relu"' in merged.astext()
    assert "Composite" not in transform.MergeComposite("dnnl")(carve.parse(CONV)).astext()


def test_annotate_target():
    mod = transform.AnnotateTarget(["dnnl"])(carve.parse(CONV))
    assert 'annotation.compiler_begin(%data, compiler="dnnl")' in mod.astext()
    # A name that is no backend may still name composites (TVM), so it is
    # checked against the module when the pass runs.
    with pytest.raises(carve.CarveError, match=r"unknown backend 'dnnnl' \(did you mean 'dnnl'\?\)"):
        transform.AnnotateTarget("dnnnl")(carve.parse(CONV))


def test_merge_compiler_regions_and_partition_graph():
    seq = transform.Sequential([
        transform.MergeComposite(TABLE),
        transform.AnnotateTarget("dnnl"),
        transform.MergeCompilerRegions(),
        transform.PartitionGraph(),
    ])
    mod = seq(carve.parse(CONV))
    assert sorted(gv.name_hint for gv in mod.functions) == ["main", "tvmgen_default_dnnl_main_0"]
    assert [p.name for p in seq.passes] == ["MergeComposite", "AnnotateTarget",
                                            "MergeCompilerRegions", "PartitionGraph"]


def test_partition_graph_mod_name():
    mod = transform.AnnotateTarget("dnnl")(carve.parse(CONV))
    mod = transform.PartitionGraph(mod_name="net")(transform.MergeCompilerRegions()(mod))
    assert "tvmgen_net_dnnl_main_0" in mod


def test_parse_pipeline():
    pipeline = transform.parse_pipeline(
        "InferType,MergeComposite(dnnl),AnnotateTarget(dnnl),MergeCompilerRegions,PartitionGraph")
    mod = pipeline(carve.parse(CONV))
    assert "tvmgen_default_dnnl_main_0" in mod
    with pytest.raises(carve.CarveError, match=r"<pipeline>:1:1: error: unknown pass 'MergeComposit'"):
        transform.parse_pipeline("MergeComposit(dnnl)")


def test_other_registered_passes_by_name():
    folded = transform.FoldConstant()(carve.parse(CONV))
    assert carve.ir.structural_equal(folded, carve.parse(CONV))
    with pytest.raises(AttributeError):
        transform.NoSuchPass


def test_register_op_attr_decides_annotation():
    @carve.ir.register_op_attr("tanh", "target.pytest_target")
    def tanh(expr):
        return expr.args[0].checked_type.dtype == "float32"

    mod = transform.AnnotateTarget("pytest_target")(carve.parse(CONV))
    assert 'compiler="pytest_target"' in mod.astext()
    carve.ir.register_op_attr("tanh", "target.pytest_target", False)
    mod = transform.AnnotateTarget("pytest_target")(carve.parse(CONV))
    assert 'compiler="pytest_target"' not in mod.astext()


def test_registered_pass_with_arguments():
    mod = transform.ConvertLayout("NHWC")(carve.parse(CONV))
    assert 'data_layout="NHWC"' in mod.astext()
    with pytest.raises(TypeError, match="a pass argument is a string"):
        transform.ConvertLayout("NHWC", ops={"nn.conv2d"})  # a set: no pipeline value


def test_rule_errors_propagate_from_partition_for():
    def broken(expr):
        raise KeyError("rule failed")

    carve.ir.register_op_attr("tanh", "target.pytest_broken", broken)
    with pytest.raises(KeyError, match="rule failed"):
        carve.partition_for(carve.parse(CONV), "pytest_broken")
    # Nothing is left pending for the next call.
    carve.ir.register_op_attr("tanh", "target.pytest_broken", True)
    assert "tvmgen_default_pytest_broken_main_0" in carve.partition_for(carve.parse(CONV), "pytest_broken")


def test_nodes_outlive_their_module():
    import gc

    body = carve.parse(CONV)["main"].body
    gc.collect()
    assert body.op.name == "nn.relu" and "tanh" in body.astext()


CONV_POOL = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2])
}"""


def test_convert_layout_takes_tvms_desired_layouts_dict():
    mod = carve.parse(CONV_POOL)
    desired = {"nn.conv2d": ["NHWC", "default"], "nn.max_pool2d": ["NHWC"]}
    out = relay.transform.ConvertLayout(desired)(mod)
    text = out.astext(show_meta_data=False)
    # NHWC with TVM's default kernel layout for it (HWIO); the pool follows the dict.
    assert 'data_layout="NHWC", kernel_layout="HWIO"' in text
    assert 'nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2], layout="NHWC"' in text
    same = transform.ConvertLayout(layouts=["nn.conv2d:NHWC:default", "nn.max_pool2d:NHWC"])(mod)
    carve.ir.assert_structural_equal(out, same)
    # TVM's keyword, and carve's `layouts` parameter, take the dict too.
    carve.ir.assert_structural_equal(
        out, relay.transform.ConvertLayout(desired_layouts=desired)(mod))
    carve.ir.assert_structural_equal(out, transform.ConvertLayout(layouts=desired)(mod))
    # carve's positional form still works.
    carve.ir.assert_structural_equal(
        transform.ConvertLayout("NHWC")(mod),
        transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]})(mod))


def test_convert_layout_dict_errors():
    mod = carve.parse(CONV_POOL)
    with pytest.raises(TypeError, match=r"desired_layouts\['nn.conv2d'\] must be \[data_layout\]"):
        transform.ConvertLayout({"nn.conv2d": "NHWC"})
    with pytest.raises(TypeError, match="must be"):
        transform.ConvertLayout({"nn.conv2d": ["NHWC", "HWIO", "x"]})
    with pytest.raises(ValueError, match="desired_layouts is empty"):
        transform.ConvertLayout({})
    with pytest.raises(TypeError, match="alone"):
        transform.ConvertLayout({"nn.conv2d": ["NHWC"]}, ops=["nn.conv2d"])
    with pytest.raises(carve.CarveError, match="'nn.foo' is not an op whose layout"):
        transform.ConvertLayout({"nn.foo": ["NHWC"]})(mod)
