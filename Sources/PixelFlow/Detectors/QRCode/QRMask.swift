/// The eight data-mask patterns of ISO/IEC 18004 §7.8.2 (Table 10) and the penalty score
/// used to choose among them (§7.8.3, Table 11).
///
/// A mask inverts the data modules where its condition holds; i is the row, j the column.
enum QRMask {
    /// Whether mask `mask` (0...7) inverts the module in column `x`, row `y`.
    @inline(__always)
    static func inverts(_ mask: Int, x j: Int, y i: Int) -> Bool {
        switch mask {
        case 0: return (i + j) % 2 == 0
        case 1: return i % 2 == 0
        case 2: return j % 3 == 0
        case 3: return (i + j) % 3 == 0
        case 4: return (i / 2 + j / 3) % 2 == 0
        case 5: return (i * j) % 2 + (i * j) % 3 == 0
        case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    /// Penalty weights N1...N4 of Table 11.
    static let n1 = 3, n2 = 3, n3 = 40, n4 = 10

    /// The penalty of a finished symbol (lower is better), the sum of:
    /// - N1 + (k - 5) for each run of k >= 5 same-colored modules in a row or column;
    /// - N2 for each 2 x 2 block of one color (an m x n block scores N2 (m-1)(n-1));
    /// - N3 for each dark-light-dark-dark-dark-light-dark run (1:1:3:1:1) in a row or column
    ///   with four light modules before or after it; outside the symbol counts as light
    ///   (the quiet zone);
    /// - N4 x k where the dark share differs from 50 % by at least 5k %.
    ///
    /// - Complexity: O(size^2).
    static func penalty(_ m: [Bool], size n: Int) -> Int {
        var score = 0
        var line = [Bool](repeating: false, count: n)
        for direction in 0..<2 {
            for a in 0..<n {
                for b in 0..<n { line[b] = direction == 0 ? m[a * n + b] : m[b * n + a] }
                score += _linePenalty(line)
            }
        }
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) {
                let c = m[y * n + x]
                if m[y * n + x + 1] == c, m[(y + 1) * n + x] == c, m[(y + 1) * n + x + 1] == c { score += n2 }
            }
        }
        let dark = m.reduce(0) { $0 + ($1 ? 1 : 0) }
        let total = n * n
        score += n4 * (abs(20 * dark - 10 * total) / total)
        return score
    }

    /// N1 and N3 for one row or column.
    private static func _linePenalty(_ line: [Bool]) -> Int {
        let n = line.count
        var score = 0
        var run = 1
        for i in 1...n {
            if i < n, line[i] == line[i - 1] {
                run += 1
            } else {
                if run >= 5 { score += n1 + run - 5 }
                run = 1
            }
        }
        func light(_ range: Range<Int>) -> Bool {
            for k in range where k >= 0 && k < n && line[k] { return false }
            return true
        }
        if n >= 7 {
            for i in 0...(n - 7)
            where line[i] && !line[i + 1] && line[i + 2] && line[i + 3] && line[i + 4]
                && !line[i + 5] && line[i + 6]
            {
                if light((i - 4)..<i) || light((i + 7)..<(i + 11)) { score += n3 }
            }
        }
        return score
    }
}
