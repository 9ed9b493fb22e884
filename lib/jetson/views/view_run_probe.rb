# frozen_string_literal: true

require "action_view"

module Jetson
  module Views
    # Whether the loaded ActionView's ActionView::Base#_run does what the
    # native side repeats without a Ruby frame (jb_view_run in
    # ext/jetson/builder/partials.c) for a compiled .jbuilder partial:
    # - sets @current_template to the template and @output_buffer to the buffer,
    # - calls the template's method with (locals, buffer) and the block, and
    #   nothing else (no keywords: the partial has no strict locals),
    # - returns what the method returns,
    # - puts @output_buffer, @virtual_path and @current_template back as they
    #   were, also when the method raises, which it lets through.
    #
    # Asked once, of the method itself, on a throwaway subclass of
    # ActionView::Base, rather than trusting a list of versions: ActionView
    # 7.1 to 8.1 have this _run, and a release that changes it turns the
    # native run off (Template#render's path is then taken, with the same
    # output) instead of skipping what it added.
    #
    # @api private
    module ViewRunProbe
      Seen = Struct.new(:args, :keywords, :block, :output_buffer, :current_template, :virtual_path)
      private_constant :Seen

      class << self
        # @param base [Class] ActionView::Base (another class in the tests)
        # @return [Boolean]
        def native?(base = ::ActionView::Base)
          return false unless base.private_method_defined?(:_run) || base.method_defined?(:_run)
          return false unless base.instance_method(:_run).owner.equal?(base)

          returns?(base) && restores_after_raise?(base)
        rescue StandardError
          false
        end

        private

        # A view whose template method records what _run set and passed,
        # then changes the three variables as a template would.
        def view(base, seen, raising)
          klass = ::Class.new(base)
          klass.define_method(:_jetson_probe) do |*args, **keywords, &block|
            seen << Seen.new(args, keywords, block, @output_buffer, @current_template, @virtual_path)
            @output_buffer = :changed
            @current_template = :changed
            @virtual_path = "changed"
            raise ::IndexError, "probe" if raising

            :probe_result
          end
          view = klass.allocate # ActionView::Base#initialize needs a lookup context; _run does not
          view.instance_variable_set(:@output_buffer, :outer_buffer)
          view.instance_variable_set(:@current_template, :outer_template)
          view.instance_variable_set(:@virtual_path, "outer")
          view
        end

        def restored?(view)
          view.instance_variable_get(:@output_buffer).equal?(:outer_buffer) &&
            view.instance_variable_get(:@current_template).equal?(:outer_template) &&
            view.instance_variable_get(:@virtual_path) == "outer"
        end

        def returns?(base)
          seen = []
          view = view(base, seen, false)
          locals = { probe: 1 }
          buffer = ::Object.new
          template = ::Object.new
          block = proc {}
          result = view._run(:_jetson_probe, template, locals, buffer, &block)
          return false unless result.equal?(:probe_result) && seen.size == 1 && restored?(view)

          call = seen.first
          call.args.size == 2 && call.args[0].equal?(locals) && call.args[1].equal?(buffer) &&
            call.keywords.empty? && call.block.equal?(block) && call.output_buffer.equal?(buffer) &&
            call.current_template.equal?(template) && call.virtual_path == "outer"
        end

        def restores_after_raise?(base)
          seen = []
          view = view(base, seen, true)
          begin
            view._run(:_jetson_probe, ::Object.new, {}, ::Object.new)
          rescue ::IndexError => e
            return e.message == "probe" && seen.size == 1 && restored?(view)
          end
          false
        end
      end
    end
  end
end
