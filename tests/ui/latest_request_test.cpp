// The "latest request wins" protocol the document and the training lab share with their workers.
#include "ui/compute/latest_request.h"

#include <gtest/gtest.h>

namespace qkv::ui {
namespace {

TEST(LatestRequest, ANewRequestCancelsAndOutdatesTheOldOne) {
    LatestRequest requests;
    const LatestRequest::Ticket first = requests.start();
    EXPECT_TRUE(requests.isCurrent(first.sequence));
    EXPECT_FALSE(requests.isStale(first.sequence, first.cancel.get()));

    const LatestRequest::Ticket second = requests.start();
    EXPECT_TRUE(first.cancel->load());              // a running first request stops at its flag
    EXPECT_TRUE(requests.isStale(first.sequence));  // a queued one is skipped
    EXPECT_FALSE(requests.isCurrent(first.sequence));
    EXPECT_FALSE(requests.isStale(second.sequence, second.cancel.get()));

    requests.cancel();
    EXPECT_TRUE(second.cancel->load());
    EXPECT_TRUE(requests.isStale(second.sequence));
    EXPECT_FALSE(requests.isCurrent(second.sequence));

    const LatestRequest::Ticket third = requests.start();
    requests.close();
    EXPECT_TRUE(third.cancel->load());
    EXPECT_TRUE(requests.isStale(third.sequence));
}

}  // namespace
}  // namespace qkv::ui
