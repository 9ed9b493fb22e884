# frozen_string_literal: true

# Boots the host app (config/application.rb says how its gems load), asks
# for each path twice (a cache's miss, then its hit), and prints one JSON
# document: what rendered .json.jbuilder views, and each response.
require_relative "config/environment"

paths = %w[/shop/widgets.json /shop/widgets/1.json /shop/widgets/2.json /shop/widgets/3.json
           /shop/widgets/summary.json /status]
responses = 2.times.flat_map do |round|
  paths.map do |path|
    status, headers, body = Rails.application.call(Rack::MockRequest.env_for("http://example.org#{path}"))
    text = +""
    body.each { text << _1 }
    body.close if body.respond_to?(:close)
    { "round" => round, "path" => path, "status" => status, "type" => headers["content-type"], "body" => text }
  end
end

# Rails main dropped registered_template_handler: its handlers are
# ActionView::Template::Handlers.template_handlers.
template = ActionView::Template
handler = if template.respond_to?(:registered_template_handler)
            template.registered_template_handler(:jbuilder)
          else
            ActionView::Template::Handlers.template_handlers[:jbuilder]
          end
report = {
  "handler" => handler.respond_to?(:name) ? handler.name : handler.class.name,
  "jbuilder" => Jbuilder.ancestors.first(2).map(&:to_s),
  "template_has_helpers" => JbuilderTemplate.include?(WidgetEngine::JbuilderHelpers),
  "responses" => responses
}
if defined?(Jetson::Rails) && Jetson::Rails.respond_to?(:diagnostics)
  diagnostics = Jetson::Rails.diagnostics
  report["jbuilder_views"] = diagnostics[:jbuilder_views]
  report["partials"] = diagnostics[:partials]
end
puts JSON.generate(report)
