// chlo.mulhi in the generic form, chlo.next_after in the pretty form.
func.func @main(%a: tensor<3xi32>, %b: tensor<3xi32>, %x: tensor<2xf32>, %y: tensor<2xf32>)
    -> (tensor<3xi32>, tensor<2xf32>) {
  %0 = "chlo.mulhi"(%a, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = chlo.next_after %x, %y : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0, %1 : tensor<3xi32>, tensor<2xf32>
}
