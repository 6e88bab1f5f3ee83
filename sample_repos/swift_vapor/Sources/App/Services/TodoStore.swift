import Vapor

/// Where todos are kept.
protocol TodoStore {
    func all() -> [Todo]
    func find(id: Int) -> Todo?
    func save(_ todo: Todo)
}

/// Keeps todos in memory, for tests and the demo.
final class MemoryTodoStore: TodoStore {
    private var items: [Int: Todo] = [:]
    let clock: Clock

    init(clock: Clock) {
        self.clock = clock
    }

    func all() -> [Todo] {
        return Array(items.values)
    }

    func find(id: Int) -> Todo? {
        return items[id]
    }

    func save(_ todo: Todo) {
        clock.tick()
        items[todo.id] = todo
    }
}

/// Counts changes so that listings can say how fresh they are.
struct Clock {
    var ticks = 0

    mutating func tick() {
        ticks += 1
    }
}
