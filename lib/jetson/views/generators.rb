# frozen_string_literal: true

require "rails/generators"
require "rails/generators/named_base"
require "rails/generators/resource_helpers"
require "rails/generators/rails/scaffold_controller/scaffold_controller_generator"

# The scaffold generators of the jbuilder gem, for apps that use
# `gem "jetson", require: "jetson/jbuilder"` in its place (required by
# Jetson::Views::Railtie when Rails loads its generators, after the
# app's generator settings, so that lib/templates overrides are seen):
#
#   bin/rails g scaffold Post title:string     # also writes app/views/posts/
#                                              # index, show and _post.json.jbuilder
#   bin/rails g scaffold Post --no-jbuilder    # the same without those views
#   bin/rails g jbuilder Post title:string     # only the views
#
# The files written are the jbuilder gem's (2.15), byte for byte, for the
# same command (test/rails/views/scaffold_generator_test.rb compares them):
# the generator is the gem's `rails:jbuilder` (Rails::Generators::
# JbuilderGenerator, so `hook_for :jbuilder`, `--[no-]jbuilder` and
# `config.generators.jbuilder = false` work as with the gem), and the
# scaffold controller gets the gem's templates, which answer .json requests
# (respond_to ... format.json, `render :show, status: :created, location:`)
# where Rails' own answer HTML only or `render json:`; they follow the loaded
# Rails where Rails 8 changed Rails' templates (params.expect), as the gem's
# do, and their comments say what else differs from Rails' templates.
# Templates an app keeps in lib/templates/rails/jbuilder/ or
# lib/templates/rails/scaffold_controller/ come first, as with the gem; they
# may call the helpers the gem's templates call (full_attributes_list,
# virtual_attributes, partial_path_name, permitted_params,
# status_unprocessable_content).
#
# If the jbuilder gem is also on the load path (`gem "jbuilder", require:
# false`), Rails' generator lookup may load its rails:jbuilder file over this
# one; it writes the same files.
module Jetson
  module Views
    # Where the generators' templates are.
    # @api private
    module Generators
      # The directory of the templates (jbuilder/, scaffold_controller/).
      TEMPLATES = File.expand_path("generators", __dir__)
    end
  end
end

# Rails' namespace (railties). jetson/jbuilder adds the jbuilder gem's
# generators to it: `rails g jbuilder` and the scaffold's .json.jbuilder views.
module Rails
  # Rails' generators; see {JbuilderGenerator}.
  module Generators
    # `rails g jbuilder NAME [field:type ...]`, and the scaffold's view step:
    # index.json.jbuilder (the collection through the partial),
    # show.json.jbuilder (the record through the partial) and
    # _<singular>.json.jbuilder (its attributes and its URL).
    class JbuilderGenerator < NamedBase
      include ResourceHelpers

      source_root File.join(::Jetson::Views::Generators::TEMPLATES, "jbuilder")

      desc "Writes the .json.jbuilder views of a scaffold: index, show and the record's partial."

      argument :attributes, type: :array, default: [], banner: "field:type field:type"

      class_option :timestamps, type: :boolean, default: true

      # The directory's own line in the generator's output, unless it is
      # there already (the scaffold's ERB views may have made it).
      def create_root_folder
        directory = File.join("app/views", controller_file_path)
        empty_directory(directory) unless File.directory?(File.join(destination_root, directory))
      end

      # index.json.jbuilder, show.json.jbuilder and _<singular>.json.jbuilder
      # in app/views/<plural>/.
      def copy_view_files
        directory = File.join("app/views", controller_file_path)
        %w[index show].each do |view|
          template view_file_name(view), File.join(directory, view_file_name(view))
        end
        template view_file_name("partial"), File.join(directory, view_file_name("_#{singular_table_name}"))
      end

      protected

      # The id comes first in the partial's extract! list.
      def attributes_names
        [:id, *super]
      end

      # The extract! list: the attributes, then created_at and updated_at
      # unless --no-timestamps.
      def full_attributes_list
        names = attributes_names
        names += %w[created_at updated_at] if options[:timestamps]
        attributes_list(names)
      end

      # ":id, :title, ..." without password and password_confirmation when the
      # model has a password:digest (has_secure_password).
      def attributes_list(names = attributes_names)
        if attributes.any? { |attribute| attribute.name == "password" && attribute.type == :digest }
          names = names.reject { |name| %w[password password_confirmation].include?(name.to_s) }
        end
        names.map { |name| ":#{name}" }.join(", ")
      end

      # rich_text, attachment and attachments: no column, written by the
      # partial after extract!.
      def virtual_attributes
        attributes.select { |attribute| attribute.respond_to?(:virtual?) && attribute.virtual? }
      end

      # "posts/post", "admin/articles/admin_article".
      def partial_path_name
        "#{controller_file_path}/#{singular_table_name}"
      end

      def view_file_name(name)
        "#{name}.json.jbuilder"
      end
      alias filename_with_extensions view_file_name
    end

    # The scaffold controller with the jbuilder gem's templates
    # (generators/scaffold_controller/): the HTML controller also answers
    # .json (respond_to), the API controller renders the show view. The
    # jbuilder step runs after Rails' own (views, route, tests, helper).
    class ScaffoldControllerGenerator
      source_paths << File.join(::Jetson::Views::Generators::TEMPLATES, "scaffold_controller")

      hook_for :jbuilder, type: :boolean, default: true

      private

      # Rails 7.1+ define it (attachments as `name: []`); older Rails list
      # every attribute.
      unless private_method_defined?(:permitted_params)
        def permitted_params
          attributes_names.map { |name| ":#{name}" }.join(", ")
        end
      end

      # 422's name in the Rack that is loaded: :unprocessable_content from
      # Rack 3.1, :unprocessable_entity before.
      def status_unprocessable_content
        require "rack/utils"
        ::Rack::Utils::SYMBOL_TO_STATUS_CODE.key(422) || :unprocessable_content
      end

      # Rails 8's scaffolds read parameters with ActionController::Parameters#expect.
      def params_expect?
        ::Rails::VERSION::MAJOR >= 8
      end

      # set_<singular>'s lookup: `params.expect(:id)` on Rails 8, `params[:id]` before.
      def id_param
        params_expect? ? "params.expect(:id)" : "params[:id]"
      end

      # The body of <singular>_params.
      def params_reader
        if attributes_names.empty?
          "params.fetch(:#{singular_table_name}, {})"
        elsif params_expect?
          "params.expect(#{singular_table_name}: [ #{permitted_params} ])"
        else
          "params.require(:#{singular_table_name}).permit(#{permitted_params})"
        end
      end
    end
  end
end
