#include "ir/virtual_device.h"

#include <deque>
#include <mutex>

#include "fmt/format.h"
#include "ir/attrs.h"

namespace carve {

const VirtualDevice* NewVirtualDevice(int device_type, int virtual_device_id,
                                      std::string_view target, std::string_view memory_scope) {
  // A deque: pointers to its elements stay valid as it grows.
  static std::mutex* mu = new std::mutex();
  static std::deque<VirtualDevice>* store = new std::deque<VirtualDevice>();
  VirtualDevice d;
  d.device_type_ = device_type;
  d.virtual_device_id_ = virtual_device_id;
  d.target_ = InternString(target);
  d.memory_scope_ = InternString(memory_scope);
  std::lock_guard<std::mutex> lock(*mu);
  store->push_back(d);
  return &store->back();
}

bool SameVirtualDevice(const VirtualDevice* a, const VirtualDevice* b) {
  bool a_free = a == nullptr || a->IsFullyUnconstrained();
  bool b_free = b == nullptr || b->IsFullyUnconstrained();
  if (a_free || b_free) return a_free == b_free;
  return *a == *b;
}

std::string VirtualDeviceRepr(const VirtualDevice& d) {
  if (d.IsFullyUnconstrained()) return "VirtualDevice(?)";
  std::string out = "VirtualDevice(";
  std::string_view sep;
  if (d.device_type() != VirtualDevice::kInvalidDeviceType) {
    out += fmt::format("device_type={}", d.device_type());
    sep = ", ";
  }
  if (d.virtual_device_id() >= 0) {
    out += fmt::format("{}virtual_device_id={}", sep, d.virtual_device_id());
    sep = ", ";
  }
  if (!d.target().empty()) {
    out += fmt::format("{}target={}", sep, d.target());
    sep = ", ";
  }
  if (!d.memory_scope().empty()) out += fmt::format("{}memory_scope='{}'", sep, d.memory_scope());
  return out + ")";
}

}  // namespace carve
