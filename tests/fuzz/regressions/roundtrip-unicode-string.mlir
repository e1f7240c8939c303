func.func @infeed_c3(%token: !stablehlo.token) -> (tensor<i32>, !stablehlo.token) {
  %0:2 = "stablehlo.infeed"(%token) {infeed_config = "foo你b\E2\80\8Bar", layout = [[0]]} : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
  func.return %0#0, %0#1 : tensor<i32>, !stablehlo.token
}
