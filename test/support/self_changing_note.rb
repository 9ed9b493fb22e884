# frozen_string_literal: true

require "active_record"

# A text column whose value's as_json changes later attributes of its own
# record. ActiveModel's as_json reads every attribute into
# serializable_hash's Hash (and sends its methods:) before as_json runs over
# it, so what is written for those attributes and methods is what they held
# before. SelfChangingNote.install gives a model's body column such values.
module SelfChangingNote
  class Note
    attr_accessor :owner

    def initialize(text) = @text = text

    def as_json(*)
      if owner
        owner.updated_at = Time.utc(1999, 12, 31)
        owner.approved = !owner.approved if owner.has_attribute?(:approved)
      end
      "note: #{@text}"
    end
  end

  class NoteType < ActiveRecord::Type::Text
    def deserialize(value) = value.nil? ? nil : Note.new(value)
    def cast(value) = value.is_a?(Note) || value.nil? ? value : Note.new(value.to_s)
  end

  # noted_at: a method (for methods:) that reads what the note's as_json changes.
  def self.install(model)
    model.attribute :body, NoteType.new
    model.after_initialize { body.owner = self if body.is_a?(Note) }
    model.define_method(:noted_at) { updated_at&.to_i }
  end
end
