import Foundation

extension CascadeClassifier {
    /// The cascade files that ship with PixelFlow as package resources, so that faces are found
    /// on a machine without OpenCV's data: the face cascades `haarcascade_frontalface_alt2.xml`
    /// (the default) and `haarcascade_frontalface_default.xml`, and the landmark cascades
    /// `haarcascade_eye.xml`, `haarcascade_lefteye_2splits.xml`,
    /// `haarcascade_righteye_2splits.xml` and `haarcascade_smile.xml`. Their licences (Intel's
    /// and the contributors' 3-clause BSD) are in `LICENSE.txt` beside them.
    public static let bundledNames: [String] = [
        "haarcascade_frontalface_alt2.xml", "haarcascade_frontalface_default.xml", "haarcascade_eye.xml",
        "haarcascade_lefteye_2splits.xml", "haarcascade_righteye_2splits.xml", "haarcascade_smile.xml",
    ]

    /// The folder of the cascade files that ship with PixelFlow (`bundledNames`), inside the
    /// package's resource bundle; nil when the bundle is not beside the executable (a binary
    /// copied away from its build folder without `PixelFlow_PixelFlow.resources`).
    public static var bundledDirectory: URL? { _FaceResources.directory?.appendingPathComponent("Cascades") }

    /// The folders searched for cascade files by `locate(_:)`, in order:
    /// `$PIXELFLOW_CASCADE_DIR` (when set; the file is looked for in it and in its
    /// `haarcascades/` and `lbpcascades/` subfolders), then `bundledDirectory` (the files that
    /// ship with PixelFlow), then OpenCV's data folders `/usr/share/opencv4`,
    /// `/usr/local/share/opencv4`, `/usr/share/opencv`, `/usr/local/share/opencv`,
    /// `/opt/homebrew/share/opencv4` (each with the same subfolders) unless the environment
    /// variable `PIXELFLOW_CASCADE_SYSTEM` is `0`.
    public static var searchDirectories: [String] {
        let environment = ProcessInfo.processInfo.environment
        var folders: [String] = []
        if let env = environment["PIXELFLOW_CASCADE_DIR"], !env.isEmpty {
            folders += [env, env + "/haarcascades", env + "/lbpcascades"]
        }
        if let bundled = bundledDirectory { folders.append(bundled.path) }
        if environment["PIXELFLOW_CASCADE_SYSTEM"] != "0" {
            let roots = [
                "/usr/share/opencv4", "/usr/local/share/opencv4", "/usr/share/opencv", "/usr/local/share/opencv",
                "/opt/homebrew/share/opencv4",
            ]
            folders += roots.flatMap { [$0, $0 + "/haarcascades", $0 + "/lbpcascades"] }
        }
        return folders
    }

    /// The path of the cascade file `name` (for example `"haarcascade_frontalface_alt2.xml"`),
    /// found in `searchDirectories`: the files in `bundledNames` are always found; any other
    /// OpenCV cascade needs OpenCV's data (Debian's `opencv-data`) or `PIXELFLOW_CASCADE_DIR`.
    /// A name with a `/` is a path, used as it is.
    ///
    /// - Throws: `PixelFlowError.io` naming the folders searched and the Debian package that
    ///   installs the files (`opencv-data`) when none holds it.
    public static func locate(_ name: String) throws -> URL {
        if name.contains("/") {
            if FileManager.default.isReadableFile(atPath: name) { return URL(fileURLWithPath: name) }
            throw PixelFlowError.io(file: name, reason: "no such cascade file")
        }
        let folders = searchDirectories
        for dir in folders {
            let path = dir + "/" + name
            if FileManager.default.isReadableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        let shipped =
            bundledDirectory == nil
            ? "PixelFlow's own cascades are missing (no PixelFlow_PixelFlow.resources bundle beside the executable)"
            : "PixelFlow ships only \(bundledNames.joined(separator: ", "))"
        throw PixelFlowError.io(
            file: name,
            reason:
                "OpenCV cascade file not found in \(folders.isEmpty ? "any folder" : folders.joined(separator: ", ")); \(shipped); install the Debian package opencv-data (apt-get install opencv-data), or set PIXELFLOW_CASCADE_DIR to the folder that holds it"
        )
    }

    /// Loads the cascade file `name` (see `locate(_:)`), caching it: repeated calls return the
    /// same instance.
    public static func installed(_ name: String) throws -> CascadeClassifier {
        let url = try locate(name)
        if let c = _cascadeCache.withLock({ $0[url.path] }) { return c }
        let c = try CascadeClassifier(contentsOf: url)
        _cascadeCache.withLock { $0[url.path] = c }
        return c
    }
}

let _cascadeCache = Locked<[String: CascadeClassifier]>([:])

/// The face detector's package resources (`Detectors/Face/Resources`, copied into the
/// `PixelFlow_PixelFlow.resources` bundle by SwiftPM).
enum _FaceResources {
    /// The `Resources` folder inside the bundle, or nil when the bundle is missing.
    ///
    /// SwiftPM's generated `Bundle.module` stops the process with `fatalError` when it finds
    /// its bundle neither beside the main executable nor in the build folder it was compiled
    /// in; a detector must throw instead. So the bundle is looked for beside the executable
    /// (where SwiftPM puts it for executables, test runners and packages that depend on
    /// PixelFlow) first, and `Bundle.module` is asked only then, when it cannot fail.
    static let directory: URL? = {
        let name = "PixelFlow_PixelFlow.resources"
        let besideExecutable = Bundle.main.bundleURL.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: besideExecutable.path) else { return nil }
        let folder = Bundle.module.bundleURL.appendingPathComponent("Resources")
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }()
}
