// Apple BNNS: TVM v0.16's annotation rules and pattern table
// (python/tvm/relay/op/contrib/bnns.py; tvm-reference 4.1).
//
// partition_for_bnns binds params and runs InferType, FoldConstant, ...,
// MergeComposite(bnns), AnnotateTarget(bnns), PartitionGraph. There is no
// MergeCompilerRegions: every op and composite becomes its own partition.
// (carve's recipe: bnns_backend.cc.)
//
// Copy this file, edit it and pass it with `--patterns` to try other rules.

// conv2d_check: float32 NCHW data of rank 4, a constant float32 weight of
// rank 4, out_dtype "" or float32 (groups and strides are not checked).
pattern bnns_conv2d = nn.conv2d(?data, ?weight) as ?conv
  where rank(?data) == 4 and dtype(?data) == float32
    and ?weight is const and rank(?weight) == 4 and dtype(?weight) == float32
    and ?conv.data_layout == "NCHW" and ?conv.out_dtype in ["", float32];

// bias_check: a constant bias, added along axis 1 by nn.bias_add, or by add
// with a bias of shape (1, C, 1, 1) or (C, 1, 1).
pattern bnns_conv2d_bias =
    (add(bnns_conv2d, ?bias)
       where ?bias is const
         and ((rank(?bias) == 4 and shape(?bias)[0] == 1 and shape(?bias)[2] == 1
               and shape(?bias)[3] == 1)
              or (rank(?bias) == 3 and shape(?bias)[1] == 1 and shape(?bias)[2] == 1)))
  | (nn.bias_add(bnns_conv2d, ?bias) where ?bias is const and ?.axis == 1);

// dense: float32 data, a constant float32 weight of rank 2, out_dtype "" or
// float32. The bias of the dense patterns is not checked.
pattern bnns_dense = nn.dense(?x, ?w) as ?dense
  where dtype(?x) == float32 and ?w is const and rank(?w) == 2 and dtype(?w) == float32
    and ?dense.out_dtype in ["", float32];
pattern bnns_dense_bias = add(bnns_dense, _);

backend bnns {
  ops nn.batch_matmul;

  // Pools: float32 input of rank 3 or 4 in NCHW.
  op nn.max_pool2d(?x) where rank(?x) >= 3 and rank(?x) <= 4 and dtype(?x) == float32
                         and ?.layout == "NCHW";
  op nn.avg_pool2d(?x) where rank(?x) >= 3 and rank(?x) <= 4 and dtype(?x) == float32
                         and ?.layout == "NCHW";
  op nn.global_max_pool2d(?x) where rank(?x) >= 3 and rank(?x) <= 4 and dtype(?x) == float32
                                and ?.layout == "NCHW";
  op nn.global_avg_pool2d(?x) where rank(?x) >= 3 and rank(?x) <= 4 and dtype(?x) == float32
                                and ?.layout == "NCHW";

  // conv2d_check and dense, as for the patterns above.
  op nn.conv2d(?data, ?weight)
    where rank(?data) == 4 and dtype(?data) == float32
      and ?weight is const and rank(?weight) == 4 and dtype(?weight) == float32
      and ?.data_layout == "NCHW" and ?.out_dtype in ["", float32];
  op nn.dense(?x, ?w)
    where dtype(?x) == float32 and ?w is const and rank(?w) == 2 and dtype(?w) == float32
      and ?.out_dtype in ["", float32];
  // instance_norm: float32 of rank 3 (axis 0) or 4 (axis 1), constant gamma
  // and beta.
  op nn.instance_norm(?x, ?gamma, ?beta)
    where dtype(?x) == float32 and ?gamma is const and ?beta is const
      and ((rank(?x) == 3 and ?.axis == 0) or (rank(?x) == 4 and ?.axis == 1));

  // The table, in TVM's priority order.
  composite conv2d_bias_relu = nn.relu(bnns_conv2d_bias);
  composite conv2d_relu = nn.relu(bnns_conv2d);
  composite conv2d_bias_sigmoid = sigmoid(bnns_conv2d_bias);
  composite conv2d_sigmoid = sigmoid(bnns_conv2d);
  composite conv2d_bias = bnns_conv2d_bias;
  // dense -> add -> the tanh approximation of GELU, with TVM's constants
  // matched exactly (is_expr): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  composite dense_bias_gelu =
      multiply(multiply(add(tanh(multiply(add(multiply(power(bnns_dense_bias, 3f), 0.044715f),
                                                   bnns_dense_bias),
                                               0.7978845608028654f)),
                            1f),
                        0.5f),
               bnns_dense_bias);
  composite dense_bias = bnns_dense_bias;
}
