# frozen_string_literal: true

require "fileutils"

# Seeded random view trees for the views tests (random_test.rb): a directory
# of .json.jbuilder templates under random/, each root template built from
# the view calls apps make (keys, blocks, partial! in its call forms,
# collections of partials with as:, locals and counters, cached: collections,
# cache!/cache_if!, key_format!, ignore_nil!, deep_format_keys!, merge!,
# array! blocks), and partials that render other partials. The same seed
# writes the same files.
#
# Partials are typed by the local they take: post, comment or author, with
# the records Kit::ViewsApp's CasesController assigns (@posts_array, @post,
# @comments, @authors). A partial only renders partials of a higher number,
# so trees end.
class ViewsGenerator
  KINDS = { "post" => "Post", "comment" => "Comment", "author" => "Author" }.freeze
  ATTRIBUTES = {
    "post" => %w[id title body published_at rating draft created_at],
    "comment" => %w[id body mood created_at],
    "author" => %w[id name email bio born_on score]
  }.freeze
  # Keys repeat on purpose (a repeated key keeps its first place and last value).
  KEYS = %w[id name title meta data list items extra snake_key deep_value nothing a b].freeze

  def initialize(seed, partials: 8)
    @random = Random.new(seed)
    @partials = Array.new(partials) { |i| [i, KINDS.keys[i % KINDS.size]] }
    @cache_key = 0
  end

  # Writes templates random/t<i> and the partials into dir; returns the
  # template names.
  def write(dir, templates)
    FileUtils.mkdir_p(File.join(dir, "random"))
    @partials.each do |index, kind|
      File.write(File.join(dir, "random", "_p#{index}.json.jbuilder"), partial_source(index, kind))
    end
    Array.new(templates) do |i|
      File.write(File.join(dir, "random", "t#{i}.json.jbuilder"), root_source)
      "t#{i}"
    end
  end

  private

  def chance(p) = @random.rand < p
  def pick(list) = list[@random.rand(list.size)]

  def root_source
    lines = []
    lines << pick(["json.key_format! camelize: :lower", "json.key_format! :upcase"]) if chance(0.15)
    lines << "json.ignore_nil!" if chance(0.15)
    lines << "json.deep_format_keys!" if chance(0.1)
    if chance(0.2)
      lines << root_collection
    else
      lines.concat(statements("post", "@post", 0, 2 + @random.rand(5)))
    end
    "#{lines.join("\n")}\n"
  end

  def root_collection
    kind = pick(KINDS.keys)
    partial = partial_of(kind, -1)
    return "json.array! #{collection(kind)}, partial: \"random/p#{partial}\", as: :#{kind}" unless chance(0.3)

    "json.array! #{collection(kind)}, partial: \"random/p#{partial}\", as: :#{kind}, cached: true"
  end

  def partial_source(index, kind)
    lines = statements(kind, kind, index, 1 + @random.rand(4), partial: index)
    lines << "json.position #{kind}_counter if local_assigns.key?(:#{kind}_counter)" if chance(0.5)
    lines << "json.extra_local local_assigns[:extra]" if chance(0.4)
    "#{lines.join("\n")}\n"
  end

  # Statements about `record` (a Ruby expression of the given kind).
  def statements(kind, record, level, count, partial: -1)
    Array.new(count) { statement(kind, record, level, partial) }.flatten
  end

  def statement(kind, record, level, partial)
    deeper = level < 3
    case @random.rand(deeper ? 14 : 6)
    when 0, 1 then "json.#{pick(KEYS)} #{record}.#{pick(ATTRIBUTES[kind])}"
    when 2 then "json.#{pick(KEYS)} #{pick(['nil', '"<b>&amp;</b>"', '1.5', '[1, nil, "x"]', '{ "snake_key" => { "inner_key" => nil } }'])}"
    when 3 then "json.extract! #{record}, #{ATTRIBUTES[kind].sample(2, random: @random).map { |a| ":#{a}" }.join(', ')}"
    when 4 then "json.merge!({ #{pick(KEYS).dump} => #{pick(['1', 'nil', '[2]', '{ "deep_value" => 3 }'])} })"
    when 5 then "json.set! #{pick(KEYS).dump}, #{record}.id"
    when 6, 7 then partial_call(kind, record, level, partial)
    when 8 then collection_call(level, partial)
    when 9 then block(kind, record, level, partial)
    when 10 then cache_block(kind, record, level, partial)
    when 11 then array_block(level, partial)
    when 12 then inline_object(kind, record, partial)
    else "json.#{pick(KEYS)} #{record}.id"
    end
  end

  def block(kind, record, level, partial)
    ["json.#{pick(KEYS)} do", *indent(statements(kind, record, level + 1, 1 + @random.rand(3), partial: partial)), "end"]
  end

  def cache_block(kind, record, level, partial)
    @cache_key += 1
    key = "[\"r#{@cache_key}\", #{record}]"
    inner = indent(statements(kind, record, level + 1, 1 + @random.rand(3), partial: partial))
    if chance(0.25)
      ["json.cache_if! #{pick(%w[true false])}, #{key} do", *inner, "end"]
    else
      ["json.cache! #{key}#{chance(0.3) ? ', expires_in: 300' : ''} do", *inner, "end"]
    end
  end

  # `json.partial!` in one of its call forms, rendering a partial of a
  # higher number for a record of its kind.
  def partial_call(kind, record, level, partial)
    target = partial_of(kind, partial)
    return "json.#{pick(KEYS)} #{record}.id" unless target

    name = "random/p#{target}"
    target_kind = @partials[target][1]
    object = object_of(target_kind, kind, record)
    extra = chance(0.3) ? ", extra: #{pick(['1', '"x"', 'nil'])}" : ""
    call = case @random.rand(4)
           when 0 then "json.partial! #{name.dump}, #{target_kind}: #{object}#{extra}"
           when 1 then "json.partial! #{name.dump}, locals: { #{target_kind}: #{object}#{extra} }"
           when 2 then "json.partial! partial: #{name.dump}, locals: { #{target_kind}: #{object}#{extra} }"
           else "json.partial! partial: #{name.dump}, #{target_kind}: #{object}#{extra}"
           end
    return call if chance(0.6) || level >= 3

    ["json.#{pick(KEYS)} do", "  #{call}", "end"]
  end

  # A collection of partials under a key, or as the key's array! block.
  def collection_call(level, partial)
    kind = pick(KINDS.keys)
    target = partial_of(kind, partial)
    return "json.#{pick(KEYS)} @post.id" unless target

    options = "partial: \"random/p#{target}\", as: :#{kind}"
    options += ", cached: true" if chance(0.25)
    options += ", extra: 7" if chance(0.2)
    case @random.rand(3)
    when 0 then "json.#{pick(KEYS)} #{collection(kind)}, #{options}"
    when 1 then ["json.#{pick(KEYS)} do", "  json.array! #{collection(kind)}, #{options}", "end"]
    else ["json.#{pick(KEYS)} do", "  json.partial! collection: #{collection(kind)}, #{options}", "end"]
    end
  end

  def inline_object(kind, record, partial)
    target_kind = pick(KINDS.keys)
    target = partial_of(target_kind, partial)
    return "json.#{pick(KEYS)} #{record}.id" unless target

    object = chance(0.15) ? "nil" : object_of(target_kind, kind, record)
    "json.#{pick(KEYS)} #{object}, partial: \"random/p#{target}\", as: :#{target_kind}"
  end

  def array_block(level, partial)
    kind = pick(KINDS.keys)
    var = "#{kind}#{level}"
    ["json.#{pick(KEYS)} #{collection(kind)} do |#{var}|",
     *indent(statements(kind, var, level + 1, 1 + @random.rand(2), partial: partial)), "end"]
  end

  def partial_of(kind, above)
    candidates = @partials.select { |index, k| k == kind && index > above }.map(&:first)
    candidates.empty? ? nil : pick(candidates)
  end

  # A record of `kind`, reached from `record` (of `from`) where the schema
  # allows, else one of the assigned records.
  def object_of(kind, from, record)
    case [from, kind]
    when %w[post author], %w[comment author] then "#{record}.author"
    when %w[comment post] then "#{record}.post"
    else { "post" => "@post", "comment" => "@comments.first", "author" => "@authors.last" }.fetch(kind)
    end
  end

  def collection(kind)
    case kind
    when "post" then pick(["@posts_array.first(#{@random.rand(5)})", "@posts", "@empty", "@counting"])
    when "comment" then pick(["@comments.first(#{@random.rand(6)})", "@posts_array[#{@random.rand(12)}].comments", "@empty"])
    else pick(["@authors", "@authors.to_a.last(2)", "nil"])
    end
  end

  def indent(lines) = lines.map { |line| "  #{line}" }
end
