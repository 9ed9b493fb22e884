# frozen_string_literal: true

module Jetson
  class Builder < ::BasicObject
    # Jetson in the jbuilder gem's place when the app's bundle has the gem
    # too, as it does when a mounted engine depends on it.
    #
    # - Jetson loaded first: {stand_in} puts stand_in/ first on $LOAD_PATH,
    #   so every later `require "jbuilder"` (or any other file of the gem)
    #   loads Jetson's counterpart (stand_in/README.md).
    # - The gem loaded first (an engine listed above Jetson in the Gemfile,
    #   or required before it): {take_over} removes the gem's ::Jbuilder,
    #   ::JbuilderTemplate and ::JbuilderHandler before Jetson defines its
    #   own, and {carry_over} gives Jetson's classes what the app or an
    #   engine had already added to the gem's: modules included, prepended
    #   or extended, constants, Jbuilder.key_format, ignore_nil,
    #   deep_format_keys, template_lookup_options. That is done before any
    #   view is compiled: views name JbuilderTemplate when they render.
    #   Methods defined on the gem's classes by reopening them, and
    #   subclasses of them, cannot move to another class: then it raises,
    #   naming the file and what to change.
    #
    # The gem's Railtie, if it was loaded, may still run its initializer
    # (Rails finds it among Railtie's subclasses until the GC collects the
    # replaced classes): it registers ::JbuilderHandler, Jetson's by then,
    # and requires files that stand_in/ answers, as Jetson's own Railtie
    # does after it. Where the gem's handler was registered already (Jetson
    # loaded after the app booted), Jetson's takes its place.
    #
    # Runs under the require of jetson/builder/jbuilder (Ruby's lock on a
    # feature being required), so two threads never take over at once.
    # @api private
    module JbuilderGem
      # The folder of files named like the gem's (outside lib/: the names
      # are the gem's).
      STAND_IN = ::File.expand_path("../../../stand_in", __dir__)
      # The gem's top-level classes, which Jetson defines in their place.
      CLASSES = %i[Jbuilder JbuilderTemplate JbuilderHandler].freeze
      # The release of the jbuilder gem whose behaviour Jetson's Jbuilder
      # follows (and is tested against).
      FOLLOWS = "2.15.1"

      # What the app had added to one of the gem's classes before Jetson
      # took its place, to be given to Jetson's class of the same name.
      Additions = ::Struct.new(:prepended, :included, :extended, :constants)

      @additions = {}
      @settings = nil
      @took_over = false

      class << self
        # Puts stand_in/ first on $LOAD_PATH (once).
        # @return [void]
        def stand_in
          $LOAD_PATH.unshift(STAND_IN) unless $LOAD_PATH.include?(STAND_IN)
        end

        # What `Jbuilder::VERSION` says under Jetson: the version of the
        # jbuilder gem in the bundle (or activated) where there is one, as
        # the gem's own constant would, else {FOLLOWS}.
        # @return [String] frozen
        def version
          spec = ::Gem.loaded_specs["jbuilder"] if defined?(::Gem) && ::Gem.respond_to?(:loaded_specs)
          spec ? spec.version.to_s.freeze : FOLLOWS
        end

        # Whether Jetson replaced the gem's classes in this process.
        # @return [Boolean]
        def took_over?
          @took_over
        end

        # Where ::Jbuilder is the gem's: checks that what was added to the
        # gem's classes can move to Jetson's, then removes them. Does
        # nothing where ::Jbuilder is undefined or already Jetson's.
        # @raise [LoadError] where a method was defined on, or a class
        #   derived from, one of the gem's classes
        # @return [void]
        def take_over
          gem_class = ::Object.const_defined?(:Jbuilder, false) && ::Object.const_get(:Jbuilder, false)
          return unless gem_class.is_a?(::Class) && !(gem_class <= Builder)

          roots = [gem_root(gem_class), active_support_root].compact
          classes = CLASSES.filter_map do |name|
            klass = ::Object.const_defined?(name, false) && ::Object.const_get(name, false)
            [name, klass] if klass.is_a?(::Class) && from_gem?(::Object.const_source_location(name.to_s), roots)
          end
          classes.each { |name, klass| refuse_what_cannot_move(name, klass, roots, classes.map(&:last)) }
          @additions = classes.to_h { |name, klass| [name, additions_of(klass, roots)] }
          @settings = settings_of(gem_class, classes.to_h[:JbuilderTemplate])
          @gem_handler = classes.to_h[:JbuilderHandler]
          classes.each { |name, _| ::Object.send(:remove_const, name) }
          @took_over = true
        end

        # Gives Jetson's class `klass` (::Jbuilder, ::JbuilderTemplate,
        # ::JbuilderHandler, just defined) what {take_over} found added to
        # the gem's class of its name.
        # @param klass [Class]
        # @return [void]
        def carry_over(klass)
          name = CLASSES.find { |candidate| ::Object.const_get(candidate, false).equal?(klass) if ::Object.const_defined?(candidate, false) }
          additions = @additions.delete(name)
          if additions
            additions.included.reverse_each { |mod| klass.include(mod) }
            additions.prepended.reverse_each { |mod| klass.prepend(mod) }
            additions.extended.reverse_each { |mod| klass.extend(mod) }
            additions.constants.each { |const, value| klass.const_set(const, value) unless klass.const_defined?(const, false) }
          end
          apply_settings(name, klass)
          register_handler(klass) if name == :JbuilderHandler
        end

        private

        # ActiveSupport's lib/: the gem's class bodies call its accessors
        # (JbuilderHandler's cattr_accessor), whose methods are located
        # there. (An accessor an engine adds with it is not seen.)
        def active_support_root
          file, = ::Object.const_source_location("ActiveSupport") if defined?(::ActiveSupport)
          file && "#{::File.dirname(file)}/"
        end

        # The gem's directory: anything defined in a file under it is the
        # gem's own.
        def gem_root(gem_class)
          spec = ::Gem.loaded_specs["jbuilder"] if defined?(::Gem) && ::Gem.respond_to?(:loaded_specs)
          return "#{spec.full_gem_path}/" if spec

          file, = ::Object.const_source_location("Jbuilder")
          file ||= gem_class.instance_method(:target!).source_location&.first
          file ? "#{::File.expand_path('../..', file)}/" : nil
        end

        # Whether a definition's location is in the gem (or ActiveSupport);
        # one without a location (a C method) is taken as the gem's.
        def from_gem?(location, roots)
          file, = location
          roots.empty? || file.nil? || roots.any? { |root| file.start_with?(root) }
        end

        def where(location)
          file, line = location
          file ? "#{file}:#{line}" : "code outside the jbuilder gem"
        end

        # A method defined on one of the gem's classes outside the gem, or a
        # class derived from one, stays with the gem's class.
        def refuse_what_cannot_move(name, klass, roots, gem_classes)
          [[klass, "#{name}#"], [klass.singleton_class, "#{name}."]].each do |owner, prefix|
            (owner.instance_methods(false) + owner.private_instance_methods(false)).each do |method_name|
              location = owner.instance_method(method_name).source_location
              next if from_gem?(location, roots)

              refuse("#{where(location)} added #{prefix}#{method_name} to the jbuilder gem's class")
            end
          end
          klass.subclasses.each do |subclass|
            next if gem_classes.include?(subclass)

            location = subclass.name && ::Object.const_source_location(subclass.name)
            refuse("#{where(location)} derived #{subclass.name || 'a class'} from the jbuilder gem's #{name}")
          end
        end

        def refuse(what)
          raise ::LoadError,
                "jetson/jbuilder cannot take the jbuilder gem's place: #{what} before Jetson was loaded; " \
                "load Jetson first (put `gem \"jetson\", require: \"jetson/jbuilder\"` above the gem that requires " \
                "jbuilder in the Gemfile, or `require \"jetson/jbuilder\"` before it where Bundler.require is not called)"
        end

        def additions_of(klass, roots)
          own = ->(mod) { !mod.is_a?(::Class) && !(mod.name && from_gem?(::Object.const_source_location(mod.name), roots)) }
          chain = klass.ancestors
          at = chain.index(klass)
          above = klass.superclass ? chain.index(klass.superclass) : chain.size
          singleton = klass.singleton_class.ancestors
          singleton_above = klass.superclass ? singleton.index(klass.superclass.singleton_class) : singleton.size
          constants = klass.constants(false).reject { |const| from_gem?(klass.const_source_location(const), roots) }
          Additions.new(chain[0...at].select(&own), chain[(at + 1)...above].select(&own),
                        singleton[1...singleton_above].select(&own),
                        constants.to_h { |const| [const, klass.const_get(const, false)] })
        end

        # The gem's class-wide settings where they are not its defaults.
        def settings_of(gem_class, gem_template)
          read = ->(name) { gem_class.class_variable_get(name) if gem_class.class_variable_defined?(name) }
          formatter = read.(:@@key_formatter)
          {
            key_format: formatter && [formatter.instance_variable_get(:@formats) || [],
                                      formatter.instance_variable_get(:@formats_with_options) || {}],
            ignore_nil: read.(:@@ignore_nil),
            deep_format_keys: read.(:@@deep_format_keys),
            template_lookup_options: gem_template.respond_to?(:template_lookup_options) && gem_template.template_lookup_options
          }
        end

        # Jetson's handler where the gem's was registered for :jbuilder.
        def register_handler(klass)
          gem_handler = @gem_handler
          @gem_handler = nil
          return unless gem_handler && defined?(::ActionView::Template)
          return unless ::Jetson::Rails.template_handler(:jbuilder).equal?(gem_handler)

          ::ActionView::Template.register_template_handler(:jbuilder, klass)
        end

        def apply_settings(name, klass)
          settings = @settings
          return unless settings

          apply_template_settings(klass, settings) if name == :JbuilderTemplate
          return unless name == :Jbuilder

          formats, with_options = settings[:key_format]
          klass.key_format(*formats, **with_options) if formats && (formats.any? || with_options.any?)
          klass.ignore_nil(true) if settings[:ignore_nil]
          klass.deep_format_keys(true) if settings[:deep_format_keys]
        end

        # The template lookup options the gem's JbuilderTemplate was given,
        # unless they were the gem's own default.
        def apply_template_settings(klass, settings)
          options = settings[:template_lookup_options]
          klass.template_lookup_options = options if options && options != { handlers: [:jbuilder] }
        end
      end
    end
  end
end
