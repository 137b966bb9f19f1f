public import SocialNetwork

/// A Misskey instance (tokens from MiAuth or Settings → API), as the registry lists it: `NETWORK=misskey`, its module built from its section.
public let misskeyDefinition = SectionNetworkDefinition<MisskeyNetworkSettings>(key: "misskey", name: "Misskey", help: misskeyHelp) {
    MisskeyNetworkModule(settings: $0)
}
