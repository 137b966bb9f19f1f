public import SocialNetwork

/// Bluesky (the AT Protocol: atproto OAuth or app passwords), as the registry lists it: `NETWORK=bluesky`, its module built from its section.
public let blueskyDefinition = SectionNetworkDefinition<BlueskyNetworkSettings>(key: "bluesky", name: "Bluesky", help: blueskyHelp) {
    BlueskyNetworkModule(settings: $0)
}
