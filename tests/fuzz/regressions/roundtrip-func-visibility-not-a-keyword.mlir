// A func.func whose sym_visibility is no visibility MLIR knows (a fuzzed bytecode
// string, "privat"): no custom form can say it, so it stays a generic operation and
// reads back as one (it printed `func.func privat @f`, which does not parse).
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "f", sym_visibility = "privat"}> ({
^bb0(%arg0: tensor<f32>):
  "func.return"(%arg0) : (tensor<f32>) -> ()
}) : () -> ()
