"""carve.relay.frontend: model importers under TVM's names (from_onnx)."""

from .onnx import from_onnx  # noqa: F401
