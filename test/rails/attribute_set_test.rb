# frozen_string_literal: true

require "test_helper"
require "support/rails_oracle"
require "jetson/rails"
require_relative "../../kit/collection"
require "support/native_read_checks"
require "support/self_changing_note"

# Jetson reads a record's attributes from ActiveModel's attribute set
# (ext/jetson/attribute_set.c) where ActiveRecord's own methods would have
# run. These records are in the states that decide whether it may: loaded
# and never read (values not cast yet), read, changed, partly selected,
# with extra selected columns, with attributes declared on the class,
# overridden or aliased readers, another primary key, not persisted. Each
# encoder gets its own freshly loaded records unless the test says
# otherwise, so Jetson also meets records the stock encoder has not touched.
class AttributeSetTest < Minitest::Test
  include NativeReadChecks
  STOCK = RailsOracle.stock # the encoder ActiveSupport picks in this bundle

  OPTIONS = [nil, { only: [:id, :body] }, { except: :updated_at }, { only: "body", methods: :commenter_names },
             { include: { comments: { only: [:id, :body] } } },
             { include: { comments: { except: :post_id, include: { commenter: { only: :name } } } } }].freeze

  def setup
    Kit::Collection.seed(posts: 6)
  end

  def teardown
    ActiveSupport.json_encoder = STOCK
  end

  def encode_with(encoder)
    ActiveSupport.json_encoder = encoder
    yield
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  # load.call builds the records; each encoder gets its own.
  def assert_same_json(label, load, options = OPTIONS)
    options.each do |opts|
      stock = encode_with(STOCK) { load.call.to_json(opts) }
      jetson = encode_with(Jetson::RailsEncoder) { load.call.to_json(opts) }
      assert_equal stock, jetson, "#{label}, options #{opts.inspect}"
    end
  end

  def test_records_never_read
    assert_same_json("fresh", -> { Post.order(:id).to_a })
    assert_same_json("fresh, preloaded", -> { Post.includes(:comments, :commenters).order(:id).to_a })
  end

  def test_jetson_first_then_stock_on_the_same_records
    posts = Post.includes(comments: :commenter).order(:id).to_a
    OPTIONS.each do |opts|
      jetson = encode_with(Jetson::RailsEncoder) { posts.to_json(opts) }
      stock = encode_with(STOCK) { posts.to_json(opts) }
      assert_equal stock, jetson, opts.inspect
      assert_equal stock, encode_with(Jetson::RailsEncoder) { posts.to_json(opts) }, "again, #{opts.inspect}"
    end
  end

  def test_records_partly_read_and_changed
    load = lambda do
      posts = Post.includes(:comments).order(:id).to_a
      posts[0].body # cast, then read from the Attribute
      posts[1].body = "changed <b>"
      posts[2].comments.first.body = "a changed comment"
      posts[3].updated_at = Time.utc(2030, 1, 2, 3, 4, 5)
      posts[4].send(:attribute_names) # every attribute materialized
      posts
    end
    assert_same_json("read and changed", load)
  end

  def test_selected_columns
    assert_same_json("some columns", -> { Post.select(:id, :body).order(:id).to_a }, [nil, { only: :body }])
    assert_same_json("one column", -> { Post.select(:body).order(:id).to_a }, [nil])
    assert_same_json("extra column", lambda {
      Post.select("posts.*, length(posts.body) AS body_length, 'x' AS id_text").order(:id).to_a
    })
    assert_same_json("extra and missing columns", -> { Post.select("id, upper(body) AS loud").order(:id).to_a }, [nil])
  end

  def test_attributes_declared_on_the_class
    declared = named_subclass(Post, "DeclaredPost") do
      attribute :mood, :string, default: "calm"
      attribute :score, :integer
    end
    assert_same_json("declared attributes", -> { declared.order(:id).to_a })
    assert_same_json("declared, assigned", lambda {
      declared.order(:id).to_a.each_with_index { |post, i| post.score = i if i.odd? }
    })
  end

  def test_readers_that_are_not_activerecords
    overridden = named_subclass(Post, "OverriddenPost") do
      def body = "[#{super}]"
      def id = super * 10
    end
    prepended = named_subclass(Post, "PrependedPost") do
      prepend(Module.new { def body = super&.upcase })
    end
    aliased = named_subclass(Post, "AliasedPost") do
      alias_attribute :content, :body
    end
    [overridden, prepended, aliased].each do |klass|
      assert_same_json(klass.name, -> { klass.order(:id).to_a })
    end
    assert_same_json("aliased, methods:", -> { aliased.order(:id).to_a }, [{ methods: :content }])
    assert_same_json("singleton reader", lambda {
      Post.order(:id).to_a.tap { |posts| posts[1].define_singleton_method(:body) { "mine" } }
    })
  end

  def test_every_column_type_read_natively_after_a_first_encoding
    Sample.delete_all
    rng = Random.new(Minitest.seed)
    12.times do |i|
      Sample.create!(title: ["t#{i} <&>", nil].sample(random: rng), count: rng.rand(-50..50), big: 2**40 + i,
                     ratio: [i / 3.0, nil].sample(random: rng), price: BigDecimal("#{i}.125"),
                     flag: [true, false, nil].sample(random: rng), day: Date.new(2024, 1, 1) + i,
                     at: Time.utc(2024, 1, 1, 12) + (i * 3661.25), clock: Time.utc(2000, 1, 1, i, 30),
                     data: [{ "k" => [i, "v", nil] }, [1.5], "s", nil].sample(random: rng))
    end
    load = -> { Sample.order(:id).to_a }
    assert_same_json("samples", load, [nil, { except: :data }])
    # The second encoding of the same records reads the values cast by the first.
    samples = load.call
    first = encode_with(Jetson::RailsEncoder) { samples.to_json }
    assert_equal encode_with(STOCK) { load.call.to_json }, first
    assert_equal first, encode_with(Jetson::RailsEncoder) { samples.to_json }
  end

  def test_another_primary_key
    connection = ActiveRecord::Base.connection
    unless connection.table_exists?(:codes)
      connection.create_table(:codes, id: false) do |t|
        t.string :code, primary_key: true
        t.integer :id
        t.string :label
      end
    end
    coded = named_subclass(ActiveRecord::Base, "Code") do
      self.table_name = "codes"
    end
    coded.delete_all
    3.times { |i| coded.create!(code: "c#{i}", id: 100 + i, label: "label #{i}") }
    assert_same_json("primary key code", -> { coded.order(:code).to_a }, [nil, { only: [:id, :code] }])
  end

  # A loaded record's raw values are the query's row: from ActiveRecord 8.0
  # an ActiveRecord::Result::IndexedRow (the query's column indexes and the
  # row's Array), in 7.2 a Hash. A record instantiated from a Hash of
  # database values holds that Hash on every version. Both are read
  # natively: the same bytes, every value left uncast, no object per record.
  def test_raw_values_as_the_querys_row_and_as_a_hash
    rows = Post.connection.select_all(Post.order(:id).to_sql).to_a
    assert_equal 6, rows.size
    loads = { "loaded" => -> { Post.order(:id).to_a }, "instantiated" => -> { rows.map { Post.instantiate(_1) } } }
    loads.each do |label, load|
      assert_same_json(label, load, [nil, { only: %w[updated_at body id] }])
      records = load.call
      encode_with(Jetson::RailsEncoder) do
        records.to_json # plans and descriptors, made once
        per_record = (allocations { records.to_json } - allocations { records.first(2).to_json }) / 4.0
        assert_operator per_record, :<=, 0.5, "#{label}: #{per_record} objects per record: read through the readers?"
      end
      assert records.all? { |r| Post.column_names.all? { |c| uncast?(r, c) } }, "#{label}: a value was cast"
    end
  end

  def test_records_not_from_the_database
    assert_same_json("new records", -> { [Post.new(body: "new"), Post.new] })
    created = Post.create!(body: "created")
    assert_same_json("created", -> { [created] })
  ensure
    created&.destroy
  end

  def test_values_whose_as_json_changes_their_record
    noted = named_subclass(Post, "NotedPost") { SelfChangingNote.install(self) }
    assert_same_json("as_json changes a later attribute", -> { noted.order(:id).to_a },
                     [nil, { only: %w[updated_at body] }, { except: :created_at },
                      { only: :body, methods: :noted_at }])
  end

  def test_methods_that_change_records_before_their_includes_are_written
    changing = named_subclass(Post, "ChangingPost") do
      has_many :comments, foreign_key: :post_id, inverse_of: false
      def shout
        comments.each { |comment| comment.body = comment.body.upcase }
        "changed"
      end
    end
    assert_same_json("changing", -> { changing.includes(:comments).order(:id).to_a },
                     [{ methods: :shout, include: { comments: { only: [:id, :body] } } }])
  end

  def test_records_with_many_columns_go_through_ruby
    columns = (0...70).map { |i| "#{i} AS extra_#{i}" }.join(", ")
    assert_same_json("wide", -> { Post.select("posts.*, #{columns}").order(:id).limit(2).to_a }, [nil, { except: :body }])
  end
end
