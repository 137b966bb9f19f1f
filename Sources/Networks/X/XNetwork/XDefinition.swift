public import SocialNetwork

/// X (the X API v2, OAuth 1.0a), as the registry lists it: `NETWORK=x`, its module built from its section.
public let xDefinition = SectionNetworkDefinition<XNetworkSettings>(key: "x", name: "X", help: xHelp) { XNetworkModule(settings: $0) }
