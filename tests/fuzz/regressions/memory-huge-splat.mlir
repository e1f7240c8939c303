func.func @main() -> tensor<1000000000xi64> {
  %0 = stablehlo.constant dense<0> : tensor<1000000000xi64>
  func.return %0 : tensor<1000000000xi64>
}
