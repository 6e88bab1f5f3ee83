import Vapor

/// One thing to do, with its owner.
final class Todo: Content {
    var id: Int
    var title: String
    var done: Bool
    var priority: Priority = .low

    init(id: Int, title: String) {
        self.id = id
        self.title = title
        self.done = false
    }

    /// Mark the todo as finished.
    func complete() {
        done = true
    }

    /// Rank for sorting: urgent todos first.
    func rank() -> Int {
        return priority.weight()
    }

    /// A todo to show when the list is empty.
    static func placeholder() -> Todo {
        return Todo(id: 0, title: "nothing to do")
    }
}

/// How urgent a todo is.
enum Priority: String {
    case low, high

    func weight() -> Int {
        return self == .high ? 2 : 1
    }
}
