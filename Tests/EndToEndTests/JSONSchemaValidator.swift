import Foundation

/// Checks a JSON value against the subset of JSON Schema (2020-12) that the export schema uses: `$ref` to
/// `#/$defs/…`, `type`, `required`, `properties`, `additionalProperties`, `items`, `enum`, `const`,
/// `minimum`, `maximum` and `pattern`, with the types object, array, string, number, integer and null (the
/// export has no booleans). A keyword outside that subset is reported, not ignored.
struct JSONSchemaValidator {
    let root: [String: Any]

    static let known: Set<String> = ["$schema", "$id", "$defs", "$ref", "title", "description", "type", "required", "properties",
                                     "additionalProperties", "items", "enum", "const", "minimum", "maximum", "pattern"]

    func validate(_ value: Any) -> [String] { check(value, against: root, at: "") }

    private func check(_ value: Any, against schema: [String: Any], at path: String) -> [String] {
        var errors: [String] = []
        for key in schema.keys where !Self.known.contains(key) { errors.append("\(path): schema keyword \(key) is not supported by this validator") }
        if let reference = schema["$ref"] as? String {
            let name = String(reference.dropFirst("#/$defs/".count))
            guard let definitions = root["$defs"] as? [String: Any], let target = definitions[name] as? [String: Any] else {
                return errors + ["\(path): unresolved \(reference)"]
            }
            errors += check(value, against: target, at: path)
        }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [type as! String]
            if !types.contains(where: { Self.matches(value, type: $0) }) { errors.append("\(path): \(value) is not of type \(types)") }
        }
        if let constant = schema["const"], !Self.equal(value, constant) { errors.append("\(path): \(value) is not \(constant)") }
        if let options = schema["enum"] as? [Any], !options.contains(where: { Self.equal(value, $0) }) {
            errors.append("\(path): \(value) is not one of \(options)")
        }
        if let number = value as? NSNumber {
            if let minimum = schema["minimum"] as? Double, number.doubleValue < minimum { errors.append("\(path): \(number) < \(minimum)") }
            if let maximum = schema["maximum"] as? Double, number.doubleValue > maximum { errors.append("\(path): \(number) > \(maximum)") }
        }
        if let pattern = schema["pattern"] as? String, let text = value as? String,
           text.range(of: pattern, options: .regularExpression) == nil {
            errors.append("\(path): \"\(text)\" does not match \(pattern)")
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { errors.append("\(path): missing \(key)") }
            for (key, member) in object {
                if let propertySchema = properties[key] as? [String: Any] {
                    errors += check(member, against: propertySchema, at: "\(path)/\(key)")
                } else if let additional = schema["additionalProperties"] {
                    if let allowed = additional as? Bool {
                        if !allowed { errors.append("\(path): unexpected property \(key)") }
                    } else if let additionalSchema = additional as? [String: Any] {
                        errors += check(member, against: additionalSchema, at: "\(path)/\(key)")
                    }
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() { errors += check(item, against: items, at: "\(path)/\(index)") }
        }
        return errors
    }

    static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "null": return value is NSNull
        case "integer":
            guard let number = value as? NSNumber else { return false }
            return number.doubleValue == number.doubleValue.rounded()
        case "number": return value is NSNumber
        default: return false
        }
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = a as? NSNumber, let b = b as? NSNumber { return a == b }
        return false
    }
}
