import PixelFlow

/// A 5 x 7 pixel font for the gallery's labels, drawn with `Canvas` as one square per lit
/// font pixel: capitals, digits and a few signs (lower-case letters are drawn as capitals,
/// anything else as `?`). The same glyphs as the examples' `TinyFont`, which the command line
/// cannot import; real text rendering is a separate issue.
enum GalleryFont {
    /// Glyph width and height in font pixels; characters advance by `width + 1`.
    static let width = 5, height = 7

    /// The width in pixels of `text` at `scale`.
    static func measure(_ text: String, scale: Int = 1) -> Int { max(0, text.count * (width + 1) - 1) * scale }

    /// `text` cut to at most `maximumWidth` pixels at `scale`, ending in `..` when cut.
    static func fitted(_ text: String, maximumWidth: Int, scale: Int = 1) -> String {
        if measure(text, scale: scale) <= maximumWidth { return text }
        let characters = max(0, (maximumWidth / scale + 1) / (width + 1) - 2)
        return String(text.prefix(characters)) + ".."
    }

    /// Draws `text` with its top-left corner at `(x, y)`, each font pixel `scale` pixels wide.
    static func draw(_ text: String, x: Int, y: Int, scale: Int = 1, color: Color, on canvas: inout Canvas) {
        var left = x
        for ch in text.uppercased() {
            let rows = glyphs[ch] ?? glyphs["?"] ?? []
            for (row, bits) in rows.enumerated() {
                for (column, bit) in bits.enumerated() where bit == "#" {
                    canvas.fillRect(
                        Rect(x: left + column * scale, y: y + row * scale, width: scale, height: scale), color: color)
                }
            }
            left += (width + 1) * scale
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
