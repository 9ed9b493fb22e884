# frozen_string_literal: true

# RandomGraph builds random Ruby object graphs (and random generator option
# sets) for differential testing of Jetson against the json gem.
#
# A document is first produced as a *spec*: a tree of small Arrays that
# describes the graph without creating any side-specific object.  The spec is
# then materialized twice, once for the json gem side and once for the Jetson
# side, so that side-specific classes (JSON::Fragment vs Jetson::Fragment) map
# correctly and neither side can observe mutations made by the other.
#
# Spec nodes ([tag, ...]):
#   [:lit, value]                         nil/true/false/Integer/Float/Symbol (shared)
#   [:str, bytes, encoding, frozen, klass] a String (klass nil or a String subclass)
#   [:arr, klass, children, id]           an Array (klass nil or an Array subclass)
#   [:hash, klass, pairs, id]             a Hash; pairs is [[key_spec, value_spec], ...]
#   [:obj, klass, payload, children]      a custom object: klass.new(payload, *materialized children)
#   [:misc, key]                          a core object without its own to_json (Range, Rational, ...)
#   [:frag, json, json_on_both]           JSON::Fragment / Jetson::Fragment (JSON::Fragment on
#                                         both sides when json_on_both is true)
#   [:ref, id]                            the already-built Array/Hash with that id (cycles, DAG sharing)
#
# Everything is driven by a Random, so a seed reproduces a document exactly.
#
# The parts, in load order (each uses the constants of those before it):
#   graph_objects.rb       custom classes, MISC, AS_JSON and SORT_KEYS procs
#   graph_pair.rb          a spec built on both sides (Pair, make_string)
#   reproducer_source.rb   a spec and an option set as Ruby source
#   spec_queries.rb        cyclic?, foreign_text?, size, NON_STRING_AS_JSON
#   document_generator.rb  Generator: documents, containers, values, keys
#   scalar_generator.rb    Generator: Integers, Floats, Symbols, Strings
#   option_generator.rb    Generator: option sets
require_relative "random_graph/graph_objects"
require_relative "random_graph/graph_pair"
require_relative "random_graph/reproducer_source"
require_relative "random_graph/spec_queries"
require_relative "random_graph/document_generator"
require_relative "random_graph/scalar_generator"
require_relative "random_graph/option_generator"
