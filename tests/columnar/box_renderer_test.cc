#include "floe/columnar/box_renderer.h"

#include <gtest/gtest.h>

namespace floe::columnar {
namespace {

std::vector<BoxColumn> IdName() { return {{"id", "long", true}, {"name", "string", false}}; }

TEST(BoxRendererTest, NamesTypesAndAlignment) {
  BoxRows rows{{{"1", "a"}, {"22", "say \"hi\""}}, {}, 2};
  EXPECT_EQ(RenderBox(IdName(), rows, 0),
            "┌──────┬──────────┐\n"
            "│  id  │   name   │\n"
            "│ long │  string  │\n"
            "├──────┼──────────┤\n"
            "│    1 │ a        │\n"
            "│   22 │ say \"hi\" │\n"
            "└──────┴──────────┘\n"
            "2 rows\n");
}

TEST(BoxRendererTest, OneRowAndNoRows) {
  EXPECT_TRUE(RenderBox(IdName(), {{{"1", "a"}}, {}, 1}, 0).ends_with("┘\n1 row\n"));
  EXPECT_EQ(RenderBox(IdName(), {{}, {}, 0}, 0),
            "┌──────┬────────┐\n"
            "│  id  │  name  │\n"
            "│ long │ string │\n"
            "├──────┼────────┤\n"
            "└──────┴────────┘\n"
            "0 rows\n");
}

TEST(BoxRendererTest, RowLimitShowsFirstAndLastWithDots) {
  BoxRows rows{{{"1", "a"}}, {{"9", "z"}}, 9};
  EXPECT_EQ(RenderBox(IdName(), rows, 0),
            "┌──────┬────────┐\n"
            "│  id  │  name  │\n"
            "│ long │ string │\n"
            "├──────┼────────┤\n"
            "│    1 │ a      │\n"
            "│  ·   │   ·    │\n"
            "│  ·   │   ·    │\n"
            "│  ·   │   ·    │\n"
            "│    9 │ z      │\n"
            "└──────┴────────┘\n"
            "9 rows (2 shown)\n");
}

TEST(BoxRendererTest, NewlinesAndControlCharactersStayOnOneLine) {
  BoxRows rows{{{"1", "x\ny\tz\x1b"}}, {}, 1};
  const std::string box = RenderBox(IdName(), rows, 0);
  EXPECT_NE(box.find("│    1 │ x\\ny\\tz\\x1b │\n"), std::string::npos) << box;
  EXPECT_EQ(OneLine("a\r\nb"), "a\\r\\nb");
}

TEST(BoxRendererTest, WideColumnsAreCutToFitTheWidth) {
  // Natural width: 1 + (4 + 3) + (30 + 3) = 41; at 30 the wide column is cut to 19 cells.
  BoxRows rows{{{"1", std::string(30, 'x')}}, {}, 1};
  const std::string box = RenderBox(IdName(), rows, 30);
  EXPECT_NE(box.find("│    1 │ " + std::string(18, 'x') + "… │\n"), std::string::npos) << box;
  size_t line_end = box.find('\n');
  EXPECT_EQ(DisplayWidth(box.substr(0, line_end)), 30u);
  EXPECT_TRUE(box.ends_with("\n1 row\n"));
}

TEST(BoxRendererTest, TooManyColumnsLeaveOutTheMiddle) {
  std::vector<BoxColumn> columns;
  std::vector<std::string> row;
  for (int i = 0; i < 10; ++i) {
    columns.push_back({"column" + std::to_string(i), "", false});
    row.push_back("value" + std::to_string(i));
  }
  // Each column kept at least 8 cells (11 with its borders): 40 cells hold 3 columns and the
  // gap, which then get their natural 7.
  const std::string box = RenderBox(columns, {{row}, {}, 1}, 40);
  EXPECT_EQ(box,
            "┌─────────┬─────────┬───┬─────────┐\n"
            "│ column0 │ column1 │ … │ column9 │\n"
            "├─────────┼─────────┼───┼─────────┤\n"
            "│ value0  │ value1  │ … │ value9  │\n"
            "└─────────┴─────────┴───┴─────────┘\n"
            "1 row, 10 columns (3 shown)\n");
}

TEST(BoxRendererTest, WideCharactersTakeTwoCells) {
  EXPECT_EQ(DisplayWidth("日本語"), 6u);
  EXPECT_EQ(DisplayWidth("e\u0301"), 1u);  // e + combining acute
  EXPECT_EQ(FitToWidth("日本語テキスト", 6), "日本…");
  EXPECT_EQ(FitToWidth("日本語テキスト", 5), "日本…");
  BoxRows rows{{{"1", "日本"}, {"2", "abcd"}}, {}, 2};
  const std::string box = RenderBox(IdName(), rows, 0);
  EXPECT_NE(box.find("│    1 │ 日本   │\n"), std::string::npos) << box;
  EXPECT_NE(box.find("│    2 │ abcd   │\n"), std::string::npos) << box;
}

TEST(BoxRendererTest, OneColumnNarrowerThanTheMinimumStillShows) {
  BoxRows rows{{{"abcdefghij"}}, {}, 1};
  const std::string box = RenderBox({{"s", "string", false}}, rows, 7);
  EXPECT_NE(box.find("│ ab… │\n"), std::string::npos) << box;  // 1 + (3 + 3) = 7 cells
  EXPECT_TRUE(box.ends_with("\n1 row\n")) << box;
}

TEST(BoxRendererTest, WidthCountsCodePoints) {
  EXPECT_EQ(DisplayWidth("naïve…"), 6u);
  EXPECT_EQ(FitToWidth("naïveté", 5), "naïv…");
  EXPECT_EQ(FitToWidth("abc", 3), "abc");
  // A byte that is not UTF-8 counts as one cell and is not split.
  EXPECT_EQ(DisplayWidth("a\xff"), 2u);
  BoxRows rows{{{"1", "héllo"}}, {}, 1};
  EXPECT_NE(RenderBox(IdName(), rows, 0).find("│    1 │ héllo  │"), std::string::npos);
}

}  // namespace
}  // namespace floe::columnar
