#include "floe/base/progress.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace floe {
namespace {

std::string ReadAll(std::FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

TEST(Progress, PlainModeOnANonTerminalPrintsLinesAndAFinalSummary) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("writing", 10, "files", ProgressMode::kAuto, f);  // a file is not a TTY
    EXPECT_EQ(p.mode(), ProgressMode::kPlain);
    p.plain_interval = std::chrono::milliseconds(0);
    p.Advance(4);
    p.Advance(6);
    p.Finish();
  }
  std::string out = ReadAll(f);
  std::fclose(f);
  EXPECT_NE(out.find("writing: 40% 4/10 files"), std::string::npos) << out;
  EXPECT_NE(out.find("writing: 100% 10/10 files"), std::string::npos) << out;
  EXPECT_NE(out.find(" in "), std::string::npos) << out;  // the final line gives the elapsed time
  EXPECT_EQ(out.find('\r'), std::string::npos);           // no bar redraws in plain mode
}

TEST(Progress, BarModeRedrawsOneLine) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("reading", 4, "", ProgressMode::kBar, f);
    p.bar_interval = std::chrono::milliseconds(0);
    p.Advance(2);
    p.Finish();
  }
  std::string out = ReadAll(f);
  std::fclose(f);
  EXPECT_NE(out.find("\r\033[Kreading [##############..............]  50%"), std::string::npos)
      << out;
  EXPECT_EQ(out.back(), '\n');
}

TEST(Progress, QuietPrintsNothing) {
  SetProgressQuiet(true);
  std::FILE* f = std::tmpfile();
  {
    Progress p("x", 3, "", ProgressMode::kBar, f);
    p.Advance(3);
  }
  SetProgressQuiet(false);
  EXPECT_EQ(ReadAll(f), "");
  std::fclose(f);
}

TEST(Progress, UnknownTotalShowsACount) {
  std::FILE* f = std::tmpfile();
  Progress p("listing", 0, "keys", ProgressMode::kPlain, f);
  p.Advance(7);
  EXPECT_EQ(p.Render(false).rfind("listing: 7 keys", 0), 0u) << p.Render(false);
  p.Finish();
  std::fclose(f);
}

// A job that fails ends its report without the final line, so its error is the last word.
TEST(Progress, AnAbandonedReportPrintsNoFinalLine) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("rewrite", 10, "files", ProgressMode::kPlain, f);
    p.Advance(3);
  }
  {
    Progress bar("rewrite", 10, "files", ProgressMode::kBar, f);
    bar.bar_interval = std::chrono::milliseconds(0);
    bar.Advance(3);  // drawn, then erased
  }
  std::string out = ReadAll(f);
  std::fclose(f);
  EXPECT_EQ(out.find(" in "), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("\r\033[K")) << out;
  EXPECT_EQ(out.find('\n'), std::string::npos) << out;
}

}  // namespace
}  // namespace floe
