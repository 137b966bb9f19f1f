import NetworkRegistry

/// What the help of `command` says of each network (each network's paragraph, from the registry), after a blank line;
/// "" when none says anything.
func networksHelp(_ command: String) -> String {
    let paragraphs = NetworkRegistry.choices.help(for: command)
    return paragraphs.isEmpty ? "" : "\n\n" + paragraphs
}
