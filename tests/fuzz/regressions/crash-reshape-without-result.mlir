func.func @main(%a: tensor<2xf32>) {
  "stablehlo.reshape"(%a) : (tensor<2xf32>) -> ()
  func.return
}
