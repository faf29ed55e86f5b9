/* A stand-in for the HIP runtime (libamdhip64.so) that records what a
   program registers: at __hipRegisterFatBinary it checks the wrapper and
   copies the bundle (or CCOB) found at the registered address to
   $HIP_RECORD_DIR/<n>.bin, so that a test can compare it with what it
   expects. The launch functions do nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wrapper {
  uint32_t magic, version;
  const unsigned char *binary;
  void *reserved;
};

static int count;
static void *handle;

static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t u32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

void **__hipRegisterFatBinary(const struct wrapper *w) {
  const char *dir = getenv("HIP_RECORD_DIR");
  char path[4096];
  if (!dir)
    return &handle;
  snprintf(path, sizeof path, "%s/%d.bin", dir, count++);
  FILE *f = fopen(path, "wb");
  if (!f)
    abort();
  if (w->magic != 0x48495046 || w->version != 1) {
    fprintf(f, "BAD WRAPPER %x %u", w->magic, w->version);
    fclose(f);
    return &handle;
  }
  const unsigned char *b = w->binary;
  uint64_t size = 0;
  if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0) {
    uint64_t n = u64(b + 24);
    const unsigned char *p = b + 32;
    size = 32;
    for (uint64_t i = 0; i < n; i++) {
      uint64_t off = u64(p), sz = u64(p + 8), idlen = u64(p + 16);
      p += 24 + idlen;
      if (off + sz > size)
        size = off + sz;
      if ((uint64_t)(p - b) > size)
        size = p - b;
    }
  } else if (memcmp(b, "CCOB", 4) == 0) {
    uint16_t version;
    memcpy(&version, b + 4, 2);
    size = version == 2 ? u32(b + 8) : u64(b + 8);
  } else {
    fprintf(f, "BAD BINARY %02x%02x%02x%02x", b[0], b[1], b[2], b[3]);
    fclose(f);
    return &handle;
  }
  fwrite(b, 1, size, f);
  fclose(f);
  return &handle;
}

void __hipUnregisterFatBinary(void *h) { (void)h; }
void __hipRegisterFunction(void) {}
void __hipRegisterVar(void) {}
void __hipRegisterManagedVar(void) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}
int hipLaunchKernel(void) { return 0; }
int __hipPushCallConfiguration(void) { return 0; }
int __hipPopCallConfiguration(void) { return 0; }
