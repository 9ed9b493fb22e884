# frozen_string_literal: true

# Both libraries' warnings, captured per call so that they are compared too.
module Differential
  # ---------------------------------------------------------------------------
  # Warning capture
  # ---------------------------------------------------------------------------

  class << self
    attr_accessor :warning_buffer
  end

  module WarningHook
    def warn(message, category: nil, **kwargs)
      if (buffer = Differential.warning_buffer)
        buffer << message.to_s
        nil
      else
        super
      end
    end
  end
  Warning.singleton_class.prepend(WarningHook)

  # Runs the block with warnings (Warning.warn and $stderr) captured.
  # Returns [value, exception, warnings]: one of value/exception is nil.
  def self.capturing_warnings
    buffer = []
    old_stderr = $stderr
    err = StringIO.new
    Differential.warning_buffer = buffer
    $stderr = err
    begin
      value = yield
      [value, nil, buffer]
    rescue Exception => e # rubocop:disable Lint/RescueException
      raise if e.is_a?(Interrupt) || e.is_a?(NoMemoryError)

      [nil, e, buffer]
    ensure
      $stderr = old_stderr
      Differential.warning_buffer = nil
      buffer.concat(err.string.lines) unless err.string.empty?
    end
  end

  # Runs a block with deprecation warnings enabled and $VERBOSE non-nil, so
  # that both libraries' warnings are observable.
  def self.with_warnings_enabled
    old_dep = Warning[:deprecated]
    old_verbose = $VERBOSE
    Warning[:deprecated] = true
    $VERBOSE = false if $VERBOSE.nil?
    yield
  ensure
    Warning[:deprecated] = old_dep
    $VERBOSE = old_verbose
  end
end
