# The view's variables inside a collection's elements and after it, as
# ActionView's _run sets and puts them back (cases/_view_state).
json.before @virtual_path
json.items @posts_array, partial: "cases/view_state", as: :item
json.after_path @virtual_path
json.after_template @current_template&.virtual_path
json.after_buffer @output_buffer.class.name
json.array_form do
  json.array! @posts_array.first(2), partial: "cases/view_state", as: :item
end
json.last_path @virtual_path
