#include "grammar/printer_slots.h"

namespace carve::print_internal {

uint32_t* SlotMap::Region(uintptr_t region) {
  if (region != cached_region_) {
    std::unique_ptr<uint32_t[]>& entries = regions_[region];
    if (entries == nullptr) entries = std::make_unique<uint32_t[]>(kEntries);  // zeroed
    cached_region_ = region;
    cached_entries_ = entries.get();
  }
  return cached_entries_;
}

std::pair<uint32_t, bool> SlotMap::Insert(const void* p, uint32_t next) {
  auto address = reinterpret_cast<uintptr_t>(p);
  uint32_t& entry =
      Region(address >> kRegionBits)[(address & ((uintptr_t{1} << kRegionBits) - 1)) >> kGrainBits];
  if (entry != 0) return {entry - 1, false};
  entry = next + 1;
  return {next, true};
}

void SlotMap::Clear() {
  regions_.clear();
  cached_region_ = ~uintptr_t{0};
  cached_entries_ = nullptr;
}

}  // namespace carve::print_internal
