import Foundation
import SeededRandom

/// A generated human with a known liking rule, for measuring how well the bot's likes match theirs.
///
/// Timeline posts come from 150 authors, each mostly on a topic of their own among 20, sometimes with a second
/// topic. A topic has five common nouns MeCab knows and 80 names of its own (shops, people, places: made-up katakana
/// words, which MeCab reads as one unknown noun each); every post also has everyday words from a vocabulary of
/// 3,000, so most words are rare, as in real timelines. The human likes a post about one of their four topics
/// (ラーメン, 寿司, 猫, 写真) with probability 0.8, a post of one of eight favourite authors with 0.4, anything else
/// with 0.08 (noise): about 25-30% of the timeline.
struct LikingPersona {
    struct Post: Sendable {
        var id: String
        var text: String
        var author: String
        var liked: Bool
    }

    static let topics: [[String]] = [
        ["ラーメン", "味噌", "豚骨", "麺", "替え玉"], ["寿司", "鮪", "鮭", "板前", "握り"], ["猫", "子猫", "肉球", "毛玉", "猫舌"],
        ["写真", "カメラ", "レンズ", "構図", "夕焼け"], ["会議", "資料", "議事録", "上司", "締切"], ["電車", "遅延", "改札", "満員", "終電"],
        ["天気", "台風", "雨", "気温", "梅雨"], ["野球", "投手", "打者", "球場", "応援"], ["映画", "監督", "俳優", "字幕", "予告"],
        ["音楽", "ギター", "歌詞", "ライブ", "新曲"], ["選挙", "政府", "国会", "首相", "法案"], ["株価", "投資", "為替", "決算", "配当"],
        ["ゲーム", "攻略", "課金", "新作", "対戦"], ["料理", "包丁", "味噌汁", "献立", "弁当"], ["旅行", "温泉", "旅館", "空港", "観光"],
        ["小説", "作家", "書店", "読書", "文庫"], ["犬", "散歩", "子犬", "首輪", "柴犬"], ["桜", "紫陽花", "花見", "庭", "植物"],
        ["筋肉", "腹筋", "体重", "運動", "ジム"], ["残業", "出張", "給料", "転職", "仕事"],
    ]
    static let likedTopics: Set<Int> = [0, 1, 2, 3]
    static let everyday = ["今日", "明日", "昨日", "友達", "家", "駅", "朝", "夜", "気分", "時間", "週末", "最近"]
    static let particles = ["の", "と", "が", "を", "で", "も", "に"]
    static let endings = ["。", "！", "だね。", "かな。", "です。", "でした。"]

    static let kana = Array("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン")

    var generator: SplitMix64
    let authorTopics: [Int]
    let favouriteAuthors: Set<Int>
    let topicNames: [[String]]
    let vocabulary: [String]
    var nextID = 1

    /// A made-up katakana word of three to five letters.
    static func madeUpWord(using generator: inout SplitMix64) -> String {
        String((0..<Int.random(in: 3...5, using: &generator)).map { _ in kana.randomElement(using: &generator)! })
    }

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
        var setup = SplitMix64(seed: seed &+ 1)
        topicNames = Self.topics.map { _ in (0..<80).map { _ in Self.madeUpWord(using: &setup) } }
        vocabulary = (0..<3_000).map { _ in Self.madeUpWord(using: &setup) }
        let topicOfAuthor = (0..<150).map { _ in Int.random(in: 0..<Self.topics.count, using: &setup) }
        authorTopics = topicOfAuthor
        favouriteAuthors = Set((0..<150).filter { !Self.likedTopics.contains(topicOfAuthor[$0]) }.shuffled(using: &setup).prefix(8))
    }

    /// The next timeline post, liked or not by the rule.
    mutating func post() -> Post {
        let author = Int.random(in: 0..<150, using: &generator)
        var topics = [
            Double.random(in: 0..<1, using: &generator) < 0.7 ? authorTopics[author] : Int.random(in: 0..<Self.topics.count, using: &generator)
        ]
        if Double.random(in: 0..<1, using: &generator) < 0.3 { topics.append(Int.random(in: 0..<Self.topics.count, using: &generator)) }
        var nouns: [String] = []
        for topic in topics {
            if Double.random(in: 0..<1, using: &generator) < 0.6 { nouns.append(Self.topics[topic].randomElement(using: &generator)!) }
            nouns += (0..<Int.random(in: 1...2, using: &generator)).map { _ in topicNames[topic].randomElement(using: &generator)! }
        }
        nouns.append(Self.everyday.randomElement(using: &generator)!)
        nouns += (0..<Int.random(in: 2...3, using: &generator)).map { _ in vocabulary.randomElement(using: &generator)! }
        nouns.shuffle(using: &generator)
        var text = ""
        for (index, noun) in nouns.enumerated() {
            text +=
                noun + (index == nouns.count - 1 ? Self.endings.randomElement(using: &generator)! : Self.particles.randomElement(using: &generator)!)
        }
        let probability = topics.contains(where: Self.likedTopics.contains) ? 0.8 : (favouriteAuthors.contains(author) ? 0.4 : 0.08)
        defer { nextID += 1 }
        return Post(
            id: String(nextID), text: text, author: String(format: "writer_%03d", author),
            liked: Double.random(in: 0..<1, using: &generator) < probability)
    }

    /// The next `count` posts the human liked (their likes history).
    mutating func likedPosts(_ count: Int) -> [Post] {
        var posts: [Post] = []
        while posts.count < count {
            let next = post()
            if next.liked { posts.append(next) }
        }
        return posts
    }
}
