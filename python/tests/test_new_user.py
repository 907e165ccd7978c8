"""What a TVM user new to carve hits first: a model file where Relay text
belongs, error text that is not UTF-8, the seed guides' snippets typed as
they are written."""

import os

import pytest

import carve
from carve import relay

from conftest import SOURCE

ONNX_DATA = os.path.join(SOURCE, "tests", "frontend_onnx", "data")


def test_load_of_an_onnx_model_says_to_import_it():
    path = os.path.join(ONNX_DATA, "two_outputs.onnx")
    # Was a UnicodeDecodeError: the lexer's diagnostic quoted the model's
    # bytes as its source line.
    with pytest.raises(carve.CarveError, match=r"is not Relay text but binary data \(byte 0 is "
                       r"0x08\); an ONNX model is converted with `carve import .*from_onnx"):
        carve.load(path)


def test_error_text_that_is_not_utf8_is_still_a_carve_error(tmp_path):
    path = tmp_path / "latin1.relay"
    path.write_bytes(b'#[version = "0.0.5"]\n'
                     b'def @main(%x: Tensor[(1), float32]) { nn.rel(%x) } // caf\xe9\n')
    with pytest.raises(carve.CarveError, match=r"(?s)unknown operator 'nn.rel'.*caf\ufffd"):
        carve.load(str(path))
