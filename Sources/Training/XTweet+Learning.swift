public import Archive
public import Classifier
public import XAPI

extension ArchivedTweet {
    /// The archive's form of a post from the API: its plain text (entities unescaped, links expanded) and reply
    /// target; nil for a retweet, which is never archived, or a post without a numeric id or a time.
    public init?(_ tweet: XTweet) {
        guard !tweet.isRetweet, let id = Int64(tweet.id), let createdAt = tweet.createdAt else { return nil }
        self.init(tweetID: id, text: tweet.plainText, replyUserID: tweet.inReplyToUserID.flatMap { Int64($0) }, createdAt: createdAt)
    }
}

extension FavoriteClassifier.Tweet {
    /// A post from the API as the classifier sees it: its text with links expanded, and its author's handle from
    /// the page's includes.
    public init(_ tweet: XTweet, in page: XTweetPage) {
        self.init(text: tweet.textWithExpandedURLs, authorUsername: page.username(of: tweet.authorID))
    }
}
