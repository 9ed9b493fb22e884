# frozen_string_literal: true

require_relative "../support/collection_serializers"

# The serializers of case B (bench/support/collection_serializers.rb), left
# on their defaults (how an app that picked one for speed runs it): the
# document of `json.extract! post, :id, :body, :commenter_names, :comments`,
# where a comment is what comment.as_json gives, all six attributes in column
# order. alba and blueprinter write with their default backend and generator
# (JSON.generate), panko with Oj's StringWriter in :rails mode. Where a
# default writes a value differently (timestamps), the parent reports it as a
# note rather than hiding the cost of matching it.
module RecordsBench
  COMMENT_ATTRIBUTES = %i[id post_id commenter_id body created_at updated_at].freeze

  # Fields in definition order, not blueprinter's default alphabetical one,
  # so that the keys come in the others' order.
  Blueprinter.configure { |config| config.sort_fields_by = :definition }

  JetsonBench::CollectionSerializers.define(self, COMMENT_ATTRIBUTES)

  def self.serializer_versions
    { "alba" => Alba::VERSION, "panko_serializer" => Panko::VERSION,
      "blueprinter" => Gem.loaded_specs["blueprinter"]&.version&.to_s,
      "alba backend" => Alba.backend.inspect,
      "blueprinter generator" => "#{Blueprinter.configuration.generator}.#{Blueprinter.configuration.method}" }
  end
end
