"""carve.transform.PassContext and relay.op.contrib's partition_for_<backend> functions."""

import numpy as np
import pytest

import carve
from carve import relay
from carve.relay.op.contrib import (
    partition_for_arm_compute_lib,
    partition_for_bnns,
    partition_for_dnnl,
    partition_for_nnapi,
    partition_for_tensorrt,
)
from carve.transform import PassContext

# An NHWC convolution with constant weights: ACL's optimize hook (ConvertLayout,
# registered at opt_level 3) turns its kernel from HWIO into OHWI.
ACL_CONV = """
#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 8, 4), float32], %w: Tensor[(3, 3, 4, 6), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=6, kernel_size=[3, 3],
                 data_layout="NHWC", kernel_layout="HWIO");
  nn.relu(%0)
}
"""


def acl_params():
    rng = np.random.default_rng(0)
    return {"w": rng.standard_normal((3, 3, 4, 6), dtype=np.float32)}


def kernel_layout(mod):
    text = mod.astext()
    return "OHWI" if 'kernel_layout="OHWI"' in text else "HWIO"


def test_outside_any_context_a_backend_runs_in_its_own():
    mod = carve.parse(ACL_CONV)
    # ACL's users build in PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]).
    assert kernel_layout(partition_for_arm_compute_lib(mod, acl_params())) == "OHWI"
    assert PassContext.current().opt_level == 2


def test_a_context_governs_partition_for():
    mod = carve.parse(ACL_CONV)
    with PassContext(opt_level=2):
        assert kernel_layout(partition_for_arm_compute_lib(mod, acl_params())) == "HWIO"
    with PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]) as ctx:
        assert PassContext.current().disabled_pass == ["AlterOpLayout"]
        assert ctx.opt_level == 3
        assert kernel_layout(carve.partition_for(mod, "arm_compute_lib", params=acl_params())) == "OHWI"
    with PassContext(opt_level=3, disabled_pass=["ConvertLayout"]):
        assert kernel_layout(partition_for_arm_compute_lib(mod, acl_params())) == "HWIO"


def test_sequential_asks_the_context_as_tvm():
    # FoldScaleAxis is TVM's sequence Backward-, ForwardFoldScaleAxis (level 3),
    # FoldConstant (level 2): outside any context TVM's Sequential (opt_level 2)
    # runs only its FoldConstant, and the scale stays a multiply.
    x = relay.var("x", shape=(1, 2, 4, 4), dtype="float32")
    w = relay.const(np.ones((2, 2, 1, 1), dtype="float32"))
    scale = relay.const(np.full((2, 1, 1), 2.0, dtype="float32"))
    y = relay.multiply(relay.nn.conv2d(x, w, channels=2, kernel_size=(1, 1)), scale)
    mod = carve.IRModule.from_expr(relay.Function([x], y))
    seq = carve.transform.Sequential([carve.transform.InferType(), carve.transform.FoldScaleAxis()])
    outside = seq(mod)
    assert "multiply" in outside.astext()
    with PassContext(opt_level=3):
        inside = seq(mod)
    assert "multiply" not in inside.astext()
    # Applied directly a pass runs whole, in a context or not (carve's `opt -p`).
    with PassContext(opt_level=0):
        assert "multiply" not in carve.transform.FoldScaleAxis()(mod).astext()
        assert "multiply" not in carve.transform.parse_pipeline("InferType,FoldScaleAxis")(mod).astext()
    # Sequentials nest: the inner one asks the same context.
    nested = carve.transform.Sequential([carve.transform.Sequential([carve.transform.FoldScaleAxis()])])
    assert "multiply" in nested(mod).astext()
    with PassContext(opt_level=3, disabled_pass=["BackwardFoldScaleAxis"]):
        assert "multiply" in nested(mod).astext()


def test_contexts_nest_and_unwind():
    with PassContext(opt_level=1):
        with PassContext(opt_level=3):
            assert PassContext.current().opt_level == 3
        assert PassContext.current().opt_level == 1
    assert PassContext.current().opt_level == 2


def test_what_carve_cannot_honour_raises():
    with pytest.raises(ValueError, match="opt_level is 0, 1, 2, 3 or 4"):
        PassContext(opt_level=5)
    with pytest.raises(ValueError, match="did you mean 'FoldConstant'"):
        PassContext(disabled_pass=["FoldConstnt"])
    with pytest.raises(ValueError, match="relay.FuseOps.max_depth"):
        PassContext(config={"relay.FuseOps.max_depth": 1})
    with pytest.raises(ValueError, match="required_pass"):
        PassContext(required_pass=["FoldConstant"])
    mod = carve.parse(ACL_CONV)
    with pytest.raises(NotImplementedError, match="alter_layout=False"):
        partition_for_dnnl(mod, alter_layout=True)
    with pytest.raises(NotImplementedError, match="without target"):
        partition_for_tensorrt(mod, target="tensorrt -use_fp16=1")
    with pytest.raises(NotImplementedError, match="concatenate"):
        partition_for_arm_compute_lib(mod, disabled_ops=[])
    with pytest.raises(TypeError, match="no options"):
        partition_for_arm_compute_lib(mod, some_option=1)


def test_each_contrib_function_is_its_backends_flow():
    mod = carve.parse(ACL_CONV)
    params = acl_params()
    for fn, name in [(partition_for_bnns, "bnns"), (partition_for_tensorrt, "tensorrt"),
                     (partition_for_nnapi, "nnapi"), (partition_for_dnnl, "dnnl")]:
        assert fn(mod, params).astext() == carve.partition_for(mod, name, params=params).astext()
    assert relay.op.contrib.dnnl.partition_for_dnnl is partition_for_dnnl
