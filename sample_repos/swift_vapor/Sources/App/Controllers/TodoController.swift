import Vapor

/// The `/todos` routes.
struct TodoController: RouteCollection {
    let service: TodoService

    func boot(routes: RoutesBuilder) throws {
        let todos = routes.grouped("todos")
        todos.get(use: index)
        todos.post(use: create)
        todos.patch(":id", "done", use: self.finish)
    }

    func index(req: Request) async throws -> [String] {
        return service.listing()
    }

    func create(req: Request) async throws -> Todo {
        let title = try req.content.get(String.self, at: "title")
        return service.create(title: title)
    }

    func finish(req: Request) async throws -> Todo {
        let id = req.parameters.get("id", as: Int.self) ?? 0
        guard let todo = service.finish(id: id) else { throw Abort(.notFound) }
        return todo
    }
}
