// The lower layers of the library (Docs/Architecture.md, "Layers"), re-exported so that
// `import PixelFlow` gives a user every public type, wherever it is declared. This import
// also makes them visible to every file of this module.
@_exported import PixelFlowCore
@_exported import PixelFlowKernels
@_exported import PixelFlowGraph
@_exported import PixelFlowEngine
