import PixelFlow

/// A 5x7 pixel font for short labels (contact sheets, frame numbers), drawn with `Canvas`
/// as one small square per lit font pixel. Upper-case letters, digits and a few signs;
/// lower-case letters are drawn as capitals and unknown characters as `?`.
///
/// ```swift
/// var canvas = Canvas(buffer: sheet)
/// TinyFont.draw("1 SEPIA TONE", at: Point(x: 8, y: 8), scale: 2, color: .white, on: &canvas)
/// ```
public enum TinyFont {
    /// Glyph width and height in font pixels; characters advance by `width + 1`.
    public static let width = 5, height = 7

    /// The width in buffer pixels of `text` at `scale`.
    public static func measure(_ text: String, scale: Double = 1) -> Double {
        Double(max(0, text.count * (width + 1) - 1)) * scale
    }

    /// Draws `text` with its top-left corner at `origin`, each font pixel `scale` pixels wide.
    public static func draw(_ text: String, at origin: Point, scale: Double = 1, color: Color, on canvas: inout Canvas) {
        var x = origin.x
        for ch in text.uppercased() {
            let rows = glyphs[ch] ?? glyphs["?"]!
            for (row, bits) in rows.enumerated() {
                for (column, bit) in bits.enumerated() where bit == "#" {
                    canvas.fillRect(
                        Rect(
                            x: x + Double(column) * scale, y: origin.y + Double(row) * scale,
                            width: scale, height: scale), color: color)
                }
            }
            x += Double(width + 1) * scale
        }
    }

    /// Each glyph as 7 rows of 5 columns, `#` lit.
    static let glyphs: [Character: [String]] = {
        let table: [(Character, String)] = [
            ("A", ".###. #...# #...# ##### #...# #...# #...#"), ("B", "####. #...# #...# ####. #...# #...# ####."),
            ("C", ".###. #...# #.... #.... #.... #...# .###."), ("D", "####. #...# #...# #...# #...# #...# ####."),
            ("E", "##### #.... #.... ####. #.... #.... #####"), ("F", "##### #.... #.... ####. #.... #.... #...."),
            ("G", ".###. #...# #.... #.### #...# #...# .####"), ("H", "#...# #...# #...# ##### #...# #...# #...#"),
            ("I", ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###."), ("J", "..### ...#. ...#. ...#. ...#. #..#. .##.."),
            ("K", "#...# #..#. #.#.. ##... #.#.. #..#. #...#"), ("L", "#.... #.... #.... #.... #.... #.... #####"),
            ("M", "#...# ##.## #.#.# #.#.# #...# #...# #...#"), ("N", "#...# #...# ##..# #.#.# #..## #...# #...#"),
            ("O", ".###. #...# #...# #...# #...# #...# .###."), ("P", "####. #...# #...# ####. #.... #.... #...."),
            ("Q", ".###. #...# #...# #...# #.#.# #..#. .##.#"), ("R", "####. #...# #...# ####. #.#.. #..#. #...#"),
            ("S", ".#### #.... #.... .###. ....# ....# ####."), ("T", "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#.."),
            ("U", "#...# #...# #...# #...# #...# #...# .###."), ("V", "#...# #...# #...# #...# #...# .#.#. ..#.."),
            ("W", "#...# #...# #...# #.#.# #.#.# #.#.# .#.#."), ("X", "#...# #...# .#.#. ..#.. .#.#. #...# #...#"),
            ("Y", "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#.."), ("Z", "##### ....# ...#. ..#.. .#... #.... #####"),
            ("0", ".###. #...# #..## #.#.# ##..# #...# .###."), ("1", "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###."),
            ("2", ".###. #...# ....# ...#. ..#.. .#... #####"), ("3", "####. ....# ....# .###. ....# ....# ####."),
            ("4", "...#. ..##. .#.#. #..#. ##### ...#. ...#."), ("5", "##### #.... ####. ....# ....# #...# .###."),
            ("6", ".###. #.... #.... ####. #...# #...# .###."), ("7", "##### ....# ...#. ..#.. .#... .#... .#..."),
            ("8", ".###. #...# #...# .###. #...# #...# .###."), ("9", ".###. #...# #...# .#### ....# ....# .###."),
            (" ", "..... ..... ..... ..... ..... ..... ....."), (".", "..... ..... ..... ..... ..... .##.. .##.."),
            (",", "..... ..... ..... ..... .##.. ..#.. .#..."), (":", "..... .##.. .##.. ..... .##.. .##.. ....."),
            ("-", "..... ..... ..... ##### ..... ..... ....."), ("+", "..... ..#.. ..#.. ##### ..#.. ..#.. ....."),
            ("=", "..... ..... ##### ..... ##### ..... ....."), ("/", "....# ....# ...#. ..#.. .#... #.... #...."),
            ("(", "...#. ..#.. .#... .#... .#... ..#.. ...#."), (")", ".#... ..#.. ...#. ...#. ...#. ..#.. .#..."),
            ("%", "##..# ##..# ...#. ..#.. .#... #..## #..##"), ("_", "..... ..... ..... ..... ..... ..... #####"),
            ("?", ".###. #...# ....# ...#. ..#.. ..... ..#.."),
        ]
        var glyphs: [Character: [String]] = [:]
        for (ch, rows) in table { glyphs[ch] = rows.split(separator: " ").map(String.init) }
        return glyphs
    }()
}
