#include "ui/compute/latest_request.h"

namespace qkv::ui {

LatestRequest::Ticket LatestRequest::start() {
    if (m_cancel) *m_cancel = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_latest = ++m_sequence;
    return {m_sequence, m_cancel};
}

void LatestRequest::close() {
    if (m_cancel) *m_cancel = true;
    m_latest = ~quint64{0};
}

}  // namespace qkv::ui
