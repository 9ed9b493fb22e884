# frozen_string_literal: true

require "alba"
require "panko_serializer"
require "blueprinter"

# The serializers of case B, each written from its gem's documented API and
# left on its defaults (how an app that picked it for speed runs it): the
# document of `json.extract! post, :id, :body, :commenter_names, :comments`,
# where a comment is what comment.as_json gives, all six attributes in column
# order. Where a default writes a value differently (timestamps), the parent
# reports it as a note rather than hiding the cost of matching it.
module RecordsBench
  COMMENT_ATTRIBUTES = %i[id post_id commenter_id body created_at updated_at].freeze

  # alba: attributes and `many`; default backend (JSON.generate).
  class AlbaComment
    include Alba::Resource

    attributes(*COMMENT_ATTRIBUTES)
  end

  class AlbaPost
    include Alba::Resource

    attributes :id, :body, :commenter_names
    many :comments, resource: AlbaComment
  end

  # panko: attributes, a method field, has_many; it writes with Oj's
  # StringWriter in :rails mode.
  class PankoComment < Panko::Serializer
    attributes(*COMMENT_ATTRIBUTES)
  end

  class PankoPost < Panko::Serializer
    attributes :id, :body, :commenter_names
    has_many :comments, serializer: PankoComment

    def commenter_names = object.commenter_names
  end

  # blueprinter: identifier, fields, association; default generator
  # (JSON.generate). Fields in definition order, not blueprinter's default
  # alphabetical one, so that the keys come in the others' order.
  Blueprinter.configure { |config| config.sort_fields_by = :definition }

  class CommentBlueprint < Blueprinter::Base
    identifier :id
    fields(*(COMMENT_ATTRIBUTES - [:id]))
  end

  class PostBlueprint < Blueprinter::Base
    identifier :id
    fields :body, :commenter_names
    association :comments, blueprint: CommentBlueprint
  end

  def self.serializer_versions
    { "alba" => Alba::VERSION, "panko_serializer" => Panko::VERSION,
      "blueprinter" => Gem.loaded_specs["blueprinter"]&.version&.to_s,
      "alba backend" => Alba.backend.inspect,
      "blueprinter generator" => "#{Blueprinter.configuration.generator}.#{Blueprinter.configuration.method}" }
  end
end
