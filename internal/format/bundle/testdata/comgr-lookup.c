// comgr-lookup FILE ISA...: for each ISA name, prints "ISA OFFSET SIZE" of
// the code object ROCm's code object manager (comgr) picks from the offload
// bundle FILE (amd_comgr_lookup_code_object on AMD_COMGR_DATA_KIND_FATBIN),
// "ISA 0 0" when it picks none. Built and run by bundle/rule_test.go where
// libamd-comgr-dev is installed; it needs no GPU.
#include <amd_comgr.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: comgr-lookup FILE ISA...\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(n);
  if (!buf || fread(buf, 1, n, f) != (size_t)n) {
    fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  fclose(f);
  amd_comgr_data_t data;
  if (amd_comgr_create_data(AMD_COMGR_DATA_KIND_FATBIN, &data) ||
      amd_comgr_set_data(data, n, buf)) {
    fprintf(stderr, "comgr: cannot create data\n");
    return 1;
  }
  int k = argc - 2;
  amd_comgr_code_object_info_t *info = calloc(k, sizeof *info);
  for (int i = 0; i < k; i++)
    info[i].isa = argv[i + 2];
  amd_comgr_status_t st = amd_comgr_lookup_code_object(data, info, k);
  if (st != AMD_COMGR_STATUS_SUCCESS) {
    fprintf(stderr, "comgr: lookup failed: %d\n", (int)st);
    return 1;
  }
  for (int i = 0; i < k; i++)
    printf("%s %llu %llu\n", info[i].isa, (unsigned long long)info[i].offset,
           (unsigned long long)info[i].size);
  return 0;
}
