// The registry's regular expressions, with DuckDB's semantics and RE2's syntax (Debian's libre2):
// regexp_matches (a match anywhere; the `~` operators), regexp_full_match (SIMILAR TO),
// regexp_replace (the first match, every one with the 'g' option; \1 in the replacement) and
// regexp_extract (a group of the first match, '' when none). Options: 'i' case-insensitive, 'c'
// case-sensitive, 'g' global (regexp_replace), 's' and 'n' (dot matches newline or not). Spark's
// rlike and regexp_like are regexp_matches. A constant pattern is compiled once per batch; a bad
// pattern is an invalid-input error naming it.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "floe/exec/expression_internal.h"

namespace floe::exec::internal {
namespace {

enum class Regexp { kMatches, kFullMatch, kReplace, kExtract };

Regexp KindOf(std::string_view name) {
  if (name == "regexp_full_match") return Regexp::kFullMatch;
  if (name == "regexp_replace") return Regexp::kReplace;
  if (name == "regexp_extract") return Regexp::kExtract;
  return Regexp::kMatches;
}

struct Options {
  bool case_insensitive = false;
  bool global = false;
  bool dot_nl = true;  // as DuckDB: '.' matches a newline unless 'n'
};

Result<Options> ParseOptions(std::string_view fn, std::string_view text, bool replace) {
  Options o;
  for (char c : text) {
    switch (c) {
      case 'i':
        o.case_insensitive = true;
        break;
      case 'c':
        o.case_insensitive = false;
        break;
      case 'g':
        if (!replace) return InvalidInput("{}: option 'g' is only for regexp_replace", fn);
        o.global = true;
        break;
      case 's':
        o.dot_nl = true;
        break;
      case 'n':
      case 'p':
        o.dot_nl = false;
        break;
      default:
        return InvalidInput("{}: unknown option '{}' (i, c, g, s, n)", fn, c);
    }
  }
  return o;
}

Result<std::unique_ptr<RE2>> Compile(std::string_view fn, std::string_view pattern,
                                     const Options& o) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(!o.case_insensitive);
  options.set_dot_nl(o.dot_nl);
  auto re = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) return InvalidInput("{}: bad pattern '{}': {}", fn, pattern, re->error());
  return re;
}

// The index of the options argument, and of regexp_extract's group.
size_t OptionsArg(Regexp k) { return k == Regexp::kReplace ? 3 : 2; }

Result<DataType> CheckRegexp(const ScalarFunction& f, std::vector<ExprPtr>& args,
                             const std::string&) {
  const Regexp k = KindOf(f.name);
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsStringType(args[0]->type), f.name, "a string"));
  FLOE_RETURN_IF_ERROR(ExpectType(args[1], IsStringType(args[1]->type), f.name, "a pattern"));
  if (k == Regexp::kReplace) {
    FLOE_RETURN_IF_ERROR(
        ExpectType(args[2], IsStringType(args[2]->type), f.name, "a replacement string"));
  }
  if (k == Regexp::kExtract && args.size() > 2) {
    if (args[2]->kind != Expr::Kind::kLiteral || !IsIntegerType(args[2]->type)) {
      return InvalidInput("regexp_extract: the group must be an integer constant");
    }
  }
  const size_t oi = OptionsArg(k);
  Options o;
  if (args.size() > oi && k != Regexp::kExtract) {
    if (!IsStringLiteral(args[oi])) {
      return InvalidInput("{}: the options must be a string constant", f.name);
    }
    FLOE_ASSIGN_OR_RETURN(o, ParseOptions(f.name, args[oi]->value.s(), k == Regexp::kReplace));
  }
  // A constant pattern is checked here, where the error can point at the call.
  if (IsStringLiteral(args[1])) {
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<RE2> re, Compile(f.name, args[1]->value.s(), o));
    if (k == Regexp::kExtract && args.size() > 2) {
      const int64_t group = args[2]->value.i();
      if (group < 0 || group > re->NumberOfCapturingGroups()) {
        return InvalidInput("regexp_extract: the pattern has no group {}", group);
      }
    }
  }
  return k == Regexp::kMatches || k == Regexp::kFullMatch ? columnar::Bool() : columnar::String();
}

Result<ColumnPtr> RegexpKernel(const Expr& e, const std::vector<ColumnPtr>& cols, int64_t rows) {
  const std::string_view fn = e.function->name;
  const Regexp k = KindOf(fn);
  const size_t oi = OptionsArg(k);
  Options o;
  if (cols.size() > oi && k != Regexp::kExtract) {
    FLOE_ASSIGN_OR_RETURN(o, ParseOptions(fn, e.args[oi]->value.s(), k == Regexp::kReplace));
  }
  const int group =
      k == Regexp::kExtract && cols.size() > 2 ? static_cast<int>(e.args[2]->value.i()) : 0;
  ValueColumnBuilder out(e.type);
  const columnar::Column& text = *cols[0];
  const columnar::Column& patterns = *cols[1];
  // The compiled pattern, kept while the pattern column repeats it (always, for a constant).
  std::unique_ptr<RE2> re;
  std::string compiled;
  std::vector<re2::StringPiece> groups(static_cast<size_t>(group) + 1);
  for (int64_t r = 0; r < rows; ++r) {
    const bool replacement_null = k == Regexp::kReplace && cols[2]->IsNull(r);
    if (text.IsNull(r) || patterns.IsNull(r) || replacement_null) {
      out.AppendNull();
      continue;
    }
    const std::string_view pattern = patterns.BytesAt(r);
    if (!re || pattern != compiled) {
      FLOE_ASSIGN_OR_RETURN(re, Compile(fn, pattern, o));
      compiled = std::string(pattern);
      if (group > re->NumberOfCapturingGroups()) {
        return InvalidInput("regexp_extract: the pattern '{}' has no group {}", pattern, group);
      }
    }
    const std::string_view s = text.BytesAt(r);
    const re2::StringPiece piece(s.data(), s.size());
    switch (k) {
      case Regexp::kMatches:
        FLOE_RETURN_IF_ERROR(out.Append(Value::Bool(RE2::PartialMatch(piece, *re))));
        break;
      case Regexp::kFullMatch:
        FLOE_RETURN_IF_ERROR(out.Append(Value::Bool(RE2::FullMatch(piece, *re))));
        break;
      case Regexp::kReplace: {
        std::string result(s);
        const std::string_view with = cols[2]->BytesAt(r);
        const re2::StringPiece rewrite(with.data(), with.size());
        if (o.global) {
          RE2::GlobalReplace(&result, *re, rewrite);
        } else {
          RE2::Replace(&result, *re, rewrite);
        }
        FLOE_RETURN_IF_ERROR(out.Append(Value::Str(std::move(result))));
        break;
      }
      case Regexp::kExtract: {
        const bool found = re->Match(piece, 0, piece.size(), RE2::UNANCHORED, groups.data(),
                                     static_cast<int>(groups.size()));
        const re2::StringPiece& g = groups[static_cast<size_t>(group)];
        FLOE_RETURN_IF_ERROR(out.Append(Value::Str(
            found && g.data() != nullptr ? std::string(g.data(), g.size()) : std::string())));
        break;
      }
    }
  }
  return out.Finish();
}

}  // namespace

void AddRegexpFunctions(std::vector<ScalarFunction>* r) {
  auto add = [&](ScalarFunction f) { r->push_back(std::move(f)); };
  add({.name = "regexp_matches",
       .aliases = {"rlike", "regexp_like"},
       .min_args = 2,
       .max_args = 3,
       .check = CheckRegexp,
       .kernel = RegexpKernel});
  add({.name = "regexp_full_match",
       .min_args = 2,
       .max_args = 3,
       .check = CheckRegexp,
       .kernel = RegexpKernel});
  add({.name = "regexp_replace",
       .min_args = 3,
       .max_args = 4,
       .check = CheckRegexp,
       .kernel = RegexpKernel});
  add({.name = "regexp_extract",
       .min_args = 2,
       .max_args = 3,
       .check = CheckRegexp,
       .kernel = RegexpKernel});
}

}  // namespace floe::exec::internal
