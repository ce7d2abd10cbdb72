import Foundation

/// youll-bench: the project's in-process benchmarks, run by scripts/bench in release mode.
/// Prints `BENCH <name> <value> <unit>` lines. Usage: youll-bench wire [--seconds N] [--body JSON]
let arguments = Array(CommandLine.arguments.dropFirst())
var options = BenchOptions()
var index = 0
var suite = "wire"
while index < arguments.count {
    switch arguments[index] {
    case "--seconds" where index + 1 < arguments.count:
        options.seconds = Double(arguments[index + 1]) ?? options.seconds
        index += 2
    case "--body" where index + 1 < arguments.count:
        options.body = arguments[index + 1]
        index += 2
    case let name:
        suite = name
        index += 1
    }
}

switch suite {
case "wire":
    do {
        try WireBenchmarks(options: options).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(Data("youll-bench: unknown suite \(suite) (known: wire)\n".utf8))
    exit(2)
}
