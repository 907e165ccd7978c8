// carve-gen KIND NUM_OPS: writes a generated Relay program to stdout.
// KIND is resnet, transformer or chain.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "bench/relay_gen.h"

int main(int argc, char** argv) {
  using carve::bench::GraphKind;
  if (argc != 3) {
    std::fprintf(stderr, "usage: carve-gen resnet|transformer|chain NUM_OPS\n");
    return 2;
  }
  GraphKind kind;
  if (std::strcmp(argv[1], "resnet") == 0) {
    kind = GraphKind::kResNet;
  } else if (std::strcmp(argv[1], "transformer") == 0) {
    kind = GraphKind::kTransformer;
  } else if (std::strcmp(argv[1], "chain") == 0) {
    kind = GraphKind::kChain;
  } else {
    std::fprintf(stderr, "carve-gen: unknown kind '%s'\n", argv[1]);
    return 2;
  }
  char* end = nullptr;
  long long n = std::strtoll(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0' || n <= 0) {
    std::fprintf(stderr, "carve-gen: NUM_OPS must be a positive integer\n");
    return 2;
  }
  std::cout << carve::bench::GenerateRelay(kind, n);
  return 0;
}
