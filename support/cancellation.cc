#include "support/cancellation.h"

namespace carve {
namespace {

void OnSigint(int) { RequestCancellation(); }

}  // namespace

ScopedSigintCancellation::ScopedSigintCancellation() {
  struct sigaction action = {};
  action.sa_handler = OnSigint;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_);
}

ScopedSigintCancellation::~ScopedSigintCancellation() { sigaction(SIGINT, &previous_, nullptr); }

}  // namespace carve
