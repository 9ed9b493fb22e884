# What ActionView's _run leaves in the view's variables around each element
# of a collection and around a partial rendered inside one.
json.id item.id
json.path @virtual_path
json.template @current_template&.virtual_path
json.buffer @output_buffer.class.name
json.author item.author, partial: "authors/author", as: :author if item.respond_to?(:author)
json.after_inner_path @virtual_path
json.after_inner_template @current_template&.virtual_path
