"""tvm.relay.build_module's bind_params_by_name."""

from .._carve import bind_params_by_name  # noqa: F401
