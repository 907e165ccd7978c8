"""Run by CTest (python_installed) with PYTHONPATH on an installed prefix only: the
installed package imports from there and partitions the DNNL example."""

import os
import sys

import carve

prefix, example = sys.argv[1], sys.argv[2]
assert os.path.realpath(carve.__file__).startswith(os.path.realpath(prefix)), carve.__file__
mod = carve.partition_for(carve.load(example), "dnnl")
assert "tvmgen_default_dnnl_main_0" in mod, mod.astext()
print("ok")
