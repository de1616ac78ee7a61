#pragma once
// A result the compute thread hands to the GUI thread through a queued signal is ordered by Qt's
// event queue, whose locking ThreadSanitizer cannot see (Qt is not built with it): to it, the
// result's allocation on one thread and its first use on the other look unordered, and the
// report comes or not with the timing. The sender marks what it hands over just before it
// emits, the receiver what it takes over before it touches it (its slot takes the pointer by
// reference, so that Qt's call does not copy it first). Without ThreadSanitizer both are empty.
#if defined(__SANITIZE_THREAD__)
#define QKV_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define QKV_THREAD_SANITIZER 1
#endif
#endif

#if defined(QKV_THREAD_SANITIZER)
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#endif

namespace qkv::ui {

inline void handOver(const void* result) {
#if defined(QKV_THREAD_SANITIZER)
    __tsan_release(const_cast<void*>(result));
#else
    (void)result;
#endif
}

inline void takeOver(const void* result) {
#if defined(QKV_THREAD_SANITIZER)
    __tsan_acquire(const_cast<void*>(result));
#else
    (void)result;
#endif
}

// A message made on the compute thread (an error's text), handed over as a result is: its
// characters are marked, and the signal's copy shares them. The receiving slot takes the text
// by reference and calls takeOver(text.constData()) first.
template <typename Text>
const Text& handedOver(const Text& text) {
    handOver(text.constData());
    return text;
}

}  // namespace qkv::ui
