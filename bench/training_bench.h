#pragma once
// The training lab's throughput on the shape of the shipped default models (4 layers, 4 heads,
// d_model 128, context 128, their 706-token vocabulary, batches of 16) under each tying, on
// every core, against the SGEMM rate.
#include "bench/bench_report.h"

namespace qkv::bench {

ReportTable trainingTable(double peakGflops);

}  // namespace qkv::bench
