import Vapor

/// Configure the application and register its routes.
public func configure(_ app: Application) throws {
    try routes(app)
}
