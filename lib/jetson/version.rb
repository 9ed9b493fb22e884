# frozen_string_literal: true

module Jetson
  VERSION = "0.1.0"
end
