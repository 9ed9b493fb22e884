# frozen_string_literal: true

# The two sides and the calls made through both (dump, generate, State,
# to_json, ...), each one's outcome as plain data.
module Differential
  # ---------------------------------------------------------------------------
  # Sides
  # ---------------------------------------------------------------------------

  Side = Struct.new(:name, :mod, :state_class, :fragment_class)

  def self.json_side
    Side.new(:json, ::JSON, ::JSON::State, ::JSON::Fragment)
  end

  def self.jetson_side
    Side.new(:jetson, ::Jetson, ::Jetson::State, ::Jetson::Fragment)
  end

  # ---------------------------------------------------------------------------
  # Entry points
  # ---------------------------------------------------------------------------

  DUMP_FORMS = %i[plain io limit io_limit opts io_opts io_limit_opts nil_limit nil_nil_opts kwargs].freeze

  def self.symbol_keyed?(opts)
    opts.is_a?(Hash) && opts.keys.all? { |k| k.is_a?(Symbol) }
  end

  def self.dump_call(side, obj, opts, form, limit)
    io = StringIO.new
    m = side.mod
    r =
      case form
      when :plain then m.dump(obj)
      when :io then m.dump(obj, io)
      when :limit then m.dump(obj, limit)
      when :io_limit then m.dump(obj, io, limit)
      when :opts then m.dump(obj, opts)
      when :io_opts then m.dump(obj, io, opts)
      when :io_limit_opts then m.dump(obj, io, limit, opts)
      when :nil_limit then m.dump(obj, nil, limit)
      when :nil_nil_opts then m.dump(obj, nil, nil, opts)
      when :kwargs then m.dump(obj, **opts)
      end
    r.equal?(io) ? [:returned_io, io.string] : r
  end

  # Would this call run with a (non-zero) max_nesting?  Conservative.
  def self.nesting_limited?(entry, opts, extra)
    if entry == :dump
      form, limit = extra
      eff = false
      eff = limit if limit && %i[limit io_limit nil_limit io_limit_opts].include?(form)
      if %i[opts io_opts io_limit_opts nil_nil_opts kwargs].include?(form)
        return false unless opts.is_a?(Hash) || opts.nil?

        eff = opts[:max_nesting] if opts&.key?(:max_nesting)
      end
    else
      eff = 100
      eff = opts[:max_nesting] if opts.is_a?(Hash) && opts.key?(:max_nesting)
    end
    eff.is_a?(Integer) && eff != 0
  end

  STATE_READERS = %i[indent space space_before object_nl array_nl max_nesting depth allow_nan? ascii_only?
                     script_safe? strict? buffer_initial_length].freeze

  def self.state_summary(state)
    STATE_READERS.map { |m| state.respond_to?(m) ? [m, state.public_send(m)] : [m, :missing] }
  end

  # name => lambda(side, obj, opts, extra) -> value (or raises)
  ENTRIES = {
    generate: ->(s, obj, opts, _x) { s.mod.generate(obj, opts) },
    generate_kw: ->(s, obj, opts, _x) { s.mod.generate(obj, **opts) },
    generate_state: ->(s, obj, opts, _x) { s.mod.generate(obj, s.state_class.new(opts)) },
    state_generate: ->(s, obj, opts, _x) { s.state_class.new(opts).generate(obj) },
    state_generate_io: lambda { |s, obj, opts, _x|
      io = StringIO.new
      r = s.state_class.new(opts).generate(obj, io)
      [:returned_io, r.equal?(io), io.string]
    },
    pretty_generate: ->(s, obj, opts, _x) { s.mod.pretty_generate(obj, opts) },
    pretty_generate_state: ->(s, obj, opts, _x) { s.mod.pretty_generate(obj, s.state_class.new(opts)) },
    dump: ->(s, obj, opts, x) { dump_call(s, obj, opts, x[0], x[1]) },
    state_reuse: lambda { |s, obj, opts, _x|
      st = s.state_class.new(opts)
      before = state_summary(st)
      first = st.generate(obj)
      second = st.generate(obj)
      [first, second, before, state_summary(st)]
    },
  }.freeze

  # Ruby source of the call, for reproducers.  `m`, `st`, `frag` name the side.
  def self.call_source(entry, extra, mod)
    case entry
    when :generate then "#{mod}.generate(obj, opts)"
    when :generate_kw then "#{mod}.generate(obj, **opts)"
    when :generate_state then "#{mod}.generate(obj, #{mod}::State.new(opts))"
    when :state_generate then "#{mod}::State.new(opts).generate(obj)"
    when :state_generate_io then "#{mod}::State.new(opts).generate(obj, io = StringIO.new); io.string"
    when :pretty_generate then "#{mod}.pretty_generate(obj, opts)"
    when :pretty_generate_state then "#{mod}.pretty_generate(obj, #{mod}::State.new(opts))"
    when :state_reuse then "st = #{mod}::State.new(opts); [st.generate(obj), st.generate(obj), st.depth]"
    when :dump
      form, limit = extra
      args =
        case form
        when :plain then ""
        when :io then ", io = StringIO.new"
        when :limit then ", #{limit.inspect}"
        when :io_limit then ", io = StringIO.new, #{limit.inspect}"
        when :opts then ", opts"
        when :io_opts then ", io = StringIO.new, opts"
        when :io_limit_opts then ", io = StringIO.new, #{limit.inspect}, opts"
        when :nil_limit then ", nil, #{limit.inspect}"
        when :nil_nil_opts then ", nil, nil, opts"
        when :kwargs then ", **opts"
        end
      "#{mod}.dump(obj#{args})"
    end
  end

  # ---------------------------------------------------------------------------
  # Outcomes
  # ---------------------------------------------------------------------------

  Outcome = Struct.new(:value, :error, :warnings)

  # Turn a return value into plain comparable data.
  def self.normalize(v)
    case v
    when String then [:string, v.b, v.encoding.name, v.frozen?, v.class.name]
    when Array then v.map { |x| normalize(x) }
    when Symbol, Integer, true, false, nil then v
    else [:object, v.class.name, v.inspect]
    end
  end

  def self.run_entry(side, entry, obj, opts, extra)
    fn = ENTRIES.fetch(entry)
    value, error, warnings = capturing_warnings { fn.call(side, obj, opts, extra) }
    Outcome.new(error ? nil : normalize(value), error, warnings)
  end
end
