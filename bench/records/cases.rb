# frozen_string_literal: true

# The cases of bench/records.rb, as plain data (code Strings) that the parent
# and every world process build alike: the parent to list, filter, check and
# report; a world to compile and run the contenders of its own world.
module RecordsBench
  # world:   "jetson" (jetson/jbuilder, jetson/rails, the serializers) or
  #          "jbuilder" (the jbuilder gem): the two define ::Jbuilder, so each
  #          is a process of its own
  # role:    :stock (ActiveSupport's encoder), :subject (Jetson), :gem (the
  #          jbuilder gem), :peer (a serializer), :floor (load only)
  # encoder: ActiveSupport.json_encoder while it runs: "stock" or "jetson"
  # check:   nil (the case's reference, or a floor); [:bytes, label]: must be
  #          byte-identical to label's output (else the run aborts);
  #          [:parsed, label]: compared after JSON.parse (differences are notes)
  # code:    Ruby run per call; `data[0]` is the collection loaded once
  Contender = Struct.new(:label, :world, :role, :encoder, :code, :check, :note, keyword_init: true) do
    def floor? = role == :floor
  end

  # mode:  :fresh (every call loads the records: the query is in the code) or
  #        :loaded (the collection is loaded, and every value read, before
  #        the slice; `load` is that query)
  Case = Struct.new(:id, :group, :mode, :title, :load, :contenders, keyword_init: true) do
    def name = "#{id} #{mode}"
    def fresh? = mode == :fresh
    def contender(label) = contenders.find { |c| c.label == label }
    def floor = contenders.find { |c| c.floor? && c.world == "jetson" }
  end

  # --oj (bench/records.rb sets JETSON_BENCH_OJ for the worlds too): the app
  # called Oj.optimize_rails; A's stock encoder is Oj's and Jetson's is
  # Jetson::OjEncoder, which the Railtie puts in its place (Oj's bytes).
  OJ = ENV["JETSON_BENCH_OJ"] == "1"
  STOCK = OJ ? "Oj::Rails::Encoder" : "ActiveSupport (stock)"
  JETSON = OJ ? "Jetson::OjEncoder" : "Jetson::RailsEncoder"
  FLOOR = "floor: load only"
  FLOOR_JBUILDER = "floor: load only (jbuilder world)"
  MODES = %i[fresh loaded].freeze

  POSTS_WITH_COMMENTS = "Post.includes(:comments).order(:id)"
  B_POSTS = "Post.includes(:comments, :commenters).order(:id)"

  # [id, title, the records as the call gets them, the call with %s for them]
  A_SHAPES = [
    ["A1", "posts.to_json(include: :comments): an Array of 100 posts, comments preloaded",
     "#{POSTS_WITH_COMMENTS}.to_a", "%s.to_json(include: :comments)"],
    ["A2", "the same as a relation: #{POSTS_WITH_COMMENTS}.to_json(include: :comments), loaded by the call",
     POSTS_WITH_COMMENTS, "%s.to_json(include: :comments)"],
    ["A3", "posts.map(&:comments).to_json: 2,000 comments through the 100 loaded association proxies",
     "#{POSTS_WITH_COMMENTS}.to_a", "%s.map(&:comments).to_json"],
    ["A4", "posts.map { |p| p.comments.to_a }.to_json: the same 2,000 as Arrays",
     "#{POSTS_WITH_COMMENTS}.to_a", "%s.map { |p| p.comments.to_a }.to_json"],
    ["A5", "Comment.all.to_json: a relation of 2,000 rows, loaded by the call", "Comment.all", "%s.to_json"],
    ["A6", "Comment.all.to_a.to_json", "Comment.all.to_a", "%s.to_json"],
    *(if OJ
        # render json: hands to_json its options (an Oj app's common call);
        # the serializer projects' to_json with only:, methods: and include:.
        [["A7", "render json: Comment.all (to_json(prefixes:, template:), the options render passes)", "Comment.all",
          "%s.to_json(prefixes: [\"comments\"], template: \"index\")"],
         ["A8", "Post.includes(:comments, :commenters).to_json(only: [:id, :body], methods: :commenter_names, " \
                "include: :comments)", "Post.includes(:comments, :commenters).order(:id)",
          "%s.to_json(only: [:id, :body], methods: :commenter_names, include: :comments)"]]
      else
        []
      end)
  ].freeze

  B_TITLE = "the serializer projects' collection: #{B_POSTS}; per post id, body, commenter_names and " \
            "comments (each comment's as_json: all its attributes)"
  B_FIELDS = ":id, :body, :commenter_names, :comments"
  B_FORMS = {
    "to_builder" => "Jbuilder.new { |json| json.array!(%s) { |post| json.post post.to_builder } }.target!",
    "extract!" => "Jbuilder.new { |json| json.array!(%s) { |post| json.extract! post, #{B_FIELDS} } }.target!",
    "array! names" => "Jbuilder.new { |json| json.array!(%s, #{B_FIELDS}) }.target!"
  }.freeze
  GEM_REFERENCE = "jbuilder gem: extract!"
  TO_JSON_OPTIONS = "only: [:id, :body], methods: :commenter_names, include: :comments"
  TO_JSON_STOCK = "to_json, #{STOCK}".freeze

  module_function

  # A relation is loaded by the call; the floor loads the same query (to_a).
  def floor_query(query) = query.end_with?(".to_a") ? query : "#{query}.to_a"

  # A collection loaded once: a relation stays a (loaded) relation.
  def load_query(query) = query.end_with?(".to_a") ? query : "#{query}.load"

  def records_code(kase_mode, query) = kase_mode == :fresh ? query : "data[0]"

  def floors(mode, query, worlds)
    return [] unless mode == :fresh

    note = "the same query, the records loaded (#{floor_query(query)}), nothing read or encoded"
    worlds.map do |world|
      Contender.new(label: world == "jetson" ? FLOOR : FLOOR_JBUILDER, world: world, role: :floor,
                    encoder: "stock", code: floor_query(query), note: note)
    end
  end

  def a_cases
    A_SHAPES.product(MODES).map do |(id, title, query, call), mode|
      code = format(call, records_code(mode, query))
      Case.new(id: id, group: "A", mode: mode, title: title, load: load_query(query), contenders: [
        Contender.new(label: STOCK, world: "jetson", role: :stock, encoder: "stock", code: code),
        Contender.new(label: JETSON, world: "jetson", role: :subject, encoder: "jetson", code: code,
                      check: [:bytes, STOCK]),
        *floors(mode, query, %w[jetson])
      ])
    end
  end

  def b_cases
    MODES.map do |mode|
      posts = records_code(mode, B_POSTS)
      forms = B_FORMS.flat_map do |form, code|
        [Contender.new(label: "jbuilder gem: #{form}", world: "jbuilder", role: :gem, encoder: "stock",
                       code: format(code, posts), check: form == "extract!" ? nil : [:shape, form]),
         Contender.new(label: "jetson/jbuilder: #{form}", world: "jetson", role: :subject, encoder: "stock",
                       code: format(code, posts), check: [:bytes, "jbuilder gem: #{form}"])]
      end
      Case.new(id: "B", group: "B", mode: mode, title: B_TITLE, load: load_query(B_POSTS), contenders: [
        *forms,
        Contender.new(label: "panko", world: "jetson", role: :peer, encoder: "stock", check: [:parsed, GEM_REFERENCE],
                      code: "Panko::ArraySerializer.new(#{posts}, each_serializer: RecordsBench::PankoPost).to_json"),
        Contender.new(label: "alba", world: "jetson", role: :peer, encoder: "stock", check: [:parsed, GEM_REFERENCE],
                      code: "RecordsBench::AlbaPost.new(#{posts}).serialize"),
        Contender.new(label: "blueprinter", world: "jetson", role: :peer, encoder: "stock",
                      check: [:parsed, GEM_REFERENCE], code: "RecordsBench::PostBlueprint.render(#{posts})"),
        Contender.new(label: TO_JSON_STOCK, world: "jetson", role: :stock, encoder: "stock",
                      check: [:parsed, GEM_REFERENCE], code: "#{posts}.to_json(#{TO_JSON_OPTIONS})"),
        Contender.new(label: "to_json, #{JETSON}", world: "jetson", role: :subject, encoder: "jetson",
                      check: [:bytes, TO_JSON_STOCK], code: "#{posts}.to_json(#{TO_JSON_OPTIONS})"),
        *floors(mode, B_POSTS, %w[jetson jbuilder])
      ])
    end
  end

  def cases = a_cases + b_cases

  # The case's reference output: the stock encoder's (A), the jbuilder gem's
  # extract! (B).
  def reference_label(kase) = kase.group == "A" ? STOCK : GEM_REFERENCE
end
