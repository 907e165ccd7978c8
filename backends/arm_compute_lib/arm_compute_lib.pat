// Arm Compute Library: TVM v0.16's annotation rules and pattern table
// (python/tvm/relay/op/contrib/arm_compute_lib.py; tvm-reference 4.2).
//
// partition_for_arm_compute_lib binds params and runs InferType,
// MergeComposite(table), AnnotateTarget(arm_compute_lib,
// include_non_call_ops=False), PartitionGraph: no region merging, one
// function per op or composite. (carve's recipe: acl_backend.cc.)
//
// Copy this file, edit it and pass it with `--patterns` to try other rules.

// conv2d: NHWC, out_dtype "" or float32, float32 data of shape (1, H, W, C),
// a float32 kernel of rank 4. A depthwise conv (TVM's is_depthwise_conv2d:
// input channels == output channels == groups) needs a square 3x3 or 5x5
// kernel (kernel shape[0] and [1], as TVM reads
// them) and strides (1, 1) or (2, 2); other grouped convs are rejected.
pattern acl_conv2d = nn.conv2d((nn.pad(_, _) | _) as ?data, const as ?weight) as ?conv
  where ?conv.data_layout == "NHWC" and ?conv.out_dtype in ["", float32]
    and rank(?data) == 4 and shape(?data)[0] == 1 and dtype(?data) == float32
    and rank(?weight) == 4 and dtype(?weight) == float32
    and (?conv.groups == 1
         or (?conv.groups == shape(?data)[3] and shape(?conv)[3] == ?conv.groups and shape(?weight)[0] in [3, 5]
             and shape(?weight)[0] == shape(?weight)[1] and ?conv.strides in [[1, 1], [2, 2]]));

// qnn.conv2d: the same for uint8 / int8 data and kernel, out_dtype "" or
// int32, and no per-channel quantization (one kernel zero point and scale).
pattern acl_qnn_conv2d =
    qnn.conv2d((nn.pad(_, _) | _) as ?qdata, const as ?qweight, const, const as ?kzp, const,
               const as ?kscale) as ?qconv
  where ?qconv.data_layout == "NHWC" and ?qconv.out_dtype in ["", int32]
    and rank(?qdata) == 4 and shape(?qdata)[0] == 1 and dtype(?qdata) in [uint8, int8]
    and rank(?qweight) == 4 and dtype(?qweight) in [uint8, int8]
    and (rank(?kzp) == 0 or shape(?kzp)[0] == 1) and (rank(?kscale) == 0 or shape(?kscale)[0] == 1)
    and (?qconv.groups == 1
         or (?qconv.groups == shape(?qdata)[3] and shape(?qconv)[3] == ?qconv.groups and shape(?qweight)[0] in [3, 5]
             and shape(?qweight)[0] == shape(?qweight)[1] and ?qconv.strides in [[1, 1], [2, 2]]));

// dense: float32 data, a float32 kernel of rank 2, out_dtype "" or float32.
pattern acl_dense = nn.dense(?x, const as ?w) as ?dense
  where dtype(?x) == float32 and rank(?w) == 2 and dtype(?w) == float32
    and ?dense.out_dtype in ["", float32];

// qnn.dense: uint8 / int8 data and kernel (rank 2), out_dtype int32, no
// per-channel quantization.
pattern acl_qnn_dense = qnn.dense(?qx, const as ?qw, const, const as ?wzp, const, const as ?wscale)
                          as ?qdense
  where dtype(?qx) in [uint8, int8] and rank(?qw) == 2 and dtype(?qw) in [uint8, int8]
    and ?qdense.out_dtype == int32
    and (rank(?wzp) == 0 or shape(?wzp)[0] == 1) and (rank(?wscale) == 0 or shape(?wscale)[0] == 1);

// The int32 cast before a quantized average pool.
pattern acl_widen = cast(_) as ?widen;

backend arm_compute_lib {
  ops reshape;

  // conv2d and dense on their own: the checks of the patterns above.
  op nn.conv2d(?data, ?weight)
    where ?.data_layout == "NHWC" and ?.out_dtype in ["", float32]
      and rank(?data) == 4 and shape(?data)[0] == 1 and dtype(?data) == float32
      and rank(?weight) == 4 and dtype(?weight) == float32
      and (?.groups == 1
           or (?.groups == shape(?data)[3] and shape(?)[3] == ?.groups and shape(?weight)[0] in [3, 5]
               and shape(?weight)[0] == shape(?weight)[1] and ?.strides in [[1, 1], [2, 2]]));
  op nn.dense(?x, ?w) where dtype(?x) == float32 and rank(?w) == 2 and dtype(?w) == float32
                        and ?.out_dtype in ["", float32];
  op nn.max_pool2d(?x) where ?.layout == "NHWC" and dtype(?x) in [float32, uint8, int8]
                         and ?.dilation == [1, 1];
  op nn.avg_pool2d(?x) where ?.layout == "NHWC" and dtype(?x) == float32 and ?.dilation == [1, 1];
  op nn.global_max_pool2d(?x) where ?.layout == "NHWC" and dtype(?x) in [float32, uint8, int8];
  op nn.global_avg_pool2d(?x) where ?.layout == "NHWC" and dtype(?x) == float32;
  // maximum: TVM tests the first argument's dtype (twice).
  op maximum(?a, _) where dtype(?a) == float32;
  op add(?a, ?b) where dtype(?a) == float32 and dtype(?b) == float32;
  // qnn.add: int8 / uint8 operands, no per-channel quantization (every scale
  // and zero point one value).
  op qnn.add(?a, ?b, ?s0, ?z0, ?s1, ?z1, ?s2, ?z2)
    where dtype(?a) in [uint8, int8] and dtype(?b) in [uint8, int8]
      and (rank(?s0) == 0 or shape(?s0)[0] == 1) and (rank(?z0) == 0 or shape(?z0)[0] == 1)
      and (rank(?s1) == 0 or shape(?s1)[0] == 1) and (rank(?z1) == 0 or shape(?z1)[0] == 1)
      and (rank(?s2) == 0 or shape(?s2)[0] == 1) and (rank(?z2) == 0 or shape(?z2)[0] == 1);

  // The table, in TVM's priority order. TVM lists qnn_conv2d twice (after
  // qnn_dense again); a table holds one entry per name here, and the second
  // entry can only match what the first one did.
  composite conv2d = nn.relu?(nn.bias_add?(acl_conv2d, const));
  composite qnn_conv2d = qnn.requantize(nn.relu?(nn.bias_add?(acl_qnn_conv2d, const)), _, _, const,
                                        const) as ?rq
      where ?rq.out_dtype in [uint8, int8];
  composite dense = nn.bias_add?(acl_dense, const);
  composite qnn_dense = qnn.requantize(nn.bias_add?(acl_qnn_dense, const), _, _, const, const) as ?rq
      where ?rq.out_dtype in [uint8, int8];
  // Quantized average pooling: cast to int32, pool (NHWC, dilation 1),
  // cast back to uint8 / int8.
  composite avg_pool2d =
      cast((nn.avg_pool2d(acl_widen) where ?.layout == "NHWC" and ?.dilation == [1, 1])
           | (nn.global_avg_pool2d(acl_widen) where ?.layout == "NHWC")) as ?narrow
      where ?narrow.dtype in [uint8, int8] and ?widen.dtype == int32;
  // L2 pooling: sqrt(avg_pool2d(x^2)), the pool as the float32 avg_pool2d rule.
  composite l2_pool2d = sqrt(nn.avg_pool2d(power(?l2x, 2f)) as ?l2pool)
      where dtype(?l2x) == float32 and ?l2pool.layout == "NHWC" and ?l2pool.dilation == [1, 1];
  // concatenate is in partition_for_arm_compute_lib's default disabled_ops,
  // so TVM never offloads it; uncomment to enable (tuple fields float32,
  // uint8 or int8; axis in [-4, 3]):
  // composite concatenate = concatenate((...)) as ?cat
  //     where dtype(?cat) in [float32, uint8, int8] and ?cat.axis >= -4 and ?cat.axis <= 3;
}
