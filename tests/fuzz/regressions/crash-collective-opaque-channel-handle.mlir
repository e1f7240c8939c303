func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>, channel_handle = #foo.bar<1>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
