/// Splits a migration file into its statements at top-level semicolons, the way `psql` does: semicolons inside
/// quoted strings, quoted identifiers, comments and dollar-quoted bodies do not end a statement.
///
/// Needed because Postgres' extended query protocol (the only one postgres-nio speaks) runs one statement per query.
enum SQLStatements {
    /// The statements of `sql`, in order.
    static func split(_ sql: String) -> [String] {
        let scalars = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0
        var hasContent = false

        func finishStatement() {
            let text = String(current).trimmingWhitespace()
            if hasContent && !text.isEmpty { statements.append(text) }
            current = String.UnicodeScalarView()
            hasContent = false
        }

        while index < scalars.count {
            let scalar = scalars[index]
            let next: Unicode.Scalar? = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar {
            case "-" where next == "-":
                while index < scalars.count && scalars[index] != "\n" { index += 1 }
                continue
            case "/" where next == "*":
                var depth = 0  // Postgres block comments nest.
                repeat {
                    if scalars[index] == "/" && index + 1 < scalars.count && scalars[index + 1] == "*" {
                        depth += 1
                        index += 2
                    } else if scalars[index] == "*" && index + 1 < scalars.count && scalars[index + 1] == "/" {
                        depth -= 1
                        index += 2
                    } else {
                        index += 1
                    }
                } while depth > 0 && index < scalars.count
                current.append(" ")
                continue
            case "'", "\"":
                var end = index + 1
                while end < scalars.count {
                    if scalars[end] == scalar {
                        if end + 1 < scalars.count && scalars[end + 1] == scalar {
                            end += 2
                            continue
                        }  // doubled quote
                        break
                    }
                    end += 1
                }
                let stop = min(end + 1, scalars.count)
                current.append(contentsOf: scalars[index..<stop])
                hasContent = true
                index = stop
                continue
            case "$":
                // $tag$ ... $tag$ where tag is empty or an identifier.
                var tagEnd = index + 1
                while tagEnd < scalars.count,
                    scalars[tagEnd] == "_" || scalars[tagEnd].properties.isAlphabetic
                        || (tagEnd > index + 1 && ("0"..."9").contains(scalars[tagEnd]))
                { tagEnd += 1 }
                if tagEnd < scalars.count && scalars[tagEnd] == "$" {
                    let tag = Array(scalars[index...tagEnd])
                    var search = tagEnd + 1
                    var closing = scalars.count
                    while search + tag.count <= scalars.count {
                        if Array(scalars[search..<search + tag.count]) == tag {
                            closing = search + tag.count
                            break
                        }
                        search += 1
                    }
                    current.append(contentsOf: scalars[index..<closing])
                    hasContent = true
                    index = closing
                    continue
                }
            case ";":
                finishStatement()
                index += 1
                continue
            default:
                break
            }
            if !scalar.properties.isWhitespace { hasContent = true }
            current.append(scalar)
            index += 1
        }
        finishStatement()
        return statements
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
