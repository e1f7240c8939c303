module @IrToHlo.390 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<10xf32>, %arg1: tensor<10x256xf32>, %arg2: tensor<256xf32>, %arg3: tensor<256xf32>, %arg4: tensor<256xf32>, %arg5: tensor<256xf32>, %arg6: tensor<256x256x3x3xf32>, %arg7: tensor<256xf32>, %arg8: tensor<256xf32>, %arg9: tensor<256xf32>, %arg10: tensor<256xf32>, %arg11: tensor<256xf32>, %arg12: tensor<256x256x3x3xf32>, %arg13: tensor<256xf32>, %arg14: tensor<256x128x3x3xf32>, %arg15: tensor<128xf32>, %arg16: tensor<128xf32>, %arg17: tensor<128xf32>, %arg18: tensor<128xf32>, %arg19: tensor<128x128x3x3xf32>, %arg20: tensor<128xf32>, %arg21: tensor<128xf32>, %arg22: tensor<128xf32>, %arg23: tensor<128xf32>, %arg24: tensor<128xf32>, %arg25: tensor<128x128x3x3xf32>, %arg26: tensor<128xf32>, %arg27: tensor<128x64x3x3xf32>, %arg28: tensor<64xf32>, %arg29: tensor<64xf32>, %arg30: tensor<64xf32>, %arg31: tensor<64xf32>, %arg32: tensor<64x64x3x3xf32>, %arg33: tensor<64xf32>, %arg34: tensor<64xf32>, %arg35: tensor<64xf32>, %arg36: tensor<64xf32>, %arg37: tensor<64xf32>, %arg38: tensor<64x64x3x3xf32>, %arg39: tensor<64xf32>, %arg40: tensor<64x32x3x3xf32>, %arg41: tensor<32xf32>, %arg42: tensor<32xf32>, %arg43: tensor<32xf32>, %arg44: tensor<32xf32>, %arg45: tensor<32x32x3x3xf32>, %arg46: tensor<32xf32>, %arg47: tensor<32xf32>, %arg48: tensor<32xf32>, %arg49: tensor<32xf32>, %arg50: tensor<32xf32>, %arg51: tensor<32x32x3x3xf32>, %arg52: tensor<32xf32>, %arg53: tensor<32x3x3x3xf32>, %arg54: tensor<8x3x64x64xf32>) -> tensor<8x10xf32> {
    %cst = stablehlo.constant dense<6.250000e-02> : tensor<8x256xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<8x256x8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<8x128x16x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<8x64x32x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<8x32x64x64xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.convolution(%arg54, %arg53) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x3x64x64xf32>, tensor<32x3x3x3xf32>) -> tensor<8x32x64x64xf32>
    %1 = stablehlo.broadcast_in_dim %arg52, dims = [1] : (tensor<32xf32>) -> tensor<8x32x64x64xf32>
    %2 = stablehlo.add %0, %1 : tensor<8x32x64x64xf32>
    %3 = stablehlo.convolution(%2, %arg51) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x32x64x64xf32>, tensor<32x32x3x3xf32>) -> tensor<8x32x64x64xf32>
    %4 = stablehlo.broadcast_in_dim %arg50, dims = [1] : (tensor<32xf32>) -> tensor<8x32x64x64xf32>
    %5 = stablehlo.add %3, %4 : tensor<8x32x64x64xf32>
    %6 = "stablehlo.batch_norm_inference"(%5, %arg49, %arg48, %arg47, %arg46) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x32x64x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x32x64x64xf32>
    %7 = stablehlo.maximum %6, %cst_3 : tensor<8x32x64x64xf32>
    %8 = stablehlo.convolution(%7, %arg45) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x32x64x64xf32>, tensor<32x32x3x3xf32>) -> tensor<8x32x64x64xf32>
    %9 = "stablehlo.batch_norm_inference"(%8, %arg44, %arg43, %arg42, %arg41) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x32x64x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x32x64x64xf32>
    %10 = stablehlo.add %2, %9 : tensor<8x32x64x64xf32>
    %11 = stablehlo.maximum %10, %cst_3 : tensor<8x32x64x64xf32>
    %12 = "stablehlo.reduce_window"(%11, %cst_4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg55: tensor<f32>, %arg56: tensor<f32>):
      %58 = stablehlo.maximum %arg55, %arg56 : tensor<f32>
      stablehlo.return %58 : tensor<f32>
    }) : (tensor<8x32x64x64xf32>, tensor<f32>) -> tensor<8x32x32x32xf32>
    %13 = stablehlo.convolution(%12, %arg40) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x32x32x32xf32>, tensor<64x32x3x3xf32>) -> tensor<8x64x32x32xf32>
    %14 = stablehlo.broadcast_in_dim %arg39, dims = [1] : (tensor<64xf32>) -> tensor<8x64x32x32xf32>
    %15 = stablehlo.add %13, %14 : tensor<8x64x32x32xf32>
    %16 = stablehlo.convolution(%15, %arg38) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x64x32x32xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x32x32xf32>
    %17 = stablehlo.broadcast_in_dim %arg37, dims = [1] : (tensor<64xf32>) -> tensor<8x64x32x32xf32>
    %18 = stablehlo.add %16, %17 : tensor<8x64x32x32xf32>
    %19 = "stablehlo.batch_norm_inference"(%18, %arg36, %arg35, %arg34, %arg33) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x64x32x32xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64x32x32xf32>
    %20 = stablehlo.maximum %19, %cst_2 : tensor<8x64x32x32xf32>
    %21 = stablehlo.convolution(%20, %arg32) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x64x32x32xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x32x32xf32>
    %22 = "stablehlo.batch_norm_inference"(%21, %arg31, %arg30, %arg29, %arg28) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x64x32x32xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64x32x32xf32>
    %23 = stablehlo.add %15, %22 : tensor<8x64x32x32xf32>
    %24 = stablehlo.maximum %23, %cst_2 : tensor<8x64x32x32xf32>
    %25 = "stablehlo.reduce_window"(%24, %cst_4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg55: tensor<f32>, %arg56: tensor<f32>):
      %58 = stablehlo.maximum %arg55, %arg56 : tensor<f32>
      stablehlo.return %58 : tensor<f32>
    }) : (tensor<8x64x32x32xf32>, tensor<f32>) -> tensor<8x64x16x16xf32>
    %26 = stablehlo.convolution(%25, %arg27) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x64x16x16xf32>, tensor<128x64x3x3xf32>) -> tensor<8x128x16x16xf32>
    %27 = stablehlo.broadcast_in_dim %arg26, dims = [1] : (tensor<128xf32>) -> tensor<8x128x16x16xf32>
    %28 = stablehlo.add %26, %27 : tensor<8x128x16x16xf32>
    %29 = stablehlo.convolution(%28, %arg25) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x128x16x16xf32>, tensor<128x128x3x3xf32>) -> tensor<8x128x16x16xf32>
    %30 = stablehlo.broadcast_in_dim %arg24, dims = [1] : (tensor<128xf32>) -> tensor<8x128x16x16xf32>
    %31 = stablehlo.add %29, %30 : tensor<8x128x16x16xf32>
    %32 = "stablehlo.batch_norm_inference"(%31, %arg23, %arg22, %arg21, %arg20) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x128x16x16xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<8x128x16x16xf32>
    %33 = stablehlo.maximum %32, %cst_1 : tensor<8x128x16x16xf32>
    %34 = stablehlo.convolution(%33, %arg19) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x128x16x16xf32>, tensor<128x128x3x3xf32>) -> tensor<8x128x16x16xf32>
    %35 = "stablehlo.batch_norm_inference"(%34, %arg18, %arg17, %arg16, %arg15) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x128x16x16xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<8x128x16x16xf32>
    %36 = stablehlo.add %28, %35 : tensor<8x128x16x16xf32>
    %37 = stablehlo.maximum %36, %cst_1 : tensor<8x128x16x16xf32>
    %38 = "stablehlo.reduce_window"(%37, %cst_4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg55: tensor<f32>, %arg56: tensor<f32>):
      %58 = stablehlo.maximum %arg55, %arg56 : tensor<f32>
      stablehlo.return %58 : tensor<f32>
    }) : (tensor<8x128x16x16xf32>, tensor<f32>) -> tensor<8x128x8x8xf32>
    %39 = stablehlo.convolution(%38, %arg14) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x128x8x8xf32>, tensor<256x128x3x3xf32>) -> tensor<8x256x8x8xf32>
    %40 = stablehlo.broadcast_in_dim %arg13, dims = [1] : (tensor<256xf32>) -> tensor<8x256x8x8xf32>
    %41 = stablehlo.add %39, %40 : tensor<8x256x8x8xf32>
    %42 = stablehlo.convolution(%41, %arg12) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x256x8x8xf32>, tensor<256x256x3x3xf32>) -> tensor<8x256x8x8xf32>
    %43 = stablehlo.broadcast_in_dim %arg11, dims = [1] : (tensor<256xf32>) -> tensor<8x256x8x8xf32>
    %44 = stablehlo.add %42, %43 : tensor<8x256x8x8xf32>
    %45 = "stablehlo.batch_norm_inference"(%44, %arg10, %arg9, %arg8, %arg7) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x256x8x8xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256x8x8xf32>
    %46 = stablehlo.maximum %45, %cst_0 : tensor<8x256x8x8xf32>
    %47 = stablehlo.convolution(%46, %arg6) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x256x8x8xf32>, tensor<256x256x3x3xf32>) -> tensor<8x256x8x8xf32>
    %48 = "stablehlo.batch_norm_inference"(%47, %arg5, %arg4, %arg3, %arg2) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<8x256x8x8xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256x8x8xf32>
    %49 = stablehlo.add %41, %48 : tensor<8x256x8x8xf32>
    %50 = stablehlo.maximum %49, %cst_0 : tensor<8x256x8x8xf32>
    %51 = "stablehlo.reduce_window"(%50, %cst_4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg55: tensor<f32>, %arg56: tensor<f32>):
      %58 = stablehlo.maximum %arg55, %arg56 : tensor<f32>
      stablehlo.return %58 : tensor<f32>
    }) : (tensor<8x256x8x8xf32>, tensor<f32>) -> tensor<8x256x4x4xf32>
    %52 = stablehlo.reduce(%51 init: %cst_5) applies stablehlo.add across dimensions = [3, 2] : (tensor<8x256x4x4xf32>, tensor<f32>) -> tensor<8x256xf32>
    %53 = stablehlo.multiply %52, %cst : tensor<8x256xf32>
    %54 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,10]{0,1}"} : (tensor<10x256xf32>) -> tensor<256x10xf32>
    %55 = stablehlo.dot_general %53, %54, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x256xf32>, tensor<256x10xf32>) -> tensor<8x10xf32>
    %56 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<10xf32>) -> tensor<8x10xf32>
    %57 = stablehlo.add %55, %56 : tensor<8x10xf32>
    return %57 : tensor<8x10xf32>
  }
}
