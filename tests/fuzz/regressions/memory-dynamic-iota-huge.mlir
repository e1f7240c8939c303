func.func @main() -> tensor<?xi64> {
  %s = stablehlo.constant dense<1000000000000> : tensor<1xi64>
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
