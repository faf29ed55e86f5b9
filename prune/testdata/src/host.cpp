// Loads a HIP shared library with dlopen (its constructors register its
// fat binaries), calls a function that throws, and catches the exception.
#include <dlfcn.h>
#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  auto run = reinterpret_cast<int (*)(int)>(dlsym(h, "throw_run"));
  if (!run) {
    std::fprintf(stderr, "dlsym: %s\n", dlerror());
    return 3;
  }
  try {
    run(1);
  } catch (const std::exception &e) {
    std::printf("caught: %s\n", e.what());
    return 0;
  }
  return 4;
}
