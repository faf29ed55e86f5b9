
# __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-
host content

# __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-

# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906
device A

# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906

# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx908
device B no newline
# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx908
