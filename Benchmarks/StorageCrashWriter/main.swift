// youll-storage-crash-writer DIRECTORY
//
// Commits state in a loop and prints each iteration number after its writes returned,
// i.e. after they were committed. StorageTests kills it with SIGKILL mid-loop and checks
// that the database opens with every printed iteration present.
import Foundation
import Storage
import TuyaCore

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: youll-storage-crash-writer DIRECTORY\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: CommandLine.arguments[1])
let id = DeviceID("crash-light")!
let dp = DataPointID(3)!
do {
    let database = try GatewayDatabase.open(directory: directory, eventLimit: 1_000_000)
    try await database.saveDevice(
        TuyaDevice(id: id, name: "crash light", profileID: "light", category: .light, transport: .mqtt),
        localKey: LocalKey("0123456789abcdef"))
    for iteration in Int32(1)...1_000_000 {
        try await database.saveConfirmed([dp: .value(iteration)], for: id)
        try await database.appendEvent("tick", device: id, detail: .integer(Int64(iteration)))
        // Unbuffered write(2): the test sees each number as soon as its writes committed.
        FileHandle.standardOutput.write(Data("\(iteration)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
