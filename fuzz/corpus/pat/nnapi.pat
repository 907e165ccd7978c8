// Android NNAPI: carve's annotation rules, in the scope of the NNAPI RFC.
//
// TVM v0.16 has no NNAPI backend (tvm-reference 4.7): the 2021 Relay BYOC
// RFC (seeds/nnapi-rfc.txt) proposed a partitioner and a converter whose
// first PR supports nn.conv2d, and asked whether to annotate with
// AnnotateTarget over "a few operators which we believe should be
// hardware-accelerated on most devices"; the backend merged later (v0.18,
// Relax) covers elementwise ops, nn.dense and nn.conv2d with static shapes,
// float32 / float16. This spec takes the RFC's second option over that op
// set: NNAPI operations with their fused activation codes (NONE, RELU, RELU1,
// RELU6) as composites, single elementwise and pooling operations as op
// rules. NNAPI compiles a whole model, so the recipe merges regions. After
// partitioning, carve's static cost (the RFC's first option; nnapi_cost.h)
// inlines partitions below $CARVE_NNAPI_MIN_FLOPS (default 4096) back.
//
// Copy this file, edit it and pass it with `--patterns` to try other rules.

// ANEURALNETWORKS_CONV_2D / DEPTHWISE_CONV_2D: float32 or float16 data of
// rank 4 (NCHW or NHWC), a constant filter, an optional constant bias.
pattern nnapi_conv2d = nn.conv2d(?data, const) as ?conv
  where rank(?data) == 4 and dtype(?data) in [float32, float16]
    and ?conv.data_layout in ["NCHW", "NHWC"];
pattern nnapi_conv2d_bias = nn.bias_add?(nnapi_conv2d, const);

// ANEURALNETWORKS_FULLY_CONNECTED: float32 / float16 data of rank 2, a
// constant weight, an optional constant bias.
pattern nnapi_dense = nn.dense(?x, const) where rank(?x) == 2 and dtype(?x) in [float32, float16];
pattern nnapi_dense_bias = nn.bias_add?(nnapi_dense, const);

backend nnapi {
  // Elementwise operations (ADD, SUB, MUL, DIV, RELU, LOGISTIC, TANH, EXP,
  // SQRT), SOFTMAX, the 2-d pools and RESHAPE, float32 / float16.
  op add where dtype(?) in [float32, float16];
  op subtract where dtype(?) in [float32, float16];
  op multiply where dtype(?) in [float32, float16];
  op divide where dtype(?) in [float32, float16];
  op nn.relu where dtype(?) in [float32, float16];
  op sigmoid where dtype(?) in [float32, float16];
  op tanh where dtype(?) in [float32, float16];
  op exp where dtype(?) in [float32, float16];
  op sqrt where dtype(?) in [float32, float16];
  op nn.softmax where dtype(?) in [float32, float16];
  op nn.max_pool2d where dtype(?) in [float32, float16] and ?.layout in ["NCHW", "NHWC"];
  op nn.avg_pool2d where dtype(?) in [float32, float16] and ?.layout in ["NCHW", "NHWC"];
  op reshape where dtype(?) in [float32, float16];

  // Convolutions and fully connected layers with their fused activation.
  composite conv2d_relu = nn.relu(nnapi_conv2d_bias);
  composite conv2d_relu6 = clip(nnapi_conv2d_bias) where ?.a_min == 0f and ?.a_max == 6f;
  composite conv2d_relu1 = clip(nnapi_conv2d_bias) where ?.a_min == -1f and ?.a_max == 1f;
  composite conv2d = nnapi_conv2d_bias;
  composite dense_relu = nn.relu(nnapi_dense_bias);
  composite dense_relu6 = clip(nnapi_dense_bias) where ?.a_min == 0f and ?.a_max == 6f;
  composite dense = nnapi_dense_bias;
}
