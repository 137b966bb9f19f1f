public import BotCore
public import Classifier
import SocialNetwork
public import Stores

extension ArchivedPost {
    /// The archive's form of a post read from the network: its text as written and what it answers; nil for a
    /// repost, which is never archived, or a post without a numeric id or a time.
    public init?(_ post: NetworkPost) {
        guard !post.isRepost, let id = Int64(post.id), let createdAt = post.createdAt else { return nil }
        self.init(
            postID: id, text: post.text, replyUserID: post.replyToUserID.flatMap { Int64($0) }, createdAt: createdAt,
            contentWarning: post.contentWarning)
    }
}

extension FavoriteClassifier.Post {
    /// A post read from the network as the classifier sees it: its text as written, and its author's handle.
    public init(_ post: NetworkPost) {
        self.init(text: post.text, authorUsername: post.authorHandle)
    }
}

extension PersonLike {
    /// The person's like of `post`, read from their list of likes: at its own time where the network gave it, else
    /// at the post's time (people like what is new on their timeline); nil without a numeric id or any time.
    public init?(liked post: NetworkPost) {
        guard let id = Int64(post.id), let at = post.likedAt ?? post.createdAt else { return nil }
        self.init(postID: id, likedAt: at, isExact: post.likedAt != nil)
    }
}
