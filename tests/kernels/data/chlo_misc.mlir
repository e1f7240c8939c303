// More chlo ops in the spellings jax.jit(...).lower(...) produces.
func.func @main(%x: tensor<3xf32>, %z: tensor<2xcomplex<f32>>, %n: tensor<3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<2xcomplex<f32>>, tensor<3xf32>, tensor<3xf32>,
        tensor<2x2xi32>, tensor<3xbf16>, tensor<3xi1>, tensor<2xcomplex<f32>>) {
  %0 = "chlo.constant_like"(%x) {value = 2.500000e-01 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = chlo.bessel_i1e %x : tensor<3xf32> -> tensor<3xf32>
  %2 = chlo.acos %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  %3 = chlo.polygamma %n, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %4 = chlo.zeta %n, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %5 = chlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %6 = "chlo.constant_like"(%x) {value = 1.000000e-01 : bf16} : (tensor<3xf32>) -> tensor<3xbf16>
  %7 = chlo.is_pos_inf %4 : tensor<3xf32> -> tensor<3xi1>
  %8 = chlo._asin_acos_kernel %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3xf32>, tensor<3xf32>, tensor<2xcomplex<f32>>,
      tensor<3xf32>, tensor<3xf32>, tensor<2x2xi32>, tensor<3xbf16>, tensor<3xi1>, tensor<2xcomplex<f32>>
}
