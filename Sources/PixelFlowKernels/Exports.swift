// The layer below (Docs/Architecture.md, "Layers"), visible to every file of this module.
@_exported import PixelFlowCore
