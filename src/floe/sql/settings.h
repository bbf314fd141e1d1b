// Settings: the one registry of the read settings a user may change -- `floe query --set
// NAME=VALUE`, SQL `SET NAME = VALUE` / `RESET NAME`, listed by `SELECT * FROM floe_settings()` and
// `floe query --help`. Each setting has a type, a default, a range and a one-line description, and
// says where it lands: a field of QueryOptions (the scan's iceberg::ScanReadOptions, the thread
// count) or a cache's capacity in the warehouse's runtime. A table's properties of the same names
// are its defaults (ApplyTableDefaults): SET and --set win over them, and they over the built-in
// defaults. A Settings object holds one session's values; not
// thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::sql {

struct QueryOptions;

enum class SettingType { kInt, kSize, kDouble, kBool, kChoice, kText };

// A checked value: `text` is its canonical form (sizes in bytes, choices lower case).
struct SettingValue {
  std::string text;
  int64_t integer = 0;  // kInt, kSize, kBool (0/1)
  double real = 0;      // kDouble
};

struct SettingDef {
  std::string_view name;  // Iceberg/Spark style: read.request-budget
  SettingType type;
  double min = 0, max = 0;                // kInt, kSize, kDouble: inclusive bounds
  std::vector<std::string_view> choices;  // kChoice
  std::string_view description;
  // Writes a checked value where it takes effect.
  void (*apply)(const SettingValue& value, QueryOptions* options);
  // The value in effect for `options` (canonical text); for a default QueryOptions, the default.
  std::string (*get)(const QueryOptions& options);
  // Lands in the warehouse's runtime (a cache's capacity), so no table property sets it.
  bool runtime_wide = false;
};

// Every setting, in the order they are listed.
const std::vector<SettingDef>& AllSettings();
const SettingDef* FindSetting(std::string_view name);
// The default of `def` (canonical text).
std::string SettingDefault(const SettingDef& def);
// Checks `text` against the type and range of `def`; the error names the setting and the value.
Result<SettingValue> ParseSettingValue(const SettingDef& def, std::string_view text);
// "2097152 (2 MiB)", "[1, 4096]", "latency|requests|cost": what --help and floe_settings show.
std::string SettingRange(const SettingDef& def);
// One line per setting: name, default and description (for --help).
std::string SettingsHelp();

// SET / RESET / SHOW statements, which floe parses itself (a setting name holds '-', which the
// Postgres grammar would read as a minus).
struct SettingStatement {
  enum class Kind { kSet, kReset, kResetAll, kShow, kShowAll } kind{};
  std::string name;
  std::string value;
};
// nullopt when `sql` is not a SET, RESET or SHOW statement; an error when it is one but malformed.
std::optional<Result<SettingStatement>> ParseSettingStatement(std::string_view sql);

class Settings {
 public:
  // Checks and records a value; later statements see it. Unknown names and bad values are errors
  // naming the setting and the value.
  Status Set(std::string_view name, std::string_view value);
  // "name=value", as --set gives it.
  Status SetAssignment(std::string_view assignment);
  Status Reset(std::string_view name);
  void ResetAll();
  bool empty() const { return values_.empty(); }

  // Writes the values set so far over `options` (settings never set leave it as it is; the
  // runtime's cache capacities, when options->runtime is set, go back to their defaults).
  void ApplyTo(QueryOptions* options) const;
  // A table's properties as defaults for a statement over it (`read.request-budget` = 32 in the
  // table's properties reads it with that budget): each setting this session has not set and
  // the table names gets the table's value. A value the setting refuses is an error naming the
  // table, the property and the value. Settings of the runtime (cache capacities) are not taken.
  Status ApplyTableDefaults(const std::string& table,
                            const std::map<std::string, std::string>& properties,
                            QueryOptions* options) const;
  // name, value, default_value, range, description for every setting; `effective` is the options
  // the statement runs with (ApplyTo already applied), so `value` is what takes effect.
  columnar::RecordBatch Table(const QueryOptions& effective) const;

 private:
  std::map<std::string, SettingValue, std::less<>> values_;
};

}  // namespace floe::sql
