public import SocialNetwork

/// A Mastodon instance (OAuth 2 bearer tokens), as the registry lists it: `NETWORK=mastodon`, its module built from its section.
public let mastodonDefinition = SectionNetworkDefinition<MastodonNetworkSettings>(key: "mastodon", name: "Mastodon", help: mastodonHelp) {
    MastodonNetworkModule(settings: $0)
}
