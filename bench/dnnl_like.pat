// A DNNL-shaped backend for the BYOC flow benchmark (bench/passes_bench.cc,
// `carve opt --patterns bench/dnnl_like.pat`): DNNL's single-op list
// (tvm-reference 4.3, without its int64 / ceil_mode guard) and conv2d /
// dense x bias x activation composites in TVM's priority order (with bias
// before without, relu / tanh / sigmoid / clip before none). The bias is
// `add` (after CanonicalizeOps) or `nn.bias_add` (before), so the table
// applies to graphs straight from a front end.
//
// Named `dnnl`, it replaces the built-in spec for the run that loads it.

pattern bench_conv2d = nn.conv2d(_, _);
pattern bench_dense = nn.dense(_, _);
pattern bench_conv2d_bias = add(bench_conv2d, _) | nn.bias_add(bench_conv2d, _);
pattern bench_dense_bias = add(bench_dense, _) | nn.bias_add(bench_dense, _);

backend dnnl {
  ops nn.batch_norm, nn.conv1d, nn.conv2d, nn.conv3d, nn.conv2d_transpose, nn.conv3d_transpose,
      nn.dense, nn.max_pool2d, nn.avg_pool2d, nn.global_avg_pool2d, nn.max_pool3d, nn.avg_pool3d,
      abs, clip, exp, log, sqrt, round, nn.relu, nn.leaky_relu, tanh, sigmoid, nn.softmax, add,
      multiply, nn.layer_norm, nn.batch_matmul;

  composite conv2d_bias_relu = nn.relu(bench_conv2d_bias);
  composite conv2d_bias_tanh = tanh(bench_conv2d_bias);
  composite conv2d_bias_sigmoid = sigmoid(bench_conv2d_bias);
  composite conv2d_bias_clip = clip(bench_conv2d_bias);
  composite dense_bias_relu = nn.relu(bench_dense_bias);
  composite dense_bias_tanh = tanh(bench_dense_bias);
  composite dense_bias_sigmoid = sigmoid(bench_dense_bias);
  composite dense_bias_clip = clip(bench_dense_bias);
  composite conv2d_bias = bench_conv2d_bias;
  composite dense_bias = bench_dense_bias;
  composite conv2d_relu = nn.relu(bench_conv2d);
  composite conv2d_tanh = tanh(bench_conv2d);
  composite conv2d_sigmoid = sigmoid(bench_conv2d);
  composite conv2d_clip = clip(bench_conv2d);
  composite dense_relu = nn.relu(bench_dense);
  composite dense_tanh = tanh(bench_dense);
  composite dense_sigmoid = sigmoid(bench_dense);
  composite dense_clip = clip(bench_dense);
}
