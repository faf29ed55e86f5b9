
# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906
	.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
	.amdhsa_code_object_version 6
	.text
	.p2align	2                               ; -- Begin function _ZL3tidv
	.type	_ZL3tidv,@function
_ZL3tidv:                               ; @_ZL3tidv
; %bb.0:
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	s_mov_b32 s5, s33
	s_mov_b32 s33, s32
	s_add_i32 s32, s32, 0x200
	s_mov_b32 s4, 0x3ff
	v_and_b32_e64 v0, v31, s4
	s_mov_b32 s32, s33
	s_mov_b32 s33, s5
	s_setpc_b64 s[30:31]
.Lfunc_end0:
	.size	_ZL3tidv, .Lfunc_end0-_ZL3tidv
                                        ; -- End function
	.set .L_ZL3tidv.num_vgpr, 32
	.set .L_ZL3tidv.num_agpr, 0
	.set .L_ZL3tidv.numbered_sgpr, 34
	.set .L_ZL3tidv.num_named_barrier, 0
	.set .L_ZL3tidv.private_seg_size, 8
	.set .L_ZL3tidv.uses_vcc, 0
	.set .L_ZL3tidv.uses_flat_scratch, 0
	.set .L_ZL3tidv.has_dyn_sized_stack, 0
	.set .L_ZL3tidv.has_recursion, 0
	.set .L_ZL3tidv.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 48
; TotalNumSgprs: 38
; NumVgprs: 32
; ScratchSize: 8
; MemoryBound: 0
	.text
	.protected	_Z8k1_scalePffi         ; -- Begin function _Z8k1_scalePffi
	.globl	_Z8k1_scalePffi
	.p2align	8
	.type	_Z8k1_scalePffi,@function
_Z8k1_scalePffi:                        ; @_Z8k1_scalePffi
; %bb.0:
	s_mov_b32 s33, 0
	s_mov_b32 s32, 0xc00
	s_add_u32 flat_scratch_lo, s12, s17
	s_addc_u32 flat_scratch_hi, s13, 0
	s_add_u32 s0, s0, s17
	s_addc_u32 s1, s1, 0
                                        ; implicit-def: $vgpr7 : SGPR spill to VGPR lane
	v_writelane_b32 v7, s16, 0
	s_mov_b32 s13, s15
	s_mov_b32 s12, s14
	v_readlane_b32 s14, v7, 0
	s_mov_b64 s[16:17], s[8:9]
	s_load_dwordx2 s[26:27], s[16:17], 0x0
	s_load_dword s9, s[16:17], 0x8
	s_load_dword s8, s[16:17], 0xc
	s_mov_b64 s[20:21], 0
	s_mov_b32 s30, s21
	s_mov_b32 s31, -1
	s_mov_b32 s19, 0
	s_cmp_lg_u32 s19, s31
	s_mov_b64 s[22:23], src_private_base
	s_mov_b32 s15, s23
	s_cselect_b32 s18, s15, s30
	s_mov_b32 s29, s20
	s_cselect_b32 s24, s19, s29
                                        ; kill: def $sgpr24 killed $sgpr24 def $sgpr24_sgpr25
	s_mov_b32 s25, s18
	s_mov_b32 s19, 8
	s_cmp_lg_u32 s19, s31
	s_cselect_b32 s18, s15, s30
	s_cselect_b32 s22, s19, s29
                                        ; kill: def $sgpr22 killed $sgpr22 def $sgpr22_sgpr23
	s_mov_b32 s23, s18
	s_mov_b64 s[18:19], s[22:23]
	v_writelane_b32 v7, s18, 1
	v_writelane_b32 v7, s19, 2
	s_mov_b32 s19, 16
	s_cmp_lg_u32 s19, s31
	s_cselect_b32 s18, s15, s30
	s_cselect_b32 s20, s19, s29
                                        ; kill: def $sgpr20 killed $sgpr20 def $sgpr20_sgpr21
	s_mov_b32 s21, s18
	s_mov_b64 s[18:19], s[20:21]
	v_writelane_b32 v7, s18, 3
	v_writelane_b32 v7, s19, 4
	s_mov_b32 s18, 20
	s_cmp_lg_u32 s18, s31
	s_cselect_b32 s28, s15, s30
	s_cselect_b32 s18, s18, s29
                                        ; kill: def $sgpr18 killed $sgpr18 def $sgpr18_sgpr19
	s_mov_b32 s19, s28
	v_writelane_b32 v7, s18, 5
	v_writelane_b32 v7, s19, 6
	s_mov_b32 s34, 24
	s_cmp_lg_u32 s34, s31
	s_cselect_b32 s28, s15, s30
	s_cselect_b32 s34, s34, s29
                                        ; kill: def $sgpr34 killed $sgpr34 def $sgpr34_sgpr35
	s_mov_b32 s35, s28
	v_writelane_b32 v7, s34, 7
	v_writelane_b32 v7, s35, 8
	v_writelane_b32 v7, s34, 9
	v_writelane_b32 v7, s35, 10
	s_mov_b32 s34, 28
	s_cmp_lg_u32 s34, s31
	s_cselect_b32 s28, s15, s30
	s_cselect_b32 s34, s34, s29
                                        ; kill: def $sgpr34 killed $sgpr34 def $sgpr34_sgpr35
	s_mov_b32 s35, s28
	v_writelane_b32 v7, s34, 11
	v_writelane_b32 v7, s35, 12
	s_mov_b32 s28, 32
	s_cmp_lg_u32 s28, s31
	s_cselect_b32 s15, s15, s30
	s_cselect_b32 s28, s28, s29
                                        ; kill: def $sgpr28 killed $sgpr28 def $sgpr28_sgpr29
	s_mov_b32 s29, s15
	v_writelane_b32 v7, s28, 13
	v_writelane_b32 v7, s29, 14
	v_mov_b32_e32 v3, s24
	v_mov_b32_e32 v4, s25
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v5, s26
	v_mov_b32_e32 v6, s27
	flat_store_dwordx2 v[3:4], v[5:6]
	v_mov_b32_e32 v3, s24
	v_mov_b32_e32 v4, s25
	flat_load_dwordx2 v[5:6], v[3:4]
	v_mov_b32_e32 v3, s22
	v_mov_b32_e32 v4, s23
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_store_dwordx2 v[3:4], v[5:6]
	v_mov_b32_e32 v3, s20
	v_mov_b32_e32 v4, s21
	v_mov_b32_e32 v5, s9
	flat_store_dword v[3:4], v5
	v_mov_b32_e32 v3, s18
	v_mov_b32_e32 v4, s19
	v_mov_b32_e32 v5, s8
	flat_store_dword v[3:4], v5
	s_mov_b64 s[18:19], 16
	s_mov_b32 s8, s16
	s_mov_b32 s9, s17
	s_mov_b32 s16, s18
	s_mov_b32 s15, s19
	s_add_u32 s8, s8, s16
	s_addc_u32 s15, s9, s15
                                        ; kill: def $sgpr8 killed $sgpr8 def $sgpr8_sgpr9
	s_mov_b32 s9, s15
	s_getpc_b64 s[16:17]
	s_add_u32 s16, s16, _ZL3tidv@rel32@lo+4
	s_addc_u32 s17, s17, _ZL3tidv@rel32@hi+12
	s_mov_b64 s[22:23], s[2:3]
	s_mov_b64 s[20:21], s[0:1]
	s_mov_b32 s15, 20
	v_lshlrev_b32_e64 v2, s15, v2
	s_mov_b32 s15, 10
	v_lshlrev_b32_e64 v1, s15, v1
	v_or3_b32 v31, v0, v1, v2
                                        ; implicit-def: $sgpr15
	s_mov_b64 s[0:1], s[20:21]
	s_mov_b64 s[2:3], s[22:23]
	s_swappc_b64 s[30:31], s[16:17]
	v_readlane_b32 s6, v7, 7
	v_readlane_b32 s7, v7, 8
	v_readlane_b32 s4, v7, 5
	v_readlane_b32 s5, v7, 6
	v_mov_b32_e32 v2, v0
	v_mov_b32_e32 v0, s6
	v_mov_b32_e32 v1, s7
	flat_store_dword v[0:1], v2
	v_mov_b32_e32 v0, s6
	v_mov_b32_e32 v1, s7
	flat_load_dword v0, v[0:1]
	v_mov_b32_e32 v1, s4
	v_mov_b32_e32 v2, s5
	flat_load_dword v1, v[1:2]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_cmp_lt_u32_e64 s[6:7], v0, v1
	s_mov_b64 s[4:5], exec
	v_writelane_b32 v7, s4, 15
	v_writelane_b32 v7, s5, 16
	s_or_saveexec_b64 s[36:37], -1
	buffer_store_dword v7, off, s[0:3], s33 offset:36 ; 4-byte Folded Spill
	s_mov_b64 exec, s[36:37]
	s_and_b64 s[4:5], s[4:5], s[6:7]
	s_mov_b64 exec, s[4:5]
	s_cbranch_execz .LBB1_2
; %bb.1:
	s_or_saveexec_b64 s[36:37], -1
	buffer_load_dword v7, off, s[0:3], s33 offset:36 ; 4-byte Folded Reload
	s_mov_b64 exec, s[36:37]
	s_waitcnt vmcnt(0)
	v_readlane_b32 s4, v7, 9
	v_readlane_b32 s5, v7, 10
	v_readlane_b32 s6, v7, 1
	v_readlane_b32 s7, v7, 2
	v_readlane_b32 s8, v7, 3
	v_readlane_b32 s9, v7, 4
	v_mov_b32_e32 v0, s8
	v_mov_b32_e32 v1, s9
	flat_load_dword v3, v[0:1]
	v_mov_b32_e32 v0, s6
	v_mov_b32_e32 v1, s7
	flat_load_dwordx2 v[1:2], v[0:1]
	v_mov_b32_e32 v4, s4
	v_mov_b32_e32 v5, s5
	flat_load_dword v4, v[4:5]
	v_mov_b32_e32 v0, 0
                                        ; kill: def $vgpr4 killed $vgpr4 def $vgpr4_vgpr5 killed $exec
	v_mov_b32_e32 v5, v0
	s_mov_b32 s4, 2
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_lshlrev_b64 v[5:6], s4, v[4:5]
	v_mov_b32_e32 v0, v1
	v_mov_b32_e32 v4, v5
	v_mov_b32_e32 v1, v2
	v_mov_b32_e32 v2, v6
	v_add_co_u32_e64 v0, s[4:5], v0, v4
	v_addc_co_u32_e64 v2, s[4:5], v1, v2, s[4:5]
                                        ; kill: def $vgpr0 killed $vgpr0 def $vgpr0_vgpr1 killed $exec
	v_mov_b32_e32 v1, v2
	flat_load_dword v2, v[0:1]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_mul_f32_e64 v2, v2, v3
	flat_store_dword v[0:1], v2
.LBB1_2:
	s_or_saveexec_b64 s[36:37], -1
	buffer_load_dword v7, off, s[0:3], s33 offset:36 ; 4-byte Folded Reload
	s_mov_b64 exec, s[36:37]
	s_waitcnt vmcnt(0)
	v_readlane_b32 s6, v7, 15
	v_readlane_b32 s7, v7, 16
	s_or_b64 exec, exec, s[6:7]
	v_readlane_b32 s4, v7, 9
	v_readlane_b32 s5, v7, 10
	v_mov_b32_e32 v0, s4
	v_mov_b32_e32 v1, s5
	flat_load_dword v0, v[0:1]
	s_mov_b32 s4, 0
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_cmp_eq_u32_e64 s[6:7], v0, s4
	s_mov_b64 s[4:5], exec
	v_writelane_b32 v7, s4, 17
	v_writelane_b32 v7, s5, 18
	s_or_saveexec_b64 s[36:37], -1
	buffer_store_dword v7, off, s[0:3], s33 offset:36 ; 4-byte Folded Spill
	s_mov_b64 exec, s[36:37]
	s_and_b64 s[4:5], s[4:5], s[6:7]
	s_mov_b64 exec, s[4:5]
	s_cbranch_execz .LBB1_4
; %bb.3:
	s_or_saveexec_b64 s[36:37], -1
	buffer_load_dword v7, off, s[0:3], s33 offset:36 ; 4-byte Folded Reload
	s_mov_b64 exec, s[36:37]
	s_waitcnt vmcnt(0)
	v_readlane_b32 s4, v7, 13
	v_readlane_b32 s5, v7, 14
	v_readlane_b32 s6, v7, 11
	v_readlane_b32 s7, v7, 12
	v_mov_b32_e32 v2, 1
	v_mov_b32_e32 v0, s6
	v_mov_b32_e32 v1, s7
	flat_store_dword v[0:1], v2
	v_mov_b32_e32 v0, s6
	v_mov_b32_e32 v1, s7
	flat_load_dword v2, v[0:1]
	s_getpc_b64 s[6:7]
	s_add_u32 s6, s6, k1_calls@rel32@lo+4
	s_addc_u32 s7, s7, k1_calls@rel32@hi+12
	v_mov_b32_e32 v0, s6
	v_mov_b32_e32 v1, s7
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_atomic_add v2, v[0:1], v2 glc
	v_mov_b32_e32 v0, s4
	v_mov_b32_e32 v1, s5
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_store_dword v[0:1], v2
.LBB1_4:
	s_or_saveexec_b64 s[36:37], -1
	buffer_load_dword v7, off, s[0:3], s33 offset:36 ; 4-byte Folded Reload
	s_mov_b64 exec, s[36:37]
	s_waitcnt vmcnt(0)
	v_readlane_b32 s4, v7, 17
	v_readlane_b32 s5, v7, 18
	s_or_b64 exec, exec, s[4:5]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel _Z8k1_scalePffi
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 56
		.amdhsa_kernarg_size 272
		.amdhsa_user_sgpr_count 14
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 1
		.amdhsa_user_sgpr_flat_scratch_init 1
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 1
		.amdhsa_system_sgpr_private_segment_wavefront_offset 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_sgpr_workgroup_id_z 1
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 2
		.amdhsa_next_free_vgpr 32
		.amdhsa_next_free_sgpr 38
		.amdhsa_reserve_vcc 0
		.amdhsa_reserve_flat_scratch 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end1:
	.size	_Z8k1_scalePffi, .Lfunc_end1-_Z8k1_scalePffi
                                        ; -- End function
	.set _Z8k1_scalePffi.num_vgpr, max(32, .L_ZL3tidv.num_vgpr)
	.set _Z8k1_scalePffi.num_agpr, max(0, .L_ZL3tidv.num_agpr)
	.set _Z8k1_scalePffi.numbered_sgpr, max(38, .L_ZL3tidv.numbered_sgpr)
	.set _Z8k1_scalePffi.num_named_barrier, max(0, .L_ZL3tidv.num_named_barrier)
	.set _Z8k1_scalePffi.private_seg_size, 48+max(.L_ZL3tidv.private_seg_size)
	.set _Z8k1_scalePffi.uses_vcc, or(0, .L_ZL3tidv.uses_vcc)
	.set _Z8k1_scalePffi.uses_flat_scratch, or(1, .L_ZL3tidv.uses_flat_scratch)
	.set _Z8k1_scalePffi.has_dyn_sized_stack, or(0, .L_ZL3tidv.has_dyn_sized_stack)
	.set _Z8k1_scalePffi.has_recursion, or(1, .L_ZL3tidv.has_recursion)
	.set _Z8k1_scalePffi.has_indirect_call, or(0, .L_ZL3tidv.has_indirect_call)
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 1248
; TotalNumSgprs: 44
; NumVgprs: 32
; ScratchSize: 56
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 5
; VGPRBlocks: 7
; NumSGPRsForWavesPerEU: 44
; NumVGPRsForWavesPerEU: 32
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 1
; COMPUTE_PGM_RSRC2:USER_SGPR: 14
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 1
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 2
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 32
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 34
	.set amdgpu.max_num_named_barrier, 0
	.section	.AMDGPU.csdata,"",@progbits
	.protected	k1_calls                ; @k1_calls
	.type	k1_calls,@object
	.section	.bss,"aw",@nobits
	.globl	k1_calls
	.p2align	2, 0x0
k1_calls:
	.long	0                               ; 0x0
	.size	k1_calls, 4

	.type	__hip_cuid_74fd42ff70fda878,@object ; @__hip_cuid_74fd42ff70fda878
	.globl	__hip_cuid_74fd42ff70fda878
__hip_cuid_74fd42ff70fda878:
	.byte	0                               ; 0x0
	.size	__hip_cuid_74fd42ff70fda878, 1

	.ident	"Debian clang version 22.1.8 (1~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym _ZL3tidv
	.addrsig_sym k1_calls
	.addrsig_sym __hip_cuid_74fd42ff70fda878
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
      - .offset:         12
        .size:           4
        .value_kind:     by_value
      - .offset:         16
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         20
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         28
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         30
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         32
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         34
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         36
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         38
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         56
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         80
        .size:           2
        .value_kind:     hidden_grid_dims
      - .offset:         96
        .size:           8
        .value_kind:     hidden_hostcall_buffer
      - .offset:         104
        .size:           8
        .value_kind:     hidden_multigrid_sync_arg
      - .offset:         112
        .size:           8
        .value_kind:     hidden_heap_v1
      - .offset:         120
        .size:           8
        .value_kind:     hidden_default_queue
      - .offset:         128
        .size:           8
        .value_kind:     hidden_completion_action
      - .offset:         216
        .size:           8
        .value_kind:     hidden_queue_ptr
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 272
    .max_flat_workgroup_size: 1024
    .name:           _Z8k1_scalePffi
    .private_segment_fixed_size: 56
    .sgpr_count:     44
    .sgpr_spill_count: 19
    .symbol:         _Z8k1_scalePffi.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: true
    .vgpr_count:     32
    .vgpr_spill_count: 2
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx906
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata

# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906

# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a:xnack+
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a:xnack+"
	.amdhsa_code_object_version 6
	.text
	.p2align	2                               ; -- Begin function _ZL3tidv
	.type	_ZL3tidv,@function
_ZL3tidv:                               ; @_ZL3tidv
; %bb.0:
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	s_mov_b32 s5, s33
	s_mov_b32 s33, s32
	s_add_i32 s32, s32, 0x200
	s_mov_b32 s4, 0x3ff
	v_and_b32_e64 v0, v31, s4
	s_mov_b32 s32, s33
	s_mov_b32 s33, s5
	s_setpc_b64 s[30:31]
.Lfunc_end0:
	.size	_ZL3tidv, .Lfunc_end0-_ZL3tidv
                                        ; -- End function
	.set .L_ZL3tidv.num_vgpr, 32
	.set .L_ZL3tidv.num_agpr, 0
	.set .L_ZL3tidv.numbered_sgpr, 34
	.set .L_ZL3tidv.num_named_barrier, 0
	.set .L_ZL3tidv.private_seg_size, 8
	.set .L_ZL3tidv.uses_vcc, 0
	.set .L_ZL3tidv.uses_flat_scratch, 0
	.set .L_ZL3tidv.has_dyn_sized_stack, 0
	.set .L_ZL3tidv.has_recursion, 0
	.set .L_ZL3tidv.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 48
; TotalNumSgprs: 38
; NumVgprs: 32
; NumAgprs: 0
; TotalNumVgprs: 32
; ScratchSize: 8
; MemoryBound: 0
	.text
	.protected	_Z8k1_scalePffi         ; -- Begin function _Z8k1_scalePffi
	.globl	_Z8k1_scalePffi
	.p2align	8
	.type	_Z8k1_scalePffi,@function
_Z8k1_scalePffi:                        ; @_Z8k1_scalePffi
; %bb.0:
	s_mov_b32 s33, 0
	s_mov_b32 s32, 0xc00
	s_add_u32 flat_scratch_lo, s12, s17
	s_addc_u32 flat_scratch_hi, s13, 0
	s_add_u32 s0, s0, s17
	s_addc_u32 s1, s1, 0
                                        ; implicit-def: $vgpr5 : SGPR spill to VGPR lane
	v_writelane_b32 v5, s16, 0
	s_mov_b32 s13, s15
	s_mov_b32 s12, s14
	v_readlane_b32 s14, v5, 0
	s_mov_b64 s[16:17], s[8:9]
	v_mov_b32_e32 v31, v0
	s_load_dwordx2 s[26:27], s[16:17], 0x0
	s_load_dword s9, s[16:17], 0x8
	s_load_dword s8, s[16:17], 0xc
	s_mov_b64 s[20:21], 0
	s_mov_b32 s30, s21
	s_mov_b32 s31, -1
	s_mov_b32 s19, 0
	s_cmp_lg_u32 s19, s31
	s_mov_b64 s[22:23], src_private_base
	s_mov_b32 s15, s23
	s_cselect_b32 s18, s15, s30
	s_mov_b32 s29, s20
	s_cselect_b32 s24, s19, s29
                                        ; kill: def $sgpr24 killed $sgpr24 def $sgpr24_sgpr25
	s_mov_b32 s25, s18
	s_mov_b32 s19, 8
	s_cmp_lg_u32 s19, s31
	s_cselect_b32 s18, s15, s30
	s_cselect_b32 s22, s19, s29
                                        ; kill: def $sgpr22 killed $sgpr22 def $sgpr22_sgpr23
	s_mov_b32 s23, s18
	s_mov_b64 s[18:19], s[22:23]
	v_writelane_b32 v5, s18, 1
	v_writelane_b32 v5, s19, 2
	s_mov_b32 s19, 16
	s_cmp_lg_u32 s19, s31
	s_cselect_b32 s18, s15, s30
	s_cselect_b32 s20, s19, s29
                                        ; kill: def $sgpr20 killed $sgpr20 def $sgpr20_sgpr21
	s_mov_b32 s21, s18
	s_mov_b64 s[18:19], s[20:21]
	v_writelane_b32 v5, s18, 3
	v_writelane_b32 v5, s19, 4
	s_mov_b32 s18, 20
	s_cmp_lg_u32 s18, s31
	s_cselect_b32 s28, s15, s30
	s_cselect_b32 s18, s18, s29
                                        ; kill: def $sgpr18 killed $sgpr18 def $sgpr18_sgpr19
	s_mov_b32 s19, s28
	v_writelane_b32 v5, s18, 5
	v_writelane_b32 v5, s19, 6
	s_mov_b32 s34, 24
	s_cmp_lg_u32 s34, s31
	s_cselect_b32 s28, s15, s30
	s_cselect_b32 s34, s34, s29
                                        ; kill: def $sgpr34 killed $sgpr34 def $sgpr34_sgpr35
	s_mov_b32 s35, s28
	v_writelane_b32 v5, s34, 7
	v_writelane_b32 v5, s35, 8
	v_writelane_b32 v5, s34, 9
	v_writelane_b32 v5, s35, 10
	s_mov_b32 s34, 28
	s_cmp_lg_u32 s34, s31
	s_cselect_b32 s28, s15, s30
	s_cselect_b32 s34, s34, s29
                                        ; kill: def $sgpr34 killed $sgpr34 def $sgpr34_sgpr35
	s_mov_b32 s35, s28
	v_writelane_b32 v5, s34, 11
	v_writelane_b32 v5, s35, 12
	s_mov_b32 s28, 32
	s_cmp_lg_u32 s28, s31
	s_cselect_b32 s15, s15, s30
	s_cselect_b32 s28, s28, s29
                                        ; kill: def $sgpr28 killed $sgpr28 def $sgpr28_sgpr29
	s_mov_b32 s29, s15
	v_writelane_b32 v5, s28, 13
	v_writelane_b32 v5, s29, 14
	v_pk_mov_b32 v[0:1], s[24:25], s[24:25] op_sel:[0,1]
	s_waitcnt lgkmcnt(0)
	v_pk_mov_b32 v[2:3], s[26:27], s[26:27] op_sel:[0,1]
	flat_store_dwordx2 v[0:1], v[2:3]
	v_pk_mov_b32 v[0:1], s[24:25], s[24:25] op_sel:[0,1]
	flat_load_dwordx2 v[2:3], v[0:1]
	v_pk_mov_b32 v[0:1], s[22:23], s[22:23] op_sel:[0,1]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_store_dwordx2 v[0:1], v[2:3]
	v_pk_mov_b32 v[0:1], s[20:21], s[20:21] op_sel:[0,1]
	v_mov_b32_e32 v2, s9
	flat_store_dword v[0:1], v2
	v_pk_mov_b32 v[0:1], s[18:19], s[18:19] op_sel:[0,1]
	v_mov_b32_e32 v2, s8
	flat_store_dword v[0:1], v2
	s_mov_b64 s[18:19], 16
	s_mov_b32 s8, s16
	s_mov_b32 s9, s17
	s_mov_b32 s16, s18
	s_mov_b32 s15, s19
	s_add_u32 s8, s8, s16
	s_addc_u32 s15, s9, s15
                                        ; kill: def $sgpr8 killed $sgpr8 def $sgpr8_sgpr9
	s_mov_b32 s9, s15
	s_getpc_b64 s[16:17]
	s_add_u32 s16, s16, _ZL3tidv@rel32@lo+4
	s_addc_u32 s17, s17, _ZL3tidv@rel32@hi+12
	s_mov_b64 s[22:23], s[2:3]
	s_mov_b64 s[20:21], s[0:1]
                                        ; implicit-def: $sgpr15
	s_mov_b64 s[0:1], s[20:21]
	s_mov_b64 s[2:3], s[22:23]
	s_swappc_b64 s[30:31], s[16:17]
	v_readlane_b32 s6, v5, 7
	v_readlane_b32 s7, v5, 8
	v_readlane_b32 s4, v5, 5
	v_readlane_b32 s5, v5, 6
	v_mov_b32_e32 v2, v0
	v_pk_mov_b32 v[0:1], s[6:7], s[6:7] op_sel:[0,1]
	flat_store_dword v[0:1], v2
	v_pk_mov_b32 v[0:1], s[6:7], s[6:7] op_sel:[0,1]
	flat_load_dword v0, v[0:1]
	v_pk_mov_b32 v[2:3], s[4:5], s[4:5] op_sel:[0,1]
	flat_load_dword v1, v[2:3]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_cmp_lt_u32_e64 s[6:7], v0, v1
	s_mov_b64 s[4:5], exec
	v_writelane_b32 v5, s4, 15
	v_writelane_b32 v5, s5, 16
	s_or_saveexec_b64 s[36:37], -1
	v_accvgpr_write_b32 a0, v5              ;  Reload Reuse
	s_mov_b64 exec, s[36:37]
	s_and_b64 s[4:5], s[4:5], s[6:7]
	s_mov_b64 exec, s[4:5]
	s_cbranch_execz .LBB1_2
; %bb.1:
	s_or_saveexec_b64 s[36:37], -1
	v_accvgpr_read_b32 v5, a0               ;  Reload Reuse
	s_mov_b64 exec, s[36:37]
	v_readlane_b32 s4, v5, 9
	v_readlane_b32 s5, v5, 10
	v_readlane_b32 s6, v5, 1
	v_readlane_b32 s7, v5, 2
	v_readlane_b32 s8, v5, 3
	v_readlane_b32 s9, v5, 4
	v_pk_mov_b32 v[0:1], s[8:9], s[8:9] op_sel:[0,1]
	flat_load_dword v3, v[0:1]
	v_pk_mov_b32 v[0:1], s[6:7], s[6:7] op_sel:[0,1]
	flat_load_dwordx2 v[8:9], v[0:1]
	v_pk_mov_b32 v[0:1], s[4:5], s[4:5] op_sel:[0,1]
	flat_load_dword v0, v[0:1]
	v_mov_b32_e32 v2, 0
                                        ; kill: def $vgpr0 killed $vgpr0 def $vgpr0_vgpr1 killed $exec
	v_mov_b32_e32 v1, v2
	s_mov_b32 s4, 2
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_lshlrev_b64 v[6:7], s4, v[0:1]
	v_mov_b32_e32 v0, v8
	v_mov_b32_e32 v4, v6
	v_mov_b32_e32 v1, v9
	v_mov_b32_e32 v2, v7
	v_add_co_u32_e64 v0, s[4:5], v0, v4
	v_addc_co_u32_e64 v2, s[4:5], v1, v2, s[4:5]
                                        ; kill: def $vgpr0 killed $vgpr0 def $vgpr0_vgpr1 killed $exec
	v_mov_b32_e32 v1, v2
	flat_load_dword v2, v[0:1]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_mul_f32_e64 v2, v2, v3
	flat_store_dword v[0:1], v2
.LBB1_2:
	s_or_saveexec_b64 s[36:37], -1
	v_accvgpr_read_b32 v5, a0               ;  Reload Reuse
	s_mov_b64 exec, s[36:37]
	v_readlane_b32 s6, v5, 15
	v_readlane_b32 s7, v5, 16
	s_or_b64 exec, exec, s[6:7]
	v_readlane_b32 s4, v5, 9
	v_readlane_b32 s5, v5, 10
	v_pk_mov_b32 v[0:1], s[4:5], s[4:5] op_sel:[0,1]
	flat_load_dword v0, v[0:1]
	s_mov_b32 s4, 0
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_cmp_eq_u32_e64 s[6:7], v0, s4
	s_mov_b64 s[4:5], exec
	v_writelane_b32 v5, s4, 17
	v_writelane_b32 v5, s5, 18
	s_or_saveexec_b64 s[36:37], -1
	v_accvgpr_write_b32 a0, v5              ;  Reload Reuse
	s_mov_b64 exec, s[36:37]
	s_and_b64 s[4:5], s[4:5], s[6:7]
	s_mov_b64 exec, s[4:5]
	s_cbranch_execz .LBB1_4
; %bb.3:
	s_or_saveexec_b64 s[36:37], -1
	v_accvgpr_read_b32 v5, a0               ;  Reload Reuse
	s_mov_b64 exec, s[36:37]
	v_readlane_b32 s4, v5, 13
	v_readlane_b32 s5, v5, 14
	v_readlane_b32 s6, v5, 11
	v_readlane_b32 s7, v5, 12
	v_mov_b32_e32 v2, 1
	v_pk_mov_b32 v[0:1], s[6:7], s[6:7] op_sel:[0,1]
	flat_store_dword v[0:1], v2
	v_pk_mov_b32 v[0:1], s[6:7], s[6:7] op_sel:[0,1]
	flat_load_dword v2, v[0:1]
	s_getpc_b64 s[6:7]
	s_add_u32 s6, s6, k1_calls@rel32@lo+4
	s_addc_u32 s7, s7, k1_calls@rel32@hi+12
	v_pk_mov_b32 v[0:1], s[6:7], s[6:7] op_sel:[0,1]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_atomic_add v2, v[0:1], v2 glc
	v_pk_mov_b32 v[0:1], s[4:5], s[4:5] op_sel:[0,1]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_store_dword v[0:1], v2
.LBB1_4:
	s_or_saveexec_b64 s[36:37], -1
	v_accvgpr_read_b32 v5, a0               ;  Reload Reuse
	s_mov_b64 exec, s[36:37]
	v_readlane_b32 s4, v5, 17
	v_readlane_b32 s5, v5, 18
	s_or_b64 exec, exec, s[4:5]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel _Z8k1_scalePffi
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 56
		.amdhsa_kernarg_size 272
		.amdhsa_user_sgpr_count 14
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 1
		.amdhsa_user_sgpr_flat_scratch_init 1
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 1
		.amdhsa_system_sgpr_private_segment_wavefront_offset 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_sgpr_workgroup_id_z 1
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 2
		.amdhsa_next_free_vgpr 33
		.amdhsa_next_free_sgpr 38
		.amdhsa_accum_offset 32
		.amdhsa_reserve_vcc 0
		.amdhsa_reserve_flat_scratch 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end1:
	.size	_Z8k1_scalePffi, .Lfunc_end1-_Z8k1_scalePffi
                                        ; -- End function
	.set _Z8k1_scalePffi.num_vgpr, max(32, .L_ZL3tidv.num_vgpr)
	.set _Z8k1_scalePffi.num_agpr, max(1, .L_ZL3tidv.num_agpr)
	.set _Z8k1_scalePffi.numbered_sgpr, max(38, .L_ZL3tidv.numbered_sgpr)
	.set _Z8k1_scalePffi.num_named_barrier, max(0, .L_ZL3tidv.num_named_barrier)
	.set _Z8k1_scalePffi.private_seg_size, 48+max(.L_ZL3tidv.private_seg_size)
	.set _Z8k1_scalePffi.uses_vcc, or(0, .L_ZL3tidv.uses_vcc)
	.set _Z8k1_scalePffi.uses_flat_scratch, or(1, .L_ZL3tidv.uses_flat_scratch)
	.set _Z8k1_scalePffi.has_dyn_sized_stack, or(0, .L_ZL3tidv.has_dyn_sized_stack)
	.set _Z8k1_scalePffi.has_recursion, or(1, .L_ZL3tidv.has_recursion)
	.set _Z8k1_scalePffi.has_indirect_call, or(0, .L_ZL3tidv.has_indirect_call)
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 1204
; TotalNumSgprs: 44
; NumVgprs: 32
; NumAgprs: 1
; TotalNumVgprs: 33
; ScratchSize: 56
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 5
; VGPRBlocks: 4
; NumSGPRsForWavesPerEU: 44
; NumVGPRsForWavesPerEU: 33
; AccumOffset: 32
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 1
; COMPUTE_PGM_RSRC2:USER_SGPR: 14
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 1
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 2
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 7
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 32
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 34
	.set amdgpu.max_num_named_barrier, 0
	.text
	.protected	k1_calls                ; @k1_calls
	.type	k1_calls,@object
	.section	.bss,"aw",@nobits
	.globl	k1_calls
	.p2align	2, 0x0
k1_calls:
	.long	0                               ; 0x0
	.size	k1_calls, 4

	.type	__hip_cuid_74fd42ff70fda878,@object ; @__hip_cuid_74fd42ff70fda878
	.globl	__hip_cuid_74fd42ff70fda878
__hip_cuid_74fd42ff70fda878:
	.byte	0                               ; 0x0
	.size	__hip_cuid_74fd42ff70fda878, 1

	.ident	"Debian clang version 22.1.8 (1~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym _ZL3tidv
	.addrsig_sym k1_calls
	.addrsig_sym __hip_cuid_74fd42ff70fda878
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     1
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
      - .offset:         12
        .size:           4
        .value_kind:     by_value
      - .offset:         16
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         20
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         28
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         30
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         32
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         34
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         36
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         38
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         56
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         80
        .size:           2
        .value_kind:     hidden_grid_dims
      - .offset:         96
        .size:           8
        .value_kind:     hidden_hostcall_buffer
      - .offset:         104
        .size:           8
        .value_kind:     hidden_multigrid_sync_arg
      - .offset:         112
        .size:           8
        .value_kind:     hidden_heap_v1
      - .offset:         120
        .size:           8
        .value_kind:     hidden_default_queue
      - .offset:         128
        .size:           8
        .value_kind:     hidden_completion_action
      - .offset:         216
        .size:           8
        .value_kind:     hidden_queue_ptr
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 272
    .max_flat_workgroup_size: 1024
    .name:           _Z8k1_scalePffi
    .private_segment_fixed_size: 56
    .sgpr_count:     44
    .sgpr_spill_count: 19
    .symbol:         _Z8k1_scalePffi.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: true
    .vgpr_count:     33
    .vgpr_spill_count: 2
    .wavefront_size: 64
amdhsa.target:   'amdgcn-amd-amdhsa--gfx90a:xnack+'
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata

# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a:xnack+

# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
	.amdhsa_code_object_version 6
	.text
	.p2align	2                               ; -- Begin function _ZL3tidv
	.type	_ZL3tidv,@function
_ZL3tidv:                               ; @_ZL3tidv
; %bb.0:
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	s_mov_b32 s1, s33
	s_mov_b32 s33, s32
	s_add_i32 s32, s32, 8
	s_mov_b32 s0, 0x3ff
	v_and_b32_e64 v0, v31, s0
	s_mov_b32 s32, s33
	s_mov_b32 s33, s1
	s_setpc_b64 s[30:31]
.Lfunc_end0:
	.size	_ZL3tidv, .Lfunc_end0-_ZL3tidv
                                        ; -- End function
	.set .L_ZL3tidv.num_vgpr, 32
	.set .L_ZL3tidv.num_agpr, 0
	.set .L_ZL3tidv.numbered_sgpr, 34
	.set .L_ZL3tidv.num_named_barrier, 0
	.set .L_ZL3tidv.private_seg_size, 8
	.set .L_ZL3tidv.uses_vcc, 0
	.set .L_ZL3tidv.uses_flat_scratch, 0
	.set .L_ZL3tidv.has_dyn_sized_stack, 0
	.set .L_ZL3tidv.has_recursion, 0
	.set .L_ZL3tidv.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 44
; TotalNumSgprs: 40
; NumVgprs: 32
; NumAgprs: 0
; TotalNumVgprs: 32
; ScratchSize: 8
; MemoryBound: 0
	.text
	.protected	_Z8k1_scalePffi         ; -- Begin function _Z8k1_scalePffi
	.globl	_Z8k1_scalePffi
	.p2align	8
	.type	_Z8k1_scalePffi,@function
_Z8k1_scalePffi:                        ; @_Z8k1_scalePffi
; %bb.0:
	s_mov_b32 s33, 0
	s_mov_b32 s32, 48
	s_mov_b32 s14, s10
	s_mov_b32 s13, s9
	s_mov_b32 s12, s8
	s_mov_b64 s[10:11], s[6:7]
                                        ; implicit-def: $vgpr6 : SGPR spill to VGPR lane
	v_writelane_b32 v6, s4, 0
	s_nop 1
	v_writelane_b32 v6, s5, 1
	s_mov_b64 s[6:7], s[2:3]
	s_mov_b64 s[4:5], s[0:1]
	v_readlane_b32 s0, v6, 0
	v_readlane_b32 s1, v6, 1
	v_mov_b32_e32 v31, v0
	s_load_dwordx2 s[24:25], s[0:1], 0x0
	s_load_dword s9, s[0:1], 0x8
	s_load_dword s8, s[0:1], 0xc
	s_mov_b64 s[16:17], 0
	s_mov_b32 s28, s17
	s_mov_b32 s29, -1
	s_mov_b32 s3, s33
	s_cmp_lg_u32 s3, s29
	s_mov_b64 s[18:19], src_private_base
	s_mov_b32 s15, s19
	s_cselect_b32 s2, s15, s28
	s_mov_b32 s27, s16
	s_cselect_b32 s22, s3, s27
                                        ; kill: def $sgpr22 killed $sgpr22 def $sgpr22_sgpr23
	s_mov_b32 s23, s2
	s_add_i32 s2, s33, 8
	s_mov_b32 s3, s2
	s_cmp_lg_u32 s3, s29
	s_cselect_b32 s2, s15, s28
	s_cselect_b32 s20, s3, s27
                                        ; kill: def $sgpr20 killed $sgpr20 def $sgpr20_sgpr21
	s_mov_b32 s21, s2
	s_mov_b64 s[2:3], s[20:21]
	v_writelane_b32 v6, s2, 2
	s_nop 1
	v_writelane_b32 v6, s3, 3
	s_add_i32 s2, s33, 16
	s_mov_b32 s3, s2
	s_cmp_lg_u32 s3, s29
	s_cselect_b32 s2, s15, s28
	s_cselect_b32 s18, s3, s27
                                        ; kill: def $sgpr18 killed $sgpr18 def $sgpr18_sgpr19
	s_mov_b32 s19, s2
	s_mov_b64 s[2:3], s[18:19]
	v_writelane_b32 v6, s2, 4
	s_nop 1
	v_writelane_b32 v6, s3, 5
	s_add_i32 s2, s33, 20
	s_mov_b32 s3, s2
	s_cmp_lg_u32 s3, s29
	s_cselect_b32 s2, s15, s28
	s_cselect_b32 s16, s3, s27
                                        ; kill: def $sgpr16 killed $sgpr16 def $sgpr16_sgpr17
	s_mov_b32 s17, s2
	v_writelane_b32 v6, s16, 6
	s_nop 1
	v_writelane_b32 v6, s17, 7
	s_add_i32 s3, s33, 24
	s_mov_b32 s2, s3
	s_cmp_lg_u32 s2, s29
	s_cselect_b32 s26, s15, s28
	s_cselect_b32 s2, s2, s27
                                        ; kill: def $sgpr2 killed $sgpr2 def $sgpr2_sgpr3
	s_mov_b32 s3, s26
	s_mov_b64 s[30:31], s[2:3]
	v_writelane_b32 v6, s30, 8
	s_nop 1
	v_writelane_b32 v6, s31, 9
	s_add_i32 s26, s33, 28
	s_mov_b32 s30, s26
	s_cmp_lg_u32 s30, s29
	s_cselect_b32 s26, s15, s28
	s_cselect_b32 s30, s30, s27
                                        ; kill: def $sgpr30 killed $sgpr30 def $sgpr30_sgpr31
	s_mov_b32 s31, s26
	v_writelane_b32 v6, s30, 10
	s_nop 1
	v_writelane_b32 v6, s31, 11
	s_add_i32 s30, s33, 32
	s_mov_b32 s26, s30
	s_cmp_lg_u32 s26, s29
	s_cselect_b32 s15, s15, s28
	s_cselect_b32 s26, s26, s27
                                        ; kill: def $sgpr26 killed $sgpr26 def $sgpr26_sgpr27
	s_mov_b32 s27, s15
	v_writelane_b32 v6, s26, 12
	s_nop 1
	v_writelane_b32 v6, s27, 13
	v_mov_b64_e32 v[0:1], s[22:23]
	s_waitcnt lgkmcnt(0)
	v_mov_b64_e32 v[2:3], s[24:25]
	flat_store_dwordx2 v[0:1], v[2:3]
	v_mov_b64_e32 v[0:1], s[22:23]
	flat_load_dwordx2 v[2:3], v[0:1]
	v_mov_b64_e32 v[0:1], s[20:21]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_store_dwordx2 v[0:1], v[2:3]
	v_mov_b64_e32 v[0:1], s[18:19]
	v_mov_b32_e32 v2, s9
	flat_store_dword v[0:1], v2
	v_mov_b64_e32 v[0:1], s[16:17]
	v_mov_b32_e32 v2, s8
	flat_store_dword v[0:1], v2
	s_mov_b64 s[16:17], 16
	s_mov_b32 s8, s0
	s_mov_b32 s0, s1
	s_mov_b32 s9, s16
	s_mov_b32 s1, s17
	s_add_u32 s8, s8, s9
	s_addc_u32 s0, s0, s1
                                        ; kill: def $sgpr8 killed $sgpr8 def $sgpr8_sgpr9
	s_mov_b32 s9, s0
	s_getpc_b64 s[0:1]
	s_add_u32 s0, s0, _ZL3tidv@rel32@lo+4
	s_addc_u32 s1, s1, _ZL3tidv@rel32@hi+12
                                        ; implicit-def: $sgpr15
	s_swappc_b64 s[30:31], s[0:1]
	v_readlane_b32 s0, v6, 6
	v_readlane_b32 s1, v6, 7
	v_mov_b32_e32 v2, v0
	v_mov_b64_e32 v[0:1], s[2:3]
	flat_store_dword v[0:1], v2
	v_mov_b64_e32 v[0:1], s[2:3]
	flat_load_dword v0, v[0:1]
	v_mov_b64_e32 v[2:3], s[0:1]
	flat_load_dword v1, v[2:3]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_cmp_lt_u32_e64 s[2:3], v0, v1
	s_mov_b64 s[0:1], exec
	v_writelane_b32 v6, s0, 14
	s_nop 1
	v_writelane_b32 v6, s1, 15
	s_or_saveexec_b64 s[34:35], -1
	v_accvgpr_write_b32 a0, v6              ;  Reload Reuse
	s_mov_b64 exec, s[34:35]
	s_and_b64 s[0:1], s[0:1], s[2:3]
	s_mov_b64 exec, s[0:1]
	s_cbranch_execz .LBB1_2
; %bb.1:
	s_or_saveexec_b64 s[34:35], -1
	v_accvgpr_read_b32 v6, a0               ;  Reload Reuse
	s_mov_b64 exec, s[34:35]
	v_readlane_b32 s0, v6, 8
	v_readlane_b32 s1, v6, 9
	v_readlane_b32 s2, v6, 2
	v_readlane_b32 s3, v6, 3
	v_readlane_b32 s4, v6, 4
	v_readlane_b32 s5, v6, 5
	s_nop 1
	v_mov_b64_e32 v[0:1], s[4:5]
	flat_load_dword v3, v[0:1]
	v_mov_b64_e32 v[0:1], s[2:3]
	flat_load_dwordx2 v[4:5], v[0:1]
	v_mov_b64_e32 v[0:1], s[0:1]
	flat_load_dword v0, v[0:1]
	v_mov_b32_e32 v2, 0
                                        ; kill: def $vgpr0 killed $vgpr0 def $vgpr0_vgpr1 killed $exec
	v_mov_b32_e32 v1, v2
	s_mov_b32 s0, 2
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_lshl_add_u64 v[0:1], v[0:1], s0, v[4:5]
	flat_load_dword v2, v[0:1]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_mul_f32_e64 v2, v2, v3
	flat_store_dword v[0:1], v2
.LBB1_2:
	s_or_saveexec_b64 s[34:35], -1
	v_accvgpr_read_b32 v6, a0               ;  Reload Reuse
	s_mov_b64 exec, s[34:35]
	v_readlane_b32 s2, v6, 14
	v_readlane_b32 s3, v6, 15
	s_or_b64 exec, exec, s[2:3]
	v_readlane_b32 s0, v6, 8
	v_readlane_b32 s1, v6, 9
	s_nop 1
	v_mov_b64_e32 v[0:1], s[0:1]
	flat_load_dword v0, v[0:1]
	s_mov_b32 s0, 0
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_cmp_eq_u32_e64 s[2:3], v0, s0
	s_mov_b64 s[0:1], exec
	v_writelane_b32 v6, s0, 16
	s_nop 1
	v_writelane_b32 v6, s1, 17
	s_or_saveexec_b64 s[34:35], -1
	v_accvgpr_write_b32 a0, v6              ;  Reload Reuse
	s_mov_b64 exec, s[34:35]
	s_and_b64 s[0:1], s[0:1], s[2:3]
	s_mov_b64 exec, s[0:1]
	s_cbranch_execz .LBB1_4
; %bb.3:
	s_or_saveexec_b64 s[34:35], -1
	v_accvgpr_read_b32 v6, a0               ;  Reload Reuse
	s_mov_b64 exec, s[34:35]
	v_readlane_b32 s0, v6, 12
	v_readlane_b32 s1, v6, 13
	v_readlane_b32 s2, v6, 10
	v_readlane_b32 s3, v6, 11
	v_mov_b32_e32 v2, 1
	s_nop 0
	v_mov_b64_e32 v[0:1], s[2:3]
	flat_store_dword v[0:1], v2
	v_mov_b64_e32 v[0:1], s[2:3]
	flat_load_dword v2, v[0:1]
	s_getpc_b64 s[2:3]
	s_add_u32 s2, s2, k1_calls@rel32@lo+4
	s_addc_u32 s3, s3, k1_calls@rel32@hi+12
	v_mov_b64_e32 v[0:1], s[2:3]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_atomic_add v2, v[0:1], v2 sc0 sc1
	v_mov_b64_e32 v[0:1], s[0:1]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	flat_store_dword v[0:1], v2
.LBB1_4:
	s_or_saveexec_b64 s[34:35], -1
	v_accvgpr_read_b32 v6, a0               ;  Reload Reuse
	s_mov_b64 exec, s[34:35]
	v_readlane_b32 s0, v6, 16
	v_readlane_b32 s1, v6, 17
	s_or_b64 exec, exec, s[0:1]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel _Z8k1_scalePffi
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 56
		.amdhsa_kernarg_size 272
		.amdhsa_user_sgpr_count 8
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 1
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 1
		.amdhsa_enable_private_segment 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_sgpr_workgroup_id_z 1
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 2
		.amdhsa_next_free_vgpr 33
		.amdhsa_next_free_sgpr 36
		.amdhsa_accum_offset 32
		.amdhsa_reserve_vcc 0
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end1:
	.size	_Z8k1_scalePffi, .Lfunc_end1-_Z8k1_scalePffi
                                        ; -- End function
	.set _Z8k1_scalePffi.num_vgpr, max(32, .L_ZL3tidv.num_vgpr)
	.set _Z8k1_scalePffi.num_agpr, max(1, .L_ZL3tidv.num_agpr)
	.set _Z8k1_scalePffi.numbered_sgpr, max(36, .L_ZL3tidv.numbered_sgpr)
	.set _Z8k1_scalePffi.num_named_barrier, max(0, .L_ZL3tidv.num_named_barrier)
	.set _Z8k1_scalePffi.private_seg_size, 48+max(.L_ZL3tidv.private_seg_size)
	.set _Z8k1_scalePffi.uses_vcc, or(0, .L_ZL3tidv.uses_vcc)
	.set _Z8k1_scalePffi.uses_flat_scratch, or(0, .L_ZL3tidv.uses_flat_scratch)
	.set _Z8k1_scalePffi.has_dyn_sized_stack, or(0, .L_ZL3tidv.has_dyn_sized_stack)
	.set _Z8k1_scalePffi.has_recursion, or(1, .L_ZL3tidv.has_recursion)
	.set _Z8k1_scalePffi.has_indirect_call, or(0, .L_ZL3tidv.has_indirect_call)
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 1136
; TotalNumSgprs: 42
; NumVgprs: 32
; NumAgprs: 1
; TotalNumVgprs: 33
; ScratchSize: 56
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 5
; VGPRBlocks: 4
; NumSGPRsForWavesPerEU: 42
; NumVGPRsForWavesPerEU: 33
; AccumOffset: 32
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 1
; COMPUTE_PGM_RSRC2:USER_SGPR: 8
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 1
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 2
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 7
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 32
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 34
	.set amdgpu.max_num_named_barrier, 0
	.text
	.protected	k1_calls                ; @k1_calls
	.type	k1_calls,@object
	.section	.bss,"aw",@nobits
	.globl	k1_calls
	.p2align	2, 0x0
k1_calls:
	.long	0                               ; 0x0
	.size	k1_calls, 4

	.type	__hip_cuid_74fd42ff70fda878,@object ; @__hip_cuid_74fd42ff70fda878
	.globl	__hip_cuid_74fd42ff70fda878
__hip_cuid_74fd42ff70fda878:
	.byte	0                               ; 0x0
	.size	__hip_cuid_74fd42ff70fda878, 1

	.ident	"Debian clang version 22.1.8 (1~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym _ZL3tidv
	.addrsig_sym k1_calls
	.addrsig_sym __hip_cuid_74fd42ff70fda878
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     1
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
      - .offset:         12
        .size:           4
        .value_kind:     by_value
      - .offset:         16
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         20
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         28
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         30
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         32
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         34
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         36
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         38
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         56
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         80
        .size:           2
        .value_kind:     hidden_grid_dims
      - .offset:         96
        .size:           8
        .value_kind:     hidden_hostcall_buffer
      - .offset:         104
        .size:           8
        .value_kind:     hidden_multigrid_sync_arg
      - .offset:         112
        .size:           8
        .value_kind:     hidden_heap_v1
      - .offset:         120
        .size:           8
        .value_kind:     hidden_default_queue
      - .offset:         128
        .size:           8
        .value_kind:     hidden_completion_action
      - .offset:         216
        .size:           8
        .value_kind:     hidden_queue_ptr
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 272
    .max_flat_workgroup_size: 1024
    .name:           _Z8k1_scalePffi
    .private_segment_fixed_size: 56
    .sgpr_count:     42
    .sgpr_spill_count: 18
    .symbol:         _Z8k1_scalePffi.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: true
    .vgpr_count:     33
    .vgpr_spill_count: 2
    .wavefront_size: 64
amdhsa.target:   'amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-'
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata

# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-

# __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-pc-linux-gnu-
	.file	"k1.hip"
	.text
	.globl	_Z23__device_stub__k1_scalePffi # -- Begin function _Z23__device_stub__k1_scalePffi
	.p2align	4
	.type	_Z23__device_stub__k1_scalePffi,@function
_Z23__device_stub__k1_scalePffi:        # @_Z23__device_stub__k1_scalePffi
	.cfi_startproc
# %bb.0:
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$144, %rsp
	movq	%rdi, -8(%rbp)
	movss	%xmm0, -12(%rbp)
	movl	%esi, -16(%rbp)
	leaq	-8(%rbp), %rax
	movq	%rax, -128(%rbp)
	leaq	-12(%rbp), %rax
	movq	%rax, -120(%rbp)
	leaq	-16(%rbp), %rax
	movq	%rax, -112(%rbp)
	leaq	-32(%rbp), %rdi
	leaq	-48(%rbp), %rsi
	leaq	-56(%rbp), %rdx
	leaq	-64(%rbp), %rcx
	callq	__hipPopCallConfiguration@PLT
	movq	-56(%rbp), %r10
	movq	-64(%rbp), %rax
	movq	-32(%rbp), %rcx
	movq	%rcx, -80(%rbp)
	movl	-24(%rbp), %ecx
	movl	%ecx, -72(%rbp)
	movq	-80(%rbp), %rsi
	movl	-72(%rbp), %edx
	movq	-48(%rbp), %rcx
	movq	%rcx, -96(%rbp)
	movl	-40(%rbp), %ecx
	movl	%ecx, -88(%rbp)
	movq	-96(%rbp), %rcx
	movl	-88(%rbp), %r8d
	movq	_Z8k1_scalePffi@GOTPCREL(%rip), %rdi
	leaq	-128(%rbp), %r9
	movq	%r10, (%rsp)
	movq	%rax, 8(%rsp)
	callq	hipLaunchKernel@PLT
# %bb.1:
	addq	$144, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	retq
.Lfunc_end0:
	.size	_Z23__device_stub__k1_scalePffi, .Lfunc_end0-_Z23__device_stub__k1_scalePffi
	.cfi_endproc
                                        # -- End function
	.section	.rodata.cst4,"aM",@progbits,4
	.p2align	2, 0x0                          # -- Begin function k1_run
.LCPI1_0:
	.long	0x40000000                      # float 2
	.text
	.globl	k1_run
	.p2align	4
	.type	k1_run,@function
k1_run:                                 # @k1_run
	.cfi_startproc
# %bb.0:
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$80, %rsp
	movq	%rdi, -8(%rbp)
	movl	%esi, -12(%rbp)
	movl	$1, -24(%rbp)
	movl	$1, -20(%rbp)
	movl	$1, -16(%rbp)
	movl	$64, -36(%rbp)
	movl	$1, -32(%rbp)
	movl	$1, -28(%rbp)
	movq	-24(%rbp), %rax
	movq	%rax, -52(%rbp)
	movl	-16(%rbp), %eax
	movl	%eax, -44(%rbp)
	movq	-52(%rbp), %rdi
	movl	-44(%rbp), %esi
	movq	-36(%rbp), %rax
	movq	%rax, -68(%rbp)
	movl	-28(%rbp), %eax
	movl	%eax, -60(%rbp)
	movq	-68(%rbp), %rdx
	movl	-60(%rbp), %ecx
	xorl	%eax, %eax
	movl	%eax, %r9d
	movq	%r9, %r8
	callq	__hipPushCallConfiguration@PLT
	cmpl	$0, %eax
	jne	.LBB1_2
# %bb.1:
	movq	-8(%rbp), %rdi
	movl	-12(%rbp), %esi
	movss	.LCPI1_0(%rip), %xmm0           # xmm0 = [2.0E+0,0.0E+0,0.0E+0,0.0E+0]
	callq	_Z23__device_stub__k1_scalePffi
.LBB1_2:
	addq	$80, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	retq
.Lfunc_end1:
	.size	k1_run, .Lfunc_end1-k1_run
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function __hip_register_globals
	.type	__hip_register_globals,@function
__hip_register_globals:                 # @__hip_register_globals
	.cfi_startproc
# %bb.0:
	subq	$40, %rsp
	.cfi_def_cfa_offset 48
	movq	%rdi, 32(%rsp)                  # 8-byte Spill
	movq	_Z8k1_scalePffi@GOTPCREL(%rip), %rsi
	leaq	.L__unnamed_1(%rip), %rcx
	movl	$4294967295, %r8d               # imm = 0xFFFFFFFF
	xorl	%eax, %eax
	movl	%eax, %r9d
	movq	%rcx, %rdx
	movq	$0, (%rsp)
	movq	$0, 8(%rsp)
	movq	$0, 16(%rsp)
	movq	$0, 24(%rsp)
	callq	__hipRegisterFunction@PLT
	movq	32(%rsp), %rdi                  # 8-byte Reload
	leaq	k1_calls(%rip), %rsi
	leaq	.L__unnamed_2(%rip), %rcx
	xorl	%r8d, %r8d
	movl	$4, %r9d
	movq	%rcx, %rdx
	movl	$0, (%rsp)
	movl	$0, 8(%rsp)
	callq	__hipRegisterVar@PLT
	addq	$40, %rsp
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end2:
	.size	__hip_register_globals, .Lfunc_end2-__hip_register_globals
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function __hip_module_ctor
	.type	__hip_module_ctor,@function
__hip_module_ctor:                      # @__hip_module_ctor
	.cfi_startproc
# %bb.0:
	pushq	%rax
	.cfi_def_cfa_offset 16
	cmpq	$0, __hip_gpubin_handle_74fd42ff70fda878(%rip)
	jne	.LBB3_2
# %bb.1:
	leaq	__hip_fatbin_wrapper(%rip), %rdi
	callq	__hipRegisterFatBinary@PLT
	movq	%rax, __hip_gpubin_handle_74fd42ff70fda878(%rip)
.LBB3_2:
	movq	__hip_gpubin_handle_74fd42ff70fda878(%rip), %rdi
	callq	__hip_register_globals
	leaq	__hip_module_dtor(%rip), %rdi
	callq	atexit@PLT
	popq	%rax
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end3:
	.size	__hip_module_ctor, .Lfunc_end3-__hip_module_ctor
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function __hip_module_dtor
	.type	__hip_module_dtor,@function
__hip_module_dtor:                      # @__hip_module_dtor
	.cfi_startproc
# %bb.0:
	pushq	%rax
	.cfi_def_cfa_offset 16
	movq	__hip_gpubin_handle_74fd42ff70fda878(%rip), %rax
	movq	%rax, (%rsp)                    # 8-byte Spill
	cmpq	$0, %rax
	je	.LBB4_2
# %bb.1:
	movq	(%rsp), %rdi                    # 8-byte Reload
	callq	__hipUnregisterFatBinary@PLT
	movq	$0, __hip_gpubin_handle_74fd42ff70fda878(%rip)
.LBB4_2:
	popq	%rax
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end4:
	.size	__hip_module_dtor, .Lfunc_end4-__hip_module_dtor
	.cfi_endproc
                                        # -- End function
	.type	k1_calls,@object                # @k1_calls
	.local	k1_calls
	.comm	k1_calls,4,4
	.type	_Z8k1_scalePffi,@object         # @_Z8k1_scalePffi
	.section	.data.rel.ro,"aw",@progbits
	.globl	_Z8k1_scalePffi
	.p2align	3, 0x0
_Z8k1_scalePffi:
	.quad	_Z23__device_stub__k1_scalePffi
	.size	_Z8k1_scalePffi, 8

	.type	.L__unnamed_1,@object           # @0
	.section	.rodata.str1.1,"aMS",@progbits,1
.L__unnamed_1:
	.asciz	"_Z8k1_scalePffi"
	.size	.L__unnamed_1, 16

	.type	.L__unnamed_2,@object           # @1
.L__unnamed_2:
	.asciz	"k1_calls"
	.size	.L__unnamed_2, 9

	.type	__hip_fatbin_wrapper,@object    # @__hip_fatbin_wrapper
	.section	.hipFatBinSegment,"aw",@progbits
	.p2align	3, 0x0
__hip_fatbin_wrapper:
	.long	1212764230                      # 0x48495046
	.long	1                               # 0x1
	.quad	__hip_fatbin_74fd42ff70fda878
	.quad	0
	.size	__hip_fatbin_wrapper, 24

	.type	__hip_gpubin_handle_74fd42ff70fda878,@object # @__hip_gpubin_handle_74fd42ff70fda878
	.local	__hip_gpubin_handle_74fd42ff70fda878
	.comm	__hip_gpubin_handle_74fd42ff70fda878,8,8
	.section	.init_array,"aw",@init_array
	.p2align	3, 0x0
	.quad	__hip_module_ctor
	.type	__hip_cuid_74fd42ff70fda878,@object # @__hip_cuid_74fd42ff70fda878
	.bss
	.globl	__hip_cuid_74fd42ff70fda878
__hip_cuid_74fd42ff70fda878:
	.byte	0                               # 0x0
	.size	__hip_cuid_74fd42ff70fda878, 1

	.ident	"Debian clang version 22.1.8 (1~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym _Z23__device_stub__k1_scalePffi
	.addrsig_sym __hipPopCallConfiguration
	.addrsig_sym hipLaunchKernel
	.addrsig_sym __hipPushCallConfiguration
	.addrsig_sym __hip_register_globals
	.addrsig_sym __hipRegisterFunction
	.addrsig_sym __hipRegisterVar
	.addrsig_sym __hipRegisterFatBinary
	.addrsig_sym __hip_module_ctor
	.addrsig_sym __hipUnregisterFatBinary
	.addrsig_sym __hip_module_dtor
	.addrsig_sym atexit
	.addrsig_sym k1_calls
	.addrsig_sym _Z8k1_scalePffi
	.addrsig_sym __hip_fatbin_74fd42ff70fda878
	.addrsig_sym __hip_fatbin_wrapper
	.addrsig_sym __hip_gpubin_handle_74fd42ff70fda878
	.addrsig_sym __hip_cuid_74fd42ff70fda878

# __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-pc-linux-gnu-
