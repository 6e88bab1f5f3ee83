import Vapor

/// Every route of the application.
func routes(_ app: Application) throws {
    app.get("health") { req -> String in
        return healthText()
    }

    let api = app.grouped("api", "v1")
    api.get("todos", ":id") { req -> String in
        let store = MemoryTodoStore(clock: Clock())
        let todo = store.find(id: 1) ?? Todo.placeholder()
        return todo.summary()
    }

    let service = AuditedTodoService(store: MemoryTodoStore(clock: Clock()))
    try app.register(collection: TodoController(service: service))
}

func healthText() -> String {
    return "ok"
}
