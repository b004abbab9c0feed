#!/usr/bin/env python3
"""Copies the OpenCV cascade files the face detector uses into the PixelFlow target's
resources (Sources/PixelFlow/Detectors/Face/Resources/Cascades) and writes LICENSE.txt beside
them with each file's own licence header (the XML files keep their headers too).

    python3 scripts/copy_face_cascades.py [--from /usr/share/opencv4]

The files come from Debian's opencv-data (OpenCV 4's data/haarcascades and lbpcascades).
Only the files PixelFlow loads by default are shipped; any other cascade still loads by path
(`CascadeClassifier(contentsOf:)`, `pixelflow detect faces --cascade PATH`) or by name from an
opencv-data installation (`CascadeClassifier.locate(_:)`).
"""
import argparse, os, re, shutil

SHIPPED = [
    # faces: the .low default (the most accurate on scripts/eval_faces.py's set) and the old one
    "haarcascade_frontalface_alt2.xml",
    "haarcascade_frontalface_default.xml",
    # landmarks (FaceDetector+Landmarks.swift)
    "haarcascade_eye.xml",
    "haarcascade_lefteye_2splits.xml",
    "haarcascade_righteye_2splits.xml",
    "haarcascade_smile.xml",
]

HERE = os.path.dirname(os.path.abspath(__file__))
DEST = os.path.join(HERE, "..", "Sources", "PixelFlow", "Detectors", "Face", "Resources", "Cascades")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="root", default="/usr/share/opencv4")
    a = ap.parse_args()
    os.makedirs(DEST, exist_ok=True)
    notices = []
    for name in SHIPPED:
        sub = "lbpcascades" if name.startswith("lbp") else "haarcascades"
        src = os.path.join(a.root, sub, name)
        shutil.copyfile(src, os.path.join(DEST, name))
        text = open(src, encoding="utf-8", errors="replace").read(20000)
        m = re.search(r"<!--(.*?)-->", text, re.S)
        notices.append("=" * 78 + "\n" + name + "\n" + "=" * 78 + "\n" + (m.group(1).strip("\n") if m else "(no header)") + "\n")
    with open(os.path.join(DEST, "LICENSE.txt"), "w") as f:
        f.write(
            "The cascade files in this folder are OpenCV's trained classifiers, copied unchanged from\n"
            "OpenCV 4's data/ folder as Debian's opencv-data package installs it (/usr/share/opencv4)\n"
            "by scripts/copy_face_cascades.py. They are distributed under the licences below (the\n"
            "Intel License Agreement, a 3-clause BSD licence, or the contributors' 3-clause BSD\n"
            "licence), each quoted from the header of its file; PixelFlow's own licence does not\n"
            "apply to them.\n\n")
        f.write("\n".join(notices))


if __name__ == "__main__":
    main()
