# frozen_string_literal: true

# The models of Kit::ViewsApp (kit/views_app.rb), in both setups.

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
