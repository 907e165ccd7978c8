#include "passes/analysis_manager.h"

#include <algorithm>

namespace carve {

AnalysisManager::Marks AnalysisManager::BeginPass() {
  Marks outer{preserve_all_, std::move(preserved_)};
  preserve_all_ = false;
  preserved_.clear();
  return outer;
}

void AnalysisManager::EndPass(Marks outer) {
  if (!preserve_all_) {
    absl::erase_if(entries_, [&](const auto& entry) {
      return std::find(preserved_.begin(), preserved_.end(), entry.first.first) == preserved_.end();
    });
  }
  if (entries_.empty()) arena_ = nullptr;
  preserve_all_ = outer.all;
  preserved_ = std::move(outer.types);
}

}  // namespace carve
