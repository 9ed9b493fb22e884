# frozen_string_literal: true

require "securerandom"
require "jetson"
require "action_controller"

module Jetson
  # `render json_stream:`: a collection sent as JSON while it is read, in
  # batches, through Jetson::Writer into a Rack streaming body (see
  # docs/streaming.md). The bytes are those of the non-streaming render:
  #
  #   render json_stream: Order.where(shop: shop)               # render json: relation
  #   render json_stream: Order.all, only: [:id], include: :lines
  #   render json_stream: Order.all, partial: "orders/order", as: :order
  #   render json_stream: { meta: { total: n }, data: Order.all }, batch_size: 500
  #   render json_stream: true   # the action's .json.jbuilder view, its top-level collection streamed
  #
  # A render option rather than a new controller method: it is `render
  # json:` with one word changed, takes render's own options (status:,
  # content_type:, layout-free) and as_json's, and lives in every controller
  # that has renderers (ActionController::Base and ::API) without an
  # include.
  module Streaming
    # Options that are the stream's, not as_json's.
    OWN_OPTIONS = %i[batch_size start finish order error_on_ignore cursor partial as locals].freeze
    # @api private
    BATCH_OPTIONS = %i[start finish order error_on_ignore cursor].freeze
    # @api private
    DEFAULT_BATCH_SIZE = 1000

    autoload :ViewStream, "jetson/streaming/streaming_view"

    # Raised out of the body's each when the document cannot be completed
    # after part of it was sent. An IOError, because that is what servers
    # treat as a broken connection: puma closes the socket without writing
    # anything more (any other error it answers with a 500 response, which
    # would land in the middle of the chunked body). The cause is the
    # application's error, already reported.
    class Aborted < IOError; end

    class << self
      # Adds the json_stream renderer (once; Jetson::Railtie calls this when
      # ActionController loads).
      def install
        return if renderers.include?(:json_stream)

        ActionController::Renderers.add(:json_stream) do |value, options|
          Streaming.render(self, value, options)
        end
      end

      # The names of the renderers added: Renderers.all on Rails main, which
      # deprecates RENDERERS (still the only one up to Rails 8.1).
      # @api private
      def renderers
        renderers = ActionController::Renderers
        renderers.respond_to?(:all) ? renderers.all : renderers::RENDERERS
      end

      # The renderer: sets the headers, reads and writes the first batch
      # (so that an error there is an ordinary error response), and returns
      # the body that writes the rest as the server iterates it.
      def render(controller, value, options)
        stream_options = options.slice(*OWN_OPTIONS)
        if value == true
          texts, parts = ViewStream.render(controller, options)
        else
          # With partial: the document is the .json.jbuilder view's (its
          # envelope written as the view writes a Hash, without to_json's
          # options); without, render json:'s.
          json_options = json_options(controller, options) unless stream_options[:partial]
          elements = element_writer(controller, stream_options, json_options)
          texts, collections = Envelope.split(value, json_options)
          parts = collections.map { |collection| [collection, elements] }
        end
        body = Body.new(texts, parts, stream_options, logger: controller.logger)
        body.start!
        prepare_response(controller)
        body
      end

      # A document's text cut at its marker Strings (marker-0, marker-1...,
      # each written as a JSON string): the texts before, between and after
      # them; raises if one is not there as a value.
      def cut(text, marker, count)
        texts = []
        rest = text
        count.times do |i|
          head, found, rest = rest.partition(%("#{marker}-#{i}"))
          raise ArgumentError, "json_stream: collection #{i} was not written as a value (replaced or merged into?)" if found.empty?

          texts << head
        end
        texts << rest
      end

      # @api private
      def marker = "jetson-json-stream-#{SecureRandom.hex(16)}"

      private

      # The options `render json:` passes to to_json: render's own taken
      # out, and escape: false where the controller's
      # escape_json_responses is off (ActionPack 8.1; false under
      # load_defaults "8.1"), as its renderer does without a callback.
      def json_options(controller, options)
        json_options = options.except(*OWN_OPTIONS, :callback, :content_type, :status)
        klass = controller.class
        if klass.respond_to?(:escape_json_responses?) && !klass.escape_json_responses? && options[:callback].blank?
          json_options[:escape] ||= false
        end
        json_options
      end

      def element_writer(controller, stream_options, json_options)
        if (partial = stream_options[:partial])
          as = stream_options[:as] or raise ArgumentError, "json_stream: partial: needs as:"
          PartialElements.new(controller, partial, as, stream_options[:locals])
        else
          AsJsonElements.new(json_options)
        end
      end

      def prepare_response(controller)
        controller.content_type = Mime[:json] if controller.media_type.nil?
        response = controller.response
        response.extend(StreamingResponse)
        # As ActionController::Live and template streaming: nothing can
        # know the length, and no cache can validate a document that is
        # not written yet. (Rack::ETag would read the whole body to digest
        # it only through to_ary, which a stream's buffer lacks: see
        # StreamBuffer.)
        response.headers["Cache-Control"] ||= "no-cache"
        response.delete_header("Content-Length")
        # nginx buffers proxied responses unless told not to.
        response.headers["X-Accel-Buffering"] ||= "no"
      end
    end

    # ActionDispatch::Response wraps a body in a Buffer, whose to_ary makes
    # Rack::ETag and puma read the whole body to digest or measure it. Live
    # responses use a Buffer without to_ary; so does a stream.
    #
    # @api private
    class StreamBuffer < ActionDispatch::Response::Buffer
      undef_method :to_ary
    end

    # @api private
    module StreamingResponse
      private

      def build_buffer(response, body)
        body.is_a?(Body) ? StreamBuffer.new(response, body) : super
      end
    end

    # Elements as `render json:` writes them: one call of the app's encoder
    # (ActiveSupport's, Jetson::RailsEncoder or another) per batch, with
    # the options render json: would pass to to_json.
    #
    # @api private
    class AsJsonElements
      def initialize(options)
        @options = options
      end

      def call(records)
        ActiveSupport::JSON.encode(records, @options)
      end
    end

    # Elements as `json.array! records, partial:, as:` writes them in a
    # .json.jbuilder view (jetson/jbuilder or the jbuilder gem).
    #
    # @api private
    class PartialElements
      def initialize(controller, partial, as, locals)
        unless defined?(::JbuilderTemplate)
          raise ArgumentError, "json_stream: partial: needs jetson/jbuilder or the jbuilder gem loaded"
        end

        @view = Streaming.json_view(controller)
        @options = { partial: partial, as: as }
        @options[:locals] = locals if locals
      end

      def call(records)
        json = ::JbuilderTemplate.new(@view)
        json.array!(records, @options)
        json.target!
      end
    end

    # The controller's view context, looking templates up in the JSON
    # format whatever the request's.
    def self.json_view(controller)
      view = controller.view_context
      view.lookup_context.formats = [:json] unless view.lookup_context.formats == [:json]
      view
    end

    # The io a Jetson::Writer writes into: before the server iterates the
    # body, chunks wait in a list; then each one is handed to the server's
    # block as it comes. An error raised by that block is the server's or
    # the client's (a closed connection), not the application's: it is
    # remembered so that the body lets it through unreported.
    #
    # @api private
    class Out
      attr_reader :bytes, :downstream_error

      def initialize
        @pending = []
        @sink = nil
        @bytes = 0
        @downstream_error = nil
      end

      def write(str)
        return 0 if str.empty?

        if @sink
          begin
            @sink.call(str)
          rescue Exception => e # rubocop:disable Lint/RescueException -- let through as it is, see each
            @downstream_error = e
            raise
          end
        else
          @pending << str
        end
        @bytes += str.bytesize
        str.bytesize
      end

      def flush = self

      def connect(sink)
        @sink = sink
        pending = @pending
        @pending = nil
        @bytes -= pending.sum(&:bytesize)
        pending.each { |str| write(str) }
      end
    end

    # The Rack body (each and close, no to_ary): the document's text
    # around its collections comes from the app's encoder, each collection
    # is an array written through a Jetson::Writer a batch at a time.
    #
    # @api private
    class Body
      # texts: the document's text before, between and after its
      # collections; parts: [collection, elements writer] for each.
      def initialize(texts, parts, options, logger:)
        @texts = texts
        @parts = parts
        @batch_size = Integer(options.fetch(:batch_size, DEFAULT_BATCH_SIZE))
        raise ArgumentError, "json_stream: batch_size must be positive" unless @batch_size.positive?

        @batch_options = options.slice(*BATCH_OPTIONS)
        @logger = logger
        @out = Out.new
        @resume = nil
        @iterated = false
        @closed = false
      end

      # In the action: the text before the first collection and its first
      # batch, when it is a relation that can be resumed after it.
      def start!
        @out.write(@texts.first)
        collection, elements = @parts.first
        return unless Batches.relation?(collection) && Batches.resumable?(collection, @batch_options)

        open_array
        first = Batches.first(collection, @batch_size, @batch_options)
        write_batch(first, elements)
        @resume = first.size < @batch_size ? :done : first.last.read_attribute(collection.primary_key)
        @writer.flush
      end

      def each(&block)
        raise IOError, "a JSON stream can be iterated only once" if @iterated

        @iterated = true
        @out.connect(block)
        write_rest
        nil
      rescue Exception => e # rubocop:disable Lint/RescueException -- classified, then raised again
        if e.equal?(@out.downstream_error)
          # The server could not write (the client went away, most often):
          # not the application's error; the loop stops here.
          @logger&.info("JSON stream stopped after #{@out.bytes} bytes: the server's write raised #{e.class}: #{e.message}")
          raise
        end
        raise unless e.is_a?(StandardError)

        abort!(e)
      end

      def close
        @closed = true
      end

      def closed? = @closed

      private

      def write_rest
        @parts.each_with_index do |(collection, elements), i|
          if i.zero? && @writer
            unless @resume == :done
              Batches.each_after(collection, @resume, @batch_size, @batch_options) do |records|
                write_batch(records, elements)
              end
            end
          else
            @out.write(@texts[i]) unless i.zero?
            open_array
            Batches.each(collection, @batch_size, @batch_options) { |records| write_batch(records, elements) }
          end
          @writer.pop
        end
        @out.write(@texts.last)
      end

      def open_array
        @writer = Jetson::Writer.new(@out)
        @writer.push_array
      end

      # The batch's array text, brackets off, goes in as one element list:
      # the writer puts the comma between two batches.
      def write_batch(records, elements)
        return if records.empty?

        text = elements.call(records)
        @writer.push_json(text.byteslice(1, text.bytesize - 2))
        # The batch's text is ours and done with: its memory goes back now
        # rather than at the sweep after the next collection.
        text.clear unless text.frozen?
      end

      # After the first byte nothing can turn the response into an error
      # response: the error is reported where Rails reports errors and
      # logged, and the body ends without its terminating chunk.
      def abort!(error)
        sent = @out.bytes
        report(error, sent)
        @logger&.error("JSON stream aborted after #{sent} bytes: #{error.class}: #{error.message}\n  " \
                       "#{Array(error.backtrace).first(8).join("\n  ")}")
        raise Aborted, "JSON stream aborted after #{sent} bytes by #{error.class}: #{error.message}"
      end

      # As ActionDispatch reports an error raised before the first byte:
      # the error a template error wraps (ExceptionWrapper's unwrapping).
      def report(error, sent)
        return unless defined?(::Rails) && ::Rails.respond_to?(:error) && ::Rails.error

        error = ActionDispatch::ExceptionWrapper.new(nil, error).unwrapped_exception
        options = { handled: false, severity: :error, context: { json_stream_bytes_sent: sent } }
        options[:source] = "json_stream.jetson" if Streaming.report_takes_source?
        ::Rails.error.report(error, **options)
      end
    end

    # ActiveSupport::ErrorReporter#report has taken source: since 7.1.
    def self.report_takes_source?
      ::Rails.error.method(:report).parameters.any? { |_, name| name == :source }
    end

    # The document around its collections: relations and enumerators at
    # any depth of Hashes and Arrays are replaced by marker Strings, the
    # whole is encoded once by the app's encoder, and its text is cut at
    # the markers. The text between collections is then exactly what
    # `render json:` writes there, keys and escaping included.
    #
    # @api private
    module Envelope
      module_function

      def split(value, options)
        return [["", ""], [value]] if collection?(value)

        collections = []
        marker = Streaming.marker
        replaced = replace(value, collections, marker)
        raise ArgumentError, "json_stream: no relation or enumerator to stream in #{value.class}" if collections.empty?

        [Streaming.cut(ActiveSupport::JSON.encode(replaced, options), marker, collections.size), collections]
      end

      def collection?(value)
        (defined?(::ActiveRecord::Relation) && value.is_a?(::ActiveRecord::Relation)) || value.is_a?(::Enumerator)
      end

      def replace(value, collections, marker)
        if collection?(value)
          collections << value
          "#{marker}-#{collections.size - 1}"
        elsif value.is_a?(Hash)
          value.transform_values { |v| replace(v, collections, marker) }
        elsif value.is_a?(Array)
          value.map { |v| replace(v, collections, marker) }
        else
          value
        end
      end
    end

    # Reading a collection in batches. A relation goes through
    # find_in_batches (its primary key order, the options find_each takes);
    # its first batch can be read on its own and the rest resumed after its
    # last record, which is how the first batch is read in the action.
    #
    # @api private
    module Batches
      module_function

      def relation?(collection)
        defined?(::ActiveRecord::Relation) && collection.is_a?(::ActiveRecord::Relation)
      end

      def each(collection, size, options, &block)
        if relation?(collection)
          collection.find_in_batches(batch_size: size, **options, &block)
        else
          collection.each_slice(size, &block)
        end
      end

      # A single-column primary key and no limit or offset: the rest is
      # the relation past the first batch's last key.
      def resumable?(relation, options)
        relation.primary_key.is_a?(String) && relation.limit_value.nil? && relation.offset_value.nil? &&
          !options.key?(:cursor)
      end

      def first(relation, size, options)
        first = []
        relation.find_in_batches(batch_size: size, **options) do |records|
          first = records
          break
        end
        first
      end

      # The batches past the key value `after`, as find_in_batches reads
      # them: the relation ordered by its primary key, the next batch's
      # lower (or, descending, upper) bound the last key read. That bound
      # replaces the one before instead of adding to it: a relation
      # resumed as relation.where(id > first_last).find_in_batches has two
      # lower bounds in every query, and SQLite ranges over the first and
      # filters on the second, reading again every row since the first
      # batch (a million rows: 11 s of queries where 3 s do).
      def each_after(relation, after, size, options)
        key = relation.primary_key
        column = relation.arel_table[key]
        desc = Array(options[:order]).first == :desc
        base = relation.reorder(desc ? column.desc : column.asc).limit(size)
        base = base.where(desc ? column.gteq(options[:finish]) : column.lteq(options[:finish])) if options[:finish]
        # As ActiveRecord's batches: the query cache would keep every batch.
        base.skip_query_cache!
        loop do
          records = base.where(desc ? column.lt(after) : column.gt(after)).to_a
          yield records unless records.empty?
          break if records.size < size

          after = records.last.read_attribute(key)
        end
      end
    end
  end

  module Rails
    # {Jetson::Streaming} by the name it had before the layers got folders
    # of their own, under which the documentation named its error
    # (`Jetson::Rails::Streaming::Aborted`): code that rescues it by that
    # name keeps working.
    Streaming = ::Jetson::Streaming
  end
end
