import FakeBluesky
public import FakeKit
import FakeMastodon
import FakeMisskey
import FakeX

/// The networks' fake servers, one line each, in `NetworkRegistry`'s order: what `fake-x --network` serves and the
/// demo's report reads. A network with a fake server adds its line here beside its line in `NetworkRegistry`.
public enum FakeNetworkRegistry {
    /// Every fake, the default network's first.
    public static let fakes: [any FakeNetwork] = [FakeXNetwork(), FakeMastodonNetwork(), FakeBlueskyNetwork(), FakeMisskeyNetwork()]

    /// The fake of the network whose key is `key`, if there is one.
    public static func fake(for key: String) -> (any FakeNetwork)? { fakes.first { $0.key == key } }
}
