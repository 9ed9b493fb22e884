# frozen_string_literal: true

# Jetson's stand-in for the jbuilder gem's file of this name (stand_in/README.md).
require "jetson/jbuilder"
