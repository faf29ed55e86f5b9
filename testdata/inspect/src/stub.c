/* No-op stand-ins for the HIP runtime (libamdhip64.so) and the OpenMP
   offload runtime (libomp.so, libomptarget.so), so that host links succeed
   on a machine without ROCm (a copy of e2e/testdata/stub.c). gen.sh builds
   it as a temporary libamdhip64.so to link against. Never run. */
int hipLaunchKernel(void) { return 0; }
int __hipPushCallConfiguration(void) { return 0; }
int __hipPopCallConfiguration(void) { return 0; }
void *__hipRegisterFatBinary(void) { return 0; }
void __hipRegisterFunction(void) {}
void __hipRegisterVar(void) {}
void __hipRegisterManagedVar(void) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}
void __hipUnregisterFatBinary(void) {}
void __tgt_register_lib(void) {}
void __tgt_unregister_lib(void) {}
int __tgt_target_kernel(void) { return 0; }
void __kmpc_fork_call(void) {}
void __kmpc_fork_teams(void) {}
void __kmpc_push_num_teams(void) {}
void __kmpc_push_num_threads(void) {}
int __kmpc_global_thread_num(void) { return 0; }
void __kmpc_for_static_init_4(void) {}
void __kmpc_for_static_init_4u(void) {}
void __kmpc_for_static_init_8(void) {}
void __kmpc_for_static_init_8u(void) {}
void __kmpc_for_static_fini(void) {}
int __kmpc_reduce_nowait(void) { return 0; }
void __kmpc_end_reduce_nowait(void) {}
int __kmpc_reduce(void) { return 0; }
void __kmpc_end_reduce(void) {}
void __kmpc_barrier(void) {}
