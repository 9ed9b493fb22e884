# frozen_string_literal: true

# Differential assertions of the Jbuilder views tests: a scenario (see
# ViewsRunner) runs in the jbuilder gem's process (ViewsOracle) and in this
# one (Jetson), and every request must give the same status, Content-Type and
# body bytes, or raise the same exception class with the same message, and,
# when the scenario records them, emit the same ActionView and fragment-cache
# events.

require_relative "../../kit/views_app"
Kit::ViewsApp.boot("jetson", :tests) unless Kit::ViewsApp.world
require_relative "views_runner"
require_relative "views_oracle"

module ViewsDiff
  FIELDS = %i[error cause where status content_type body events].freeze

  # Runs the scenario on both sides and asserts they agree; returns
  # [jbuilder gem's result, Jetson's result].
  def assert_same_views(scenario, label = nil, tolerate: nil)
    expected = ViewsOracle.perform(scenario)
    actual = ViewsRunner.perform(scenario)
    assert_same_outcomes(scenario, expected, actual, label, tolerate: tolerate)
    [expected, actual]
  end

  # tolerate: called with (index, expected outcomes, actual outcomes) for a
  # request whose outcomes differ; true for a documented difference, whose
  # error fields are then not compared.
  def assert_same_outcomes(scenario, expected, actual, label = nil, tolerate: nil)
    assert_equal expected[:outcomes].size, actual[:outcomes].size, "#{label}: outcome counts"
    expected[:outcomes].zip(actual[:outcomes]).each_with_index do |(want, got), i|
      request = Array(scenario[:requests])[i]
      known = tolerate && want[:error] != got[:error] && tolerate.call(i, expected[:outcomes], actual[:outcomes])
      FIELDS.each do |field|
        next if known && %i[error cause where].include?(field)
        next if field == :events && !(scenario[:events] || scenario[:debug_events] || scenario[:instrument_hook])

        self.assertions += 1
        same = if known && field == :events
                 ViewsDiff.cause_masked(want[field], want[:cause]) == ViewsDiff.cause_masked(got[field], got[:cause])
               else
                 want[field] == got[field]
               end
        flunk(mismatch(label, request, field, want, got)) unless same
      end
    end
  end

  # A tolerated request's events, where an event names the exception that
  # passed through it (a cache block's write_fragment: the payload's
  # exception, last in ViewsRunner's event): that is each side's own
  # cause, the one thing the tolerance accepts as different.
  def self.cause_masked(events, cause)
    events.map { |event| cause && event.last == cause ? [*event[0...-1], :cause] : event }
  end

  # The names of the views in views/<dir>/ of the tests' app, partials
  # (_name) left out.
  def self.views_in(dir)
    Dir[File.join(Kit::ViewsApp.root, "views", dir, "*.json.jbuilder")]
      .map { |path| File.basename(path, ".json.jbuilder") }
      .reject { |name| name.start_with?("_") }.sort.freeze
  end

  # Jetson's namespace (Jetson::Views::FragmentCache.jetson_namespace): format, settings and,
  # when ActiveSupport's encoder is one Jetson does not write as, its
  # class name. Keys themselves begin with "views/" or "jbuilder/".
  FRAGMENT_NAMESPACE = /\Ajetson:\d+:\w+:(?:[A-Z]\w*(?:::[A-Z]\w*)*:)?/

  # The fragments a store holds (ViewsRunner's entries), named as the
  # jbuilder gem names them: without Jetson's namespace and without the
  # template digest (see ViewsRunner#event), with their time to live.
  def self.fragment_names(entries)
    entries.map do |entry|
      name = entry[:key].sub(FRAGMENT_NAMESPACE, "").sub(/:\h{32}\//, ":DIGEST/").gsub(/0x\h+/, "0xADDR")
      [name, entry[:ttl], entry[:version]]
    end.sort
  end

  private

  def mismatch(label, request, field, want, got)
    head = "#{label && "#{label}: "}#{request.inspect}: #{field} differs"
    if field == :body && want[:body] && got[:body]
      offset = (0...[want[:body].bytesize, got[:body].bytesize].min)
               .find { |i| want[:body].getbyte(i) != got[:body].getbyte(i) } || [want[:body].bytesize, got[:body].bytesize].min
      from = [offset - 60, 0].max
      "#{head} at byte #{offset}\n  jbuilder: #{want[:body].byteslice(from, 160).inspect}\n" \
        "  jetson:   #{got[:body].byteslice(from, 160).inspect}"
    else
      "#{head}\n  jbuilder: #{want.slice(:error, field, :cause).inspect}\n  jetson:   #{got.slice(:error, field, :cause).inspect}"
    end
  end
end
