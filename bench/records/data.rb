# frozen_string_literal: true

require "active_record"
require_relative "../../kit/collection" # Post, Comment, User (not connected until we connect them)

module RecordsBench
  # The collection of the serializer projects' benchmark (Kit::Collection),
  # with fixed ids and timestamps in every database, so that their outputs
  # can be compared byte for byte.
  module Data
    module_function

    # As a Rails app with the default config.time_zone = "UTC": timestamps are
    # read as ActiveSupport::TimeWithZone (ActiveRecord's Railtie turns
    # time_zone_aware_attributes on). Set before any model loads its schema.
    def app_settings!
      Time.zone_default = Time.find_zone!("UTC")
      Time.zone = "UTC"
      ActiveRecord::Base.time_zone_aware_attributes = true
      ActiveRecord.default_timezone = :utc
      JetsonBench::RailsStock.apply_json_defaults! # a new app of this Rails version
    end

    def connect(config)
      ActiveRecord::Base.establish_connection(config)
      ActiveRecord::Base.connection.verify!
    end

    # The tables and rows, in the database the world connected to: the counts.
    def seed!
      Kit::Collection.schema!
      Kit::Collection.insert_fixed!
      counts
    end

    def counts = { users: User.count, posts: Post.count, comments: Comment.count }

    # "Loaded once": every attribute of every loaded record read (cast and
    # kept by its Attribute), as records are after an app has used them.
    def read_all(value)
      records = value.respond_to?(:to_ary) ? value.to_ary : value.to_a
      records.each do |r|
        r.attributes
        r.class.reflect_on_all_associations.each do |reflection|
          association = r.association(reflection.name)
          Array(association.target).each(&:attributes) if association.loaded?
        end
      end
      value
    end
  end
end

# Post#to_builder, the form (a) of the Jbuilder cases: ::Jbuilder is the
# jbuilder gem's or jetson/jbuilder's, whichever the world loaded.
class Post
  def to_builder
    Jbuilder.new { |j| j.(self, :id, :body, :commenter_names, :comments) }
  end
end
