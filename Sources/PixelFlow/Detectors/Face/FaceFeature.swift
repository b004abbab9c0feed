/// A face found by `FaceDetector`: Core Image's `CIFaceFeature`, in top-left-origin pixel
/// coordinates (`Point.coreImageCoordinates(imageHeight:)` converts a position to Core
/// Image's bottom-left origin).
///
/// Core Image reports "has" flags beside each position (`hasLeftEyePosition`,
/// `hasMouthPosition`, `hasFaceAngle`); here a position is an optional, and the flags are
/// computed properties with Core Image's names, so ported code reads the same.
///
/// "Left" and "right" are the sides of the image: `leftEyePosition` is the eye nearer the
/// image's left edge (the person's right eye in an unmirrored photograph).
public struct FaceFeature: Sendable, Hashable, CustomStringConvertible {
    /// The face's bounding box (`CIFaceFeature.bounds`), as the face cascade reports it: for
    /// OpenCV's frontal-face cascades, a square from the eyebrows to the chin.
    public var bounds: Rect
    /// The centre of the eye nearer the image's left edge, if one was found
    /// (`CIFaceFeature.leftEyePosition`): at `.high` accuracy the midpoint of the eye's two
    /// corners in `landmarks`, otherwise the centre of the eye cascade's box.
    public var leftEyePosition: Point?
    /// The centre of the eye nearer the image's right edge, if one was found
    /// (`CIFaceFeature.rightEyePosition`).
    public var rightEyePosition: Point?
    /// The centre of the mouth, if it could be placed (`CIFaceFeature.mouthPosition`): at
    /// `.high` accuracy placed below the base of the nose from `landmarks`; otherwise the centre
    /// of the smile cascade's mouth box when it finds one, else placed from the two eyes (see
    /// `FaceDetector`); nil when neither is available.
    public var mouthPosition: Point?
    /// True when the smile cascade finds a smile in the lower part of the face
    /// (`CIFaceFeature.hasSmile`).
    public var hasSmile: Bool
    /// True when the left eye looks closed (`CIFaceFeature.leftEyeClosed`): see `FaceDetector`
    /// for the rule.
    public var leftEyeClosed: Bool
    /// True when the right eye looks closed (`CIFaceFeature.rightEyeClosed`).
    public var rightEyeClosed: Bool
    /// The rotation, in degrees, of the search that found the face, when rotated faces were
    /// searched (`CIFaceFeature.faceAngle`): positive when the face is turned clockwise on
    /// screen (its top towards the image's right). nil when only upright faces were searched.
    public var faceAngle: Double?
    /// How many raw detection windows the face's group gathered (OpenCV's `numDetections`):
    /// a rough confidence; 0 for faces of the HOG detector.
    public var detectionCount: Int
    /// The detector's score for this face, higher when surer (`"confidence"` in
    /// `pixelflow detect faces --json`). For the HOG detector (`.high` accuracy) the face
    /// filter's response above its threshold, dlib's detection score: 0 at the threshold, about
    /// 0.5 to 3 for clear faces. For a cascade, `detectionCount`. The two scales differ.
    public var confidence: Double
    /// The face's landmark points, in top-left-origin pixels, when the detector places them:
    /// at `.high` accuracy (the HOG detector) the five points of dlib's 5-point model, in its
    /// order: the outer and inner corners of the eye nearer the image's right edge, the outer
    /// and inner corners of the other eye, and the base of the nose (`"landmarks"` in
    /// `pixelflow detect faces --json`). Empty otherwise.
    public var landmarks: [Point] = []

    /// A face with the given box and landmarks, as `FaceDetector` reports it: positions and
    /// `bounds` in top-left-origin pixels, `faceAngle` in degrees clockwise on screen;
    /// `confidence` nil for `detectionCount`.
    public init(
        bounds: Rect, leftEyePosition: Point? = nil, rightEyePosition: Point? = nil, mouthPosition: Point? = nil,
        hasSmile: Bool = false, leftEyeClosed: Bool = false, rightEyeClosed: Bool = false,
        faceAngle: Double? = nil, detectionCount: Int = 0, confidence: Double? = nil
    ) {
        self.bounds = bounds
        self.leftEyePosition = leftEyePosition
        self.rightEyePosition = rightEyePosition
        self.mouthPosition = mouthPosition
        self.hasSmile = hasSmile
        self.leftEyeClosed = leftEyeClosed
        self.rightEyeClosed = rightEyeClosed
        self.faceAngle = faceAngle
        self.detectionCount = detectionCount
        self.confidence = confidence ?? Double(detectionCount)
    }

    /// `CIFaceFeature.hasLeftEyePosition`.
    public var hasLeftEyePosition: Bool { leftEyePosition != nil }
    /// `CIFaceFeature.hasRightEyePosition`.
    public var hasRightEyePosition: Bool { rightEyePosition != nil }
    /// `CIFaceFeature.hasMouthPosition`.
    public var hasMouthPosition: Bool { mouthPosition != nil }
    /// `CIFaceFeature.hasFaceAngle`.
    public var hasFaceAngle: Bool { faceAngle != nil }

    public var description: String {
        func p(_ q: Point?) -> String { q.map { "(\(Int($0.x.rounded())), \(Int($0.y.rounded())))" } ?? "-" }
        return
            "face \(Int(bounds.x)),\(Int(bounds.y)) \(Int(bounds.width))x\(Int(bounds.height)) eyes \(p(leftEyePosition)) \(p(rightEyePosition)) mouth \(p(mouthPosition))"
            + (hasSmile ? " smile" : "") + (leftEyeClosed ? " left-eye-closed" : "") + (rightEyeClosed ? " right-eye-closed" : "")
            + (faceAngle.map { " angle \($0)" } ?? "")
    }
}
