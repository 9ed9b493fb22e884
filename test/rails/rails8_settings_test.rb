# frozen_string_literal: true

require "test_helper"
require "jetson/rails"
require "support/rails_graph"
require "support/rails_oracle"
require "support/native_read_checks"
require "support/subprocess"
require "open3"
require "rbconfig"

# ActiveSupport 8.0 and 8.1's JSON settings and encoders, each combination
# compared with ActiveSupport's own encoder of the loaded version on random
# documents (RailsGraph's, with the values where 8.1's encoders differ
# mixed in), and each one checked to take Jetson's native path; then apps
# booted with each Rails version's load_defaults.
class Rails8SettingsTest < Minitest::Test
  include NativeReadChecks

  SETTINGS = ActiveSupport::JSON::Encoding
  DEFAULT = Jetson::Rails::EncodingRules.default_encoder
  SAVED = %i[escape_html_entities_in_json use_standard_json_time_format time_precision
             escape_js_separators_in_json].select { SETTINGS.respond_to?(_1) }.freeze
  DOCS = Integer(ENV.fetch("JETSON_RAILS8_DOCS", "12"))

  # A Hash subclass with as_json of its own: the Coder encoder uses it,
  # JSONGemEncoder walks the Hash.
  class OwnHash < Hash
    def as_json(*)
      { "own" => size }
    end
  end

  class OwnArray < Array
    def as_json(*)
      ["own", size]
    end
  end

  # as_json returning the object itself: JSONGemEncoder recurses
  # (SystemStackError), the Coder encoder writes JSON.generate's text.
  class Selfish
    def initialize(name)
      @name = name
    end

    def as_json(*)
      self
    end

    def to_s
      "selfish <#{@name}>\u2028"
    end
  end

  # as_json returning another object `left` more times: the Coder encoder
  # applies as_json at most 5 more times.
  class Chain
    def initialize(left)
      @left = left
    end

    def as_json(*)
      @left.zero? ? { "end" => "<&>" } : Chain.new(@left - 1)
    end
  end

  # What its as_json is given: frozen or not, which keys.
  class OptionsSpy
    def as_json(options = nil)
      { "frozen" => options.frozen?, "keys" => options&.keys&.map(&:to_s) }
    end
  end

  def setup
    @saved = SAVED.to_h { |name| [name, SETTINGS.public_send(name)] }
  end

  def teardown
    @saved.each { |name, value| SETTINGS.public_send(:"#{name}=", value) }
    RailsOracle.restore_encoders
  end

  def seed = seed_from("JETSON_RAILS_SEED")

  # [escape_html_entities_in_json, use_standard_json_time_format,
  # time_precision, escape_js_separators_in_json (nil where it does not exist)]
  def setting_combinations
    separators = SETTINGS.respond_to?(:escape_js_separators_in_json) ? [true, false] : [nil]
    [true, false].product([true, false], [0, 3, 9], separators)
  end

  def apply(html, standard, precision, separators)
    SETTINGS.escape_html_entities_in_json = html
    SETTINGS.use_standard_json_time_format = standard
    SETTINGS.time_precision = precision
    SETTINGS.escape_js_separators_in_json = separators unless separators.nil?
  end

  # Per-call options: every ActiveSupport is given all of them (7.2 hands
  # the escaping ones to as_json, as 8.0 does escape:).
  CALL_OPTIONS = [nil, { escape: false }, { escape_html_entities: true }, { escape_html_entities: false },
                  { escape: false, escape_html_entities: true }, { only: %w[k0 k1 k3] }, { spy: 1 }].freeze

  def edge_values(rng)
    chain = Chain.new(rng.rand(7))
    values = [OwnHash[{ a: 1, "b" => [Time.utc(2024)] }], OwnArray[1, "<"], chain, OptionsSpy.new,
              "\u2028<&>\u2029", Float::NAN]
    values << ::JSON::Fragment.new(%({"f":"<\u2028>"})) if defined?(::JSON::Fragment)
    values << Selfish.new(rng.rand(100)) if stock_encoder_survives_selfish?
    values
  end

  # JSONGemEncoder recurses on an as_json returning itself until the stack
  # runs out: compared once (test_as_json_returning_itself), not in every
  # document.
  def stock_encoder_survives_selfish?
    !Jetson::Rails.reference_encoder.equal?(Jetson::Rails::EncodingRules.gem_encoder)
  end

  # A RailsGraph document with the edge values spliced in.
  def document(rng)
    graph = RailsGraph.build(rng)
    extra = edge_values(rng).shuffle(random: rng)
    { "k0" => graph, "k1" => extra, "k2" => extra.first, "k3" => { "nested" => extra.last, "graph" => [graph] } }
  end

  def outcome(encoder, value, options)
    ActiveSupport.json_encoder = encoder
    [:ok, ActiveSupport::JSON.encode(value, options)]
  rescue StandardError, SystemStackError => e
    [:error, e.class, e.message.gsub(/0x\h+/, "0x…")]
  ensure
    ActiveSupport.json_encoder = DEFAULT
  end

  def assert_same_outcome(value, options, label)
    stock = outcome(RailsOracle.stock, value, options)
    jetson = outcome(Jetson::RailsEncoder, value, options)
    assert_equal stock, jetson, "#{label}: encode(#{value.inspect[0, 300]}, #{options.inspect})"
  end

  def each_reference(&block)
    RailsOracle.reference_encoders.each do |encoder|
      Jetson::Rails.reference_encoder = encoder
      block.call(encoder)
    end
  end

  def test_every_setting_combination_on_random_documents
    compared = 0
    each_reference do |encoder|
      setting_combinations.each_with_index do |combination, c|
        apply(*combination)
        CALL_OPTIONS.each_with_index do |options, o|
          DOCS.times do |i|
            rng = Random.new(seed + (c * 100 + o) * 1000 + i)
            assert_same_outcome(document(rng), options, "#{encoder.name} #{combination.inspect} seed #{rng.seed}")
            compared += 1
          end
        end
      end
    end
    assert_operator compared, :>=, setting_combinations.size * CALL_OPTIONS.size * DOCS
  end

  # Values where the two encoders of 8.1 part ways, alone, under each.
  def test_values_where_the_encoders_differ
    each_reference do |encoder|
      setting_combinations.each do |combination|
        apply(*combination)
        rng = Random.new(seed)
        (edge_values(rng) + (0..7).map { Chain.new(_1) }).each do |value|
          CALL_OPTIONS.each do |options|
            assert_same_outcome(value, options, "#{encoder.name} #{combination.inspect}")
            assert_same_outcome([value], options, "#{encoder.name} #{combination.inspect}")
          end
        end
      end
    end
  end

  def test_as_json_returning_itself
    skip "SystemStackError is not compared under valgrind" if ENV["JETSON_MEMCHECK"]
    each_reference do |encoder|
      [Selfish.new(1), [Selfish.new(2)], { "s" => Selfish.new(3) }].each do |value|
        assert_same_outcome(value, nil, encoder.name)
      end
    end
  end

  # The stock encoders' methods, and every as_json: a document of values
  # Jetson writes natively (Strings, Symbols, numbers, Hashes, Arrays, stock
  # Times and Dates) calls none of them, under any setting.
  FORBIDDEN = %i[as_json encode dump generate jsonify stringify].freeze

  def ruby_calls_during
    calls = []
    trace = TracePoint.new(:call, :c_call) do |tp|
      next unless FORBIDDEN.include?(tp.method_id) && !tp.defined_class.equal?(Jetson::RailsEncoder)

      calls << "#{tp.defined_class}##{tp.method_id}"
    end
    trace.enable { yield }
    calls.uniq
  end

  def native_document
    { "id" => 1, "name" => "<b>\u2028 & \u2029</b>", :sym => :value, "float" => 1.5, "nan" => Float::NAN,
      "times" => [Time.utc(2024, 5, 6, 7, 8, 9, 123_456), Date.new(2024, 2, 29)],
      "nested" => [{ "a" => [1, 2, { "b" => nil }] }, true, false, 2**70] }
  end

  NATIVE_OPTIONS = (CALL_OPTIONS - [{ spy: 1 }]).freeze

  def test_every_setting_combination_takes_the_native_path
    if Jetson::Rails::EncodingRules.coder_encoder
      # Without the Coder's block RailsEncoder hands the Coder encoder's calls
      # back to it: a json gem that moves the block must fail here first.
      assert_kind_of Proc, Jetson::Rails::EncodingRules.coder_proc, "JSON::Coder's block not found"
    end
    doc = native_document
    # What the native path allocates with every setting at its 7.2 value
    # (the result, a Bignum's digits, a Time's fraction); the stock encoders
    # build the document again.
    SAVED.each { |name| SETTINGS.public_send(:"#{name}=", { time_precision: 3 }.fetch(name, true)) }
    Jetson::Rails.reference_encoder = Jetson::Rails::EncodingRules.gem_encoder
    # (The same options make as_json passes over the same Hashes.)
    floors = NATIVE_OPTIONS.to_h do |options|
      plain = Jetson::RailsEncoder.new(options)
      plain.encode(doc)
      floor = allocations { plain.encode(doc) }
      assert_operator allocations { RailsOracle.stock.new(options).encode(doc) }, :>, floor
      [options, floor]
    end
    each_reference do |encoder|
      setting_combinations.each do |combination|
        apply(*combination)
        NATIVE_OPTIONS.each do |options|
          label = "#{encoder.name} #{combination.inspect} #{options.inspect}"
          encoder_instance = Jetson::RailsEncoder.new(options)
          assert_equal outcome(RailsOracle.stock, doc, options)[1], encoder_instance.encode(doc), label
          assert_empty ruby_calls_during { encoder_instance.encode(doc) }, label
          assert_operator allocations { encoder_instance.encode(doc) }, :<=, floors.fetch(options), label
        end
      end
    end
  end

  def test_escape_json_responses_and_render_options
    skip "ActionController 8.1's escape_json_responses" unless Jetson::Rails::EncodingRules.escape_option?
    # render json: calls to_json(escape: false, plus the render options)
    # when escape_json_responses is off.
    render_options = { prefixes: ["posts"], template: "show", escape: false }
    each_reference do |encoder|
      setting_combinations.each do |combination|
        apply(*combination)
        doc = document(Random.new(seed))
        assert_same_outcome(doc, render_options, encoder.name)
        assert_empty ruby_calls_during { Jetson::RailsEncoder.new(render_options).encode(native_document) }
      end
    end
  end

  def test_uninstall_restores_the_encoder_install_replaced
    RailsOracle.reference_encoders.each do |encoder|
      ActiveSupport.json_encoder = encoder
      assert_same encoder, Jetson::Rails.install!
      assert_same encoder, Jetson::Rails.reference_encoder
      assert Jetson::Rails.installed?
      Jetson::Rails.uninstall!
      assert_same encoder, ActiveSupport.json_encoder
    end
  ensure
    Jetson::Rails.reference_encoder = nil
  end

  def test_the_fragment_namespace_takes_each_stock_encoder_as_native
    require "jetson/views/fragment_cache"
    RailsOracle.reference_encoders.each do |encoder|
      ActiveSupport.json_encoder = encoder
      refute_includes Jetson::Views::FragmentCache.jetson_namespace, encoder.name
    end
  end

  # A minimal app per load_defaults version this Rails has, in a child
  # process: render json: and to_json under Jetson, then under the app's
  # own encoder, byte for byte, and Jetson's native path under each.
  APP = <<~RUBY
    require "rails"
    require "action_controller/railtie"
    require "jetson/rails"
    require "support/rails_oracle"
    require "support/rails_graph"
    require "support/child_app"
    class App < Rails::Application
      config.load_defaults ENV.fetch("DEFAULTS")
      ChildApp.configure(config)
      config.hosts.clear
      config.jetson.rails_encoder = true
      config.active_support.deprecation = :silence
      config.action_dispatch.show_exceptions = :none
    end
    DOCS = (0...40).map { |i| RailsGraph.build(Random.new(Integer(ENV.fetch("SEED")) + i)) }
    class DocsController < ActionController::Base
      def show = render(json: DOCS.fetch(Integer(params[:id])))
    end
    App.initialize!
    App.routes.draw { get "/docs/:id" => "docs#show" }
    def bodies
      DOCS.each_index.map do |i|
        rendered = begin
          status, _headers, body = App.call(Rack::MockRequest.env_for("/docs/\#{i}"))
          text = +""
          body.each { |part| text << part }
          [status, text]
        rescue StandardError, SystemStackError => e
          [e.class.name, e.message.gsub(/0x\h+/, "")]
        end
        encoded = begin
          DOCS[i].to_json
        rescue StandardError, SystemStackError => e
          [e.class.name, e.message.gsub(/0x\h+/, "")]
        end
        [rendered, encoded]
      end
    end
    installed = ActiveSupport.json_encoder
    separators = ActiveSupport::JSON::Encoding.respond_to?(:escape_js_separators_in_json) ? ActiveSupport::JSON::Encoding.escape_js_separators_in_json : nil
    escape_responses = ActionController::Base.respond_to?(:escape_json_responses?) ? ActionController::Base.escape_json_responses? : nil
    jetson = bodies
    native = DOCS.count do |doc|
      called = false
      stock = [ActiveSupport::JSON::Encoding::JSONGemEncoder, Jetson::Rails::EncodingRules.coder_encoder, (JSON::Coder if defined?(JSON::Coder))].compact
      trace = TracePoint.new(:call) { |tp| called = true if stock.include?(tp.defined_class) }
      trace.enable do
        Jetson::RailsEncoder.new(escape: false).encode(doc)
        doc.to_json
      rescue StandardError, SystemStackError
        nil
      end
      !called
    end
    ActiveSupport.json_encoder = RailsOracle.stock(Jetson::Rails.reference_encoder)
    stock = bodies
    puts Marshal.dump([installed.name, separators, escape_responses, jetson, stock, native]).unpack1("H*")
  RUBY

  def test_apps_with_each_versions_load_defaults
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
    # Up to the loaded Rails' own (8.2 on Rails main, which loads 8.1's and adds its own).
    current = ActiveSupport.gem_version.segments.first(2).join(".")
    defaults = (%w[7.2 8.0 8.1] | [current]).select { Gem::Version.new(_1) <= Gem::Version.new(current) }
    lib = File.expand_path("../../lib", __dir__)
    test_dir = File.expand_path("..", __dir__)
    defaults.each do |default|
      env = { "DEFAULTS" => default, "SEED" => seed.to_s }
      out, err, status = Open3.capture3(env, RbConfig.ruby, "-I", lib, "-I", test_dir, "-e", APP)
      assert status.success?, "load_defaults #{default}: #{err}"
      installed, separators, escape_responses, jetson, stock, native = Marshal.load([out.lines.last.strip].pack("H*")) # rubocop:disable Security/MarshalLoad
      assert_equal "Jetson::RailsEncoder", installed
      # What each version's defaults set, as this Rails sets them.
      assert_equal(default >= "8.1" ? false : true, separators) unless separators.nil?
      assert_equal(default >= "8.1" ? false : true, escape_responses) unless escape_responses.nil?
      assert_equal stock.size, jetson.size
      stock.zip(jetson).each_with_index do |(expected, actual), i|
        assert_equal expected, actual, "load_defaults #{default}, document #{i}"
      end
      assert_equal jetson.size, native, "load_defaults #{default}: documents written natively"
    end
  end
end
