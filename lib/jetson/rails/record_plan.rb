# frozen_string_literal: true

module Jetson
  module Rails
    # What the native record reader (ext/jetson/rails/record.c) may do for one
    # ActiveRecord model without running the model's Ruby: which attributes
    # are read by ActiveRecord's own reader, and for which attribute types.
    #
    # A plan is made for one Hash of attribute types: the one the model's
    # records carry (their attribute set's, from the model's
    # attributes_builder). It holds while the readers it relies on are the
    # same methods (a reader defined, prepended or aliased since makes a new
    # plan). The native side asks for the model's plan at most once per
    # class and call, and reads a record under it only while the record's
    # attribute set holds that Hash; a record carrying another Hash gets a
    # plan for the Hash it carries (for_types), so no record is left to Ruby
    # for good because of the Hash it was loaded with:
    # - ActiveRecord builds attribute_types and attributes_builder lazily and
    #   without a lock: two threads loading a model's first records at once
    #   (a deploy's first requests under puma) may each build their own, and
    #   the class keep one while its builder holds the other;
    # - a schema reload gives new records a new Hash, while records loaded
    #   before keep the old one.
    # Plans are made by whichever thread asks first; two threads making one
    # at once make equal plans, and either may be kept.
    #
    # @api private
    module RecordPlan
      # The native reader's view of a plan: [attribute_types, readers,
      # inheritance column or nil, casts, only_ordered], readers mapping each
      # attribute name whose reader is ActiveRecord's to READER_GENERATED or
      # READER_PRIMARY_KEY, casts each attribute name to the descriptor of its
      # type (DbCast.descriptor), only_ordered whether serializable_hash
      # orders `only:`'s keys as `only:` lists them (see only_ordered?).
      READER_GENERATED = 1
      READER_PRIMARY_KEY = 2
      # Added when the reader is public (public_send may call it: extract!).
      READER_PUBLIC = 4

      Plan = Struct.new(:native, :types, :methods) do
        # Still what the model runs: the same readers.
        def current?(klass)
          methods.all? { |name, method| klass.instance_method(name) == method }
        rescue NameError
          false
        end
      end

      # Plans for types other than the model's current ones, kept per model:
      # enough for the Hashes one race or reload leaves behind.
      OTHER_TYPES_KEPT = 4

      @plans = {}
      @other_plans = {}
      @refusals = {}
      @lock = Mutex.new
      @only_ordered = nil

      class << self
        # The native plan of klass for the types its records get now (see
        # above); nil when its records go through Ruby (why_not says why),
        # false when klass is not an ActiveRecord model.
        def for(klass)
          return false unless record_class?(klass)

          current(klass)&.native
        end

        # memo_answer's: the plan, and the methods it rests on (each reader,
        # attribute_names, _read_attribute).
        def answer(klass)
          return [false, []] unless record_class?(klass)

          plan = current(klass)
          [plan&.native, plan ? plan.methods.map { |name, _| [klass, name.to_sym] } + [[klass, :_read_attribute]] : []]
        end

        # The native plan of klass for exactly `types`, the attribute types
        # a record of klass carries when they are not the plan's (see
        # above): the record's readers cast with them. Asked by the native
        # side at most once per types Hash and call.
        def for_types(klass, types)
          return nil unless record_class?(klass) && types.instance_of?(::Hash)

          plan = current(klass)
          return plan.native if plan&.types.equal?(types)

          kept = @other_plans[klass]
          plan = kept&.find { |other| other.types.equal?(types) }
          return plan.native if plan&.current?(klass)

          plan = build(klass, types)
          return nil unless plan

          @lock.synchronize do
            others = (@other_plans[klass] || []).reject { |other| other.types.equal?(types) }
            @other_plans[klass] = [plan, *others].first(OTHER_TYPES_KEPT).freeze
          end
          plan.native
        end

        # Why klass has no plan (its records' attributes are read through
        # their methods), as a sentence; nil when it has one.
        def why_not(klass)
          return "#{klass} is not an ActiveRecord model" unless record_class?(klass)
          return nil if current(klass)

          @refusals[klass] || "no plan could be made for #{klass}"
        end

        # memo_answer's :collection_probe for a model: the attribute names
        # whose presence in a record makes `record.respond_to?(:map)` true
        # (Jbuilder's _is_collection? asks it of every object rendered under
        # a key), or nil when that answer needs Ruby: respond_to? or
        # respond_to_missing? other than ActiveRecord's and ActiveModel's, or
        # a map method. The patterns are the model's attribute method
        # patterns (class-level, settled when the class body ran).
        def collection_probe(klass)
          return [nil, []] unless probe_stock?(klass)

          names = klass.send(:attribute_method_patterns_matching, "map").map(&:attr_name).uniq.freeze
          # PrimaryKey's attribute_method? is true for "id" whatever the record holds.
          return [nil, []] if names.include?("id")

          [names, PROBE_METHODS.map { [klass, _1] }]
        end

        PROBE_METHODS = %i[respond_to? respond_to_missing? map attribute_method? matched_attribute_method].freeze

        def probe_stock?(klass)
          return false unless defined?(::ActiveRecord::Base) && klass.is_a?(::Class) && klass < ::ActiveRecord::Base
          return false if klass.singleton_class? || klass.method_defined?(:map) || klass.private_method_defined?(:map)

          stock = [::ActiveRecord::AttributeMethods, ::ActiveModel::AttributeMethods, ::Kernel]
          owners(klass, :respond_to?) == stock &&
            owners(klass, :respond_to_missing?) == [::ActiveRecord::AttributeMethods, ::Kernel] &&
            owners(klass, :attribute_method?).first(2) ==
              [::ActiveRecord::AttributeMethods::PrimaryKey, ::ActiveRecord::AttributeMethods] &&
            owners(klass, :matched_attribute_method) == [::ActiveModel::AttributeMethods]
        rescue NameError
          false
        end

        # The modules of klass's ancestors that define name, in lookup order.
        def owners(klass, name)
          klass.ancestors.select do |m|
            m.instance_methods(false).include?(name) || m.private_instance_methods(false).include?(name)
          end
        end

        # Whether the loaded ActiveModel's serializable_hash orders the keys
        # `only:` keeps as `only:` lists them (ActiveModel 8.0 on:
        # `Array(only).map(&:to_s) & attribute_names`) rather than in
        # attribute order (7.2: `attribute_names &= ...`). Asked of
        # ActiveModel::Serialization itself, once: a record's plan is made
        # only while its serializable_hash is that stock one.
        def only_ordered?
          return @only_ordered unless @only_ordered.nil?

          # Two attributes, a then b, serialized by ActiveModel's own method.
          probe = Class.new do
            include ::ActiveModel::Serialization

            def attributes = { "a" => nil, "b" => nil }
            def a = 1
            def b = 2
          end
          @only_ordered = probe.new.serializable_hash(only: %w[b a]).keys == %w[b a]
        end

        # The cast descriptor of a type the plan does not hold (a column a
        # query adds: find_by_sql, select with an alias).
        def descriptor(type)
          DbCast.descriptor(type)
        end

        # Forgets every plan (tests; an app never needs it).
        def reset!
          @lock.synchronize do
            @plans.clear
            @other_plans.clear
            @refusals.clear
          end
        end

        private

        def record_class?(klass)
          defined?(::ActiveRecord::Base) && klass.is_a?(::Class) && klass < ::ActiveRecord::Base &&
            !klass.singleton_class?
        end

        # The attribute types the records of klass get when loaded: its
        # builder's (what ActiveRecord gives each LazyAttributeSet), which
        # after a race between first loads is not always klass.attribute_types.
        def record_types(klass)
          builder = klass.attributes_builder
          types = builder.types if builder.respond_to?(:types)
          types.instance_of?(::Hash) ? types : klass.attribute_types
        end

        def current(klass)
          types = record_types(klass)
          plan = @plans[klass]
          return plan if plan&.types.equal?(types) && plan.current?(klass)

          plan = build(klass, types)
          @lock.synchronize { plan ? @plans[klass] = plan : @plans.delete(klass) }
          plan
        rescue ::ActiveRecord::ActiveRecordError, NameError => e
          refuse(klass, "its schema could not be read (#{e.class}: #{e.message})")
        end

        def refuse(klass, why)
          @lock.synchronize { @refusals[klass] = why }
          nil
        end

        def build(klass, types)
          return refuse(klass, "#{klass} is abstract") if klass.abstract_class?
          unless Rails.native_attribute_names?(klass)
            return refuse(klass, "#{klass}#attribute_names is not ActiveRecord's " \
                                 "(#{location(klass.instance_method(:attribute_names))})")
          end

          # Generated readers exist once the attribute methods are defined
          # (ActiveRecord does it on the first instance, under its own lock).
          klass.define_attribute_methods
          readers = {}
          casts = {}
          methods = [[:attribute_names, klass.instance_method(:attribute_names)]]
          types.each do |name, type|
            next unless name.is_a?(::String)

            casts[name.dup.freeze] = DbCast.descriptor(type)
            kind = Rails.attribute_reader(klass, name)
            next unless kind

            reader = kind == :primary_key ? READER_PRIMARY_KEY : READER_GENERATED
            reader |= READER_PUBLIC if klass.public_method_defined?(name)
            readers[name.dup.freeze] = reader
            methods << [name, klass.instance_method(name)]
          end
          sti = klass._has_attribute?(klass.inheritance_column) ? klass.inheritance_column.to_s.dup.freeze : nil
          Plan.new([types, readers.freeze, sti, casts.freeze, only_ordered?].freeze, types, methods.freeze)
        rescue ::ActiveRecord::ActiveRecordError, NameError => e
          refuse(klass, "its schema could not be read (#{e.class}: #{e.message})")
        end

        def location(method)
          file, line = method.source_location
          file ? "#{file}:#{line}" : method.owner.inspect
        end
      end
    end

    # only_ordered?'s probe defines a class, which moves Jetson::MethodWatch's
    # counts: every kept answer is then asked for again on the next call.
    # Made when ActiveRecord::Base loads (an app's boot), not in the middle
    # of the first encoding.
    ::ActiveSupport.on_load(:active_record) { RecordPlan.only_ordered? }
  end
end
