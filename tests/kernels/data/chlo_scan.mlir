// chlo.scan: inclusive prefix sums along dimension 1, and the final carry.
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>) {
  %init = stablehlo.constant dense<0.0> : tensor<2xf32>
  %0:2 = chlo.scan(%x) inits(%init) dimension=1 {
  ^bb0(%a: tensor<2xf32>, %c: tensor<2xf32>):
    %1 = stablehlo.add %a, %c : tensor<2xf32>
    stablehlo.return %1, %1 : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x4xf32>, tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2x4xf32>, tensor<2xf32>
}
