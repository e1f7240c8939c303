func.func @log_default(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.log"(%arg0) {
    result_accuracy = #stablehlo.result_accuracy<atol = 0x7FF8000000000001, rtol = 0.000000e+00, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>
  } : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
