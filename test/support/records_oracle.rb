# frozen_string_literal: true

# The jbuilder gem's side of the record Jbuilder tests: a child process that
# loads the REAL jbuilder gem, connects to the parent's databases (the
# parent inserted the rows: RecordMatrix.world with insert: false only
# defines the models), and renders every case. A case is
# [adapter, aware, combo index, query name, attribute names, template name];
# the parent renders the same cases with jetson/jbuilder.
#
# Protocol (as JbuilderOracle's): Marshal.dump([databases, cases]) on the
# child's stdin; Marshal.dump(outcomes) on its stdout, one per case:
# [:ok, String] or [:error, class name, message].

require "rbconfig"

module RecordsOracle
  class Failure < StandardError; end

  ROOT = File.expand_path("../..", __dir__)

  # Jbuilder code as apps write it for records, each a lambda of (records,
  # names) evaluated where ::Jbuilder is the gem's or Jetson's.
  TEMPLATES = {
    "extract!" => "->(records, names) { Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, *names) } }.target! }",
    "call" => "->(records, names) { Jbuilder.new { |json| json.array!(records) { |r| json.(r, *names) } }.target! }",
    "array! names" => "->(records, names) { Jbuilder.new { |json| json.array!(records, *names) }.target! }",
    "to_builder" => "->(records, names) { Jbuilder.new { |json| json.array!(records) { |r| json.item Jbuilder.new { |j| j.(r, *names) } } }.target! }",
    "value" => "->(records, names) { Jbuilder.new { |json| json.items records; json.count 1 }.target! }",
    "key names" => "->(records, names) { Jbuilder.new { |json| json.first records.first, *names }.target! }",
    "ignore_nil!" => "->(records, names) { Jbuilder.new { |json| json.ignore_nil!; json.array!(records) { |r| json.extract!(r, *names) } }.target! }",
    "key_format!" => "->(records, names) { Jbuilder.new { |json| json.key_format! camelize: :lower; json.array!(records) { |r| json.extract!(r, *names) } }.target! }",
    "deep_format_keys!" => "->(records, names) { Jbuilder.new { |json| json.key_format! camelize: :upper; json.deep_format_keys!; json.array!(records) { |r| json.extract!(r, *names) } }.target! }",
    "set over" => "->(records, names) { Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, *names); json.set!(names.first, 'over'); json.merge!('extra' => 1) } }.target! }",
    "merge into" => "->(records, names) { Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, *names); json.set!(names.last) { json.x 1 } } }.target! }",
    "attributes!" => "->(records, names) { Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, *names) } }.attributes!.to_json }",
    "read after" => "->(records, names) { Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, *names); json.again r.public_send(names.first) } }.target! }"
  }.freeze

  def self.compile(source) = TOPLEVEL_BINDING.eval(source, "(template)")

  def self.render(world, kase, templates)
    _adapter, aware, combo, query, names, template = kase
    models = world.models.fetch(aware)
    RecordMatrix.with_combo(RecordMatrix::COMBOS.fetch(combo)) do
      [:ok, templates.fetch(template).call(RecordMatrix::QUERIES.fetch(query).first.call(models), names)]
    rescue StandardError => e
      # error_highlight's snippet (after a blank line) names the caller's code.
      [:error, e.class.name, e.message.sub(/\n\n.*/m, "").gsub(/0x\h+/, "0x…")]
    end
  end

  def self.render_all(databases, cases)
    command = [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-I", File.join(ROOT, "test"), __FILE__, "--child"]
    output = IO.popen(command, "r+b") do |io|
      io.write(Marshal.dump([databases, cases]))
      io.close_write
      io.read
    end
    raise Failure, "the records oracle exited with #{$?.inspect}" unless $?.success?

    outcomes = Marshal.load(output)
    raise Failure, "the records oracle returned #{outcomes.size} outcomes for #{cases.size} cases" unless outcomes.size == cases.size

    outcomes
  end

  def self.child_main
    protocol = $stdout.dup.binmode
    $stdout.reopen(File::NULL, "w")
    $stdin.binmode
    databases, cases = Marshal.load($stdin.read)
    require "jbuilder"
    require "support/record_matrix"
    abort "records oracle: the loaded Jbuilder is not the jbuilder gem's" unless
      Jbuilder.instance_method(:target!).source_location.first.include?("/jbuilder-")
    RecordMatrix.use_databases(databases)
    templates = TEMPLATES.transform_values { |source| compile(source) }
    outcomes = cases.map { |kase| render(RecordMatrix.world(kase[0], insert: false), kase, templates) }
    protocol.write(Marshal.dump(outcomes))
    protocol.flush
  end
end

RecordsOracle.child_main if $PROGRAM_NAME == __FILE__ && ARGV == ["--child"]
