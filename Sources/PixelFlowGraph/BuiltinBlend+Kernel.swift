extension BuiltinBlend {
    /// The blend as a kernel (`dst` holds the background on entry).
    package func kernel(name: String, extentRule: BlendKernel.ExtentRule) -> BlendKernel {
        let blend = self
        return BlendKernel(name: name, extentRule: extentRule, builtin: blend) { fg, dst, n in
            blend.apply(fg, UnsafePointer(dst), into: dst, count: n)
        }
    }
}
