#pragma once
// The long-input ui tests' model and sentence: a tiny random GPT-2 whose context is 4,096 tokens
// (two layers of four heads: too many to keep every head's 4096 x 4096 matrices, so the capture
// policy keeps only the shown head's), and random token ids typed after '#'.
#include "tests/support/fixture_writer.h"
#include "tests/ui/ui_test_support.h"

namespace qkv::ui::test {

constexpr int kLongInputTokens = 4096;

class LongInputTest : public MainWindowTest {
  protected:
    // Writes and opens the model.
    ::testing::AssertionResult openLongInputModel();
    // "#17 3 42 ..." with `count` random ids, put into the sentence editor at once (as a paste),
    // then waits for its result.
    ::testing::AssertionResult typeTokenIds(int count);

    qkv::test::TempDir m_modelDir;
};

}  // namespace qkv::ui::test
