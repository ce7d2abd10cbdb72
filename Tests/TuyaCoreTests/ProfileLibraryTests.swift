import Foundation
import Testing

@testable import TuyaCore

@Suite("ProfileLibrary: folders, overrides and matching")
struct ProfileLibraryTests {
    typealias F = ProfileFixture

    private func profile(id: String, name: String = "Test", productID: String = "pid", dataPoints: [Int] = [1])
        -> String
    {
        """
        id: \(id)
        name: \(name)
        category: dj
        product_ids: [\(productID)]
        transports: [mqtt]
        data_points:
        \(dataPoints.map { "  - { id: \($0), code: dp\($0), type: bool }" }.joined(separator: "\n"))

        """
    }

    @Test("a folder's files are added in order: broken ones and a repeated id are recorded, the others load")
    func addFolder() {
        var library = ProfileLibrary()
        library.add(folder: [
            .init(path: "/p/a.yaml", text: .success(profile(id: "same", name: "First"))),
            .init(path: "/p/b.yaml", text: .success(profile(id: "same", name: "Second"))),
            .init(path: "/p/c.yaml", text: .failure(ProfileError(source: "/p/c.yaml", reason: "cannot read"))),
            .init(path: "/p/d.yaml", text: .success("id: [")),
        ])
        #expect(library.profile(id: "same")?.name == "First")
        #expect(library.errors.map(\.source) == ["/p/b.yaml", "/p/c.yaml", "/p/d.yaml"])
        #expect(library.errors.first?.reason.contains("already used by /p/a.yaml") == true)
    }

    @Test("a later folder's profile replaces an earlier one with the same id")
    func laterFolderWins() {
        var library = ProfileLibrary()
        library.add(folder: [
            .init(path: "/installed/bulb.yaml", text: .success(profile(id: "bulb", name: "Installed")))
        ])
        library.add(folder: [.init(path: "/user/bulb.yaml", text: .success(profile(id: "bulb", name: "Mine")))])
        #expect(library.profile(id: "bulb")?.name == "Mine")
        #expect(library.errors.isEmpty)
    }

    @Test("match prefers a profile listing the product id")
    func matchByProductID() {
        let library = libraryForMatching()
        #expect(library.match(productID: "pid-big", dataPointIDs: [])?.id == "big")
        #expect(library.match(productID: "pid-big", dataPointIDs: ids([1]))?.id == "big")
        #expect(library.profiles(forProductID: "pid-small").map(\.id) == ["small"])
    }

    @Test("without a known product id, match picks the closest profile that declares every seen DP")
    func matchByDataPoints() {
        let library = libraryForMatching()
        #expect(library.match(productID: "unknown", dataPointIDs: ids([1, 2]))?.id == "small")
        #expect(library.match(productID: nil, dataPointIDs: ids([1, 3]))?.id == "big")
        #expect(library.match(productID: nil, dataPointIDs: ids([1, 99])) == nil)
        #expect(library.match(productID: nil, dataPointIDs: []) == nil)
    }

    private func ids(_ values: [Int]) -> Set<DataPointID> { Set(values.compactMap { DataPointID($0) }) }

    private func libraryForMatching() -> ProfileLibrary {
        let parsed = [
            profile(id: "big", productID: "pid-big", dataPoints: [1, 2, 3, 4]),
            profile(id: "small", productID: "pid-small", dataPoints: [1, 2]),
        ].compactMap { try? ProfileLoader.parse(yaml: $0, source: "inline") }
        #expect(parsed.count == 2)
        return ProfileLibrary(profiles: parsed)
    }
}
