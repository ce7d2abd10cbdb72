/// One line of `youll-devices doctor`: what was checked, how it went, and what to do about it.
public struct DoctorCheck: Hashable, Sendable {
    /// ok: nothing to do. warn: the gateway runs, but something is missing or will bite later.
    /// fail: the gateway cannot work as configured.
    public enum Status: String, CaseIterable, Hashable, Sendable, Comparable {
        case ok, warn, fail

        public static func < (lhs: Status, rhs: Status) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Short and stable, for scripts: `config`, `broker`, `topics`, `daemon`, `ble`, `state`, `profiles`, `clock`.
    public var name: String
    public var status: Status
    /// What was found, naming the thing (a path, a broker URL without its password).
    public var detail: String
    /// What to do, for warn and fail; nil when there is nothing to do.
    public var fix: String?

    public init(name: String, status: Status, detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
    }

    static func ok(_ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .ok, detail: detail)
    }

    static func warn(_ name: String, _ detail: String, fix: String?) -> DoctorCheck {
        DoctorCheck(name: name, status: .warn, detail: detail, fix: fix)
    }

    static func fail(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .fail, detail: detail, fix: fix)
    }
}
