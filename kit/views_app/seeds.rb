# frozen_string_literal: true

module Kit
  module ViewsApp
    # The records of each setup (Kit::ViewsApp::SETUPS). Every value is
    # given (no Time.now), from a fixed base time with microseconds.
    module Seeds
      module_function

      NAMES = ["Ada <Lovelace>", "Grace & Hopper", "Émilie du Châtelet", "Alan\u2028Turing"].freeze
      MOODS = ["happy", nil, "😀 sunny", "<sad>"].freeze

      # The tests': text that ActiveSupport escapes (<, >, &, U+2028),
      # non-ASCII text, nils for ignore_nil!, fractional seconds for
      # time_precision, and posts with no comments for empty collections.
      def tests
        base = Time.utc(2024, 3, 9, 8, 30, 15, 123_456)
        authors = NAMES.each_with_index.map do |name, i|
          Author.create!(name: name, email: i.even? ? "a#{i}@example.com" : nil, bio: i == 2 ? nil : "bio #{i}",
                         born_on: Date.new(1815 + (i * 30), 12, 10), score: i * 1.25,
                         created_at: base, updated_at: base + i)
        end
        12.times do |i|
          post = Post.create!(author: authors[i % authors.size], title: "Post #{i} <#{i}>", body: "Body & more #{i}",
                              published_at: i == 3 ? nil : base + (i * 3600.5), rating: BigDecimal("#{i}.25"),
                              draft: i.odd?, created_at: base + i, updated_at: base + i + 0.5)
          (i % 4).times do |n|
            Comment.create!(post: post, author: authors[(i + n) % authors.size], body: "Comment #{i}.#{n} \u2028 ok",
                            mood: MOODS[(i + n) % MOODS.size], created_at: base + (i * 60) + n,
                            updated_at: base + (i * 60) + n)
          end
        end
      end

      WORDS = %w[json rails view partial cache render fast query index post comment author the a of and to in
                 with for on is that by this & <b> café naïve über déjà].freeze

      # The benchmark's: 100 posts by 20 authors, 10 comments per post, each
      # comment by one of the authors. Values come from a seeded Random, so
      # every world holds the same rows. Text is mostly ASCII, with the
      # occasional character that ActiveSupport escapes (&, <, >) and some
      # non-ASCII; times have microseconds, which ActiveSupport prints to 3
      # digits.
      def bench
        rng = Random.new(2024)
        base = Time.utc(2024, 3, 9, 8, 30, 15, 123_456)
        authors = Array.new(20) do |i|
          Author.create!(name: "Author #{i} #{text(rng, 2)}", email: "author#{i}@example.com",
                         created_at: base + i, updated_at: base + i + 0.25)
        end
        100.times do |i|
          at = base + (i * 3600) + 0.5
          post = Post.create!(author: authors[i % 20], title: "Post #{i}: #{text(rng, 5)}", body: text(rng, 60),
                              published_at: at + 60.123456, created_at: at, updated_at: at + 30.5)
          10.times do |n|
            Comment.create!(post: post, author: authors[rng.rand(20)], body: text(rng, rng.rand(8..24)),
                            created_at: at + (n * 61.75), updated_at: at + (n * 61.75) + 1)
          end
        end
      end

      def text(rng, words) = Array.new(words) { WORDS.sample(random: rng) }.join(" ")
    end
  end
end
