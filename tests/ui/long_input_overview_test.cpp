// The Overview with long sentences: 1,024 tokens keep every head, and each thumbnail is a
// 64 x 64 picture whose pixels are the strongest of the cells they cover (a sharp head stays
// sharp); 4,096 tokens keep only the shown head, and the thumbnails say so instead of drawing.
#include <QLabel>

#include "tests/ui/long_input_support.h"
#include "ui/plot/cell_sampling.h"
#include "ui/plot/color_maps.h"
#include "ui/views/overview_view.h"
#include "ui/views/thumbnail_grid.h"

namespace qkv::ui::test {
namespace {

using LongInputOverviewTest = LongInputTest;

TEST_F(LongInputOverviewTest, ThumbnailsOfALongSentenceKeepEachPixelsStrongestCell) {
    constexpr int kTokens = 1024;
    ASSERT_TRUE(openLongInputModel());
    ASSERT_TRUE(typeTokenIds(kTokens));
    ASSERT_TRUE(doc().snapshot()->capturesAll());
    window->overviewView()->setShowsThumbnails(true);
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    const ThumbnailGrid* grid = window->overviewView()->thumbnails();
    ASSERT_FALSE(grid->isEmpty());

    const int side = ThumbnailGrid::kMaxPixels;
    const AxisSampling axis = sampleAxis(-0.5, kTokens - 0.5, kTokens, side);
    QCPColorGradient gradient = sequentialGradient(doc().colorScheme().sequential);
    for (const auto& [layer, head] : {std::pair{0, 0}, std::pair{1, 3}}) {
        const QImage& image = grid->thumbnail(layer, head);
        ASSERT_EQ(image.size(), QSize(side, side));
        const auto& a = doc().snapshot()->trace->probabilities(layer, head);
        for (int p : {0, 21, side - 1}) {  // pixels on the diagonal, where the causal mask ends
            float largest = 0;
            for (int r = axis.first[p]; r <= axis.last[p]; ++r)
                for (int c = axis.first[p]; c <= axis.last[p]; ++c)
                    largest = std::max(largest, a(r, c));
            EXPECT_EQ(image.pixel(p, p), gradient.color(largest, QCPRange(0, 1)))
                << "layer " << layer << " head " << head << " pixel " << p;
        }
    }
}

TEST_F(LongInputOverviewTest, ThumbnailsOfA4096TokenSentenceExplainWhyTheyAreAbsent) {
    ASSERT_TRUE(openLongInputModel());
    ASSERT_TRUE(typeTokenIds(kLongInputTokens));
    window->overviewView()->setShowsThumbnails(true);
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->overviewView()->thumbnails()->isEmpty());
    const auto labels = window->overviewView()->findChildren<QLabel*>();
    EXPECT_TRUE(std::any_of(labels.begin(), labels.end(), [](const QLabel* label) {
        return label->text().contains(QStringLiteral("too long to keep every head"));
    }));
}

}  // namespace
}  // namespace qkv::ui::test
