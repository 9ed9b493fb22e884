# frozen_string_literal: true

# Routes and controllers of Kit::StreamingApp. Every stream has its
# non-streaming reference next to it, in the same app: `render json:` of the
# same records in the order the stream reads them, and the .json.jbuilder
# view that renders them with the same partial.
Kit::StreamingApp::Application.routes.draw do
  get "stream/:kind" => "streams#stream"
  get "reference/:kind" => "streams#reference"
  get "stats" => "streams#stats"
end

class StreamsController < ActionController::Base
  AS_JSON = { only: %i[id number total placed_at note], methods: :code }.freeze

  def stream
    options = { batch_size: Integer(params[:batch_size] || 1000) }
    case params[:kind]
    when "records" then render json_stream: relation, **options
    when "options" then render json_stream: relation, **options, **AS_JSON
    when "partial" then render json_stream: relation, **options, partial: "orders/order", as: :order
    when "envelope" then render json_stream: { meta: meta, data: relation }, **options, partial: "orders/order", as: :order
    when "enumerator" then render json_stream: relation.find_each(batch_size: 333), **options
    when "missing_column" then render json_stream: relation.select(:id, :no_such_column), **options
    when "view", "view_array" then stream_view(options)
    else head :not_found
    end
  end

  def reference
    @orders = relation.order(:id)
    @meta = meta
    case params[:kind]
    when "records", "enumerator" then render json: @orders
    when "options" then render json: @orders, **AS_JSON
    when "partial" then render "orders/index", formats: :json
    when "envelope" then render "orders/envelope", formats: :json
    when "view" then render "orders/stream_index", formats: :json
    when "view_array" then render "orders/index", formats: :json
    else head :not_found
    end
  end

  def stats
    Kit::StreamingApp::Stats.reset if params[:reset]
    GC.start if params[:gc] # bench/streaming.rb: each measured request starts on a collected heap
    render json: Kit::StreamingApp::Stats.to_h
  end

  private

  # The same views streamed (the jetson world; the jbuilder gem's has no
  # streamed views).
  def stream_view(options)
    @orders = relation.order(:id)
    @meta = meta
    template = params[:kind] == "view" ? "orders/stream_index" : "orders/index"
    render template, formats: :json, json_stream: true, **options
  end

  def relation
    model = params[:table] == "fault_orders" ? FaultOrder : Order
    params[:count] ? model.where(id: 1..Integer(params[:count])) : model.all
  end

  def meta
    { count: relation.count, title: "Orders <export> & \u2028 report", generated: Time.utc(2024, 5, 1, 12, 0, 0.5r) }
  end
end
