# frozen_string_literal: true

# Set in an initializer, as apps do: every key of every view in camelCase.
Jbuilder.key_format camelize: :lower
