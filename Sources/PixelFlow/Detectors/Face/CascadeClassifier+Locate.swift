import Foundation

extension CascadeClassifier {
    /// The folders searched for cascade files by `locate(_:)`, in order:
    /// `$PIXELFLOW_CASCADE_DIR` (when set; the file is looked for in it and in its
    /// `haarcascades/` and `lbpcascades/` subfolders), then `/usr/share/opencv4`,
    /// `/usr/local/share/opencv4`, `/usr/share/opencv`, `/usr/local/share/opencv`,
    /// `/opt/homebrew/share/opencv4` (each with the same subfolders).
    public static var searchDirectories: [String] {
        var roots: [String] = []
        if let env = ProcessInfo.processInfo.environment["PIXELFLOW_CASCADE_DIR"], !env.isEmpty { roots.append(env) }
        roots += [
            "/usr/share/opencv4", "/usr/local/share/opencv4", "/usr/share/opencv", "/usr/local/share/opencv",
            "/opt/homebrew/share/opencv4",
        ]
        return roots.flatMap { [$0, $0 + "/haarcascades", $0 + "/lbpcascades"] }
    }

    /// The path of the installed cascade file `name` (for example
    /// `"haarcascade_frontalface_default.xml"`), found in `searchDirectories`.
    ///
    /// - Throws: `PixelFlowError.io` naming the folders searched and the Debian package that
    ///   installs the files (`opencv-data`) when none holds it.
    public static func locate(_ name: String) throws -> URL {
        if name.contains("/") {
            if FileManager.default.isReadableFile(atPath: name) { return URL(fileURLWithPath: name) }
            throw PixelFlowError.io(file: name, reason: "no such cascade file")
        }
        for dir in searchDirectories {
            let path = dir + "/" + name
            if FileManager.default.isReadableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        throw PixelFlowError.io(
            file: name,
            reason:
                "OpenCV cascade file not found in \(searchDirectories.joined(separator: ", ")); install the Debian package opencv-data (apt-get install opencv-data), or set PIXELFLOW_CASCADE_DIR to the folder that holds it"
        )
    }

    /// Loads the installed cascade file `name` (see `locate(_:)`), caching it: repeated calls
    /// return the same instance.
    public static func installed(_ name: String) throws -> CascadeClassifier {
        let url = try locate(name)
        if let c = _cascadeCache.withLock({ $0[url.path] }) { return c }
        let c = try CascadeClassifier(contentsOf: url)
        _cascadeCache.withLock { $0[url.path] = c }
        return c
    }
}

let _cascadeCache = Locked<[String: CascadeClassifier]>([:])
