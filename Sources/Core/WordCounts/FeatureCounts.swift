/// The counts needed to classify one post: for each of its features how often it was learned in each category,
/// and how many posts each category has learned.
public struct FeatureCounts: Sendable, Equatable {
    /// count(feature, category) for the features asked about; a feature never learned has zeros.
    public var features: [String: [Category: Int]]
    /// count(category): posts learned in each category.
    public var categories: [Category: Int]

    /// Counts from their parts.
    public init(features: [String: [Category: Int]], categories: [Category: Int]) {
        self.features = features
        self.categories = categories
    }

    /// count(feature, category), zero when never learned.
    public func count(of feature: String, in category: Category) -> Int {
        features[feature]?[category] ?? 0
    }

    /// count(category), zero when nothing was learned.
    public func count(of category: Category) -> Int { categories[category] ?? 0 }
}
