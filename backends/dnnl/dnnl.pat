// Intel DNNL (oneDNN): TVM v0.16's annotation rules and pattern table
// (python/tvm/relay/op/contrib/dnnl.py; tvm-reference 4.3).
//
// The pipeline is test_dnnl.py's: CanonicalizeOps (bias_add becomes add of
// an expand_dims'd bias, which is why every bias below is an `add`),
// InferType, FoldConstant, SimplifyExpr, FoldConstant, MergeComposite(dnnl),
// AnnotateTarget(dnnl), MergeCompilerRegions, PartitionGraph, then
// prune_dnnl_subgraphs. (carve's recipe: dnnl_backend.cc.)
//
// Copy this file, edit it and pass it with `--patterns` to try other rules.
// The generated part of TVM's table is written out in full: the DSL has no
// loops.

// Anchors with and without a bias `add`. A named pattern used twice in one
// composite is one node (the GELU, swish and mish forms read their input
// twice).
pattern dnnl_conv1d = nn.conv1d(_, _);
pattern dnnl_conv2d = nn.conv2d(_, _);
pattern dnnl_conv3d = nn.conv3d(_, _);
pattern dnnl_deconv2d = nn.conv2d_transpose(_, _);
pattern dnnl_deconv3d = nn.conv3d_transpose(_, _);
pattern dnnl_dense = nn.dense(_, _);
pattern dnnl_conv1d_bias = add(dnnl_conv1d, _);
pattern dnnl_conv2d_bias = add(nn.conv2d(_, _) as ?conv, ?bias);
pattern dnnl_conv3d_bias = add(dnnl_conv3d, _);
pattern dnnl_deconv2d_bias = add(dnnl_deconv2d, _);
pattern dnnl_deconv3d_bias = add(dnnl_deconv3d, _);
pattern dnnl_dense_bias = add(dnnl_dense, _);

// The quantized chains legalize_qnn_for_dnnl produces: qnn op with zero
// zero points -> cast -> [add bias] -> multiply(o_scl) -> clip ->
// [multiply(act_scl)] -> [add(sum_scl * cast(sum_src))] -> [add(dst_zp)] -> cast.

backend dnnl {
  // Single ops: TVM rejects a call when any argument is int64, and a pool
  // with ceil_mode=True.
  op nn.batch_norm(?a, ?b, ?c, ?d, ?e)
    where dtype(?a) != int64 and dtype(?b) != int64 and dtype(?c) != int64 and dtype(?d) != int64
      and dtype(?e) != int64;
  op nn.conv1d(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op nn.conv2d(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op nn.conv3d(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op nn.conv2d_transpose(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op nn.conv3d_transpose(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op nn.dense(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op nn.max_pool2d(?a) where dtype(?a) != int64 and ?.ceil_mode == False;
  op nn.avg_pool2d(?a) where dtype(?a) != int64 and ?.ceil_mode == False;
  op nn.global_avg_pool2d(?a) where dtype(?a) != int64;
  op nn.max_pool3d(?a) where dtype(?a) != int64 and ?.ceil_mode == False;
  op nn.avg_pool3d(?a) where dtype(?a) != int64 and ?.ceil_mode == False;
  op abs(?a) where dtype(?a) != int64;
  op clip(?a) where dtype(?a) != int64;
  op exp(?a) where dtype(?a) != int64;
  op log(?a) where dtype(?a) != int64;
  op sqrt(?a) where dtype(?a) != int64;
  op round(?a) where dtype(?a) != int64;
  op nn.relu(?a) where dtype(?a) != int64;
  op nn.leaky_relu(?a) where dtype(?a) != int64;
  op tanh(?a) where dtype(?a) != int64;
  op sigmoid(?a) where dtype(?a) != int64;
  op nn.softmax(?a) where dtype(?a) != int64;
  op add(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op multiply(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;
  op nn.layer_norm(?a, ?b, ?c) where dtype(?a) != int64 and dtype(?b) != int64 and dtype(?c) != int64;
  op nn.batch_matmul(?a, ?b) where dtype(?a) != int64 and dtype(?b) != int64;

  // The table, in TVM's priority order.
  composite qnn.conv2d = cast(add?(add?(multiply?(clip(multiply(add?(cast(qnn.conv2d(_, const, 0, 0, const, const)), const), const)), const), multiply(const, cast(_))), const));
  composite qnn.dense = cast(add?(add?(multiply?(clip(multiply(add?(cast(qnn.dense(_, const, 0, 0, const, const)), const), const)), const), multiply(const, cast(_))), const));

  // dense -> add(bias) -> add(sum input), no predicate.
  composite dense_bias_sum = add(dnnl_dense_bias, _);

  // The sum predicate (the second add's operands have one shape; the first
  // add's input is an nn.conv2d whose `channels` is the product of the bias's
  // shape) is a C++ check: backends/dnnl/dnnl_checks.h.
  composite conv2d_bias_sum_relu = nn.relu(add(dnnl_conv2d_bias as ?biased, ?sum));
  composite conv2d_bias_sum = add(dnnl_conv2d_bias as ?biased, ?sum);

  // Generated: for with_bias in (True, False), eltwise in (nn.relu, tanh,
  // sigmoid, clip, gelu, swish, mish, None), op in (conv1d, conv2d, conv3d,
  // conv2d_transpose, conv3d_transpose, dense). gelu is
  // x * (erf(x / c1) + c2) * c3, swish x * sigmoid(x), mish
  // x * tanh(log(exp(x) + c)), the constants wildcards as in TVM. TVM's bias
  // predicate (a C++ check, backends/dnnl/dnnl_checks.h) only looks at roots
  // nn.relu(add(...)) and add(...), and accepts only an nn.conv2d anchor
  // whose `channels` is the product of the bias's shape; the other anchors'
  // entries of those two forms can never match, and are left here as
  // comments.
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite conv1d_bias_relu = nn.relu(dnnl_conv1d_bias);
  composite conv2d_bias_relu = nn.relu(dnnl_conv2d_bias);
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite conv3d_bias_relu = nn.relu(dnnl_conv3d_bias);
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite deconv2d_bias_relu = nn.relu(dnnl_deconv2d_bias);
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite deconv3d_bias_relu = nn.relu(dnnl_deconv3d_bias);
  composite dense_bias_relu = nn.relu(dnnl_dense_bias);
  composite conv1d_bias_tanh = tanh(dnnl_conv1d_bias);
  composite conv2d_bias_tanh = tanh(dnnl_conv2d_bias);
  composite conv3d_bias_tanh = tanh(dnnl_conv3d_bias);
  composite deconv2d_bias_tanh = tanh(dnnl_deconv2d_bias);
  composite deconv3d_bias_tanh = tanh(dnnl_deconv3d_bias);
  composite dense_bias_tanh = tanh(dnnl_dense_bias);
  composite conv1d_bias_sigmoid = sigmoid(dnnl_conv1d_bias);
  composite conv2d_bias_sigmoid = sigmoid(dnnl_conv2d_bias);
  composite conv3d_bias_sigmoid = sigmoid(dnnl_conv3d_bias);
  composite deconv2d_bias_sigmoid = sigmoid(dnnl_deconv2d_bias);
  composite deconv3d_bias_sigmoid = sigmoid(dnnl_deconv3d_bias);
  composite dense_bias_sigmoid = sigmoid(dnnl_dense_bias);
  composite conv1d_bias_clip = clip(dnnl_conv1d_bias);
  composite conv2d_bias_clip = clip(dnnl_conv2d_bias);
  composite conv3d_bias_clip = clip(dnnl_conv3d_bias);
  composite deconv2d_bias_clip = clip(dnnl_deconv2d_bias);
  composite deconv3d_bias_clip = clip(dnnl_deconv3d_bias);
  composite dense_bias_clip = clip(dnnl_dense_bias);
  composite conv1d_bias_gelu = multiply(multiply(dnnl_conv1d_bias, add(erf(divide(dnnl_conv1d_bias, _)), _)), _);
  composite conv2d_bias_gelu = multiply(multiply(dnnl_conv2d_bias, add(erf(divide(dnnl_conv2d_bias, _)), _)), _);
  composite conv3d_bias_gelu = multiply(multiply(dnnl_conv3d_bias, add(erf(divide(dnnl_conv3d_bias, _)), _)), _);
  composite deconv2d_bias_gelu = multiply(multiply(dnnl_deconv2d_bias, add(erf(divide(dnnl_deconv2d_bias, _)), _)), _);
  composite deconv3d_bias_gelu = multiply(multiply(dnnl_deconv3d_bias, add(erf(divide(dnnl_deconv3d_bias, _)), _)), _);
  composite dense_bias_gelu = multiply(multiply(dnnl_dense_bias, add(erf(divide(dnnl_dense_bias, _)), _)), _);
  composite conv1d_bias_swish = multiply(dnnl_conv1d_bias, sigmoid(dnnl_conv1d_bias));
  composite conv2d_bias_swish = multiply(dnnl_conv2d_bias, sigmoid(dnnl_conv2d_bias));
  composite conv3d_bias_swish = multiply(dnnl_conv3d_bias, sigmoid(dnnl_conv3d_bias));
  composite deconv2d_bias_swish = multiply(dnnl_deconv2d_bias, sigmoid(dnnl_deconv2d_bias));
  composite deconv3d_bias_swish = multiply(dnnl_deconv3d_bias, sigmoid(dnnl_deconv3d_bias));
  composite dense_bias_swish = multiply(dnnl_dense_bias, sigmoid(dnnl_dense_bias));
  composite conv1d_bias_mish = multiply(dnnl_conv1d_bias, tanh(log(add(exp(dnnl_conv1d_bias), _))));
  composite conv2d_bias_mish = multiply(dnnl_conv2d_bias, tanh(log(add(exp(dnnl_conv2d_bias), _))));
  composite conv3d_bias_mish = multiply(dnnl_conv3d_bias, tanh(log(add(exp(dnnl_conv3d_bias), _))));
  composite deconv2d_bias_mish = multiply(dnnl_deconv2d_bias, tanh(log(add(exp(dnnl_deconv2d_bias), _))));
  composite deconv3d_bias_mish = multiply(dnnl_deconv3d_bias, tanh(log(add(exp(dnnl_deconv3d_bias), _))));
  composite dense_bias_mish = multiply(dnnl_dense_bias, tanh(log(add(exp(dnnl_dense_bias), _))));
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite conv1d_bias = dnnl_conv1d_bias;
  composite conv2d_bias = dnnl_conv2d_bias;
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite conv3d_bias = dnnl_conv3d_bias;
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite deconv2d_bias = dnnl_deconv2d_bias;
  // never matches in TVM: its bias predicate accepts only nn.conv2d (see above)
  // composite deconv3d_bias = dnnl_deconv3d_bias;
  composite dense_bias = dnnl_dense_bias;
  composite conv1d_relu = nn.relu(dnnl_conv1d);
  composite conv2d_relu = nn.relu(dnnl_conv2d);
  composite conv3d_relu = nn.relu(dnnl_conv3d);
  composite deconv2d_relu = nn.relu(dnnl_deconv2d);
  composite deconv3d_relu = nn.relu(dnnl_deconv3d);
  composite dense_relu = nn.relu(dnnl_dense);
  composite conv1d_tanh = tanh(dnnl_conv1d);
  composite conv2d_tanh = tanh(dnnl_conv2d);
  composite conv3d_tanh = tanh(dnnl_conv3d);
  composite deconv2d_tanh = tanh(dnnl_deconv2d);
  composite deconv3d_tanh = tanh(dnnl_deconv3d);
  composite dense_tanh = tanh(dnnl_dense);
  composite conv1d_sigmoid = sigmoid(dnnl_conv1d);
  composite conv2d_sigmoid = sigmoid(dnnl_conv2d);
  composite conv3d_sigmoid = sigmoid(dnnl_conv3d);
  composite deconv2d_sigmoid = sigmoid(dnnl_deconv2d);
  composite deconv3d_sigmoid = sigmoid(dnnl_deconv3d);
  composite dense_sigmoid = sigmoid(dnnl_dense);
  composite conv1d_clip = clip(dnnl_conv1d);
  composite conv2d_clip = clip(dnnl_conv2d);
  composite conv3d_clip = clip(dnnl_conv3d);
  composite deconv2d_clip = clip(dnnl_deconv2d);
  composite deconv3d_clip = clip(dnnl_deconv3d);
  composite dense_clip = clip(dnnl_dense);
  composite conv1d_gelu = multiply(multiply(dnnl_conv1d, add(erf(divide(dnnl_conv1d, _)), _)), _);
  composite conv2d_gelu = multiply(multiply(dnnl_conv2d, add(erf(divide(dnnl_conv2d, _)), _)), _);
  composite conv3d_gelu = multiply(multiply(dnnl_conv3d, add(erf(divide(dnnl_conv3d, _)), _)), _);
  composite deconv2d_gelu = multiply(multiply(dnnl_deconv2d, add(erf(divide(dnnl_deconv2d, _)), _)), _);
  composite deconv3d_gelu = multiply(multiply(dnnl_deconv3d, add(erf(divide(dnnl_deconv3d, _)), _)), _);
  composite dense_gelu = multiply(multiply(dnnl_dense, add(erf(divide(dnnl_dense, _)), _)), _);
  composite conv1d_swish = multiply(dnnl_conv1d, sigmoid(dnnl_conv1d));
  composite conv2d_swish = multiply(dnnl_conv2d, sigmoid(dnnl_conv2d));
  composite conv3d_swish = multiply(dnnl_conv3d, sigmoid(dnnl_conv3d));
  composite deconv2d_swish = multiply(dnnl_deconv2d, sigmoid(dnnl_deconv2d));
  composite deconv3d_swish = multiply(dnnl_deconv3d, sigmoid(dnnl_deconv3d));
  composite dense_swish = multiply(dnnl_dense, sigmoid(dnnl_dense));
  composite conv1d_mish = multiply(dnnl_conv1d, tanh(log(add(exp(dnnl_conv1d), _))));
  composite conv2d_mish = multiply(dnnl_conv2d, tanh(log(add(exp(dnnl_conv2d), _))));
  composite conv3d_mish = multiply(dnnl_conv3d, tanh(log(add(exp(dnnl_conv3d), _))));
  composite deconv2d_mish = multiply(dnnl_deconv2d, tanh(log(add(exp(dnnl_deconv2d), _))));
  composite deconv3d_mish = multiply(dnnl_deconv3d, tanh(log(add(exp(dnnl_deconv3d), _))));
  composite dense_mish = multiply(dnnl_dense, tanh(log(add(exp(dnnl_dense), _))));
}
