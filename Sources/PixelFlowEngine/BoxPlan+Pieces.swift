// The parallel loop of whole-region box and span kernels: pieces of the output on the
// scheduler's workers.

extension BoxPlan {
    /// Runs `body` over the pieces of `output` in parallel (whole-region kernels).
    package static func runPieces(_ output: Tile, size: Int, threads: Int, _ body: @escaping @Sendable (Tile, Arena) -> Void) {
        let ps = pieces(of: output.rect, size: size)
        Scheduler.run(count: ps.count, threads: threads) { i, arena in
            body(output.view(ps[i]), arena)
        }
    }
}
