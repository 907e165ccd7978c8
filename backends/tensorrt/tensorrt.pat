// NVIDIA TensorRT: TVM v0.16's pattern table (python/tvm/relay/op/contrib/
// tensorrt.py; tvm-reference 4.4). Every rule is a one-op composite named
// tensorrt.<op>; there are no single-op rules.
//
// partition_for_tensorrt runs InferType, RemoveDropout, RemoveUnusedFunctions,
// ConvertLayout (conv*d to NC*), FoldConstant, MergeComposite(tensorrt),
// AnnotateTarget(tensorrt), MergeCompilerRegions, PartitionGraph, InferType,
// then prune_tensorrt_subgraphs. ConvertLayout is an opt_level 3 pass and
// does not run under TVM's default PassContext; carve's recipe
// (tensorrt_backend.cc) leaves it out.
//
// TVM's options are taken at their defaults: TensorRT version 6.0.1 (no
// runtime), implicit batch mode, no fp16, remove_no_mac_subgraphs off.
// TVM's standard predicate (every argument float32 with static dims but the
// first) becomes `dtype(..) == float32` on each argument; the static dims
// are tested by the C++ check of every tensorrt composite (a predicate cannot
// quantify over dims).
//
// Arity mismatches (tvm-reference 4.4): tensorrt.squeeze is written with two
// arguments, tensorrt.nn.pad, tensorrt.nn.conv3d_transpose and
// tensorrt.nn.layer_norm with one, while the ops take 1, 2, 2 and 3 inputs.
// Such calls cannot match, so TVM leaves them on the host. carve keeps TVM's
// patterns as written (marked ARITY below), so the partitions are TVM's; a
// user who wants them offloaded can fix the arity in a copy of this file.
//
// Copy this file, edit it and pass it with `--patterns` to try other rules.

backend tensorrt {
  // TensorRT >= 6.0.1.
  composite nn.conv3d = nn.conv3d(?a, const as ?b) as ?c
        where dtype(?a) == float32 and dtype(?b) == float32 and ?c.data_layout == "NCDHW" and ?c.kernel_layout == "OIDHW" and ?c.out_layout in ["", "NCDHW"];
  composite nn.conv2d = nn.conv2d(?a, const as ?b) as ?c
        where dtype(?a) == float32 and dtype(?b) == float32 and ?c.data_layout == "NCHW" and ?c.kernel_layout == "OIHW" and ?c.out_layout in ["", "NCHW"];
  composite nn.conv1d = nn.conv1d(?a, const as ?b) as ?c
        where dtype(?a) == float32 and dtype(?b) == float32 and ?c.data_layout == "NCW" and ?c.kernel_layout == "OIW";
  composite nn.conv2d_transpose = nn.conv2d_transpose(?a, ?b) as ?c
        where dtype(?a) == float32 and dtype(?b) == float32 and ?c.data_layout == "NCHW" and ?c.kernel_layout == "OIHW" and ?c.out_layout in ["", "NCHW"] and ?c.dilation == [1, 1];
  // ARITY: TVM's pattern has two arguments but squeeze takes one, so it never matches.
  composite squeeze = squeeze(?a, ?b) as ?c
        where dtype(?a) == float32 and dtype(?b) == float32 and ?c.axis != None;
  // no scalars in implicit batch mode.
  composite add = add(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32 and rank(?a) >= 1 and rank(?b) >= 1;
  composite nn.dense = nn.dense(?a, const as ?b)
        where dtype(?a) == float32 and dtype(?b) == float32 and rank(?a) in [2, 3, 4] and rank(?b) == 2;
  composite nn.bias_add = nn.bias_add(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32 and rank(?a) in [2, 3, 4];
  // implicit batch mode needs equal ranks.
  composite nn.batch_matmul = nn.batch_matmul(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32 and rank(?a) == rank(?b);
  composite divide = divide(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32;
  // TVM excludes the MaskRCNN shapes.
  composite multiply = multiply(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32 and not (shape(?a) in [[300, 64, 7, 7], [300, 1, 1, 1]] and shape(?b) in [[300, 64, 7, 7], [300, 1, 1, 1]]);
  composite subtract = subtract(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32;
  composite power = power(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32;
  composite maximum = maximum(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32;
  composite minimum = minimum(?a, ?b)
        where dtype(?a) == float32 and dtype(?b) == float32;
  composite nn.relu = nn.relu(?a)
        where dtype(?a) == float32;
  // TensorRT >= 5.1.5.
  composite nn.leaky_relu = nn.leaky_relu(?a)
        where dtype(?a) == float32;
  // ARITY: one argument, but nn.pad takes two (data, pad_value): never matches. TVM lists it a second time, with its pad checker, further down; a table holds one entry per name here, and both can never match.
  composite nn.pad = nn.pad(?a)
        where dtype(?a) == float32;
  composite sigmoid = sigmoid(?a)
        where dtype(?a) == float32;
  composite tanh = tanh(?a)
        where dtype(?a) == float32;
  composite exp = exp(?a)
        where dtype(?a) == float32;
  composite log = log(?a)
        where dtype(?a) == float32;
  composite sqrt = sqrt(?a)
        where dtype(?a) == float32;
  composite abs = abs(?a)
        where dtype(?a) == float32;
  composite negative = negative(?a)
        where dtype(?a) == float32;
  composite nn.batch_flatten = nn.batch_flatten(?a)
        where dtype(?a) == float32;
  composite clip = clip(?a)
        where dtype(?a) == float32;
  // TensorRT >= 5.1.5.
  composite sin = sin(?a)
        where dtype(?a) == float32;
  // TensorRT >= 5.1.5.
  composite cos = cos(?a)
        where dtype(?a) == float32;
  // TensorRT >= 5.1.5.
  composite atan = atan(?a)
        where dtype(?a) == float32;
  // TensorRT >= 5.1.5.
  composite ceil = ceil(?a)
        where dtype(?a) == float32;
  composite floor = floor(?a)
        where dtype(?a) == float32;
  // TensorRT >= 7.0.0, above TVM's default version 6.0.1: never offloaded by default:
  // composite erf = erf(?a)
  //       where dtype(?a) == float32;
  // reduce: axes given, no exclude; TVM rejects axis 0 (only 0: a negative axis naming the batch passes), which the C++ check tests (tensorrt_checks.cc).
  composite sum = sum(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != None and ?c.exclude == False;
  composite prod = prod(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != None and ?c.exclude == False;
  composite max = max(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != None and ?c.exclude == False;
  composite min = min(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != None and ?c.exclude == False;
  // tensorrt.max is listed twice in TVM's table; the second entry is dropped here (it can only match what the first one did).
  composite mean = mean(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != None and ?c.exclude == False;
  // a literal tuple; TVM also rejects constant fields, which a predicate cannot test field by field yet.
  composite concatenate = concatenate((...) as ?t) as ?c
        where dtype(?c) == float32 and ?c.axis != 0;
  composite expand_dims = expand_dims(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != 0;
  composite layout_transform = layout_transform(?a) as ?c
        where dtype(?a) == float32 and ((?c.src_layout == "NCHW" and ?c.dst_layout == "NHWC") or (?c.src_layout == "NHWC" and ?c.dst_layout == "NCHW") or (?c.src_layout == "NDHWC" and ?c.dst_layout == "NCDHW") or (?c.src_layout == "NCDHW" and ?c.dst_layout == "NDHWC"));
  // axes[0] == 0: the DSL cannot index an attribute list, the C++ check tests it.
  composite transpose = transpose(?a) as ?c
        where dtype(?a) == float32;
  // explicit dims, batch dim kept (static shapes: the output's first dim is the input's).
  composite reshape = reshape(?a) as ?c
        where dtype(?a) == float32 and rank(?a) >= 1 and rank(?c) >= 1 and shape(?a)[0] == shape(?c)[0];
  composite split = split(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != 0;
  // TensorRT >= 5.1.5; begin[0] 0, end[0] -1 or the batch size (a stride may
  // still shrink the batch: TVM does not look at it), positive strides, sizes
  // >= 1: attribute lists, tested by the C++ check.
  composite strided_slice = strided_slice(?a) as ?c
        where dtype(?a) == float32 and rank(?a) >= 1;
  // output size 1x1.
  composite nn.adaptive_avg_pool2d = nn.adaptive_avg_pool2d(?a) as ?c
        where dtype(?a) == float32 and ?c.output_size in [[1, 1], [1]];
  composite nn.adaptive_max_pool2d = nn.adaptive_max_pool2d(?a) as ?c
        where dtype(?a) == float32 and ?c.output_size in [[1, 1], [1]];
  // TensorRT >= 6.0.1.
  composite nn.max_pool3d = nn.max_pool3d(?a) as ?c
        where dtype(?a) == float32 and ?c.layout == "NCDHW";
  // TensorRT >= 6.0.1.
  composite nn.avg_pool3d = nn.avg_pool3d(?a) as ?c
        where dtype(?a) == float32 and ?c.layout == "NCDHW";
  // ARITY: one argument, but nn.conv3d_transpose takes two: never matches.
  composite nn.conv3d_transpose = nn.conv3d_transpose(?a) as ?c
        where dtype(?a) == float32 and ?c.data_layout == "NCDHW" and ?c.kernel_layout == "OIDHW";
  composite nn.softmax = nn.softmax(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != 0;
  // ARITY: one argument, but nn.layer_norm takes three: never matches.
  composite nn.layer_norm = nn.layer_norm(?a) as ?c
        where dtype(?a) == float32 and ?c.axis != 0;
  composite nn.max_pool2d = nn.max_pool2d(?a) as ?c
        where dtype(?a) == float32 and ?c.layout == "NCHW";
  // no count_include_pad with an asymmetric 4-value padding (top != bottom or
  // left != right): the DSL cannot index an attribute list, the C++ check tests it.
  composite nn.avg_pool2d = nn.avg_pool2d(?a) as ?c
        where dtype(?a) == float32 and ?c.layout == "NCHW";
  composite nn.global_max_pool2d = nn.global_max_pool2d(?a) as ?c
        where dtype(?a) == float32 and ?c.layout == "NCHW";
  composite nn.global_avg_pool2d = nn.global_avg_pool2d(?a) as ?c
        where dtype(?a) == float32 and ?c.layout == "NCHW";
  // rank <= 5 (rank 5 needs TensorRT >= 6.0.1), axis 1 or 3.
  // TVM's standard predicate reads all five arguments: every one float32.
  composite nn.batch_norm = (nn.batch_norm(?a, const as ?g, const as ?b, const as ?m, const as ?v) as ?c).0
        where dtype(?a) == float32 and dtype(?g) == float32 and dtype(?b) == float32
          and dtype(?m) == float32 and dtype(?v) == float32
          and rank(?a) <= 5 and (?c.axis == 1 or ?c.axis == 3);

}
