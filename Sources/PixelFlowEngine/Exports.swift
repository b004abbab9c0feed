// The layers below (Docs/Architecture.md, "Layers"), visible to every file of this module.
@_exported import PixelFlowCore
@_exported import PixelFlowKernels
@_exported import PixelFlowGraph
