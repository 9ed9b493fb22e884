# frozen_string_literal: true

# The models of ViewsApp (test/support/views_app.rb).

class Author < ActiveRecord::Base
  has_many :posts
  has_many :comments
end

class Post < ActiveRecord::Base
  belongs_to :author
  has_many :comments, -> { order(:id) }
end

class Comment < ActiveRecord::Base
  belongs_to :post
  belongs_to :author
end

# A collection that counts but has no size (the jbuilder gem wraps it in
# EnumerableCompat for ActionView).
class CountingList
  include Enumerable

  def initialize(items)
    @items = items
  end

  def each(&block)
    @items.each(&block)
  end
end

# A plain object with a partial path of its own (ActiveModel's naming and
# conversion), like the jbuilder gem's template tests' Racer.
class Badge
  extend ActiveModel::Naming
  include ActiveModel::Conversion

  attr_reader :id, :label

  def initialize(id, label)
    @id = id
    @label = label
  end

  def persisted?
    true
  end

  def cache_key
    "badge-#{id}"
  end
end
