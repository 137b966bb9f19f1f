public import BotCore
public import Classifier
import SocialNetwork
public import Stores

extension ArchivedPost {
    /// The archive's form of a post read from the network: its text as written and what it answers; nil for a
    /// repost, which is never archived, or a post without a time.
    public init?(_ post: NetworkPost) {
        guard !post.isRepost, let createdAt = post.createdAt else { return nil }
        self.init(
            postID: PostID(post.id), text: post.text, replyUserID: post.replyToUserID.map { AccountID($0) }, createdAt: createdAt,
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
    /// at the post's time (people like what is new on their timeline); nil without any time.
    public init?(liked post: NetworkPost) {
        guard let at = post.likedAt ?? post.createdAt else { return nil }
        self.init(postID: PostID(post.id), likedAt: at, isExact: post.likedAt != nil)
    }
}
