"""carve.transform: each pass on a module, Sequential and parse_pipeline."""

import os

import pytest

import carve
from carve import transform
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
    with pytest.raises(carve.CarveError, match=r"unknown backend 'dnnnl' \(did you mean 'dnnl'\?\)"):
        transform.AnnotateTarget("dnnnl")


def test_merge_compiler_regions_and_partition_graph():
    seq = transform.Sequential([
        transform.MergeComposite(TABLE),
        transform.AnnotateTarget("dnnl"),
        transform.MergeCompilerRegions(),
        transform.PartitionGraph(),
    ])
    mod = seq(carve.parse(CONV))
    assert sorted(mod.functions) == ["main", "tvmgen_default_dnnl_main_0"]
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
    with pytest.raises(TypeError):
        transform.ConvertLayout({"nn.conv2d": ["NHWC"]})


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
