import Vapor

/// Something that can be shown as one line of a listing.
protocol Listable {
    func summary() -> String
}

/// A printable line for a todo, used by the listing.
extension Todo: Listable, CustomStringConvertible {
    var description: String { summary() }

    func summary() -> String {
        return "\(id): \(title)"
    }
}
