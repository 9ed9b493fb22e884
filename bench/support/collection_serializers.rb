# frozen_string_literal: true

require "alba"
require "panko_serializer"
require "blueprinter"

module JetsonBench
  # The serializers of the collection (kit/collection.rb), each written from
  # its gem's documented API and left on its defaults: a post's id, body,
  # commenter_names (a method) and comments, a comment's `comment_attributes`
  # (bench/builder.rb: the template's id and body; bench/records.rb: every
  # column, as comment.as_json gives them).
  module CollectionSerializers
    module_function

    # AlbaComment, AlbaPost, PankoComment, PankoPost, CommentBlueprint and
    # PostBlueprint, in `into`.
    def define(into, comment_attributes)
      # alba: resources with `attributes` and a `many` association.
      alba_comment = into.const_set(:AlbaComment, Class.new { include Alba::Resource })
      alba_comment.attributes(*comment_attributes)
      alba_post = into.const_set(:AlbaPost, Class.new { include Alba::Resource })
      alba_post.attributes(:id, :body, :commenter_names)
      alba_post.many(:comments, resource: alba_comment)

      # panko: serializers with `attributes`, a method field and `has_many`.
      panko_comment = into.const_set(:PankoComment, Class.new(Panko::Serializer))
      panko_comment.attributes(*comment_attributes)
      panko_post = into.const_set(:PankoPost, Class.new(Panko::Serializer))
      panko_post.attributes(:id, :body, :commenter_names)
      panko_post.has_many(:comments, serializer: panko_comment)
      # Defined after `attributes`, which makes the attribute a method field.
      panko_post.class_eval { def commenter_names = object.commenter_names }

      # blueprinter: identifier, fields, association.
      comment_blueprint = into.const_set(:CommentBlueprint, Class.new(Blueprinter::Base))
      comment_blueprint.identifier(:id)
      comment_blueprint.fields(*(comment_attributes - [:id]))
      post_blueprint = into.const_set(:PostBlueprint, Class.new(Blueprinter::Base))
      post_blueprint.identifier(:id)
      post_blueprint.fields(:body, :commenter_names)
      post_blueprint.association(:comments, blueprint: comment_blueprint)
    end
  end
end
