// chlo broadcasting ops: NumPy-style, and with explicit broadcast_dimensions.
func.func @main(%a: tensor<2x3xi32>, %b: tensor<3xi32>, %c: tensor<2xi32>)
    -> (tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi32>) {
  %0 = chlo.broadcast_add %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction GT>}
      : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %2 = chlo.broadcast_subtract %a, %c {broadcast_dimensions = array<i64: 0>}
      : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi32>
}
