# frozen_string_literal: true

module Jetson
  # Jetson's version.
  VERSION = "0.1.0"
end
