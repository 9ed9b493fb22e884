# frozen_string_literal: true

require "json"

module JetsonBench
  # Loads the benchmark corpus (activitypub/twitter/citm_catalog/canada .json)
  # from the data directory, or synthesizes a deterministic look-alike document
  # when a file is missing. The data files are never copied into the repo.
  #
  # Data dir: ENV["JETSON_BENCH_DATA"] if set, else ../shared/bench-data
  # relative to the repository root.
  module Documents
    REPO_ROOT = File.expand_path("../..", __dir__)
    NAMES = %w[activitypub twitter citm_catalog canada].freeze

    # value: the parsed document; source: :file or :synthetic;
    # path: where the real file was (or would have been) looked for.
    Document = Struct.new(:name, :value, :source, :path, :note, keyword_init: true) do
      def synthetic? = source == :synthetic
      def label = "#{name}.json"
    end

    @cache = {}

    class << self
      def data_dir
        ENV.fetch("JETSON_BENCH_DATA") { File.expand_path("../shared/bench-data", REPO_ROOT) }
      end

      # Returns a Document for "twitter", "canada", ... (with or without ".json").
      def load(name)
        name = name.to_s.delete_suffix(".json")
        @cache[name] ||= begin
          path = File.join(data_dir, "#{name}.json")
          if File.file?(path) && File.readable?(path)
            Document.new(name: name, value: JSON.parse(File.read(path)), source: :file, path: path,
                         note: "#{name}.json: real file (#{path})")
          else
            synth = Synthetic.respond_to?(name) ? Synthetic.public_send(name) : nil
            raise ArgumentError, "no #{name}.json in #{data_dir} and no synthesizer for it" unless synth
            Document.new(name: name, value: synth, source: :synthetic, path: path,
                         note: "#{name}.json: synthetic look-alike, real file not found (#{path})")
          end
        end
      end

      # Notes for every document loaded so far (for result headers).
      def notes = @cache.values.map(&:note)
      def loaded = @cache.values
    end

    # Deterministic generators (seeded Random) producing documents with a
    # shape and size similar to the well-known benchmark files. They are only
    # look-alikes: numbers compare across runs of *this* script, not with
    # results obtained on the real files.
    module Synthetic
      module_function

      HIRAGANA = (0x3041..0x3093).map { |c| c.chr(Encoding::UTF_8) }.freeze
      KATAKANA = (0x30A1..0x30F6).map { |c| c.chr(Encoding::UTF_8) }.freeze
      KANJI = "一二三人日月火水木金土年時間本今私好前名思出夏最高野球部好動画音楽写真元気世界東京".chars.freeze
      PUNCT = %w[、 。 ！ ？ … ♪ ❤ ・ 「 」].freeze
      EMOJI = %w[😋 ✨ 😂 🎉 👍 😭].freeze
      ASCII_WORDS = %w[the and for with ruby json rails fast data yes no http api user post like today very].freeze
      FRENCH = %w[Orchestre Philharmonique Musique baroque amplifiée chambre Récital Opéra concert
                  symphonique Théâtre catégorie Arrière-scène central Balcon Parterre Loge Fauteuil
                  première deuxième Salle Pleyel Festival Quatuor Ensemble vocal Chœur Piano].freeze

      def japanese_text(rng, chars)
        out = +""
        while out.size < chars
          r = rng.rand
          out << if r < 0.40 then HIRAGANA.sample(random: rng)
                 elsif r < 0.62 then KATAKANA.sample(random: rng)
                 elsif r < 0.84 then KANJI.sample(random: rng)
                 elsif r < 0.92 then PUNCT.sample(random: rng)
                 elsif r < 0.95 then "\n"
                 elsif r < 0.98 then EMOJI.sample(random: rng)
                 else " #{ASCII_WORDS.sample(random: rng)} "
                 end
        end
        out
      end

      def words(rng, list, n) = Array.new(n) { list.sample(random: rng) }.join(" ")
      def hex_color(rng) = format("%06X", rng.rand(0x1000000))
      def digits(rng, n) = (Array.new(n) { rng.rand(10) }.join).sub(/\A0/, "1")
      def handle(rng) = Array.new(rng.rand(5..12)) { "abcdefghijklmnopqrstuvwxyz0123456789_"[rng.rand(37)] }.join

      TWITTER_DAYS = %w[Sun Mon Tue Wed Thu Fri Sat].freeze
      TWITTER_MONTHS = %w[Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec].freeze
      def twitter_time(rng)
        format("%s %s %02d %02d:%02d:%02d +0000 %d", TWITTER_DAYS.sample(random: rng),
               TWITTER_MONTHS.sample(random: rng), rng.rand(1..28), rng.rand(24), rng.rand(60),
               rng.rand(60), rng.rand(2008..2014))
      end

      # ~100 statuses, ~3/4 carrying a nested retweeted_status, users with
      # ~40 fields, entities, lots of 3-byte UTF-8 text. Compact size ~0.45 MB.
      def twitter
        rng = Random.new(20_140_831)
        status = lambda do |with_retweet|
          uid = rng.rand(10**8..10**10)
          img = "pbs.twimg.com/profile_images/#{digits(rng, 18)}/#{handle(rng)}_normal.jpeg"
          user = {
            "id" => uid, "id_str" => uid.to_s, "name" => japanese_text(rng, rng.rand(2..8)).delete("\n"),
            "screen_name" => handle(rng), "location" => rng.rand < 0.5 ? "" : japanese_text(rng, 6).delete("\n"),
            "description" => japanese_text(rng, rng.rand(25..80)).delete("\n"),
            "url" => rng.rand < 0.7 ? nil : "http://t.co/#{handle(rng)}",
            "entities" => { "description" => { "urls" => [] } },
            "protected" => false, "followers_count" => rng.rand(5000), "friends_count" => rng.rand(3000),
            "listed_count" => rng.rand(20), "created_at" => twitter_time(rng),
            "favourites_count" => rng.rand(10_000), "utc_offset" => nil, "time_zone" => nil,
            "geo_enabled" => rng.rand < 0.3, "verified" => false, "statuses_count" => rng.rand(50_000),
            "lang" => "ja", "contributors_enabled" => false, "is_translator" => false,
            "is_translation_enabled" => false, "profile_background_color" => hex_color(rng),
            "profile_background_image_url" => "http://abs.twimg.com/images/themes/theme#{rng.rand(1..9)}/bg.png",
            "profile_background_image_url_https" => "https://abs.twimg.com/images/themes/theme#{rng.rand(1..9)}/bg.png",
            "profile_background_tile" => false, "profile_image_url" => "http://#{img}",
            "profile_image_url_https" => "https://#{img}",
            "profile_banner_url" => "https://pbs.twimg.com/profile_banners/#{uid}/#{digits(rng, 10)}",
            "profile_link_color" => hex_color(rng), "profile_sidebar_border_color" => hex_color(rng),
            "profile_sidebar_fill_color" => hex_color(rng), "profile_text_color" => hex_color(rng),
            "profile_use_background_image" => true, "default_profile" => rng.rand < 0.5,
            "default_profile_image" => false, "following" => false, "follow_request_sent" => false,
            "notifications" => false
          }
          sid = rng.rand(10**17..10**18)
          text = japanese_text(rng, rng.rand(50..160))
          mentions = Array.new(rng.rand(0..2)) do
            mid = rng.rand(10**8..10**10)
            start = rng.rand(0..20)
            { "screen_name" => handle(rng), "name" => japanese_text(rng, 5).delete("\n"), "id" => mid,
              "id_str" => mid.to_s, "indices" => [start, start + rng.rand(6..14)] }
          end
          urls = rng.rand < 0.15 ? [{ "url" => "http://t.co/#{handle(rng)}",
                                     "expanded_url" => "http://twitter.com/#{handle(rng)}/status/#{digits(rng, 18)}/photo/1",
                                     "display_url" => "pic.twitter.com/#{handle(rng)}", "indices" => [29, 51] }] : []
          tags = rng.rand < 0.1 ? [{ "text" => japanese_text(rng, 8).delete("\n"), "indices" => [17, 28] }] : []
          reply = rng.rand < 0.3
          s = {
            "metadata" => { "result_type" => "recent", "iso_language_code" => "ja" },
            "created_at" => twitter_time(rng), "id" => sid, "id_str" => sid.to_s, "text" => text,
            "source" => "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
            "truncated" => false, "in_reply_to_status_id" => nil, "in_reply_to_status_id_str" => nil,
            "in_reply_to_user_id" => reply ? uid + 1 : nil, "in_reply_to_user_id_str" => reply ? (uid + 1).to_s : nil,
            "in_reply_to_screen_name" => reply ? handle(rng) : nil, "user" => user,
            "geo" => nil, "coordinates" => nil, "place" => nil, "contributors" => nil,
            "retweet_count" => rng.rand(0..3000), "favorite_count" => rng.rand(0..500),
            "entities" => { "hashtags" => tags, "symbols" => [], "urls" => urls, "user_mentions" => mentions },
            "favorited" => false, "retweeted" => false, "lang" => "ja"
          }
          s["possibly_sensitive"] = false unless urls.empty?
          s["retweeted_status"] = with_retweet.call if with_retweet
          s
        end
        statuses = Array.new(100) { status.call(rng.rand < 0.73 ? -> { status.call(nil) } : nil) }
        max_id = statuses.map { |s| s["id"] }.max
        { "statuses" => statuses,
          "search_metadata" => { "completed_in" => 0.087, "max_id" => max_id, "max_id_str" => max_id.to_s,
                                 "next_results" => "?max_id=#{max_id - 1}&q=%E4%B8%80&count=100&include_entities=1",
                                 "query" => "%E4%B8%80", "refresh_url" => "?since_id=#{max_id}&q=%E4%B8%80&include_entities=1",
                                 "count" => 100, "since_id" => 0, "since_id_str" => "0" } }
      end

      # GeoJSON FeatureCollection with one Polygon of 480 rings totalling
      # ~55.5k [lon, lat] pairs (~111k floats). Coordinates are random walks
      # with 6-decimal steps, accumulated in binary floating point, so most
      # values print with 15-17 significant digits like the real file.
      def canada
        rng = Random.new(1867)
        total = 55_563
        weights = Array.new(480) { rng.rand**7 }
        weights[0] += 20.0 # one very large ring, like the mainland outline
        sum = weights.sum
        sizes = weights.map { |w| [(w / sum * total).floor, 4].max }
        sizes[0] += total - sizes.sum
        rings = sizes.map do |n|
          lon = -141.0 + rng.rand * 88.0
          lat = 42.0 + rng.rand * 41.0
          ring = Array.new(n - 1) do
            lon += rng.rand(-9000..9000) / 1_000_000.0
            lat += rng.rand(-9000..9000) / 1_000_000.0
            lon = lon.round(6) if rng.rand < 0.02 # some short values too
            [lon, lat]
          end
          ring << ring.first.dup # closed ring
        end
        { "type" => "FeatureCollection",
          "features" => [{ "type" => "Feature", "properties" => { "name" => "Canada" },
                           "geometry" => { "type" => "Polygon", "coordinates" => rings } }] }
      end

      # Catalog with id-keyed name tables, 184 events and 243 performances
      # whose seat categories list ~11 areas each: many integers, short
      # (partly accented) strings, nulls and empty arrays. Compact ~0.5 MB.
      def citm_catalog
        rng = Random.new(2013)
        ids = ->(base, n) { Array.new(n) { |i| base + i * rng.rand(1..4) } }
        names = ->(n_words) { words(rng, FRENCH, rng.rand(1..n_words)) }
        area_ids = ids.call(205_705_993, 17)
        seat_cat_ids = ids.call(338_937_235, 64)
        sub_topic_ids = ids.call(337_184_262, 19)
        topic_ids = ids.call(107_888_604, 4)
        event_ids = ids.call(138_586_341, 184)
        events = event_ids.to_h do |id|
          [id.to_s, { "description" => nil, "id" => id,
                      "logo" => rng.rand < 0.9 ? "/images/UE0AAAAACEKo#{handle(rng)[0, 4]}AAAAVDSVRVU" : nil,
                      "name" => names.call(6), "subTopicIds" => sub_topic_ids.sample(rng.rand(2..5), random: rng),
                      "subjectCode" => nil, "subtitle" => nil, "topicIds" => topic_ids.sample(rng.rand(2..3), random: rng) }]
        end
        performances = Array.new(243) do |i|
          cats = seat_cat_ids.sample(rng.rand(1..7), random: rng).sort
          { "eventId" => event_ids.sample(random: rng), "id" => 339_887_544 + i * 4, "logo" => nil, "name" => nil,
            "prices" => cats.map { |c| { "amount" => rng.rand(10..100) * 950, "audienceSubCategoryId" => 337_100_890, "seatCategoryId" => c } },
            "seatCategories" => cats.map do |c|
              { "areas" => area_ids.sample(rng.rand(5..14), random: rng).map { |a| { "areaId" => a, "blockIds" => [] } },
                "seatCategoryId" => c }
            end,
            "seatMapImage" => nil, "start" => 1_372_701_600_000 + i * 86_400_000, "venueCode" => "PLEYEL_PLEYEL" }
        end
        { "areaNames" => area_ids.to_h { |id| [id.to_s, names.call(3)] },
          "audienceSubCategoryNames" => { "337100890" => "Abonné" },
          "blockNames" => {},
          "events" => events,
          "performances" => performances,
          "seatCategoryNames" => seat_cat_ids.to_h { |id| [id.to_s, "#{rng.rand(1..9)}ème catégorie"] },
          "subTopicNames" => sub_topic_ids.to_h { |id| [id.to_s, names.call(2)] },
          "subjectNames" => {},
          "topicNames" => topic_ids.to_h { |id| [id.to_s, names.call(2)] },
          "topicSubTopics" => topic_ids.to_h { |id| [id.to_s, sub_topic_ids.sample(rng.rand(1..6), random: rng)] },
          "venueNames" => { "PLEYEL_PLEYEL" => "Salle Pleyel" } }
      end

      # ActivityPub OrderedCollectionPage of 20 Create/Note activities with
      # URL-heavy strings and HTML content (quotes, &, <, >). Compact ~50 KB.
      def activitypub
        rng = Random.new(113_395_951)
        actor = "https://example.social/users/jdoe"
        public_addr = "https://www.w3.org/ns/activitystreams#Public"
        items = Array.new(20) do
          sid = rng.rand(10**17..10**18)
          at = format("2024-%02d-%02dT%02d:%02d:%02dZ", rng.rand(1..12), rng.rand(1..28), rng.rand(24), rng.rand(60), rng.rand(60))
          link = "https://blog.example.org/#{at[0, 10]}-#{words(rng, ASCII_WORDS, 3).tr(" ", "-")}/"
          content = "<p>#{words(rng, ASCII_WORDS, rng.rand(8..30))} &amp; it&#39;s #{words(rng, ASCII_WORDS, 5)}.</p>" \
                    "<p><a href=\"#{link}\" target=\"_blank\" rel=\"nofollow noopener noreferrer\" translate=\"no\">" \
                    "<span class=\"invisible\">https://</span><span class=\"ellipsis\">#{link[8, 30]}</span>" \
                    "<span class=\"invisible\">#{link[38..]}</span></a></p>"
          note_id = "#{actor}/statuses/#{sid}"
          coll = lambda do |kind|
            { "id" => "#{note_id}/#{kind}", "type" => "Collection",
              "first" => { "type" => "CollectionPage", "next" => "#{note_id}/#{kind}?only_other_accounts=true&page=true",
                           "partOf" => "#{note_id}/#{kind}", "items" => [] } }
          end
          tags = Array.new(rng.rand(0..2)) do
            t = ASCII_WORDS.sample(random: rng)
            { "type" => "Hashtag", "href" => "https://example.social/tags/#{t}", "name" => "##{t}" }
          end
          { "id" => "#{note_id}/activity", "type" => "Create", "actor" => actor, "published" => at,
            "to" => [public_addr], "cc" => ["#{actor}/followers"],
            "object" => { "id" => note_id, "type" => "Note", "summary" => nil, "inReplyTo" => nil, "published" => at,
                          "url" => "https://example.social/@jdoe/#{sid}", "attributedTo" => actor,
                          "to" => [public_addr], "cc" => ["#{actor}/followers"], "sensitive" => false,
                          "atomUri" => note_id, "inReplyToAtomUri" => nil,
                          "conversation" => "tag:example.social,#{at[0, 10]}:objectId=#{rng.rand(10**7..10**8)}:objectType=Conversation",
                          "content" => content, "contentMap" => { "en" => content }, "attachment" => [], "tag" => tags,
                          "replies" => coll.call("replies"),
                          "likes" => { "id" => "#{note_id}/likes", "type" => "Collection", "totalItems" => rng.rand(100) },
                          "shares" => { "id" => "#{note_id}/shares", "type" => "Collection", "totalItems" => rng.rand(40) } } }
        end
        { "@context" => ["https://www.w3.org/ns/activitystreams",
                         { "ostatus" => "http://ostatus.org#", "atomUri" => "ostatus:atomUri",
                           "inReplyToAtomUri" => "ostatus:inReplyToAtomUri", "conversation" => "ostatus:conversation",
                           "sensitive" => "as:sensitive", "toot" => "http://joinmastodon.org/ns#",
                           "votersCount" => "toot:votersCount", "blurhash" => "toot:blurhash",
                           "focalPoint" => { "@container" => "@list", "@id" => "toot:focalPoint" },
                           "Hashtag" => "as:Hashtag" }],
          "id" => "#{actor}/outbox?page=true", "type" => "OrderedCollectionPage",
          "next" => "#{actor}/outbox?max_id=112610149145350336&page=true",
          "prev" => "#{actor}/outbox?min_id=113395951825326098&page=true",
          "partOf" => "#{actor}/outbox", "orderedItems" => items }
      end
    end
  end
end
