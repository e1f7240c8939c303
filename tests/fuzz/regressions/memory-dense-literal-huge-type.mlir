func.func @main() -> tensor<4611686018427387904x1x4xi64> {
  %0 = stablehlo.constant dense<[[0, 1, 2, 3]]> : tensor<4611686018427387904x1x4xi64>
  func.return %0 : tensor<4611686018427387904x1x4xi64>
}
