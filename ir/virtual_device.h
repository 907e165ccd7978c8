// TVM's VirtualDevice (include/tvm/target/virtual_device.h): where a value
// lives at run time and how the code computing it is compiled. PlanDevices
// puts them on function parameters and functions, on_device / device_copy /
// memory.alloc_storage carry them as attributes, and the text format refers
// to them through `meta[VirtualDevice][i]` entries of `#[metadata]`.
//
// carve has no Target object: a virtual device's target is kept as its kind
// name ("llvm", "cuda"), which is what device planning compares; a target's
// options, keys and host are not kept (docs/tvm-deviations.md).
//
// Objects are immutable and live for the whole process (a module has a
// handful). Each NewVirtualDevice call makes a distinct object: the text
// printer numbers meta entries by object, as TVM's does, so two entries that
// happen to be equal print back as two entries. Equality (operator==) is by
// value, as TVM's structural equality on VirtualDeviceNode.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace carve {

class VirtualDevice {
 public:
  // TVM's kInvalidDeviceType: the device type is unconstrained.
  static constexpr int kInvalidDeviceType = -1;

  // A DLDeviceType as an int, or kInvalidDeviceType.
  int device_type() const { return device_type_; }
  // -1 when unconstrained.
  int virtual_device_id() const { return virtual_device_id_; }
  // The target's kind name; empty when unconstrained.
  std::string_view target() const { return target_; }
  // Empty when unconstrained.
  std::string_view memory_scope() const { return memory_scope_; }

  bool IsFullyUnconstrained() const {
    return target_.empty() && device_type_ == kInvalidDeviceType && virtual_device_id_ == -1 &&
           memory_scope_.empty();
  }

  friend bool operator==(const VirtualDevice& a, const VirtualDevice& b) {
    return a.device_type_ == b.device_type_ && a.virtual_device_id_ == b.virtual_device_id_ &&
           a.target_ == b.target_ && a.memory_scope_ == b.memory_scope_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const VirtualDevice& d) {
    return H::combine(std::move(h), d.device_type_, d.virtual_device_id_, d.target_,
                      d.memory_scope_);
  }

 private:
  friend const VirtualDevice* NewVirtualDevice(int, int, std::string_view, std::string_view);
  VirtualDevice() = default;

  int device_type_ = kInvalidDeviceType;
  int virtual_device_id_ = -1;
  std::string_view target_;        // interned (InternString)
  std::string_view memory_scope_;  // interned
};

// A new object (never shared with an earlier call; see above).
const VirtualDevice* NewVirtualDevice(int device_type, int virtual_device_id = -1,
                                      std::string_view target = {},
                                      std::string_view memory_scope = {});

// Field-wise equality where nullptr means fully unconstrained (carve's Var
// and Function store nullptr for TVM's FullyUnconstrained()).
bool SameVirtualDevice(const VirtualDevice* a, const VirtualDevice* b);

// TVM's repr (`VirtualDevice(device_type=2, virtual_device_id=0,
// target=cuda)`, `VirtualDevice(?)`), which its printer shows when metadata
// is off. No parser reads it.
std::string VirtualDeviceRepr(const VirtualDevice& d);

}  // namespace carve
