# frozen_string_literal: true

require "jetson/builder/jbuilder"

# The partials a .json.jbuilder template renders, for cache digests: a
# `cache!` or `cached:` key includes the digest of the template and of every
# partial it names, so editing a partial expires the fragments that contain
# it. Registered for :jbuilder templates by the Railtie.
#
# Found in the source, as ActionView's ERB tracker does for `render`:
#   json.partial! "comments/comment"            (and partial!("..."))
#   json.array! @posts, partial: "posts/post"   (any partial: or :partial =>)
#   # Template Dependency: shared/footer        (also "shared/*": every
#                                                template of that directory)
class Jbuilder::DependencyTracker
  # `something.partial!` followed by a quoted path, with or without
  # parentheses.
  PARTIAL_CALL = /\w+\.partial!\(?\s*(["'])([^"']+)\1/

  # A `partial:` (or `:partial =>`) option with a quoted path.
  PARTIAL_OPTION = /(?::partial\s*=>|partial:)\s*(["'])([^"']+)\1/

  # A `# Template Dependency: path` comment.
  EXPLICIT = /# Template Dependency: (\S+)/

  # ActionView's tracker interface.
  # @param name [String] the template's name
  # @param template [ActionView::Template]
  # @param view_paths [ActionView::PathSet, nil] for wildcard dependencies
  # @return [Array<String>] the partials the template renders
  def self.call(name, template, view_paths = nil)
    new(name, template, view_paths).dependencies
  end

  # ActionView passes view_paths to trackers that say they take them
  # (needed for wildcard dependencies).
  def self.supports_view_paths?
    true
  end

  def initialize(name, template, view_paths = nil)
    @name = name
    @template = template
    @view_paths = view_paths
  end

  # @return [Array<String>] the partials the template renders, as named in its source
  def dependencies
    source = @template.source
    source.scan(PARTIAL_CALL).map(&:last) + source.scan(PARTIAL_OPTION).map(&:last) + explicit(source)
  end

  private

  def explicit(source)
    named = source.scan(EXPLICIT).flatten.uniq
    directories, paths = named.partition { |path| path.end_with?("/*") }
    (paths + templates_in(directories.map { |path| path.delete_suffix("/*") })).uniq
  end

  def templates_in(directories)
    return [] if directories.empty? || @view_paths.nil?

    @view_paths.flat_map(&:all_template_paths).uniq.filter_map do |path|
      path.to_s if directories.include?(path.prefix)
    end.sort
  end
end
