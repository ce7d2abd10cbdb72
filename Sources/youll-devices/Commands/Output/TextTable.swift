import Gateway

/// A table of left-aligned columns separated by two spaces, as `ls -l` or `kubectl get`
/// print them. Widths are counted in characters after any colour is left out, so colour
/// never shifts a column; cells are made printable (a device name from the network cannot
/// move the cursor).
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// Colours a cell by its column and text; `nil` leaves it plain.
    var colour: (_ column: Int, _ text: String) -> Terminal.Colour? = { _, _ in nil }

    init(headers: [String]) {
        self.headers = headers
    }

    /// Cells are cut at 80 characters, except the last column's: nothing is aligned after
    /// it, and it is where a reason is given (`pair import`'s "failed: …"), which must keep
    /// its fix (cut only at `BridgeText.maximumLength`).
    mutating func append(_ row: [String]) {
        rows.append(
            row.enumerated().map { column, cell in
                BridgeText.printable(
                    cell, maximumLength: column == headers.count - 1 ? BridgeText.maximumLength : 80)
            })
    }

    /// The lines to print, the header first (bold when colour is on). No trailing spaces.
    func render(on terminal: Terminal) -> [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String], style: (Int, String) -> Terminal.Colour?) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let last = column == cells.count - 1
                let padding = last ? 0 : max(0, (column < widths.count ? widths[column] : cell.count) - cell.count)
                text += terminal.paint(cell, style(column, cell)) + String(repeating: " ", count: padding)
                if !last { text += "  " }
            }
            return text
        }
        return [line(headers, style: { _, _ in .bold })] + rows.map { line($0, style: colour) }
    }

    func print(on terminal: Terminal = .current) {
        for line in render(on: terminal) { Swift.print(line) }
    }
}

/// `label  value` lines with the values aligned, for one device's state.
struct KeyValueList {
    var rows: [(String, String)] = []

    mutating func append(_ label: String, _ value: String) {
        rows.append((BridgeText.printable(label, maximumLength: 64), BridgeText.printable(value)))
    }

    func render(on terminal: Terminal) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { label, value in
            let padded = label + String(repeating: " ", count: width - label.count)
            return terminal.paint(padded, .bold) + "  " + terminal.paint(value, Terminal.colour(forStatus: value))
        }
    }

    func print(on terminal: Terminal = .current) {
        for line in render(on: terminal) { Swift.print(line) }
    }
}
