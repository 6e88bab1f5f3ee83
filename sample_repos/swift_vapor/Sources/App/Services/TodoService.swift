import Vapor

/// The use cases of the todo list.
class TodoService {
    let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    /// Create a todo and store it.
    func create(title: String) -> Todo {
        let todo = Todo(id: store.all().count + 1, title: title)
        store.save(todo)
        return todo
    }

    /// Finish a todo; nil when there is none.
    func finish(id: Int) -> Todo? {
        guard let todo = store.find(id: id) else { return nil }
        todo.complete()
        store.save(todo)
        return todo
    }

    func listing() -> [String] {
        return store.all().map { $0.summary() }
    }
}

/// A service that also logs what it finishes.
final class AuditedTodoService: TodoService {
    override func finish(id: Int) -> Todo? {
        let todo = super.finish(id: id)
        record(id)
        return todo
    }

    /// Log which todo was finished.
    private func record(_ id: Int) {
        print("finished", id)
    }
}
