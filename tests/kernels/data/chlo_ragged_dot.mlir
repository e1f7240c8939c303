// jax.lax.ragged_dot: [m, k] x [g, k, n] with group sizes [g] -> [m, n] (mode 1).
func.func @main(%lhs: tensor<4x3xf32>, %rhs: tensor<2x3x2xf32>, %gs: tensor<2xi64>) -> tensor<4x2xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [],
      rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0],
      rhs_group_dimensions = [0]
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<4x3xf32>, tensor<2x3x2xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
