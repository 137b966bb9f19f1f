import Foundation
import Schedule

/// Post-like Japanese texts made from a seed: nouns, particles and verbs in post-length sentences, with the
/// URLs, mentions, hashtags and HTML entities real posts carry.
struct SyntheticPosts {
    private static let nouns = [
        "今日", "明日", "東京", "大阪", "電車", "会社", "仕事", "会議", "ラーメン", "寿司", "カレー", "コーヒー", "猫", "犬",
        "映画", "音楽", "ライブ", "ゲーム", "プログラミング", "Swift", "サーバー", "データベース", "天気", "雨", "桜", "旅行",
        "本", "漫画", "アニメ", "友達", "家族", "週末", "朝ごはん", "晩ごはん", "散歩", "公園", "カメラ", "写真", "新幹線",
    ]
    private static let particles = ["は", "が", "を", "に", "で", "と", "の", "も"]
    private static let endings = ["食べた", "行きたい", "楽しかった", "見た", "好き", "疲れた", "最高", "してる", "終わった"]
    private static let extras = ["", "", "", " https://t.co/Ab3dEf9", " @friend_01", " #今日の一枚", " &amp; ", " w", "！", "…"]

    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// The next post text, about 30–120 characters.
    mutating func next() -> String {
        var text = ""
        let clauses = Int.random(in: 1...4, using: &generator)
        for _ in 0..<clauses {
            text += Self.nouns.randomElement(using: &generator)!
            text += Self.particles.randomElement(using: &generator)!
            text += Self.nouns.randomElement(using: &generator)!
            text += Self.particles.randomElement(using: &generator)!
            text += Self.endings.randomElement(using: &generator)!
            text += Self.extras.randomElement(using: &generator)!
        }
        return text
    }

    /// `count` texts.
    mutating func make(_ count: Int) -> [String] { (0..<count).map { _ in next() } }
}
