// chlo special functions as jax.jit(...).lower(...) emits them (pretty form).
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>) {
  %0 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
  %2 = chlo.is_inf %1 : tensor<4xf32> -> tensor<4xi1>
  %3 = chlo.digamma %arg0 : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>
}
