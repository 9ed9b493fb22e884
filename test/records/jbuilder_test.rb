# frozen_string_literal: true

require "test_helper"
require "jetson/jbuilder"
require "support/record_matrix"
require "support/records_oracle"

# Jbuilder code on ActiveRecord records (extract!, json.(record, ...),
# array! with names, a nested Jbuilder, a relation as a value, key formats,
# ignore_nil!, attributes!, values read after extract!), rendered by the
# jbuilder gem in a child process (RecordsOracle) and by jetson/jbuilder here,
# on the same rows of every database, under several settings; bytes or
# errors compared.
class RecordsJbuilderTest < Minitest::Test
  COMBOS = [0, 6].freeze # New York with :local; the legacy time format, London TZ, precision 2
  # Every template on the main queries, these on the others.
  FEW_TEMPLATES = ["extract!", "array! names", "value", "ignore_nil!", "to_builder"].freeze

  SAMPLE_NAMES = [
    %w[id title body count big ratio price amount plain_decimal flag day at0 at3 at6 at_default clock data status
       kind legacy local_at created_at updated_at],
    %w[id at6 twice old_name color mood shout code notes],
    %w[data status day clock]
  ].freeze
  QUERY_NAMES = {
    "relation" => SAMPLE_NAMES, "records" => SAMPLE_NAMES, "read first" => SAMPLE_NAMES.first(2),
    "changed" => SAMPLE_NAMES.first(1), "select some" => [%w[id at3 clock status price]],
    "find_by_sql" => [%w[id one t2 at0 day]], "new records" => [%w[title at6]],
    "sti" => [%w[id type title views price published_at created_at author_id shouting_title]],
    "include" => [%w[id name born rating active role articles first_article]],
    "belongs_to" => [%w[id body approved created_at article]]
  }.freeze
  POSTGRESQL_NAMES = %w[id uid doc tz_at naive_json].freeze

  def cases_for(adapter)
    QUERY_NAMES.flat_map do |query, name_lists|
      lists = name_lists.map { |names| names.map(&:to_sym) }
      lists += [POSTGRESQL_NAMES.map(&:to_sym)] if adapter == "postgresql" && SAMPLE_NAMES.equal?(name_lists)
      templates = %w[relation records].include?(query) ? RecordsOracle::TEMPLATES.keys : FEW_TEMPLATES
      [true, false].product(COMBOS, lists, templates).map do |aware, combo, names, template|
        [adapter, aware, combo, query, names, template]
      end
    end
  end

  def test_jbuilder_on_records_against_the_jbuilder_gem
    available = RecordMatrix.databases.select { |_, config| config.is_a?(Hash) }.map(&:first)
    RecordMatrix.databases.each { |adapter, reason| puts "\n#{adapter} skipped: #{reason}" unless reason.is_a?(Hash) }
    assert_includes available, "sqlite3"
    cases = available.flat_map { |adapter| RecordMatrix.world(adapter) && cases_for(adapter) }
    templates = RecordsOracle::TEMPLATES.transform_values { |source| RecordsOracle.compile(source) }
    jetson = cases.map { |kase| RecordsOracle.render(RecordMatrix.world(kase[0]), kase, templates) }
    gem = RecordsOracle.render_all(RecordMatrix.databases, cases)
    cases.each_with_index do |kase, i|
      assert gem[i] == jetson[i], "case #{kase.inspect}\n gem:    #{gem[i].inspect[0, 2000]}\n" \
                                  "jetson: #{jetson[i].inspect[0, 2000]}"
    end
    errors = gem.count { |o| o[0] == :error }
    puts "\nJbuilder on records: #{cases.size} renders compared with the jbuilder gem (#{available.join(', ')}), " \
         "#{errors} raising the same error on both sides"
    assert_operator errors, :<, cases.size / 4, "most renders must succeed"
  end
end
