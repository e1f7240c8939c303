module @IrToHlo.795 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256x1024xf32>, %arg3: tensor<1024xf32>, %arg4: tensor<1024x256xf32>, %arg5: tensor<256xf32>, %arg6: tensor<256xf32>, %arg7: tensor<256x256xf32>, %arg8: tensor<768xf32>, %arg9: tensor<768x256xf32>, %arg10: tensor<256xf32>, %arg11: tensor<256xf32>, %arg12: tensor<256x1024xf32>, %arg13: tensor<1024xf32>, %arg14: tensor<1024x256xf32>, %arg15: tensor<256xf32>, %arg16: tensor<256xf32>, %arg17: tensor<256x256xf32>, %arg18: tensor<768xf32>, %arg19: tensor<768x256xf32>, %arg20: tensor<256xf32>, %arg21: tensor<256xf32>, %arg22: tensor<256x1024xf32>, %arg23: tensor<1024xf32>, %arg24: tensor<1024x256xf32>, %arg25: tensor<256xf32>, %arg26: tensor<256xf32>, %arg27: tensor<256x256xf32>, %arg28: tensor<768xf32>, %arg29: tensor<768x256xf32>, %arg30: tensor<256xf32>, %arg31: tensor<256xf32>, %arg32: tensor<256x1024xf32>, %arg33: tensor<1024xf32>, %arg34: tensor<1024x256xf32>, %arg35: tensor<256xf32>, %arg36: tensor<256xf32>, %arg37: tensor<256x256xf32>, %arg38: tensor<768xf32>, %arg39: tensor<768x256xf32>, %arg40: tensor<8x64x256xf32>, %arg41: tensor<256xf32>, %arg42: tensor<256xf32>, %arg43: tensor<256xf32>, %arg44: tensor<256xf32>, %arg45: tensor<256xf32>, %arg46: tensor<256xf32>, %arg47: tensor<256xf32>, %arg48: tensor<256xf32>) -> tensor<8x64x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<8x64x1024xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<512xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<512xf32>
    %cst_2 = stablehlo.constant dense<0.420448214> : tensor<8x8x32x64xf32>
    %cst_3 = stablehlo.constant dense<0.420448214> : tensor<8x8x64x32xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.transpose %arg40, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,8,256]{2,0,1}"} : (tensor<8x64x256xf32>) -> tensor<64x8x256xf32>
    %1 = stablehlo.transpose %arg39, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,768]{0,1}"} : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [1, 2] : (tensor<256x768xf32>) -> tensor<64x256x768xf32>
    %3 = stablehlo.dot_general %0, %2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x8x256xf32>, tensor<64x256x768xf32>) -> tensor<64x8x768xf32>
    %4 = stablehlo.broadcast_in_dim %arg38, dims = [2] : (tensor<768xf32>) -> tensor<64x8x768xf32>
    %5 = stablehlo.add %3, %4 : tensor<64x8x768xf32>
    %6 = stablehlo.reshape %5 : (tensor<64x8x768xf32>) -> tensor<1x64x8x3x256xf32>
    %7 = stablehlo.transpose %6, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[3,64,8,1,256]{4,0,2,1,3}"} : (tensor<1x64x8x3x256xf32>) -> tensor<3x64x8x1x256xf32>
    %8 = stablehlo.reshape %7 : (tensor<3x64x8x1x256xf32>) -> tensor<3x64x8x256xf32>
    %9 = stablehlo.slice %8 [0:1, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %11 = stablehlo.transpose %10, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %12 = stablehlo.reshape %11 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %13 = stablehlo.multiply %12, %cst_3 : tensor<8x8x64x32xf32>
    %14 = stablehlo.reshape %13 : (tensor<8x8x64x32xf32>) -> tensor<64x64x32xf32>
    %15 = stablehlo.slice %8 [1:2, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %16 = stablehlo.reshape %15 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %17 = stablehlo.transpose %16, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %18 = stablehlo.reshape %17 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %19 = stablehlo.transpose %18, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[8,8,32,64]{2,3,1,0}"} : (tensor<8x8x64x32xf32>) -> tensor<8x8x32x64xf32>
    %20 = stablehlo.multiply %19, %cst_2 : tensor<8x8x32x64xf32>
    %21 = stablehlo.reshape %20 : (tensor<8x8x32x64xf32>) -> tensor<64x32x64xf32>
    %22 = stablehlo.dot_general %14, %21, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x32xf32>, tensor<64x32x64xf32>) -> tensor<64x64x64xf32>
    %23 = stablehlo.reshape %22 : (tensor<64x64x64xf32>) -> tensor<8x8x64x64xf32>
    %24 = stablehlo.reduce(%23 init: %cst_4) applies stablehlo.maximum across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %26 = stablehlo.subtract %23, %25 : tensor<8x8x64x64xf32>
    %27 = stablehlo.exponential %26 : tensor<8x8x64x64xf32>
    %28 = stablehlo.reduce(%27 init: %cst_5) applies stablehlo.add across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %30 = stablehlo.divide %27, %29 : tensor<8x8x64x64xf32>
    %31 = stablehlo.reshape %30 : (tensor<8x8x64x64xf32>) -> tensor<64x64x64xf32>
    %32 = stablehlo.slice %8 [2:3, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %33 = stablehlo.reshape %32 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %34 = stablehlo.transpose %33, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %35 = stablehlo.dot_general %31, %34, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x64xf32>, tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %36 = stablehlo.reshape %35 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %37 = stablehlo.transpose %36, dims = [2, 0, 1, 3] {result_layout = dense<[3, 0, 2, 1]> : tensor<4xindex>, xla_shape = "f32[64,8,8,32]{3,0,2,1}"} : (tensor<8x8x64x32xf32>) -> tensor<64x8x8x32xf32>
    %38 = stablehlo.reshape %37 : (tensor<64x8x8x32xf32>) -> tensor<512x256xf32>
    %39 = stablehlo.transpose %arg37, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,256]{0,1}"} : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %40 = stablehlo.dot_general %38, %39, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x256xf32>) -> tensor<512x256xf32>
    %41 = stablehlo.broadcast_in_dim %arg36, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %42 = stablehlo.add %40, %41 : tensor<512x256xf32>
    %43 = stablehlo.reshape %42 : (tensor<512x256xf32>) -> tensor<64x8x256xf32>
    %44 = stablehlo.transpose %43, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,64,256]{2,0,1}"} : (tensor<64x8x256xf32>) -> tensor<8x64x256xf32>
    %45 = stablehlo.add %arg40, %44 : tensor<8x64x256xf32>
    %46 = stablehlo.reshape %45 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%46, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %47 = stablehlo.broadcast_in_dim %arg41, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %48 = stablehlo.reshape %output : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %49 = stablehlo.broadcast_in_dim %arg35, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %50 = stablehlo.multiply %48, %49 : tensor<8x64x256xf32>
    %51 = stablehlo.add %47, %50 : tensor<8x64x256xf32>
    %52 = stablehlo.reshape %51 : (tensor<8x64x256xf32>) -> tensor<512x256xf32>
    %53 = stablehlo.transpose %arg34, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,1024]{0,1}"} : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %54 = stablehlo.dot_general %52, %53, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x1024xf32>) -> tensor<512x1024xf32>
    %55 = stablehlo.broadcast_in_dim %arg33, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32>
    %56 = stablehlo.add %54, %55 : tensor<512x1024xf32>
    %57 = stablehlo.reshape %56 : (tensor<512x1024xf32>) -> tensor<8x64x1024xf32>
    %58 = stablehlo.maximum %57, %cst : tensor<8x64x1024xf32>
    %59 = stablehlo.reshape %58 : (tensor<8x64x1024xf32>) -> tensor<512x1024xf32>
    %60 = stablehlo.transpose %arg32, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[1024,256]{0,1}"} : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %61 = stablehlo.dot_general %59, %60, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x1024xf32>, tensor<1024x256xf32>) -> tensor<512x256xf32>
    %62 = stablehlo.broadcast_in_dim %arg31, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %63 = stablehlo.add %61, %62 : tensor<512x256xf32>
    %64 = stablehlo.reshape %63 : (tensor<512x256xf32>) -> tensor<8x64x256xf32>
    %65 = stablehlo.add %51, %64 : tensor<8x64x256xf32>
    %66 = stablehlo.reshape %65 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output_6, %batch_mean_7, %batch_var_8 = "stablehlo.batch_norm_training"(%66, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %67 = stablehlo.broadcast_in_dim %arg42, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %68 = stablehlo.reshape %output_6 : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %69 = stablehlo.broadcast_in_dim %arg30, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %70 = stablehlo.multiply %68, %69 : tensor<8x64x256xf32>
    %71 = stablehlo.add %67, %70 : tensor<8x64x256xf32>
    %72 = stablehlo.transpose %71, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,8,256]{2,0,1}"} : (tensor<8x64x256xf32>) -> tensor<64x8x256xf32>
    %73 = stablehlo.transpose %arg29, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,768]{0,1}"} : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [1, 2] : (tensor<256x768xf32>) -> tensor<64x256x768xf32>
    %75 = stablehlo.dot_general %72, %74, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x8x256xf32>, tensor<64x256x768xf32>) -> tensor<64x8x768xf32>
    %76 = stablehlo.broadcast_in_dim %arg28, dims = [2] : (tensor<768xf32>) -> tensor<64x8x768xf32>
    %77 = stablehlo.add %75, %76 : tensor<64x8x768xf32>
    %78 = stablehlo.reshape %77 : (tensor<64x8x768xf32>) -> tensor<1x64x8x3x256xf32>
    %79 = stablehlo.transpose %78, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[3,64,8,1,256]{4,0,2,1,3}"} : (tensor<1x64x8x3x256xf32>) -> tensor<3x64x8x1x256xf32>
    %80 = stablehlo.reshape %79 : (tensor<3x64x8x1x256xf32>) -> tensor<3x64x8x256xf32>
    %81 = stablehlo.slice %80 [0:1, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %82 = stablehlo.reshape %81 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %83 = stablehlo.transpose %82, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %84 = stablehlo.reshape %83 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %85 = stablehlo.multiply %84, %cst_3 : tensor<8x8x64x32xf32>
    %86 = stablehlo.reshape %85 : (tensor<8x8x64x32xf32>) -> tensor<64x64x32xf32>
    %87 = stablehlo.slice %80 [1:2, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %88 = stablehlo.reshape %87 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %89 = stablehlo.transpose %88, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %90 = stablehlo.reshape %89 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %91 = stablehlo.transpose %90, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[8,8,32,64]{2,3,1,0}"} : (tensor<8x8x64x32xf32>) -> tensor<8x8x32x64xf32>
    %92 = stablehlo.multiply %91, %cst_2 : tensor<8x8x32x64xf32>
    %93 = stablehlo.reshape %92 : (tensor<8x8x32x64xf32>) -> tensor<64x32x64xf32>
    %94 = stablehlo.dot_general %86, %93, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x32xf32>, tensor<64x32x64xf32>) -> tensor<64x64x64xf32>
    %95 = stablehlo.reshape %94 : (tensor<64x64x64xf32>) -> tensor<8x8x64x64xf32>
    %96 = stablehlo.reduce(%95 init: %cst_4) applies stablehlo.maximum across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %98 = stablehlo.subtract %95, %97 : tensor<8x8x64x64xf32>
    %99 = stablehlo.exponential %98 : tensor<8x8x64x64xf32>
    %100 = stablehlo.reduce(%99 init: %cst_5) applies stablehlo.add across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %101 = stablehlo.broadcast_in_dim %100, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %102 = stablehlo.divide %99, %101 : tensor<8x8x64x64xf32>
    %103 = stablehlo.reshape %102 : (tensor<8x8x64x64xf32>) -> tensor<64x64x64xf32>
    %104 = stablehlo.slice %80 [2:3, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %105 = stablehlo.reshape %104 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %106 = stablehlo.transpose %105, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %107 = stablehlo.dot_general %103, %106, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x64xf32>, tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %108 = stablehlo.reshape %107 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %109 = stablehlo.transpose %108, dims = [2, 0, 1, 3] {result_layout = dense<[3, 0, 2, 1]> : tensor<4xindex>, xla_shape = "f32[64,8,8,32]{3,0,2,1}"} : (tensor<8x8x64x32xf32>) -> tensor<64x8x8x32xf32>
    %110 = stablehlo.reshape %109 : (tensor<64x8x8x32xf32>) -> tensor<512x256xf32>
    %111 = stablehlo.transpose %arg27, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,256]{0,1}"} : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %112 = stablehlo.dot_general %110, %111, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x256xf32>) -> tensor<512x256xf32>
    %113 = stablehlo.broadcast_in_dim %arg26, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %114 = stablehlo.add %112, %113 : tensor<512x256xf32>
    %115 = stablehlo.reshape %114 : (tensor<512x256xf32>) -> tensor<64x8x256xf32>
    %116 = stablehlo.transpose %115, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,64,256]{2,0,1}"} : (tensor<64x8x256xf32>) -> tensor<8x64x256xf32>
    %117 = stablehlo.add %71, %116 : tensor<8x64x256xf32>
    %118 = stablehlo.reshape %117 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output_9, %batch_mean_10, %batch_var_11 = "stablehlo.batch_norm_training"(%118, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %119 = stablehlo.broadcast_in_dim %arg43, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %120 = stablehlo.reshape %output_9 : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %121 = stablehlo.broadcast_in_dim %arg25, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %122 = stablehlo.multiply %120, %121 : tensor<8x64x256xf32>
    %123 = stablehlo.add %119, %122 : tensor<8x64x256xf32>
    %124 = stablehlo.reshape %123 : (tensor<8x64x256xf32>) -> tensor<512x256xf32>
    %125 = stablehlo.transpose %arg24, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,1024]{0,1}"} : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %126 = stablehlo.dot_general %124, %125, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x1024xf32>) -> tensor<512x1024xf32>
    %127 = stablehlo.broadcast_in_dim %arg23, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32>
    %128 = stablehlo.add %126, %127 : tensor<512x1024xf32>
    %129 = stablehlo.reshape %128 : (tensor<512x1024xf32>) -> tensor<8x64x1024xf32>
    %130 = stablehlo.maximum %129, %cst : tensor<8x64x1024xf32>
    %131 = stablehlo.reshape %130 : (tensor<8x64x1024xf32>) -> tensor<512x1024xf32>
    %132 = stablehlo.transpose %arg22, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[1024,256]{0,1}"} : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %133 = stablehlo.dot_general %131, %132, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x1024xf32>, tensor<1024x256xf32>) -> tensor<512x256xf32>
    %134 = stablehlo.broadcast_in_dim %arg21, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %135 = stablehlo.add %133, %134 : tensor<512x256xf32>
    %136 = stablehlo.reshape %135 : (tensor<512x256xf32>) -> tensor<8x64x256xf32>
    %137 = stablehlo.add %123, %136 : tensor<8x64x256xf32>
    %138 = stablehlo.reshape %137 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output_12, %batch_mean_13, %batch_var_14 = "stablehlo.batch_norm_training"(%138, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %139 = stablehlo.broadcast_in_dim %arg44, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %140 = stablehlo.reshape %output_12 : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %141 = stablehlo.broadcast_in_dim %arg20, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %142 = stablehlo.multiply %140, %141 : tensor<8x64x256xf32>
    %143 = stablehlo.add %139, %142 : tensor<8x64x256xf32>
    %144 = stablehlo.transpose %143, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,8,256]{2,0,1}"} : (tensor<8x64x256xf32>) -> tensor<64x8x256xf32>
    %145 = stablehlo.transpose %arg19, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,768]{0,1}"} : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %146 = stablehlo.broadcast_in_dim %145, dims = [1, 2] : (tensor<256x768xf32>) -> tensor<64x256x768xf32>
    %147 = stablehlo.dot_general %144, %146, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x8x256xf32>, tensor<64x256x768xf32>) -> tensor<64x8x768xf32>
    %148 = stablehlo.broadcast_in_dim %arg18, dims = [2] : (tensor<768xf32>) -> tensor<64x8x768xf32>
    %149 = stablehlo.add %147, %148 : tensor<64x8x768xf32>
    %150 = stablehlo.reshape %149 : (tensor<64x8x768xf32>) -> tensor<1x64x8x3x256xf32>
    %151 = stablehlo.transpose %150, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[3,64,8,1,256]{4,0,2,1,3}"} : (tensor<1x64x8x3x256xf32>) -> tensor<3x64x8x1x256xf32>
    %152 = stablehlo.reshape %151 : (tensor<3x64x8x1x256xf32>) -> tensor<3x64x8x256xf32>
    %153 = stablehlo.slice %152 [0:1, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %154 = stablehlo.reshape %153 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %155 = stablehlo.transpose %154, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %156 = stablehlo.reshape %155 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %157 = stablehlo.multiply %156, %cst_3 : tensor<8x8x64x32xf32>
    %158 = stablehlo.reshape %157 : (tensor<8x8x64x32xf32>) -> tensor<64x64x32xf32>
    %159 = stablehlo.slice %152 [1:2, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %160 = stablehlo.reshape %159 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %161 = stablehlo.transpose %160, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %162 = stablehlo.reshape %161 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %163 = stablehlo.transpose %162, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[8,8,32,64]{2,3,1,0}"} : (tensor<8x8x64x32xf32>) -> tensor<8x8x32x64xf32>
    %164 = stablehlo.multiply %163, %cst_2 : tensor<8x8x32x64xf32>
    %165 = stablehlo.reshape %164 : (tensor<8x8x32x64xf32>) -> tensor<64x32x64xf32>
    %166 = stablehlo.dot_general %158, %165, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x32xf32>, tensor<64x32x64xf32>) -> tensor<64x64x64xf32>
    %167 = stablehlo.reshape %166 : (tensor<64x64x64xf32>) -> tensor<8x8x64x64xf32>
    %168 = stablehlo.reduce(%167 init: %cst_4) applies stablehlo.maximum across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %169 = stablehlo.broadcast_in_dim %168, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %170 = stablehlo.subtract %167, %169 : tensor<8x8x64x64xf32>
    %171 = stablehlo.exponential %170 : tensor<8x8x64x64xf32>
    %172 = stablehlo.reduce(%171 init: %cst_5) applies stablehlo.add across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %174 = stablehlo.divide %171, %173 : tensor<8x8x64x64xf32>
    %175 = stablehlo.reshape %174 : (tensor<8x8x64x64xf32>) -> tensor<64x64x64xf32>
    %176 = stablehlo.slice %152 [2:3, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %177 = stablehlo.reshape %176 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %178 = stablehlo.transpose %177, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %179 = stablehlo.dot_general %175, %178, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x64xf32>, tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %180 = stablehlo.reshape %179 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %181 = stablehlo.transpose %180, dims = [2, 0, 1, 3] {result_layout = dense<[3, 0, 2, 1]> : tensor<4xindex>, xla_shape = "f32[64,8,8,32]{3,0,2,1}"} : (tensor<8x8x64x32xf32>) -> tensor<64x8x8x32xf32>
    %182 = stablehlo.reshape %181 : (tensor<64x8x8x32xf32>) -> tensor<512x256xf32>
    %183 = stablehlo.transpose %arg17, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,256]{0,1}"} : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %184 = stablehlo.dot_general %182, %183, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x256xf32>) -> tensor<512x256xf32>
    %185 = stablehlo.broadcast_in_dim %arg16, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %186 = stablehlo.add %184, %185 : tensor<512x256xf32>
    %187 = stablehlo.reshape %186 : (tensor<512x256xf32>) -> tensor<64x8x256xf32>
    %188 = stablehlo.transpose %187, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,64,256]{2,0,1}"} : (tensor<64x8x256xf32>) -> tensor<8x64x256xf32>
    %189 = stablehlo.add %143, %188 : tensor<8x64x256xf32>
    %190 = stablehlo.reshape %189 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output_15, %batch_mean_16, %batch_var_17 = "stablehlo.batch_norm_training"(%190, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %191 = stablehlo.broadcast_in_dim %arg45, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %192 = stablehlo.reshape %output_15 : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %193 = stablehlo.broadcast_in_dim %arg15, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %194 = stablehlo.multiply %192, %193 : tensor<8x64x256xf32>
    %195 = stablehlo.add %191, %194 : tensor<8x64x256xf32>
    %196 = stablehlo.reshape %195 : (tensor<8x64x256xf32>) -> tensor<512x256xf32>
    %197 = stablehlo.transpose %arg14, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,1024]{0,1}"} : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %198 = stablehlo.dot_general %196, %197, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x1024xf32>) -> tensor<512x1024xf32>
    %199 = stablehlo.broadcast_in_dim %arg13, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32>
    %200 = stablehlo.add %198, %199 : tensor<512x1024xf32>
    %201 = stablehlo.reshape %200 : (tensor<512x1024xf32>) -> tensor<8x64x1024xf32>
    %202 = stablehlo.maximum %201, %cst : tensor<8x64x1024xf32>
    %203 = stablehlo.reshape %202 : (tensor<8x64x1024xf32>) -> tensor<512x1024xf32>
    %204 = stablehlo.transpose %arg12, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[1024,256]{0,1}"} : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %205 = stablehlo.dot_general %203, %204, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x1024xf32>, tensor<1024x256xf32>) -> tensor<512x256xf32>
    %206 = stablehlo.broadcast_in_dim %arg11, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %207 = stablehlo.add %205, %206 : tensor<512x256xf32>
    %208 = stablehlo.reshape %207 : (tensor<512x256xf32>) -> tensor<8x64x256xf32>
    %209 = stablehlo.add %195, %208 : tensor<8x64x256xf32>
    %210 = stablehlo.reshape %209 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output_18, %batch_mean_19, %batch_var_20 = "stablehlo.batch_norm_training"(%210, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %211 = stablehlo.broadcast_in_dim %arg46, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %212 = stablehlo.reshape %output_18 : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %213 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %214 = stablehlo.multiply %212, %213 : tensor<8x64x256xf32>
    %215 = stablehlo.add %211, %214 : tensor<8x64x256xf32>
    %216 = stablehlo.transpose %215, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,8,256]{2,0,1}"} : (tensor<8x64x256xf32>) -> tensor<64x8x256xf32>
    %217 = stablehlo.transpose %arg9, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,768]{0,1}"} : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %218 = stablehlo.broadcast_in_dim %217, dims = [1, 2] : (tensor<256x768xf32>) -> tensor<64x256x768xf32>
    %219 = stablehlo.dot_general %216, %218, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x8x256xf32>, tensor<64x256x768xf32>) -> tensor<64x8x768xf32>
    %220 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<768xf32>) -> tensor<64x8x768xf32>
    %221 = stablehlo.add %219, %220 : tensor<64x8x768xf32>
    %222 = stablehlo.reshape %221 : (tensor<64x8x768xf32>) -> tensor<1x64x8x3x256xf32>
    %223 = stablehlo.transpose %222, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[3,64,8,1,256]{4,0,2,1,3}"} : (tensor<1x64x8x3x256xf32>) -> tensor<3x64x8x1x256xf32>
    %224 = stablehlo.reshape %223 : (tensor<3x64x8x1x256xf32>) -> tensor<3x64x8x256xf32>
    %225 = stablehlo.slice %224 [0:1, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %226 = stablehlo.reshape %225 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %227 = stablehlo.transpose %226, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %228 = stablehlo.reshape %227 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %229 = stablehlo.multiply %228, %cst_3 : tensor<8x8x64x32xf32>
    %230 = stablehlo.reshape %229 : (tensor<8x8x64x32xf32>) -> tensor<64x64x32xf32>
    %231 = stablehlo.slice %224 [1:2, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %232 = stablehlo.reshape %231 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %233 = stablehlo.transpose %232, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %234 = stablehlo.reshape %233 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %235 = stablehlo.transpose %234, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[8,8,32,64]{2,3,1,0}"} : (tensor<8x8x64x32xf32>) -> tensor<8x8x32x64xf32>
    %236 = stablehlo.multiply %235, %cst_2 : tensor<8x8x32x64xf32>
    %237 = stablehlo.reshape %236 : (tensor<8x8x32x64xf32>) -> tensor<64x32x64xf32>
    %238 = stablehlo.dot_general %230, %237, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x32xf32>, tensor<64x32x64xf32>) -> tensor<64x64x64xf32>
    %239 = stablehlo.reshape %238 : (tensor<64x64x64xf32>) -> tensor<8x8x64x64xf32>
    %240 = stablehlo.reduce(%239 init: %cst_4) applies stablehlo.maximum across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %241 = stablehlo.broadcast_in_dim %240, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %242 = stablehlo.subtract %239, %241 : tensor<8x8x64x64xf32>
    %243 = stablehlo.exponential %242 : tensor<8x8x64x64xf32>
    %244 = stablehlo.reduce(%243 init: %cst_5) applies stablehlo.add across dimensions = [3] : (tensor<8x8x64x64xf32>, tensor<f32>) -> tensor<8x8x64xf32>
    %245 = stablehlo.broadcast_in_dim %244, dims = [0, 1, 2] : (tensor<8x8x64xf32>) -> tensor<8x8x64x64xf32>
    %246 = stablehlo.divide %243, %245 : tensor<8x8x64x64xf32>
    %247 = stablehlo.reshape %246 : (tensor<8x8x64x64xf32>) -> tensor<64x64x64xf32>
    %248 = stablehlo.slice %224 [2:3, 0:64, 0:8, 0:256] : (tensor<3x64x8x256xf32>) -> tensor<1x64x8x256xf32>
    %249 = stablehlo.reshape %248 : (tensor<1x64x8x256xf32>) -> tensor<64x64x32xf32>
    %250 = stablehlo.transpose %249, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[64,64,32]{2,0,1}"} : (tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %251 = stablehlo.dot_general %247, %250, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x64x64xf32>, tensor<64x64x32xf32>) -> tensor<64x64x32xf32>
    %252 = stablehlo.reshape %251 : (tensor<64x64x32xf32>) -> tensor<8x8x64x32xf32>
    %253 = stablehlo.transpose %252, dims = [2, 0, 1, 3] {result_layout = dense<[3, 0, 2, 1]> : tensor<4xindex>, xla_shape = "f32[64,8,8,32]{3,0,2,1}"} : (tensor<8x8x64x32xf32>) -> tensor<64x8x8x32xf32>
    %254 = stablehlo.reshape %253 : (tensor<64x8x8x32xf32>) -> tensor<512x256xf32>
    %255 = stablehlo.transpose %arg7, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,256]{0,1}"} : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %256 = stablehlo.dot_general %254, %255, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x256xf32>) -> tensor<512x256xf32>
    %257 = stablehlo.broadcast_in_dim %arg6, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %258 = stablehlo.add %256, %257 : tensor<512x256xf32>
    %259 = stablehlo.reshape %258 : (tensor<512x256xf32>) -> tensor<64x8x256xf32>
    %260 = stablehlo.transpose %259, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,64,256]{2,0,1}"} : (tensor<64x8x256xf32>) -> tensor<8x64x256xf32>
    %261 = stablehlo.add %215, %260 : tensor<8x64x256xf32>
    %262 = stablehlo.reshape %261 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output_21, %batch_mean_22, %batch_var_23 = "stablehlo.batch_norm_training"(%262, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %263 = stablehlo.broadcast_in_dim %arg47, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %264 = stablehlo.reshape %output_21 : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %265 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %266 = stablehlo.multiply %264, %265 : tensor<8x64x256xf32>
    %267 = stablehlo.add %263, %266 : tensor<8x64x256xf32>
    %268 = stablehlo.reshape %267 : (tensor<8x64x256xf32>) -> tensor<512x256xf32>
    %269 = stablehlo.transpose %arg4, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[256,1024]{0,1}"} : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %270 = stablehlo.dot_general %268, %269, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x256xf32>, tensor<256x1024xf32>) -> tensor<512x1024xf32>
    %271 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32>
    %272 = stablehlo.add %270, %271 : tensor<512x1024xf32>
    %273 = stablehlo.reshape %272 : (tensor<512x1024xf32>) -> tensor<8x64x1024xf32>
    %274 = stablehlo.maximum %273, %cst : tensor<8x64x1024xf32>
    %275 = stablehlo.reshape %274 : (tensor<8x64x1024xf32>) -> tensor<512x1024xf32>
    %276 = stablehlo.transpose %arg2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[1024,256]{0,1}"} : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %277 = stablehlo.dot_general %275, %276, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<512x1024xf32>, tensor<1024x256xf32>) -> tensor<512x256xf32>
    %278 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xf32>) -> tensor<512x256xf32>
    %279 = stablehlo.add %277, %278 : tensor<512x256xf32>
    %280 = stablehlo.reshape %279 : (tensor<512x256xf32>) -> tensor<8x64x256xf32>
    %281 = stablehlo.add %267, %280 : tensor<8x64x256xf32>
    %282 = stablehlo.reshape %281 : (tensor<8x64x256xf32>) -> tensor<1x512x256xf32>
    %output_24, %batch_mean_25, %batch_var_26 = "stablehlo.batch_norm_training"(%282, %cst_1, %cst_0) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<1x512x256xf32>, tensor<512xf32>, tensor<512xf32>)
    %283 = stablehlo.broadcast_in_dim %arg48, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %284 = stablehlo.reshape %output_24 : (tensor<1x512x256xf32>) -> tensor<8x64x256xf32>
    %285 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<256xf32>) -> tensor<8x64x256xf32>
    %286 = stablehlo.multiply %284, %285 : tensor<8x64x256xf32>
    %287 = stablehlo.add %283, %286 : tensor<8x64x256xf32>
    return %287 : tensor<8x64x256xf32>
  }
}
