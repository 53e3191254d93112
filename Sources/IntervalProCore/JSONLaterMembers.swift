/// What a later version wrote into a file this one rewrites (accounts.json, sensors.json):
/// the members it does not know, kept as JSON text and written back as they came.
extension JSONNode {
    /// This object's members not among `known`, each as its JSON text, by key.
    public func members(besides known: Set<String>) -> [String: String] {
        guard case .object(let members) = kind else { return [:] }
        var others: [String: String] = [:]
        for member in members where !known.contains(member.key) { others[member.key] = member.value.value.serialized() }
        return others
    }
}

extension JSONValue {
    /// Members kept by `JSONNode.members(besides:)`, as an object's members in key order.
    public static func literals(_ members: [String: String]) -> [(String, JSONValue)] {
        members.sorted { $0.key < $1.key }.map { ($0.key, .literal($0.value)) }
    }
}
