// jax.lax.top_k(x, 2) lowers to chlo.top_k.
func.func public @main(%arg0: tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>) {
  %0:2 = chlo.top_k(%arg0, k = 2) : tensor<2x5xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xi32>
}
