/// What X's API offers an app like mirror_bot's today, as data the services ask instead of testing for X.
public enum XAccess {
    /// Why liking is not offered on X: under `LIKES=auto` the bot does not like there, and reads nothing that only
    /// liking needs. (Apps with enterprise access and an owner who accepts X's rules can set `LIKES=on`.)
    public static let whyNoLikes =
        "X's self-serve (pay-per-use) access has had no likes endpoints since 2026-04-20, and X's automation rules forbid automated likes"
}
