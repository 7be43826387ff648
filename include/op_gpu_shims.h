/*
 * op2-rs: vendor-neutral GPU names (OP2's gpu* spelling) for the CUDA runtime.
 *
 * OP2's runtime interface (op_cuda_rt_support.h) is written with gpuError_t and
 * gpuStream_t so that one header serves CUDA and HIP; this file resolves those
 * names, and the runtime-API calls OP2-style host code makes, to CUDA. op2-rs has
 * no HIP backend, so OP2_HIP is refused. The driver and NVRTC calls of OP2's
 * run-time-compiled target (c_cuda) are made by op_f2c_helpers.h, which loads
 * them at run time, so they are not named here.
 */
#ifndef __OP_GPU_SHIMS_H
#define __OP_GPU_SHIMS_H

#if defined(OP2_HIP)
#error "op2-rs: no HIP backend (build with -DOP2_CUDA)"
#endif

#include <cuda_runtime.h>

/* Types */
typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
typedef cudaDeviceProp gpuDeviceProp_t;
typedef cudaFuncAttributes gpuFuncAttributes_t;

/* Constants */
#define gpuSuccess cudaSuccess
#define gpuFuncCachePreferL1 cudaFuncCachePreferL1
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuEventDisableTiming cudaEventDisableTiming
#define gpuHostRegisterDefault cudaHostRegisterDefault
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuMemcpyDefault cudaMemcpyDefault

/* Errors */
#define gpuGetLastError cudaGetLastError
#define gpuPeekAtLastError cudaPeekAtLastError
#define gpuGetErrorString cudaGetErrorString

/* Devices */
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDevice cudaGetDevice
#define gpuSetDevice cudaSetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceSetCacheConfig cudaDeviceSetCacheConfig
#define gpuDeviceSynchronize cudaDeviceSynchronize

/* Memory (the functions, not macros with arguments, so the C++ overloads of
 * cudaMemcpyToSymbol and friends stay reachable) */
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemset cudaMemset
#define gpuMemcpy cudaMemcpy
#define gpuMallocAsync cudaMallocAsync
#define gpuFreeAsync cudaFreeAsync
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuHostMalloc cudaMallocHost
#define gpuHostFree cudaFreeHost
#define gpuHostRegister cudaHostRegister
#define gpuHostUnregister cudaHostUnregister
#define gpuMemcpyToSymbol cudaMemcpyToSymbol
#define gpuGetSymbolAddress cudaGetSymbolAddress

/* Streams, events, launches */
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuEventCreateWithFlags cudaEventCreateWithFlags
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuLaunchKernel cudaLaunchKernel
#define gpuFuncGetAttributes cudaFuncGetAttributes

#endif /* __OP_GPU_SHIMS_H */
