/// A Reed-Solomon code over GF(256) as QR codes use it: `parityCount` parity codewords whose
/// generator polynomial has the roots alpha^0, alpha^1, ..., alpha^(parityCount - 1)
/// (ISO/IEC 18004 §7.5.2 and Annex A).
///
/// A block is a sequence of codewords, data first, parity last; the first codeword is the
/// coefficient of the highest power of x. Decoding computes syndromes, finds the error
/// locator with the Berlekamp-Massey algorithm, its roots by Chien search and the error
/// values by Forney's formula (Berlekamp, *Algebraic Coding Theory*, 1968; Massey, "Shift-
/// register synthesis and BCH decoding", IEEE Trans. IT-15, 1969; Forney, "On decoding BCH
/// codes", IEEE Trans. IT-11, 1965).
///
/// ```swift
/// let rs = ReedSolomon(parityCount: 10)
/// var block = data + rs.parity(for: data)
/// block[3] ^= 0x55                          // damage one codeword
/// rs.correct(&block)                        // 1; block is repaired
/// ```
///
/// - Complexity: encoding O(k n) for k data and n parity codewords; decoding O(n^2 + l n)
///   for a block of l codewords.
public struct ReedSolomon: Sendable {
    /// Parity codewords per block; the code corrects up to `parityCount / 2` errors.
    public let parityCount: Int
    /// The generator polynomial, highest degree first, monic (its first coefficient is 1).
    let generator: [UInt8]

    /// A code with `parityCount` parity codewords.
    /// - Precondition: `1 <= parityCount <= 254`.
    public init(parityCount: Int) {
        precondition((1...254).contains(parityCount), "parityCount must be in 1...254, got \(parityCount)")
        self.parityCount = parityCount
        // g(x) = (x - a^0)(x - a^1)...(x - a^(n-1)), built one factor at a time.
        var g: [UInt8] = [1]
        for i in 0..<parityCount {
            let root = GaloisField256.exp(i)
            var next = [UInt8](repeating: 0, count: g.count + 1)
            for (j, c) in g.enumerated() {
                next[j] ^= c
                next[j + 1] ^= GaloisField256.multiply(c, root)
            }
            g = next
        }
        generator = g
    }

    /// The parity codewords of `data`: the remainder of data(x) * x^n divided by g(x). A valid
    /// block has `data.count + parityCount <= 255` codewords.
    public func parity(for data: [UInt8]) -> [UInt8] {
        let n = parityCount
        var r = [UInt8](repeating: 0, count: n)
        GaloisField256._exp.withUnsafeBufferPointer { exp in
            GaloisField256._log.withUnsafeBufferPointer { log in
                generator.withUnsafeBufferPointer { g in
                    r.withUnsafeMutableBufferPointer { r in
                        for d in data {
                            let factor = d ^ r[0]
                            for j in 0..<(n - 1) { r[j] = r[j + 1] }
                            r[n - 1] = 0
                            guard factor != 0 else { continue }
                            let lf = Int(log[Int(factor)])
                            for j in 0..<n where g[j + 1] != 0 { r[j] ^= exp[Int(log[Int(g[j + 1])]) + lf] }
                        }
                    }
                }
            }
        }
        return r
    }

    /// Corrects `block` (data followed by parity) in place.
    ///
    /// - Parameters:
    ///   - block: between `parityCount + 1` and 255 codewords.
    ///   - maximumErrors: corrections allowed, at most `parityCount / 2` (the default); QR
    ///     codes lower it for the smallest symbols to keep codewords for error detection.
    /// - Returns: the number of codewords corrected (0 when the block was intact), or nil when
    ///   the block has more errors than can be corrected, detectably; `block` is then unchanged.
    ///   Errors beyond the capacity are usually, not always, detected.
    public func correct(_ block: inout [UInt8], maximumErrors: Int? = nil) -> Int? {
        let n = block.count
        guard n > parityCount, n <= 255 else { return nil }
        let limit = min(maximumErrors ?? parityCount / 2, parityCount / 2)
        let syndromes = self.syndromes(of: block)
        if syndromes.allSatisfy({ $0 == 0 }) { return 0 }
        guard limit > 0 else { return nil }

        // Berlekamp-Massey: the shortest LFSR (error locator, lowest degree first) that
        // generates the syndromes.
        var locator: [UInt8] = [1]
        var previous: [UInt8] = [1]
        var length = 0
        var shift = 1
        var previousDiscrepancy: UInt8 = 1
        for k in 0..<parityCount {
            var d = syndromes[k]
            if length > 0 {
                for i in 1...length where i < locator.count {
                    d ^= GaloisField256.multiply(locator[i], syndromes[k - i])
                }
            }
            if d == 0 {
                shift += 1
                continue
            }
            let scale = GaloisField256.divide(d, previousDiscrepancy)
            var updated = locator
            if updated.count < previous.count + shift {
                updated += [UInt8](repeating: 0, count: previous.count + shift - updated.count)
            }
            for i in 0..<previous.count { updated[i + shift] ^= GaloisField256.multiply(scale, previous[i]) }
            if 2 * length <= k {
                previous = locator
                length = k + 1 - length
                previousDiscrepancy = d
                shift = 1
            } else {
                shift += 1
            }
            locator = updated
        }
        while locator.count > 1, locator.last == 0 { locator.removeLast() }
        let errorCount = locator.count - 1
        guard errorCount == length, errorCount >= 1, errorCount <= limit else { return nil }

        // Chien search: the codeword at index i stands for x^(n-1-i); it is in error when
        // Lambda(alpha^-(n-1-i)) = 0. Terms are summed in the log domain.
        var positions: [Int] = []
        let found = GaloisField256._exp.withUnsafeBufferPointer { exp in
            GaloisField256._log.withUnsafeBufferPointer { log in
                locator.withUnsafeBufferPointer { lambda in
                    for i in 0..<n {
                        let inverseLocation = 255 - (n - 1 - i) % 255
                        var sum = lambda[0]
                        for k in 1..<lambda.count where lambda[k] != 0 {
                            sum ^= exp[(Int(log[Int(lambda[k])]) + inverseLocation * k) % 255]
                        }
                        if sum == 0 {
                            positions.append(i)
                            if positions.count > errorCount { return false }
                        }
                    }
                    return true
                }
            }
        }
        guard found, positions.count == errorCount else { return nil }

        // Forney: Omega(x) = S(x) Lambda(x) mod x^(2t); e = X * Omega(1/X) / Lambda'(1/X).
        var omega = [UInt8](repeating: 0, count: parityCount)
        for i in 0..<parityCount where syndromes[i] != 0 {
            for j in 0..<min(locator.count, parityCount - i) {
                omega[i + j] ^= GaloisField256.multiply(syndromes[i], locator[j])
            }
        }
        var derivative = [UInt8](repeating: 0, count: max(locator.count - 1, 1))
        for i in stride(from: 1, to: locator.count, by: 2) { derivative[i - 1] = locator[i] }
        var corrected = block
        for i in positions {
            let x = GaloisField256.exp(n - 1 - i)
            let xInverse = GaloisField256.inverse(x)
            let denominator = _evaluateLowFirst(derivative, at: xInverse)
            guard denominator != 0 else { return nil }
            let numerator = GaloisField256.multiply(x, _evaluateLowFirst(omega, at: xInverse))
            corrected[i] ^= GaloisField256.divide(numerator, denominator)
        }
        guard self.syndromes(of: corrected).allSatisfy({ $0 == 0 }) else { return nil }
        block = corrected
        return errorCount
    }

    /// S_j = r(alpha^j) for j in 0..<parityCount (Horner's rule; multiplying by alpha^j adds
    /// j to the logarithm).
    func syndromes(of block: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: parityCount)
        GaloisField256._exp.withUnsafeBufferPointer { exp in
            GaloisField256._log.withUnsafeBufferPointer { log in
                block.withUnsafeBufferPointer { b in
                    out.withUnsafeMutableBufferPointer { out in
                        for j in 0..<out.count {
                            var y: UInt8 = 0
                            for c in b { y = (y == 0 ? 0 : exp[Int(log[Int(y)]) + j]) ^ c }
                            out[j] = y
                        }
                    }
                }
            }
        }
        return out
    }

    /// The value at `x` of a polynomial stored lowest degree first.
    private func _evaluateLowFirst(_ poly: [UInt8], at x: UInt8) -> UInt8 {
        var y: UInt8 = 0
        for c in poly.reversed() { y = GaloisField256.multiply(y, x) ^ c }
        return y
    }
}
