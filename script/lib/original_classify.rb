# The 2014 Ruby bot's favourite decision, written again from its documented behaviour (../shared/MISSION.md, "The
# original") as the baseline script/bench-classify measures mirror_bot beside: MeCab nouns (ruby-mecab) and the
# author's name as features, each feature's counts read from Redis one value per round trip (as the original did),
# the weighted probability (0.1 * 5 + n * p) / (n + 5), the product of the features' probabilities times the
# category's share, and favourite when score(favorite) / score(normal) > FAVORITE_RATE_THRESHOLD (3.0).
# Reads JSON lines {"text": ..., "author": ...} on stdin, writes {"favorite": true|false} per line. The counts are
# mirror_bot's (the same keys as the original's, under REDIS_KEY_PREFIX).
require "json"
require "MeCab"
require "redis"

class OriginalBayes
  CATEGORIES = %w[favorite normal].freeze

  def initialize(redis, prefix)
    @redis = redis
    @prefix = prefix
  end

  def feature_count(feature, category)
    @redis.hget("#{@prefix}features:#{feature}", "categories:#{category}").to_i
  end

  def category_count(category)
    @redis.get("#{@prefix}categories:#{category}").to_i
  end

  def total_count
    CATEGORIES.sum { |category| category_count(category) }
  end

  def feature_probability(feature, category)
    count = category_count(category)
    count.zero? ? 0.0 : feature_count(feature, category).to_f / count
  end

  def weighted_probability(feature, category, weight = 1.0, assumed = 0.1)
    basic = feature_probability(feature, category)
    totals = CATEGORIES.sum { |other| feature_count(feature, other) }
    ((weight * assumed * 5) + (totals * basic)) / (totals + 5)
  end

  def score(features, category)
    total = total_count
    share = total.zero? ? 0.0 : category_count(category).to_f / total
    features.inject(share) { |product, feature| product * weighted_probability(feature, category) }
  end
end

tagger = MeCab::Tagger.new
bayes = OriginalBayes.new(Redis.new(url: ENV.fetch("REDIS_URL")), ENV.fetch("REDIS_KEY_PREFIX", ""))
threshold = Float(ENV.fetch("FAVORITE_RATE_THRESHOLD", "3.0"))
$stdout.sync = false
$stdin.each_line do |line|
  post = JSON.parse(line)
  nouns = []
  node = tagger.parseToNode(post["text"])
  while node
    surface = node.surface.force_encoding(Encoding::UTF_8)
    nouns << surface if node.feature.force_encoding(Encoding::UTF_8).start_with?("名詞")
    node = node.next
  end
  features = nouns.uniq
  features << "@#{post["author"]}" if post["author"] && !post["author"].empty? && !features.include?("@#{post["author"]}")
  normal = bayes.score(features, "normal")
  favorite = bayes.score(features, "favorite")
  puts JSON.generate({ "favorite" => normal.positive? && favorite / normal > threshold })
end
