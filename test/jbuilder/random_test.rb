# frozen_string_literal: true

require_relative "../support/jbuilder_diff"
require_relative "../support/jbuilder_generator"

# Seeded random templates (test/support/jbuilder_generator.rb) rendered by
# real Jbuilder and by this process's Jbuilder.
#
#   JETSON_JBUILDER_TEMPLATES=20000   how many (default 500)
#   JETSON_JBUILDER_SEED=1234         the seed (default 20261124, so that `rake test` is
#                                     deterministic; printed on failure)
#
# Some seeds hold, past their first few thousand templates, a template on
# which the jbuilder gem itself never ends and its oracle process runs out of
# memory (seed 106 template 5613, seed 116 template 8357). In the first, the
# gem's array! keeps the caller's Array as the document (`nums = [1, 2];
# json.array! nums; json.child! { ... }` leaves nums with 3 elements), and
# the child! runs inside a collection that iterates that same Array.
#   JETSON_JBUILDER_TEMPLATE=17       only template 17 of that seed
class JbuilderRandomTest < Minitest::Test
  SEED = Integer(ENV.fetch("JETSON_JBUILDER_SEED", "20261124"))
  COUNT = Integer(ENV.fetch("JETSON_JBUILDER_TEMPLATES", "500"))
  INDEXES = ENV["JETSON_JBUILDER_TEMPLATE"] ? [Integer(ENV["JETSON_JBUILDER_TEMPLATE"])] : (0...COUNT).to_a
  SHOWN = 3 # failures shown in full

  NAMES = INDEXES.map do |i|
    source, options = JbuilderGenerator.new(SEED, i).build
    JbuilderDiff.register("random seed #{SEED} template #{i}", source, **options)
  end

  def test_random_templates
    failures = NAMES.filter_map { |name| JbuilderDiff.difference(name) }
    raised = NAMES.count { |name| JbuilderDiff.expected(name).first == :error }
    if ENV["JETSON_JBUILDER_VERBOSE"]
      warn "jbuilder random templates: seed #{SEED}, #{NAMES.size} templates, #{raised} raise in real Jbuilder, " \
           "#{failures.size} differ"
    end
    assert failures.empty?, failure_message(failures)
    assert_operator raised, :<, NAMES.size, "every template raised: the generator needs a look" if NAMES.size >= 20
  end

  private

  def failure_message(failures)
    indexes = failures.map { |report| report[/template (\d+)/, 1] }
    [
      "#{failures.size} of #{NAMES.size} random templates differ from real Jbuilder (JETSON_JBUILDER_SEED=#{SEED})",
      "templates: #{indexes.first(40).join(', ')}#{indexes.size > 40 ? ', ...' : ''}",
      "one alone: JETSON_JBUILDER_SEED=#{SEED} JETSON_JBUILDER_TEMPLATE=#{indexes.first} " \
      "bundle exec ruby -Itest -Ilib test/jbuilder/random_test.rb",
      *failures.first(SHOWN)
    ].join("\n\n")
  end
end
