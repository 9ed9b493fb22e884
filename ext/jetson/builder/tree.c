/* Jetson::Builder's tree: Jbuilder's Hash-and-Array document as C nodes, and
 * Jbuilder's operations on it with the semantics of the Ruby objects they
 * stand for (Hash#[]=, Array#+, ActiveSupport's Hash#deep_merge). Values
 * that are not plain Hashes or Arrays, and the rare operations only Ruby
 * defines (a Hash subclass's deep_merge, `empty?` on a leaf), go through the
 * Ruby objects themselves. See builder.h. */

#include "builder/builder.h"
#include "rails/walk.h"
#include "json/raw_json.h"

/* The builder is write-barrier protected: every VALUE stored into its arrays
 * is announced to the GC. */
static inline void hold(jb_builder *b, VALUE v)
{
    RB_OBJ_WRITTEN(b->self, Qundef, v);
}

static void *grow(void *ptr, int32_t *capa, size_t size, int32_t need)
{
    if (need <= *capa) return ptr;
    if (need > INT32_MAX / 2) rb_raise(rb_eNoMemError, "Jetson::Builder: document too large");
    int32_t capa2 = *capa ? *capa : 16;
    while (capa2 < need) capa2 *= 2;
    ptr = ruby_xrealloc2(ptr, (size_t)capa2, size);
    *capa = capa2;
    return ptr;
}

/* The arrays grow by doubling; once the document is written (target!) they
 * are trimmed to what they hold: a builder is rarely written to again, and
 * what it keeps until the GC frees it is then only its document. */
void jb_trim(jb_builder *b)
{
    if (b->entry_capa > b->entry_count && b->entry_count > 0) {
        b->entries = ruby_xrealloc2(b->entries, (size_t)b->entry_count, sizeof(jb_entry));
        b->entry_capa = b->entry_count;
    }
    if (b->node_capa > b->node_count && b->node_count > 0) {
        b->nodes = ruby_xrealloc2(b->nodes, (size_t)b->node_count, sizeof(jb_node));
        b->node_capa = b->node_count;
    }
}

int32_t jb_new_node(jb_builder *b, enum jb_node_kind kind)
{
    b->nodes = grow(b->nodes, &b->node_capa, sizeof(jb_node), b->node_count + 1);
    int32_t i = b->node_count++;
    b->nodes[i] = (jb_node){ .kind = (uint8_t)kind, .first = -1, .last = -1 };
    return i;
}

static int32_t new_entry(jb_builder *b, int32_t node, jb_key key, jb_slot slot)
{
    b->entries = grow(b->entries, &b->entry_capa, sizeof(jb_entry), b->entry_count + 1);
    int32_t i = b->entry_count++;
    b->entries[i] = (jb_entry){ .key = key.key, .value = slot.value, .node = slot.node, .link = key.kind };
    hold(b, key.key);
    hold(b, slot.value);
    jb_node *n = &b->nodes[node];
    if (n->last >= 0) {
        b->entries[n->last].link = (uint32_t)(i + 1) << 1 | jb_kind(&b->entries[n->last]);
    } else {
        n->first = i;
    }
    n->last = i;
    n->count++;
    if (key.kind == JB_KEY_RAW) {
        n->raw_keys = true;
        if (!RB_TYPE_P(key.key, T_STRING) || RBASIC_CLASS(key.key) != rb_cString) n->other_keys = true;
    }
    return i;
}

jb_slot jb_node_slot(int32_t node)
{
    return (jb_slot){ .value = Qnil, .node = node };
}

static inline bool is_node(jb_builder *b, jb_slot s, enum jb_node_kind kind)
{
    return s.node >= 0 && b->nodes[s.node].kind == kind;
}

static inline bool is_raw(jb_slot s, char open)
{
    return s.node == JB_RAW && RSTRING_PTR(s.value)[0] == open;
}

/* A Hash Jetson holds natively: a node, or a raw object (both stand for a
 * plain Hash with String keys). */
static inline bool is_native_hash(jb_builder *b, jb_slot s)
{
    return is_node(b, s, JB_HASH) || is_raw(s, '{');
}

bool jb_is_array(jb_builder *b, jb_slot s)
{
    return is_node(b, s, JB_ARRAY) || is_raw(s, '[') ||
           (s.node == JB_LEAF && jb_array_p(s.value));
}

static bool is_hash(jb_builder *b, jb_slot s)
{
    return is_native_hash(b, s) || (s.node == JB_LEAF && jb_hash_p(s.value));
}

/* Ruby's `value.empty?` (Jbuilder's Blank answers true). */
static bool is_empty(jb_builder *b, jb_slot s)
{
    if (s.node >= 0) return b->nodes[s.node].count == 0;
    if (s.node == JB_BLANK) return true;
    if (s.node == JB_RAW) return jt_raw_json_empty_p(RSTRING_PTR(s.value), RSTRING_LEN(s.value));
    return RTEST(rb_funcall(jb_materialize(b, s), jb.id_empty_p, 0));
}

/* ActiveSupport's `value.present?`, for cache_root!'s "nothing written yet". */
bool jb_present(jb_builder *b, jb_slot s)
{
    if (s.node >= 0) return b->nodes[s.node].count > 0;
    if (s.node == JB_BLANK) return false;
    if (s.node == JB_RAW) return !jt_raw_json_empty_p(RSTRING_PTR(s.value), RSTRING_LEN(s.value));
    return RTEST(rb_funcall(jb_materialize(b, s), jb.id_present_p, 0));
}

/* A fragment read back from a cache (checked by the caller with
 * jt_raw_json_fragment_p). Only the shape the tree code relies on is checked
 * here; everything that reads a fragment stays within its bytes anyway. */
jb_slot jb_fragment_slot(VALUE text)
{
    if (!RB_TYPE_P(text, T_STRING) || RSTRING_LEN(text) < 2 ||
        (RSTRING_PTR(text)[0] != '{' && RSTRING_PTR(text)[0] != '[')) {
        rb_raise(rb_eArgError, "Jetson: a JSON fragment must be an object or an array");
    }
    return jb_raw(rb_str_new_frozen(text));
}

void jb_array_push(jb_builder *b, int32_t node, jb_slot item)
{
    new_entry(b, node, (jb_key){ .key = Qnil, .kind = JB_KEY_NAME }, item);
}

VALUE jb_key_object(jb_key key)
{
    return key.kind == JB_KEY_NAME ? rb_sym2str(key.key) : key.key;
}

/* Hash#eql? between keys, for nodes whose keys are not all Symbol names
 * (those compare by identity, which the caller tried first). */
static bool keys_eql(jb_key a, jb_key b)
{
    if (a.kind == JB_KEY_NAME && b.kind == JB_KEY_NAME) return a.key == b.key;
    VALUE x = jb_key_object(a), y = jb_key_object(b);
    return x == y || rb_eql(x, y);
}

int32_t jb_hash_find(jb_builder *b, int32_t node, jb_key key)
{
    for (int32_t i = b->nodes[node].first; i >= 0; i = jb_next(&b->entries[i])) {
        if (b->entries[i].key == key.key && jb_kind(&b->entries[i]) == key.kind) return i;
    }
    if (key.kind == JB_KEY_NAME && !b->nodes[node].raw_keys) return -1;
    for (int32_t i = b->nodes[node].first; i >= 0; i = jb_next(&b->entries[i])) {
        jb_key other = { .key = b->entries[i].key, .kind = jb_kind(&b->entries[i]) };
        if (keys_eql(other, key)) return i;
    }
    return -1;
}

static void set_slot(jb_builder *b, int32_t entry, jb_slot slot)
{
    b->entries[entry].value = slot.value;
    b->entries[entry].node = slot.node;
    hold(b, slot.value);
}

/* Hash#[]=: an existing key keeps its place and takes the value. */
void jb_hash_set(jb_builder *b, int32_t node, jb_key key, jb_slot value)
{
    int32_t i = jb_hash_find(b, node, key);
    if (i >= 0) {
        set_slot(b, i, value);
    } else {
        new_entry(b, node, key, value);
    }
}

/* A plain Array or Hash leaf becomes a node when the tree has to change it
 * (Jbuilder would change the Ruby object itself; the node is a copy, so an
 * app that changes its own Array afterwards does not see Jbuilder's
 * additions in it, and Jetson's output does not see the app's). Subclasses
 * stay Ruby objects, with their own methods. */
struct adopt_hash {
    jb_builder *b;
    int32_t node;
};

static int adopt_hash_i(VALUE key, VALUE value, VALUE data)
{
    struct adopt_hash *a = (struct adopt_hash *)data;
    new_entry(a->b, a->node, (jb_key){ .key = key, .kind = JB_KEY_RAW }, jb_leaf(value));
    return ST_CONTINUE;
}

/* A raw fragment as a node of its top-level members: keys are decoded,
 * objects and arrays stay raw text, scalars become Ruby values. Jetson's own
 * fragments have no repeated keys, so members are appended as they come. */
static int32_t split_fragment(jb_builder *b, VALUE text)
{
    jt_raw_iter it;
    jt_raw_iter_init(&it, RSTRING_PTR(text), RSTRING_LEN(text));
    int32_t node = jb_new_node(b, it.object ? JB_HASH : JB_ARRAY);
    long key_off, key_len, val_off, val_len;
    /* The text is pinned (marked by the builder or held on this stack), but
     * its pointer is read again after every allocation all the same. */
    while (jt_raw_iter_next(&it, RSTRING_PTR(text), &key_off, &key_len, &val_off, &val_len)) {
        char open = RSTRING_PTR(text)[val_off];
        jb_slot value = open == '{' || open == '['
                            ? jb_raw(rb_obj_freeze(rb_str_subseq(text, val_off, val_len)))
                            : jb_leaf(jt_raw_json_scalar(RSTRING_PTR(text) + val_off, val_len));
        if (it.object) {
            VALUE key = rb_str_to_interned_str(jt_raw_json_string(RSTRING_PTR(text) + key_off, key_len));
            new_entry(b, node, (jb_key){ .key = key, .kind = JB_KEY_RAW }, value);
        } else {
            jb_array_push(b, node, value);
        }
        RB_GC_GUARD(value.value);
    }
    RB_GC_GUARD(text);
    return node;
}

jb_slot jb_adopt_hash(jb_builder *b, jb_slot s)
{
    if (is_raw(s, '{')) return jb_node_slot(split_fragment(b, s.value));
    if (s.node != JB_LEAF || !RB_TYPE_P(s.value, T_HASH) || RBASIC_CLASS(s.value) != rb_cHash) return s;
    struct adopt_hash a = { .b = b, .node = jb_new_node(b, JB_HASH) };
    rb_hash_foreach(s.value, adopt_hash_i, (VALUE)&a);
    RB_GC_GUARD(s.value);
    return jb_node_slot(a.node);
}

jb_slot jb_adopt_array(jb_builder *b, jb_slot s)
{
    if (is_raw(s, '[')) return jb_node_slot(split_fragment(b, s.value));
    if (s.node != JB_LEAF || !RB_TYPE_P(s.value, T_ARRAY) || RBASIC_CLASS(s.value) != rb_cArray) return s;
    int32_t node = jb_new_node(b, JB_ARRAY);
    for (long i = 0; i < RARRAY_LEN(s.value); i++) jb_array_push(b, node, jb_leaf(RARRAY_AREF(s.value, i)));
    RB_GC_GUARD(s.value);
    return jb_node_slot(node);
}

/* --- merging ------------------------------------------------------------- */

static jb_slot deep_merge(jb_builder *b, jb_slot current, jb_slot updates);

/* ActiveSupport's deep_merge! step for one pair of `updates`: a key both
 * have merges deeply when the current value is a Hash and the new one is a
 * Hash too (deep_merge? is `other.is_a?(self.class)`); otherwise the new value
 * replaces it in place. */
static void deep_merge_pair(jb_builder *b, int32_t node, jb_key key, jb_slot value)
{
    int32_t i = jb_hash_find(b, node, key);
    if (i < 0) {
        new_entry(b, node, key, value);
        return;
    }
    jb_slot current = jb_entry_slot(&b->entries[i]);
    bool merges;
    if (current.node >= 0 || current.node == JB_RAW) {
        merges = is_native_hash(b, current) && is_hash(b, value);
    } else if (current.node == JB_LEAF && RB_TYPE_P(current.value, T_HASH)) {
        VALUE other = value.node == JB_LEAF ? value.value : Qundef;
        merges = other == Qundef ? is_native_hash(b, value) && RBASIC_CLASS(current.value) == rb_cHash
                                 : RTEST(rb_obj_is_kind_of(other, rb_obj_class(current.value)));
    } else {
        merges = false;
    }
    if (merges) value = deep_merge(b, current, value);
    set_slot(b, i, value);
}

struct merge_pairs {
    jb_builder *b;
    int32_t node;
};

static int deep_merge_hash_i(VALUE key, VALUE value, VALUE data)
{
    struct merge_pairs *m = (struct merge_pairs *)data;
    deep_merge_pair(m->b, m->node, (jb_key){ .key = key, .kind = JB_KEY_RAW }, jb_leaf(value));
    return ST_CONTINUE;
}

/* current.deep_merge(updates), both Hashes. A plain Hash (or node) is merged
 * in place as a node; a Hash subclass keeps its own deep_merge. */
static jb_slot deep_merge(jb_builder *b, jb_slot current, jb_slot updates)
{
    current = jb_adopt_hash(b, current);
    if (current.node < 0) {
        VALUE merged = rb_funcall(current.value, jb.id_deep_merge, 1, jb_materialize(b, updates));
        return jb_leaf(merged);
    }
    if (updates.node == JB_RAW) updates = jb_node_slot(split_fragment(b, updates.value));
    if (updates.node >= 0) {
        for (int32_t i = b->nodes[updates.node].first; i >= 0; i = jb_next(&b->entries[i])) {
            jb_entry e = b->entries[i];
            deep_merge_pair(b, current.node, (jb_key){ .key = e.key, .kind = jb_kind(&e) }, jb_entry_slot(&e));
        }
    } else {
        struct merge_pairs m = { .b = b, .node = current.node };
        rb_hash_foreach(updates.value, deep_merge_hash_i, (VALUE)&m);
        RB_GC_GUARD(updates.value);
    }
    return current;
}

NORETURN(static void raise_merge_error(jb_builder *b, jb_slot current, jb_slot updates));
static void raise_merge_error(jb_builder *b, jb_slot current, jb_slot updates)
{
    VALUE klass = rb_const_get(rb_obj_class(b->self), jb.id_merge_error);
    VALUE error = rb_funcall(klass, jb.id_build, 2, jb_materialize(b, current), jb_materialize(b, updates));
    rb_exc_raise(error);
}

/* Jbuilder's _merge_values. */
jb_slot jb_merge_values(jb_builder *b, jb_slot current, jb_slot updates)
{
    if (jb_is_blank(updates)) return current;
    if (jb_is_blank(current) || jb_is_nil(updates) || (is_empty(b, current) && jb_is_array(b, updates))) return updates;
    /* {}.deep_merge(fragment) is the fragment: keep it as text */
    if (is_node(b, current, JB_HASH) && b->nodes[current.node].count == 0 && is_raw(updates, '{')) return updates;
    if (jb_is_array(b, current) && jb_is_array(b, updates)) {
        current = jb_adopt_array(b, current);
        updates = jb_adopt_array(b, updates);
        if (current.node < 0 || updates.node < 0) {
            VALUE sum = rb_funcall(jb_materialize(b, current), jb.id_plus, 1, jb_materialize(b, updates));
            return jb_leaf(sum);
        }
        /* current + updates, into current: neither is referenced elsewhere */
        int32_t node = jb_new_node(b, JB_ARRAY);
        for (int32_t i = b->nodes[current.node].first; i >= 0; i = jb_next(&b->entries[i])) {
            jb_array_push(b, node, jb_entry_slot(&b->entries[i]));
        }
        for (int32_t i = b->nodes[updates.node].first; i >= 0; i = jb_next(&b->entries[i])) {
            jb_array_push(b, node, jb_entry_slot(&b->entries[i]));
        }
        return jb_node_slot(node);
    }
    if (is_hash(b, current) && is_hash(b, updates)) return deep_merge(b, current, updates);
    raise_merge_error(b, current, updates);
}

/* --- Ruby objects -------------------------------------------------------- */

/* The Ruby value Jbuilder would hold: Hashes with String keys, Arrays. */
VALUE jb_materialize(jb_builder *b, jb_slot s)
{
    if (s.node == JB_LEAF) return s.value;
    if (s.node == JB_BLANK) return jb.blank;
    if (s.node == JB_RAW) return rb_funcall(b->self, jb.id_parse_json, 1, s.value);
    if (jb_is_cast(s)) return jb_cast_value(b, s);
    int32_t node = s.node;
    if (b->nodes[node].kind == JB_ARRAY) {
        VALUE ary = rb_ary_new_capa(b->nodes[node].count);
        for (int32_t i = b->nodes[node].first; i >= 0; i = jb_next(&b->entries[i])) {
            rb_ary_push(ary, jb_materialize(b, jb_entry_slot(&b->entries[i])));
        }
        return ary;
    }
    VALUE hash = rb_hash_new();
    for (int32_t i = b->nodes[node].first; i >= 0; i = jb_next(&b->entries[i])) {
        jb_key key = { .key = b->entries[i].key, .kind = jb_kind(&b->entries[i]) };
        VALUE value = jb_materialize(b, jb_entry_slot(&b->entries[i]));
        rb_hash_aset(hash, jb_key_object(key), value);
    }
    return hash;
}

/* --- JSON ------------------------------------------------------------------ */

static void write_slot(jt_gen *g, jb_builder *b, jb_slot s);

static void write_hash(jt_gen *g, jb_builder *b, int32_t node)
{
    jt_enter_container(g);
    if (b->nodes[node].count == 0) {
        jt_buffer_append(g->buf, "{}", 2);
        --g->depth;
        return;
    }
    jt_buffer_push(g->buf, '{');
    bool first = true;
    /* b->entries is read again after each value: encoding it runs Ruby code
     * (as_json), which may make the arrays grow. */
    for (int32_t i = b->nodes[node].first; i >= 0; i = jb_next(&b->entries[i])) {
        if (!first) jt_buffer_push(g->buf, ',');
        first = false;
        jb_key key = { .key = b->entries[i].key, .kind = jb_kind(&b->entries[i]) };
        jt_gen_string(g, jb_key_object(key), false);
        jt_buffer_push(g->buf, ':');
        write_slot(g, b, jb_entry_slot(&b->entries[i]));
    }
    --g->depth;
    jt_buffer_push(g->buf, '}');
}

static void write_array(jt_gen *g, jb_builder *b, int32_t node)
{
    jt_enter_container(g);
    if (b->nodes[node].count == 0) {
        jt_buffer_append(g->buf, "[]", 2);
        --g->depth;
        return;
    }
    jt_buffer_push(g->buf, '[');
    bool first = true;
    for (int32_t i = b->nodes[node].first; i >= 0; i = jb_next(&b->entries[i])) {
        if (!first) jt_buffer_push(g->buf, ',');
        first = false;
        write_slot(g, b, jb_entry_slot(&b->entries[i]));
    }
    --g->depth;
    jt_buffer_push(g->buf, ']');
}

static void write_slot(jt_gen *g, jb_builder *b, jb_slot s)
{
    if (s.node == JB_LEAF) {
        jt_gen_value(g, s.value);
    } else if (s.node == JB_RAW) {
        /* the text is marked by the builder (pinned), so growing the buffer
         * cannot move or free it while it is copied */
        jt_buffer_append(g->buf, RSTRING_PTR(s.value), (size_t)RSTRING_LEN(s.value));
    } else if (s.node == JB_BLANK) {
        jt_gen_value(g, jb.blank);
    } else if (jb_is_cast(s)) {
        jb_write_cast(g, b, s);
    } else if (b->nodes[s.node].kind == JB_ARRAY) {
        write_array(g, b, s.node);
    } else if (RB_UNLIKELY(b->nodes[s.node].other_keys)) {
        /* Keys that ActiveSupport turns into Strings, and that may then
         * collide: the Hash Jbuilder would have goes through the Rails walk. */
        VALUE hash = jb_materialize(b, s);
        jt_gen_value(g, hash);
        RB_GC_GUARD(hash);
    } else {
        write_hash(g, b, s.node);
    }
}

/* jt_write_fn for jt_generate_rails_with: what _capture! kept (a cache!
 * block's object, a collection element). */
void jb_write_captured(struct jt_gen *g, VALUE self)
{
    jb_builder *b = jb_get(self);
    write_slot(g, b, b->captured);
    RB_GC_GUARD(self);
}

/* jt_write_fn for jt_generate_rails_with: the whole document. */
void jb_write(struct jt_gen *g, VALUE self)
{
    jb_builder *b = jb_get(self);
    write_slot(g, b, b->current);
    RB_GC_GUARD(self);
}
