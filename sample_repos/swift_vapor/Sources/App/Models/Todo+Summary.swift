import Vapor

/// Something that can be shown as one line of a listing.
protocol Listable {
    func summary() -> String
}

/// A printable line for a todo, used by the listing.
extension Todo: Listable, CustomStringConvertible {
    var description: String { summary() }

    /// One printable line of the listing: the todo's id and title.
    func summary() -> String {
        return "\(id): \(title)"
    }
}
