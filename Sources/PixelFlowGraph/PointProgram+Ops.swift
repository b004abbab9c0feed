import CSIMD

extension PointProgram {
    /// The program for `ops` (color matrices and color kernels with a `pointStep`), or nil
    /// when one of them cannot run as a step.
    package init?(_ ops: [Op]) {
        var steps: [pf_point_step] = []
        steps.reserveCapacity(ops.count)
        for op in ops {
            var st = pf_point_step()
            switch op {
            case let .colorMatrix(m):
                st.kind = Int32(PF_STEP_AFFINE)
                st.alpha_fixed = m.preservesAlpha ? 1 : 0
                let rows = (m.row(0), m.row(1), m.row(2), m.row(3))
                st.rgb_only = m.preservesAlpha && rows.0.w == 0 && rows.1.w == 0 && rows.2.w == 0 ? 1 : 0
                st.m = (
                    rows.0.x, rows.0.y, rows.0.z, rows.0.w, rows.1.x, rows.1.y, rows.1.z, rows.1.w,
                    rows.2.x, rows.2.y, rows.2.z, rows.2.w, rows.3.x, rows.3.y, rows.3.z, rows.3.w
                )
                st.bias = (m.bias.x, m.bias.y, m.bias.z, m.bias.w)
            case let .color(k):
                guard let step = k.pointStep else { return nil }
                switch step {
                case let .gammaQuarters(whole, rest, inverted):
                    st.kind = Int32(PF_STEP_GAMMA)
                    st.whole = whole
                    st.rest = rest
                    st.invert = inverted ? 1 : 0
                }
            default:
                return nil
            }
            steps.append(st)
        }
        self.init(steps: steps)
    }
}
