// The `--filter` parser, `CLIError` and `ExitCode` live in the PixelFlowCLI library so that
// the fuzz targets (Fuzz/) can call them; re-exported so every file of the tool sees them.
@_exported import PixelFlowCLI
