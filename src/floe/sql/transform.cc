#include "floe/sql/transform.h"

#include "floe/sql/sql_tokens.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/sql/bind_internal.h"

namespace floe::sql {
namespace {

using internal::LastName;
using internal::Lower;
using internal::NodeField;
using internal::Unwrap;
using json = nlohmann::json;

int LocationOf(const json& node) {
  auto [type, body] = Unwrap(node);
  if (body->is_object()) {
    auto it = body->find("location");
    if (it != body->end() && it->is_number_integer()) return it->get<int>();
  }
  return -1;
}

// The smallest location anywhere in `node` (JoinExpr and RangeSubselect carry none), or -1.
// The WindowDef named `name` in a SELECT's WINDOW clause (null: none, or no clause).
const json* FindWindow(const json* clause, const std::string& name) {
  if (clause == nullptr) return nullptr;
  for (const auto& w : *clause) {
    if (NodeField(w, "WindowDef").value("name", "") == name) return &NodeField(w, "WindowDef");
  }
  return nullptr;
}

int FirstLocation(const json& node) {
  int best = -1;
  if (node.is_object()) {
    for (const auto& [k, v] : node.items()) {
      int l = k == "location" && v.is_number_integer() ? v.get<int>() : FirstLocation(v);
      if (l >= 0 && (best < 0 || l < best)) best = l;
    }
  } else if (node.is_array()) {
    for (const auto& v : node) {
      int l = FirstLocation(v);
      if (l >= 0 && (best < 0 || l < best)) best = l;
    }
  }
  return best;
}

// The strings of a list of {"String": {"sval": ...}}.
std::vector<std::string> Strings(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& s : list) {
    const json& str = NodeField(s, "String");
    out.push_back(str.is_object() ? str.value("sval", "") : "");
  }
  return out;
}

// body[key], or an empty array when `body` lacks it; a reference into the tree, never a copy (the
// aggregate marks are keyed by node address).
const json& ListField(const json& body, const char* key) {
  static const json kEmpty = json::array();
  if (!body.is_object()) return kEmpty;
  auto it = body.find(key);
  return it == body.end() ? kEmpty : *it;
}

bool IsAggregateCall(const json& node) {
  auto [type, body] = Unwrap(node);
  if (type == "GroupingFunc") return true;  // GROUPING(keys): computed beside the aggregates
  return type == "FuncCall" && internal::IsAggregateName(Lower(LastName((*body)["funcname"]))) &&
         !body->contains("over");
}

// Readable name of a parse node type for "unsupported" messages.
std::string Describe(const std::string& type) {
  static const std::map<std::string, std::string> kNames = {
      {"SubLink", "subqueries"},
      {"JoinExpr", "joins"},
      {"RangeSubselect", "subqueries in FROM"},
      {"RangeFunction", "table functions"},
      {"WindowDef", "window functions"},
      {"GroupingSet", "GROUPING SETS / ROLLUP / CUBE"},
      {"BooleanTest", "IS TRUE / IS FALSE"},
      {"ParamRef", "parameters ($1)"},
      {"A_ArrayExpr", "arrays"},
      {"RowExpr", "row constructors"},
      {"SQLValueFunction", "CURRENT_DATE / CURRENT_TIMESTAMP"},
      {"A_Indirection", "subscripts"},
      {"CollateClause", "COLLATE"},
  };
  auto it = kNames.find(type);
  return it == kNames.end() ? type : it->second;
}

class Transformer {
 public:
  explicit Transformer(const ParsedStatement& st) : st_(st) { MarkAggregates(st.node); }

  Result<ast::Select> Select();
  Result<ast::Delete> Delete();
  Result<ast::Update> Update();
  Result<ast::Merge> Merge();

 private:
  std::unexpected<Error> Unsupported(int loc, const std::string& what) const {
    return internal::UnsupportedAt(st_.text, loc, what);
  }

  // One pass over the tree noting, for every object and array, whether an aggregate call lies
  // in it (IsAggregateCall anywhere below, unsupported constructs included).
  bool MarkAggregates(const json& node) {
    // A subquery's aggregates are its own (its transform marks them).
    if (node.is_object() && node.size() == 1 && node.contains("SubLink")) return false;
    bool found = IsAggregateCall(node);
    const json* outer_windows = marking_windows_;
    if (node.is_object() && node.contains("windowClause")) marking_windows_ = &node["windowClause"];
    if (node.is_object()) {
      for (const auto& [k, v] : node.items()) found = MarkAggregates(v) || found;
      // OVER w: the aggregates of the WINDOW clause's w are the call's too.
      if (node.contains("over") && node.contains("funcname")) {
        found = NamedWindowAggregates(node["over"]) || found;
      }
    } else if (node.is_array()) {
      for (const auto& v : node) found = MarkAggregates(v) || found;
    } else {
      return found;
    }
    marking_windows_ = outer_windows;
    aggregates_[&node] = found;
    return found;
  }
  // Whether the named windows an OVER refers to (in turn) order or partition by an aggregate.
  bool NamedWindowAggregates(const json& over) const {
    std::function<bool(const json&)> any = [&](const json& n) {
      if (n.is_object() && n.size() == 1 && n.contains("SubLink")) return false;
      if (IsAggregateCall(n)) return true;
      if (n.is_object()) {
        for (const auto& [k, v] : n.items()) {
          if (any(v)) return true;
        }
      } else if (n.is_array()) {
        for (const auto& v : n) {
          if (any(v)) return true;
        }
      }
      return false;
    };
    std::string ref = over.value("refname", over.value("name", ""));
    for (int hops = 0; !ref.empty() && marking_windows_ != nullptr && hops <= 64; ++hops) {
      const json* named = FindWindow(marking_windows_, ref);
      if (named == nullptr) return false;
      if (any(NodeField(*named, "partitionClause")) || any(NodeField(*named, "orderClause"))) {
        return true;
      }
      ref = named->value("refname", "");
    }
    return false;
  }
  bool HasAggregate(const json& node) const {
    auto it = aggregates_.find(&node);
    return it != aggregates_.end() && it->second;
  }

  ast::ExprPtr Expr(const json& node);
  ast::ExprPtr Node(const std::string& type, const json& body, int loc);
  ast::ExprPtr UnsupportedNode(int loc, std::string what) const;
  std::vector<ast::ExprPtr> List(const json& items);
  Status GroupClause(const json& items, ast::Select* out);
  Result<std::vector<std::vector<size_t>>> GroupingSets(const json& set, ast::Select* out);
  size_t GroupKey(const json& node, ast::Select* out);
  std::vector<std::string> group_key_texts_;  // GroupKey's: each key's tree without locations
  Result<std::optional<ast::TableRef>> From(const json& from);
  Result<ast::TableRef> FromItem(const json& item);
  // ORDER BY, LIMIT and OFFSET.
  void Trailing(const json& s, ast::Select* out);
  // The SELECT of a subquery node ({"SelectStmt": ...}) in this statement's text.
  Result<ast::Select> SubSelect(const json& node);
  // The target table of DELETE and UPDATE (a RangeVar), and the clauses floe does not support.
  Result<ast::TableRef> Target(const json& s, const char* what);
  static std::string AliasOf(const json& body);

  const ParsedStatement& st_;
  std::unordered_map<const json*, bool> aggregates_;

 public:
  // The first error of a subquery within an expression (Node returns no Result).
  std::optional<Error> deferred_;
  const json* window_clause_ = nullptr;    // the SELECT's WINDOW clause (in st_.node), if any
  const json* marking_windows_ = nullptr;  // MarkAggregates': the WINDOW clause in scope
};

namespace {

// `node` without its "location" fields: two mentions of one expression compare equal.
json WithoutLocations(const json& node) {
  if (node.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : node.items()) {
      if (k != "location") out[k] = WithoutLocations(v);
    }
    return out;
  }
  if (node.is_array()) {
    json out = json::array();
    for (const auto& v : node) out.push_back(WithoutLocations(v));
    return out;
  }
  return node;
}

// a's keys, then those of b it lacks.
std::vector<size_t> Union(const std::vector<size_t>& a, const std::vector<size_t>& b) {
  std::vector<size_t> out = a;
  for (size_t k : b) {
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

}  // namespace

size_t Transformer::GroupKey(const json& node, ast::Select* out) {
  std::string text = WithoutLocations(node).dump();
  for (size_t i = 0; i < group_key_texts_.size(); ++i) {
    if (group_key_texts_[i] == text) return i;
  }
  group_key_texts_.push_back(std::move(text));
  out->group_by.push_back(Expr(node));
  return out->group_by.size() - 1;
}

// The sets one GroupingSet node stands for.
Result<std::vector<std::vector<size_t>>> Transformer::GroupingSets(const json& set,
                                                                   ast::Select* out) {
  const std::string kind = set.value("kind", "");
  const json& content = ListField(set, "content");
  // An element of ROLLUP or CUBE: one key, or a parenthesised list of them (a RowExpr).
  auto element = [&](const json& node) {
    std::vector<size_t> keys;
    auto [type, body] = Unwrap(node);
    if (type == "RowExpr") {
      for (const auto& a : ListField(*body, "args")) keys.push_back(GroupKey(a, out));
    } else {
      keys.push_back(GroupKey(node, out));
    }
    return keys;
  };
  std::vector<std::vector<size_t>> sets;
  if (kind == "GROUPING_SET_EMPTY") {
    sets.emplace_back();
  } else if (kind == "GROUPING_SET_SIMPLE") {
    std::vector<size_t> keys;
    for (const auto& e : content) keys = Union(keys, element(e));
    sets.push_back(std::move(keys));
  } else if (kind == "GROUPING_SET_ROLLUP") {
    std::vector<std::vector<size_t>> elements;
    for (const auto& e : content) elements.push_back(element(e));
    for (size_t n = elements.size() + 1; n-- > 0;) {
      std::vector<size_t> keys;
      for (size_t i = 0; i < n; ++i) keys = Union(keys, elements[i]);
      sets.push_back(std::move(keys));
    }
  } else if (kind == "GROUPING_SET_CUBE") {
    std::vector<std::vector<size_t>> elements;
    for (const auto& e : content) elements.push_back(element(e));
    if (elements.size() > 12) {
      return Unsupported(set.value("location", -1), "CUBE of more than 12 elements");
    }
    for (uint32_t mask = (1u << elements.size()); mask-- > 0;) {
      std::vector<size_t> keys;
      for (size_t i = 0; i < elements.size(); ++i) {
        if (mask & (1u << (elements.size() - 1 - i))) keys = Union(keys, elements[i]);
      }
      sets.push_back(std::move(keys));
    }
  } else if (kind == "GROUPING_SET_SETS") {
    for (const auto& e : content) {
      auto [type, body] = Unwrap(e);
      if (type == "GroupingSet") {
        FLOE_ASSIGN_OR_RETURN(auto inner, GroupingSets(*body, out));
        sets.insert(sets.end(), inner.begin(), inner.end());
      } else {
        sets.push_back(element(e));
      }
    }
  } else {
    return Unsupported(set.value("location", -1), fmt::format("grouping set '{}'", kind));
  }
  return sets;
}

Status Transformer::GroupClause(const json& items, ast::Select* out) {
  bool any_sets = false;
  std::vector<std::vector<size_t>> acc = {{}};
  for (const auto& item : items) {
    auto [type, body] = Unwrap(item);
    std::vector<std::vector<size_t>> item_sets;
    if (type == "GroupingSet") {
      any_sets = true;
      FLOE_ASSIGN_OR_RETURN(item_sets, GroupingSets(*body, out));
    } else {
      item_sets = {{GroupKey(item, out)}};
    }
    std::vector<std::vector<size_t>> next;
    for (const auto& a : acc) {
      for (const auto& b : item_sets) next.push_back(Union(a, b));
    }
    if (next.size() > 4096) {
      return Unsupported(LocationOf(item), "more than 4,096 grouping sets");
    }
    acc = std::move(next);
  }
  if (any_sets) out->grouping_sets = std::move(acc);
  return {};
}

ast::ExprPtr Transformer::UnsupportedNode(int loc, std::string what) const {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::Expr::Kind::kUnsupported;
  e->location = loc;
  e->name = std::move(what);
  return e;
}

std::vector<ast::ExprPtr> Transformer::List(const json& items) {
  std::vector<ast::ExprPtr> out;
  for (const auto& a : items) out.push_back(Expr(a));
  return out;
}

ast::ExprPtr Transformer::Expr(const json& node) {
  auto [type, body] = Unwrap(node);
  ast::ExprPtr e = Node(type, *body, LocationOf(node));
  e->has_aggregate = HasAggregate(node);
  return e;
}

ast::ExprPtr Transformer::Node(const std::string& type, const json& b, int loc) {
  using Kind = ast::Expr::Kind;
  auto e = std::make_unique<ast::Expr>();
  e->location = loc;
  if (type == "ColumnRef") {
    e->kind = Kind::kColumnRef;
    const json& fields = b["fields"];
    for (const auto& f : fields) {
      e->names.push_back(f.contains("String") ? f["String"].value("sval", "") : "");
    }
    e->star = !fields.empty() && fields.back().contains("A_Star");
    return e;
  }
  if (type == "A_Const") {
    e->kind = Kind::kConst;
    ast::Const& c = e->constant;
    if (b.value("isnull", false)) {
      c.kind = ast::Const::Kind::kNull;
    } else if (b.contains("ival")) {
      // ParseStatement fills in the zero and negative constants libpg_query's JSON leaves out.
      c.kind = ast::Const::Kind::kInteger;
      c.integer = b["ival"].value("ival", int64_t{0});
    } else if (b.contains("fval")) {
      c.kind = ast::Const::Kind::kNumber;
      c.text = b["fval"].value("fval", "0");
    } else if (b.contains("sval")) {
      c.kind = ast::Const::Kind::kString;
      c.text = b["sval"].value("sval", "");
    } else if (b.contains("boolval")) {
      c.kind = ast::Const::Kind::kBool;
      c.boolean = b["boolval"].value("boolval", false);
    }
    return e;
  }
  if (type == "TypeCast") {
    e->kind = Kind::kTypeCast;
    e->try_cast = std::find(st_.try_casts.begin(), st_.try_casts.end(), loc) != st_.try_casts.end();
    if (e->try_cast) e->location -= 4;  // at TRY_CAST, not at the CAST it became
    e->args.push_back(Expr(b["arg"]));
    const json& tn = b["typeName"];
    e->type.name = Lower(LastName(tn["names"]));
    e->type.array = tn.contains("arrayBounds");
    for (const auto& m : tn.value("typmods", json::array())) {
      auto [t, mb] = Unwrap(m);
      if (t == "A_Const" && mb->contains("ival")) {
        e->type.modifiers.push_back((*mb)["ival"].value("ival", 0));
      }
    }
    e->type.location = tn.value("location", -1);
    return e;
  }
  if (type == "BoolExpr") {
    std::string op = b.value("boolop", "");
    e->kind = op == "NOT_EXPR" ? Kind::kNot : op == "AND_EXPR" ? Kind::kAnd : Kind::kOr;
    e->args = List(b["args"]);
    return e;
  }
  if (type == "NullTest") {
    e->kind = b.value("nulltesttype", "") == "IS_NULL" ? Kind::kIsNull : Kind::kIsNotNull;
    e->args.push_back(Expr(b["arg"]));
    return e;
  }
  if (type == "CoalesceExpr") {
    e->kind = Kind::kCoalesce;
    e->args = List(b["args"]);
    return e;
  }
  if (type == "CaseExpr") {
    e->kind = Kind::kCase;
    if (b.contains("arg")) e->subject = Expr(b["arg"]);
    for (const auto& w : b["args"]) {
      const json& cw = w["CaseWhen"];
      e->arms.push_back({Expr(cw["expr"]), Expr(cw["result"])});
    }
    if (b.contains("defresult")) e->otherwise = Expr(b["defresult"]);
    return e;
  }
  if (type == "FuncCall") {
    e->kind = Kind::kFuncCall;
    e->name = Lower(LastName(b["funcname"]));
    e->window = b.contains("over");
    if (e->window) {
      const json& over = b["over"];
      auto def = std::make_shared<ast::WindowDef>();
      def->location = over.value("location", loc);
      // OVER w, or OVER (w ORDER BY ...): the WINDOW clause's w (and the window it names in
      // turn) gives each part the OVER does not write itself.
      const json* partition = over.contains("partitionClause") ? &over : nullptr;
      const json* order = over.contains("orderClause") ? &over : nullptr;
      const json* frame = (over.value("frameOptions", 0) & 1) != 0 ? &over : nullptr;
      std::string ref = over.value("refname", over.value("name", ""));
      for (int hops = 0; !ref.empty(); ++hops) {
        const json* named = FindWindow(window_clause_, ref);
        if (named == nullptr || hops > 64) {
          if (!deferred_) {
            deferred_ = ErrorAt(ErrorKind::kInvalidInput, st_.text, def->location,
                                fmt::format("window '{}' is not defined", ref));
          }
          break;
        }
        if (partition == nullptr && named->contains("partitionClause")) partition = named;
        if (order == nullptr && named->contains("orderClause")) order = named;
        if (frame == nullptr && (named->value("frameOptions", 0) & 1) != 0) frame = named;
        ref = named->value("refname", "");
      }
      if (partition != nullptr) {
        for (const auto& p : ListField(*partition, "partitionClause")) {
          def->partition.push_back(Expr(p));
        }
      }
      if (order != nullptr) {
        for (const auto& sbn : ListField(*order, "orderClause")) {
          const json& sb = sbn["SortBy"];
          def->order.push_back(Expr(sb["node"]));
          def->order_descending.push_back(sb.value("sortby_dir", "") == "SORTBY_DESC");
          def->order_nulls_first.push_back(sb.value("sortby_nulls", "") == "SORTBY_NULLS_FIRST");
        }
      }
      const json& framed = frame != nullptr ? *frame : over;
      def->frame_options = framed.value("frameOptions", 0);
      if (framed.contains("startOffset")) def->start_offset = Expr(framed["startOffset"]);
      if (framed.contains("endOffset")) def->end_offset = Expr(framed["endOffset"]);
      e->over = std::move(def);
    }
    if (b.contains("agg_filter")) e->filter = Expr(b["agg_filter"]);
    for (const auto& sbn : ListField(b, "agg_order")) {
      const json& sb = sbn["SortBy"];
      e->order.push_back(Expr(sb["node"]));
      e->order_descending.push_back(sb.value("sortby_dir", "") == "SORTBY_DESC");
    }
    e->within_group = b.value("agg_within_group", false);
    e->distinct = b.value("agg_distinct", false);
    e->star = b.value("agg_star", false);
    e->args = List(ListField(b, "args"));
    return e;
  }
  if (type == "GroupingFunc") {
    e->kind = Kind::kFuncCall;
    e->name = "grouping";
    e->args = List(ListField(b, "args"));
    return e;
  }
  if (type == "MinMaxExpr") {
    // GREATEST / LEAST: the registry's functions of those names.
    e->kind = Kind::kFuncCall;
    e->name = b.value("op", "") == "IS_LEAST" ? "least" : "greatest";
    e->args = List(ListField(b, "args"));
    return e;
  }
  if (type == "SubLink") {
    const std::string link = b.value("subLinkType", "");
    if (link != "EXISTS_SUBLINK" && link != "EXPR_SUBLINK" &&
        !(link == "ANY_SUBLINK" && !b.contains("operName"))) {
      return UnsupportedNode(loc, link == "ALL_SUBLINK"   ? "ALL (subquery)"
                                  : link == "ANY_SUBLINK" ? "ANY / SOME (subquery)"
                                                          : "this kind of subquery");
    }
    auto sub = SubSelect(b["subselect"]);
    if (!sub) {
      if (!deferred_) deferred_ = sub.error();  // the statement's transform fails with it
      return UnsupportedNode(loc, "this subquery");
    }
    e->kind = Kind::kSubquery;
    e->name = link == "EXISTS_SUBLINK" ? "exists" : link == "EXPR_SUBLINK" ? "scalar" : "in";
    e->select = std::make_shared<const ast::Select>(std::move(*sub));
    if (e->name == "in") e->args.push_back(Expr(b["testexpr"]));
    return e;
  }
  if (type == "A_Expr") {
    std::string kind = b.value("kind", "");
    if (kind == "AEXPR_NULLIF") {
      e->kind = Kind::kFuncCall;
      e->name = "nullif";
      e->args.push_back(Expr(b["lexpr"]));
      e->args.push_back(Expr(b["rexpr"]));
      return e;
    }
    std::string op = LastName(b["name"]);
    if (kind == "AEXPR_IN") {
      e->kind = Kind::kIn;
      e->negated = op == "<>";
      e->args.push_back(Expr(b["lexpr"]));
      auto [lt, list] = Unwrap(b["rexpr"]);
      if (lt != "List") {
        e->subquery = true;
      } else {
        for (const auto& item : (*list)["items"]) e->args.push_back(Expr(item));
      }
      return e;
    }
    if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
      e->kind = Kind::kBetween;
      e->negated = kind == "AEXPR_NOT_BETWEEN";
      e->args.push_back(Expr(b["lexpr"]));
      const json& items = b["rexpr"]["List"]["items"];
      e->args.push_back(Expr(items[0]));
      e->args.push_back(Expr(items[1]));
      return e;
    }
    if (kind == "AEXPR_SIMILAR") {
      // x [NOT] SIMILAR TO p: libpg_query wraps p in similar_to_escape(p [, escape]).
      e->kind = Kind::kOperator;
      e->name = op == "!~" ? "!similar" : "similar";
      e->left = Expr(b["lexpr"]);
      auto [rt, rb] = Unwrap(b["rexpr"]);
      const json& args = ListField(*rb, "args");
      if (rt == "FuncCall" && args.size() == 1) {
        e->right = Expr(args[0]);
      } else {
        e->right = UnsupportedNode(loc, "SIMILAR TO ... ESCAPE");
      }
      return e;
    }
    if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE" || kind == "AEXPR_OP") {
      e->kind = Kind::kOperator;
      e->name = op;
      if (b.contains("lexpr")) e->left = Expr(b["lexpr"]);
      if (b.contains("rexpr")) {
        const json& r = b["rexpr"];
        auto [rt, rb] = Unwrap(r);
        if (rt == "FuncCall" && LastName((*rb)["funcname"]) == "like_escape") {
          e->right = UnsupportedNode(loc, "LIKE ... ESCAPE");
          e->right->has_aggregate = HasAggregate(r);
        } else {
          e->right = Expr(r);
        }
      }
      return e;
    }
    return UnsupportedNode(loc, fmt::format("the {} expression", Lower(kind.substr(6))));
  }
  return UnsupportedNode(loc, Describe(type));
}

Result<std::optional<ast::TableRef>> Transformer::From(const json& from) {
  if (!from.is_array() || from.empty()) return std::nullopt;
  FLOE_ASSIGN_OR_RETURN(ast::TableRef acc, FromItem(from[0]));
  // FROM a, b, c: ((a CROSS JOIN b) CROSS JOIN c); WHERE's conditions join them.
  for (size_t i = 1; i < from.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(ast::TableRef next, FromItem(from[i]));
    ast::TableRef join;
    join.kind = ast::TableRef::Kind::kJoin;
    join.join_type = ast::TableRef::JoinType::kCross;
    join.location = next.location;
    join.left = std::make_shared<const ast::TableRef>(std::move(acc));
    join.right = std::make_shared<const ast::TableRef>(std::move(next));
    acc = std::move(join);
  }
  return acc;
}

Result<ast::Select> Transformer::SubSelect(const json& node) {
  auto [type, body] = Unwrap(node);
  if (type != "SelectStmt") return Unsupported(FirstLocation(node), Describe(type));
  ParsedStatement sub{st_.text, "SelectStmt", *body, st_.time_travel, {}, st_.try_casts};
  sub.qualify = st_.qualify;
  sub.group_by_all = st_.group_by_all;
  Transformer t(sub);
  auto r = t.Select();
  if (r && t.deferred_) return std::unexpected(*t.deferred_);
  return r;
}

Result<ast::TableRef> Transformer::FromItem(const json& item) {
  auto [type, body] = Unwrap(item);
  ast::TableRef ref;
  ref.location = LocationOf(item);
  if (type == "JoinExpr") {
    using JoinType = ast::TableRef::JoinType;
    ref.kind = ast::TableRef::Kind::kJoin;
    FLOE_ASSIGN_OR_RETURN(ast::TableRef left, FromItem((*body)["larg"]));
    FLOE_ASSIGN_OR_RETURN(ast::TableRef right, FromItem((*body)["rarg"]));
    ref.location = right.location;
    if (body->contains("alias")) {
      return Unsupported(ref.location, "an alias on a join (name the tables instead)");
    }
    if (body->contains("join_using_alias")) return Unsupported(ref.location, "USING ... AS");
    const std::string jt = body->value("jointype", "");
    ref.join_type = jt == "JOIN_LEFT"    ? JoinType::kLeft
                    : jt == "JOIN_RIGHT" ? JoinType::kRight
                    : jt == "JOIN_FULL"  ? JoinType::kFull
                                         : JoinType::kInner;
    if (jt != "JOIN_INNER" && jt != "JOIN_LEFT" && jt != "JOIN_RIGHT" && jt != "JOIN_FULL") {
      return Unsupported(ref.location, fmt::format("the join type {}", jt));
    }
    ref.natural = body->value("isNatural", false);
    ref.using_columns = Strings(ListField(*body, "usingClause"));
    if (body->contains("quals")) ref.on = Expr((*body)["quals"]);
    if (ref.join_type == JoinType::kInner && !ref.on && !ref.natural && ref.using_columns.empty()) {
      ref.join_type = JoinType::kCross;
    }
    ref.left = std::make_shared<const ast::TableRef>(std::move(left));
    ref.right = std::make_shared<const ast::TableRef>(std::move(right));
    return ref;
  }
  if (type == "RangeSubselect") {
    // At its opening parenthesis (the node has no location of its own).
    ref.location = FirstLocation(item);
    const size_t open = st_.text.rfind('(', static_cast<size_t>(std::max(ref.location, 0)));
    if (ref.location > 0 && open != std::string::npos) ref.location = static_cast<int>(open);
    if (body->value("lateral", false)) return Unsupported(ref.location, "LATERAL");
    ref.kind = ast::TableRef::Kind::kSubquery;
    FLOE_ASSIGN_OR_RETURN(ast::Select sub, SubSelect((*body)["subquery"]));
    ref.subquery = std::make_shared<const ast::Select>(std::move(sub));
    ref.alias = AliasOf(*body);
    ref.column_aliases = Strings(NodeField(NodeField(*body, "alias"), "colnames"));
    return ref;
  }
  if (type == "RangeFunction") {
    // FROM name(): one function call.
    const json* call = nullptr;
    if (body->contains("functions") && (*body)["functions"].is_array() &&
        (*body)["functions"].size() == 1) {
      auto [ft, fb] = Unwrap((*body)["functions"][0]);
      if (ft == "List" && fb->contains("items") && !(*fb)["items"].empty()) {
        call = &(*fb)["items"][0];
      }
    }
    if (ref.location < 0) ref.location = FirstLocation(item);
    if (call == nullptr) return Unsupported(ref.location, Describe(type));
    auto [ct, cb] = Unwrap(*call);
    if (ct != "FuncCall") return Unsupported(ref.location, Describe(type));
    ref.kind = ast::TableRef::Kind::kFunction;
    ref.function = Lower(LastName((*cb)["funcname"]));
    ref.function_has_args = cb->contains("args") && !(*cb)["args"].empty();
    for (const auto& a : ListField(*cb, "args")) {
      // A named argument, as DuckDB takes it: `name := value` (Postgres's NamedArgExpr) or
      // `name = value` (an equality whose left side is a bare name).
      auto [at, ab] = Unwrap(a);
      std::string arg_name;
      ast::ExprPtr arg;
      if (at == "NamedArgExpr" && ab->contains("arg")) {
        arg_name = Lower(ab->value("name", ""));
        arg = Expr((*ab)["arg"]);
      } else {
        arg = Expr(a);
        if (arg->kind == ast::Expr::Kind::kOperator && arg->name == "=" && arg->left &&
            arg->right && arg->left->kind == ast::Expr::Kind::kColumnRef &&
            arg->left->names.size() == 1 && !arg->left->star) {
          arg_name = Lower(arg->left->names[0]);
          int loc = arg->location;
          arg = std::move(arg->right);
          if (arg->location < 0) arg->location = loc;
        }
      }
      if (arg->kind != ast::Expr::Kind::kConst) {
        if (ref.function_args_location < 0) ref.function_args_location = arg->location;
        continue;
      }
      if (!arg_name.empty()) {
        ref.function_named_args.push_back({arg_name, arg->constant, arg->location});
      } else {
        ref.function_args.push_back(arg->constant);
      }
    }
    ref.alias = AliasOf(*body);
    ref.column_aliases = Strings(NodeField(NodeField(*body, "alias"), "colnames"));
    return ref;
  }
  if (type != "RangeVar") return Unsupported(ref.location, Describe(type));
  for (const char* k : {"catalogname", "schemaname", "relname"}) {
    if (body->contains(k)) ref.names.push_back((*body)[k].get<std::string>());
  }
  ref.alias = AliasOf(*body);
  ref.column_aliases = Strings(NodeField(NodeField(*body, "alias"), "colnames"));
  return ref;
}

std::string Transformer::AliasOf(const json& body) {
  if (!body.contains("alias")) return "";
  return body["alias"].value("aliasname", "");
}

Result<ast::Merge> Transformer::Merge() {
  const json& s = st_.node;
  ast::Merge out;
  FLOE_ASSIGN_OR_RETURN(out.target, Target(s, "MERGE"));
  out.target.alias = AliasOf(s["relation"]);
  // The source, as the SELECT that produces its rows.
  const json& src = s["sourceRelation"];
  out.source_location = LocationOf(src);
  auto [type, body] = Unwrap(src);
  if (type == "RangeSubselect") {
    if (body->value("lateral", false)) return Unsupported(out.source_location, "LATERAL");
    ParsedStatement sub{st_.text, "SelectStmt", (*body)["subquery"]["SelectStmt"], {}, {}};
    sub.group_by_all = st_.group_by_all;
    FLOE_ASSIGN_OR_RETURN(out.source, Transformer(sub).Select());
    out.source_alias = AliasOf(*body);
  } else {
    FLOE_ASSIGN_OR_RETURN(std::optional<ast::TableRef> from, From(json::array({src})));
    if (!from || from->kind == ast::TableRef::Kind::kJoin) {
      return Unsupported(out.source_location, "this MERGE source (write the join as a subquery)");
    }
    out.source_alias = !from->alias.empty()                           ? from->alias
                       : from->kind == ast::TableRef::Kind::kFunction ? from->function
                                                                      : from->names.back();
    out.source.from = std::move(*from);
    ast::SelectItem all;
    all.star = true;
    all.location = out.source_location;
    out.source.items.push_back(std::move(all));
  }
  if (s.contains("joinCondition")) out.on = Expr(s["joinCondition"]);
  const json& clauses = ListField(s, "mergeWhenClauses");
  if (clauses.size() != st_.merge_clauses.size()) {
    return Internal("MERGE: {} WHEN clauses parsed, {} found in the text", clauses.size(),
                    st_.merge_clauses.size());
  }
  for (size_t i = 0; i < clauses.size(); ++i) {
    const json& w = clauses[i]["MergeWhenClause"];
    const MergeClauseSyntax& syntax = st_.merge_clauses[i];
    ast::MergeClause c;
    c.location = syntax.offset;
    c.match = syntax.match == MergeClauseSyntax::Match::kMatched ? ast::MergeClause::Match::kMatched
              : syntax.match == MergeClauseSyntax::Match::kNotMatched
                  ? ast::MergeClause::Match::kNotMatched
                  : ast::MergeClause::Match::kNotMatchedBySource;
    const std::string command = w.value("commandType", "");
    if (syntax.update_star || syntax.insert_star) {
      c.star = true;
      c.action = syntax.update_star ? ast::MergeClause::Action::kUpdate
                                    : ast::MergeClause::Action::kInsert;
    } else if (command == "CMD_UPDATE") {
      c.action = ast::MergeClause::Action::kUpdate;
    } else if (command == "CMD_DELETE") {
      c.action = ast::MergeClause::Action::kDelete;
    } else if (command == "CMD_INSERT") {
      c.action = ast::MergeClause::Action::kInsert;
    } else {
      c.action = ast::MergeClause::Action::kNothing;
    }
    if (w.contains("condition")) c.condition = Expr(w["condition"]);
    if (w.value("override", "OVERRIDING_NOT_SET") != "OVERRIDING_NOT_SET") {
      return Unsupported(c.location, "OVERRIDING in MERGE");
    }
    for (const auto& t : ListField(w, "targetList")) {
      const json& rt = t["ResTarget"];
      const int loc = rt.value("location", -1);
      if (rt.contains("indirection")) {
        return Unsupported(loc, "assigning to a field or element (SET a.b = ...)");
      }
      if (c.action == ast::MergeClause::Action::kInsert) {
        c.columns.push_back(rt.value("name", ""));
        c.column_locations.push_back(loc);
        continue;
      }
      ast::Assignment a;
      a.location = loc;
      a.column = rt.value("name", "");
      auto [vt, vb] = Unwrap(rt["val"]);
      if (vt == "MultiAssignRef") return Unsupported(loc, "SET (a, b) = (...)");
      if (vt != "SetToDefault") a.value = Expr(rt["val"]);
      c.set.push_back(std::move(a));
    }
    for (const auto& v : ListField(w, "values")) c.values.push_back(Expr(v));
    out.clauses.push_back(std::move(c));
  }
  return out;
}

Result<ast::Select> Transformer::Select() {
  const json& s = st_.node;
  const int stmt_loc = 0;
  ast::Select out;
  if (s.contains("withClause")) {
    const json& with = s["withClause"];
    if (with.value("recursive", false)) {
      return Unsupported(FirstLocation(with), "WITH RECURSIVE");
    }
    for (const auto& c : ListField(with, "ctes")) {
      const json& cte = NodeField(c, "CommonTableExpr");
      ast::CommonTableExpr e;
      e.name = cte.value("ctename", "");
      e.location = cte.value("location", -1);
      e.columns = Strings(NodeField(cte, "aliascolnames"));
      FLOE_ASSIGN_OR_RETURN(ast::Select sub, SubSelect(NodeField(cte, "ctequery")));
      e.select = std::make_shared<const ast::Select>(std::move(sub));
      out.with.push_back(std::move(e));
    }
  }
  const std::string op = s.value("op", "SETOP_NONE");
  if (op != "SETOP_NONE") {
    // left UNION | INTERSECT | EXCEPT [ALL] right, then the whole's ORDER BY and LIMIT.
    using SetOp = ast::Select::SetOp;
    out.set_op = op == "SETOP_UNION"       ? SetOp::kUnion
                 : op == "SETOP_INTERSECT" ? SetOp::kIntersect
                                           : SetOp::kExcept;
    out.set_all = s.value("all", false);
    FLOE_ASSIGN_OR_RETURN(ast::Select left, SubSelect(json{{"SelectStmt", s["larg"]}}));
    FLOE_ASSIGN_OR_RETURN(ast::Select right, SubSelect(json{{"SelectStmt", s["rarg"]}}));
    out.set_right_location = FirstLocation(s["rarg"]);
    out.set_left = std::make_shared<const ast::Select>(std::move(left));
    out.set_right = std::make_shared<const ast::Select>(std::move(right));
    Trailing(s, &out);
    return out;
  }
  if (s.contains("valuesLists")) {
    for (const auto& row : ListField(s, "valuesLists")) {
      std::vector<ast::ExprPtr> values;
      for (const auto& v : ListField(NodeField(row, "List"), "items")) values.push_back(Expr(v));
      out.values.push_back(std::move(values));
    }
    out.values_location = FirstLocation(s["valuesLists"]);
    Trailing(s, &out);
    return out;
  }
  if (s.contains("intoClause")) return Unsupported(stmt_loc, "SELECT INTO");
  if (s.contains("lockingClause")) return Unsupported(stmt_loc, "FOR UPDATE / FOR SHARE");
  // WINDOW w AS (...): the windows OVER names.
  if (s.contains("windowClause")) window_clause_ = &s["windowClause"];
  if (s.contains("distinctClause")) {
    const json& d = s["distinctClause"];
    if (d.size() != 1 || !d[0].empty()) return Unsupported(stmt_loc, "DISTINCT ON");
    out.distinct = true;
  }
  FLOE_ASSIGN_OR_RETURN(out.from, From(ListField(s, "fromClause")));

  if (s.contains("targetList")) {
    for (const auto& t : s["targetList"]) {
      const json& rt = t["ResTarget"];
      const json& val = rt["val"];
      auto [vt, vb] = Unwrap(val);
      ast::SelectItem item;
      item.location = LocationOf(val);
      if (vt == "ColumnRef" && (*vb)["fields"].back().contains("A_Star")) {
        item.star = true;
        const json& fields = (*vb)["fields"];
        if (fields.size() >= 2) item.name = LastName(json::array({fields[fields.size() - 2]}));
        out.items.push_back(std::move(item));
        continue;
      }
      item.name = rt.value("name", "");
      if (item.name.empty()) {
        if (vt == "ColumnRef") {
          item.name = LastName((*vb)["fields"]);
        } else if (vt == "FuncCall") {
          item.name = Lower(LastName((*vb)["funcname"]));
        } else if (vt == "TypeCast" && Unwrap((*vb)["arg"]).first == "ColumnRef") {
          item.name = LastName(Unwrap((*vb)["arg"]).second->at("fields"));
        } else {
          item.name = "?column?";
        }
      }
      item.expr = Expr(val);
      out.items.push_back(std::move(item));
    }
  }
  if (s.contains("whereClause")) out.where = Expr(s["whereClause"]);
  if (s.contains("groupClause")) {
    const json& group = s["groupClause"];
    auto [gt, gb] = group.size() == 1 ? Unwrap(group[0]) : std::pair<std::string, const json*>{};
    if (gt == "GroupingSet" && gb->value("kind", "") == "GROUPING_SET_EMPTY" &&
        std::ranges::count(st_.group_by_all, gb->value("location", -1)) > 0) {
      // GROUP BY ALL: every SELECT item without an aggregate (or a window) is a key; a constant
      // is left out (a number would be read as a position, and groups by nothing anyway).
      for (const auto& t : ListField(s, "targetList")) {
        const json& val = t["ResTarget"]["val"];
        auto [vt, vb] = Unwrap(val);
        if (vt == "ColumnRef" && (*vb)["fields"].back().contains("A_Star")) {
          return Unsupported(LocationOf(val), "GROUP BY ALL with *");
        }
        if (vt == "A_Const" || HasAggregate(val) || (vt == "FuncCall" && vb->contains("over"))) {
          continue;
        }
        GroupKey(val, &out);
      }
    } else {
      FLOE_RETURN_IF_ERROR(GroupClause(group, &out));
    }
  }
  if (s.contains("havingClause")) out.having = Expr(s["havingClause"]);
  if (!st_.qualify.empty() && s.contains("targetList")) {
    // This SELECT's QUALIFY, if it has one: the clause cut after its keyword, the last `select`
    // before its first item.
    const int first = FirstLocation(s["targetList"]);
    int select_at = -1;
    for (const Token& t : Tokenize(std::string_view(st_.text).substr(0, std::max(first, 0)))) {
      if (!t.quoted && t.word == "select") select_at = static_cast<int>(t.begin);
    }
    for (const QualifyClause& q : st_.qualify) {
      if (q.select_at != select_at) continue;
      MarkAggregates(q.condition);  // a tree of its own
      out.qualify = Expr(q.condition);
    }
  }
  Trailing(s, &out);
  return out;
}

void Transformer::Trailing(const json& s, ast::Select* out) {
  for (const auto& sbn : ListField(s, "sortClause")) {
    const json& sb = sbn["SortBy"];
    ast::SortItem item;
    item.expr = Expr(sb["node"]);
    item.descending = sb.value("sortby_dir", "") == "SORTBY_DESC";
    item.nulls_first = sb.value("sortby_nulls", "") == "SORTBY_NULLS_FIRST";
    item.using_op = sb.contains("useOp");
    out->order_by.push_back(std::move(item));
  }
  out->with_ties = s.value("limitOption", "") == "LIMIT_OPTION_WITH_TIES";
  if (s.contains("limitCount")) out->limit = Expr(s["limitCount"]);
  if (s.contains("limitOffset")) out->offset = Expr(s["limitOffset"]);
}

Result<ast::TableRef> Transformer::Target(const json& s, const char* what) {
  if (s.contains("withClause")) return Unsupported(LocationOf(s["withClause"]), "WITH");
  if (s.contains("returningList")) {
    return Unsupported(LocationOf(s["returningList"][0]), fmt::format("{} ... RETURNING", what));
  }
  const json& rel = s["relation"];
  ast::TableRef ref;
  ref.location = rel.value("location", -1);
  if (!rel.value("inh", true)) return Unsupported(ref.location, fmt::format("{} ONLY", what));
  for (const char* k : {"catalogname", "schemaname", "relname"}) {
    if (rel.contains(k)) ref.names.push_back(rel[k].get<std::string>());
  }
  return ref;
}

Result<ast::Delete> Transformer::Delete() {
  const json& s = st_.node;
  ast::Delete out;
  FLOE_ASSIGN_OR_RETURN(out.target, Target(s, "DELETE"));
  if (s.contains("usingClause")) {
    return Unsupported(LocationOf(s["usingClause"][0]), "DELETE ... USING (use MERGE INTO)");
  }
  if (s.contains("whereClause")) out.where = Expr(s["whereClause"]);
  return out;
}

Result<ast::Update> Transformer::Update() {
  const json& s = st_.node;
  ast::Update out;
  FLOE_ASSIGN_OR_RETURN(out.target, Target(s, "UPDATE"));
  if (s.contains("fromClause")) {
    return Unsupported(LocationOf(s["fromClause"][0]), "UPDATE ... FROM (use MERGE INTO)");
  }
  for (const auto& t : ListField(s, "targetList")) {
    const json& rt = t["ResTarget"];
    ast::Assignment a;
    a.location = rt.value("location", -1);
    a.column = rt.value("name", "");
    if (rt.contains("indirection")) {
      return Unsupported(a.location, "assigning to a field or element (SET a.b = ...)");
    }
    auto [vt, vb] = Unwrap(rt["val"]);
    if (vt == "MultiAssignRef") return Unsupported(a.location, "SET (a, b) = (...)");
    if (vt != "SetToDefault") a.value = Expr(rt["val"]);
    out.set.push_back(std::move(a));
  }
  if (s.contains("whereClause")) out.where = Expr(s["whereClause"]);
  return out;
}

}  // namespace

namespace {

template <typename T>
Result<T> Checked(const Transformer& t, Result<T> r) {
  if (r && t.deferred_) return std::unexpected(*t.deferred_);
  return r;
}

}  // namespace

Result<ast::Select> TransformSelect(const ParsedStatement& statement) {
  Transformer t(statement);
  return Checked(t, t.Select());
}

Result<ast::Delete> TransformDelete(const ParsedStatement& statement) {
  Transformer t(statement);
  return Checked(t, t.Delete());
}

Result<ast::Update> TransformUpdate(const ParsedStatement& statement) {
  Transformer t(statement);
  return Checked(t, t.Update());
}

Result<ast::Merge> TransformMerge(const ParsedStatement& statement) {
  Transformer t(statement);
  return Checked(t, t.Merge());
}

}  // namespace floe::sql
