# frozen_string_literal: true

require "test_helper"
require "support/rails_oracle"
require "jetson/rails"
require_relative "../../kit/collection"
require "support/rails_graph"

# ActiveRecord models from a real sqlite3 database, encoded by ActiveSupport
# with its own encoder and with Jetson::RailsEncoder: same bytes.
class ActiveRecordTest < Minitest::Test
  STOCK = RailsOracle.stock # the encoder ActiveSupport picks in this bundle

  def setup
    Kit::Collection.seed(posts: 12)
    @saved = [ActiveSupport::JSON::Encoding.escape_html_entities_in_json,
              ActiveSupport::JSON::Encoding.use_standard_json_time_format,
              ActiveSupport::JSON::Encoding.time_precision, Time.zone, ActiveRecord::Base.include_root_in_json]
  end

  def teardown
    ActiveSupport::JSON::Encoding.escape_html_entities_in_json, ActiveSupport::JSON::Encoding.use_standard_json_time_format,
      ActiveSupport::JSON::Encoding.time_precision, Time.zone, ActiveRecord::Base.include_root_in_json = @saved
    ActiveSupport.json_encoder = STOCK
  end

  def both
    ActiveSupport.json_encoder = STOCK
    stock = yield
    ActiveSupport.json_encoder = Jetson::RailsEncoder
    jetson = yield
    [stock, jetson]
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  # Bytes must be equal, Floats included.
  def assert_same(label, &block)
    stock, jetson = both(&block)
    assert_equal stock, jetson, label
  end

  OPTION_SETS = [
    nil, {}, { only: [:id, :body] }, { except: :updated_at }, { methods: :commenter_names },
    { include: :comments }, { include: { comments: { only: :body, methods: :summary } }, methods: :commenter_names },
    { include: [:comments, :commenters] }, { root: true }, { root: "item", only: :id },
    { include: { comments: { include: :commenter } } },
    { include: [:comments, { commenters: { only: :name } }], except: [:created_at] },
    { methods: [:id] }, { methods: "commenter_names", only: "id" }, { include: { comments: { methods: :body } } },
    { include: { comments: { include: { post: { only: :id } } } } }
  ].freeze

  def test_collection_under_every_setting
    posts = Post.includes(:comments, :commenters).order(:id).to_a
    [[true, true, 3, nil], [false, true, 0, "Tokyo"], [true, false, 3, "Kathmandu"], [true, true, 9, "UTC"],
     [true, true, 12, "Eastern Time (US & Canada)"]].each do |html, standard, precision, zone|
      ActiveSupport::JSON::Encoding.escape_html_entities_in_json = html
      ActiveSupport::JSON::Encoding.use_standard_json_time_format = standard
      ActiveSupport::JSON::Encoding.time_precision = precision
      Time.zone = zone
      [false, true].each do |root|
        ActiveRecord::Base.include_root_in_json = root
        now = Time.current
        OPTION_SETS.each do |options|
          label = "settings #{[html, standard, precision, zone, root].inspect}, options #{options.inspect}"
          assert_same(label) { posts.to_json(options) }
          assert_same(label) { posts.first.to_json(options) }
          assert_same(label) { ActiveSupport::JSON.encode({ "posts" => posts.first(3), meta: { at: now } }, options) }
        end
        assert_same("relation") { Post.where(id: posts.first(2).map(&:id)).to_json(include: :comments) }
      end
    end
  end

  def test_random_records_of_every_column_type
    rng = Random.new(Minitest.seed)
    Sample.delete_all
    200.times do
      Sample.create!(
        title: [RailsGraph.string(rng).then { |s| s.valid_encoding? ? s.encode("UTF-8") : "x" }, nil].sample(random: rng),
        count: [rng.rand(-1000..1000), nil].sample(random: rng), big: rng.rand(-2**62..2**62),
        ratio: [RailsGraph.float(rng).then { |f| f.finite? ? f : 1.5 }, nil].sample(random: rng),
        price: BigDecimal(rng.rand(-10**8..10**8).to_s) / 10_000, flag: [true, false, nil].sample(random: rng),
        day: Date.new(rng.rand(1900..2100), rng.rand(1..12), rng.rand(1..28)),
        at: Time.at(rng.rand(0..4_000_000_000), rng.rand(0..999_999), :usec), clock: Time.utc(2000, 1, 1, rng.rand(24), rng.rand(60)),
        data: [{ "a" => [1, "<b>", nil] }, nil, [1.5, "x"], "str"].sample(random: rng)
      )
    end
    samples = Sample.order(:id).to_a
    [nil, "Tokyo", "Chatham Is."].each do |zone|
      Time.zone = zone
      [0, 3, 6].each do |precision|
        ActiveSupport::JSON::Encoding.time_precision = precision
        assert_same("zone #{zone}, precision #{precision}") { samples.to_json }
        assert_same("except") { samples.to_json(except: [:data, :clock]) }
        samples.each { |s| assert_same(s.inspect) { s.as_json.to_json } }
      end
    end
  end

  def test_models_that_change_their_serialization
    Kit::Collection.connect
    special = named_subclass(Post, "SpecialPost") do
      def serializable_hash(options = nil) = super.merge("special" => true)
    end
    reader = named_subclass(Post, "ReaderPost") do
      def body = "<#{super}>"
    end
    root = named_subclass(Post, "RootPost") do
      self.include_root_in_json = true
    end
    [special, reader, root].each do |klass|
      records = klass.order(:id).limit(3).to_a
      assert_same(klass.name) { records.to_json }
      assert_same(klass.name) { records.to_json(include: :comments, methods: :commenter_names) }
      assert_same(klass.name) { ActiveSupport::JSON.encode({ "list" => records }) }
    end
  end

  def test_install_and_uninstall
    previous = Jetson::Rails.install!
    assert_equal STOCK, previous
    assert Jetson::Rails.installed?
    assert_equal Jetson::RailsEncoder, ActiveSupport.json_encoder
    post = Post.first
    json = post.to_json(include: :comments)
    Jetson::Rails.uninstall!
    refute Jetson::Rails.installed?
    assert_equal post.to_json(include: :comments), json
  end
end
