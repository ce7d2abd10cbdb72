/// Where a reminder stands, in order of urgency.
///
/// - `ok`: nothing to do.
/// - `dueSoon`: a usage or calendar trigger has passed the rule's `dueSoonShare` of its interval.
/// - `due`: a trigger fired: its fault bit is raised, or its interval has passed.
/// - `overdue`: 1.5 × a usage or calendar interval has passed, or a fault has stayed
///   raised for a day (`ReminderPolicy`).
public enum ReminderStatus: String, Codable, Hashable, Sendable, CaseIterable, Comparable,
    CustomStringConvertible
{
    case ok
    case dueSoon = "due_soon"
    case due
    case overdue

    private var rank: Int {
        switch self {
        case .ok: 0
        case .dueSoon: 1
        case .due: 2
        case .overdue: 3
        }
    }

    public static func < (lhs: ReminderStatus, rhs: ReminderStatus) -> Bool { lhs.rank < rhs.rank }

    /// The words a person reads: `ok`, `due soon`, `due`, `overdue`.
    public var description: String { self == .dueSoon ? "due soon" : rawValue }
}
