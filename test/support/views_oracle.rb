# frozen_string_literal: true

# The oracle of the Jbuilder views tests: a child process that boots
# Kit::ViewsApp with the REAL jbuilder gem and runs the scenarios it is sent
# (ViewsRunner.perform), one at a time, for as long as the test process
# lives (Kit::ChildProcess's protocol; a scenario that cannot run raises
# Kit::ChildProcess::Failure here).

require_relative "../../kit/child_process"

module ViewsOracle
  ROOT = File.expand_path("../..", __dir__)

  # The child's side: a request is [scenario].
  module Child
    def self.perform((scenario)) = ViewsRunner.perform(scenario)
  end

  class << self
    def perform(scenario)
      oracle.call(scenario)
    end

    def stop
      @oracle&.close # waits for the child
      @oracle = nil
    end

    private

    def oracle
      @oracle ||= begin
        child = Kit::ChildProcess.new("the jbuilder oracle", __FILE__, "--child",
                                      ruby_options: ["-I", File.join(ROOT, "lib"), "-I", File.join(ROOT, "test")])
        at_exit { stop }
        child.wait_ready
        child
      end
    end
  end
end

if $PROGRAM_NAME == __FILE__ && ARGV == ["--child"]
  require_relative "../../kit/views_app"
  Kit::ViewsApp.boot("jbuilder", :tests)
  require_relative "views_runner"
  Kit::ChildProtocol.serve(ViewsOracle::Child)
end
