//! The OpenCL 1.2 entry points op2-rs uses, looked up in the ICD loader
//! (`libOpenCL.so.1`) when a device is opened. Every `unsafe` call into
//! OpenCL is in this module and in `memory.rs`/`program.rs` through the
//! function table, each with the invariant it relies on.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::c_void;

pub type cl_int = i32;
pub type cl_uint = u32;
pub type cl_bitfield = u64;
pub type cl_platform_id = *mut c_void;
pub type cl_device_id = *mut c_void;
pub type cl_context = *mut c_void;
pub type cl_command_queue = *mut c_void;
pub type cl_mem = *mut c_void;
pub type cl_program = *mut c_void;
pub type cl_kernel = *mut c_void;
pub type cl_event = *mut c_void;

pub const CL_SUCCESS: cl_int = 0;
pub const CL_DEVICE_TYPE_ALL: cl_bitfield = 0xFFFF_FFFF;
pub const CL_DEVICE_NAME: cl_uint = 0x102B;
pub const CL_DEVICE_VERSION: cl_uint = 0x102F;
pub const CL_DRIVER_VERSION: cl_uint = 0x102D;
pub const CL_DEVICE_MAX_MEM_ALLOC_SIZE: cl_uint = 0x1010;
pub const CL_INVALID_BUFFER_SIZE: cl_int = -61;
pub const CL_PLATFORM_VERSION: cl_uint = 0x0901;
pub const CL_MEM_READ_WRITE: cl_bitfield = 1;
pub const CL_PROGRAM_BUILD_LOG: cl_uint = 0x1183;
pub const CL_PROGRAM_BINARY_SIZES: cl_uint = 0x1165;
pub const CL_PROGRAM_BINARIES: cl_uint = 0x1166;
pub const CL_TRUE: cl_uint = 1;
pub const CL_QUEUE_PROFILING_ENABLE: cl_bitfield = 1 << 1;
pub const CL_PROFILING_COMMAND_END: cl_uint = 0x1283;

macro_rules! api {
    ($($name:ident : fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// The entry points, resolved from the loader (which stays open as
        /// long as this table lives).
        pub struct Api {
            _lib: libloading::Library,
            $(pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }

        impl Api {
            /// Open the ICD loader and resolve every entry point.
            pub fn load() -> Result<Api, String> {
                let lib = ["libOpenCL.so.1", "libOpenCL.so"]
                    .iter()
                    // SAFETY: loading the ICD loader runs its initialisers,
                    // which only register the installed platforms.
                    .find_map(|n| unsafe { libloading::Library::new(n) }.ok())
                    .ok_or_else(|| "no OpenCL (libOpenCL.so.1 not found)".to_string())?;
                $(
                    // SAFETY: the symbol has the C signature OpenCL 1.2
                    // gives it (cl.h), which the field's type spells out;
                    // the pointer stays valid while `_lib` is open.
                    let $name = unsafe {
                        *lib.get::<unsafe extern "C" fn($($arg),*) -> $ret>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        )
                        .map_err(|_| format!("the OpenCL loader lacks {}", stringify!($name)))?
                    };
                )*
                Ok(Api { _lib: lib, $($name,)* })
            }
        }
    };
}

api! {
    clGetPlatformIDs: fn(cl_uint, *mut cl_platform_id, *mut cl_uint) -> cl_int;
    clGetPlatformInfo: fn(cl_platform_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clGetDeviceIDs: fn(cl_platform_id, cl_bitfield, cl_uint, *mut cl_device_id, *mut cl_uint) -> cl_int;
    clGetDeviceInfo: fn(cl_device_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clCreateContext: fn(*const isize, cl_uint, *const cl_device_id, *const c_void, *mut c_void, *mut cl_int) -> cl_context;
    clReleaseContext: fn(cl_context) -> cl_int;
    clCreateCommandQueue: fn(cl_context, cl_device_id, cl_bitfield, *mut cl_int) -> cl_command_queue;
    clReleaseCommandQueue: fn(cl_command_queue) -> cl_int;
    clCreateBuffer: fn(cl_context, cl_bitfield, usize, *mut c_void, *mut cl_int) -> cl_mem;
    clReleaseMemObject: fn(cl_mem) -> cl_int;
    clEnqueueWriteBuffer: fn(cl_command_queue, cl_mem, cl_uint, usize, usize, *const c_void, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueReadBuffer: fn(cl_command_queue, cl_mem, cl_uint, usize, usize, *mut c_void, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueFillBuffer: fn(cl_command_queue, cl_mem, *const c_void, usize, usize, usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clFinish: fn(cl_command_queue) -> cl_int;
    clCreateProgramWithSource: fn(cl_context, cl_uint, *const *const u8, *const usize, *mut cl_int) -> cl_program;
    clCreateProgramWithBinary: fn(cl_context, cl_uint, *const cl_device_id, *const usize, *const *const u8, *mut cl_int, *mut cl_int) -> cl_program;
    clBuildProgram: fn(cl_program, cl_uint, *const cl_device_id, *const u8, *const c_void, *mut c_void) -> cl_int;
    clGetProgramBuildInfo: fn(cl_program, cl_device_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clGetProgramInfo: fn(cl_program, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clReleaseProgram: fn(cl_program) -> cl_int;
    clCreateKernel: fn(cl_program, *const u8, *mut cl_int) -> cl_kernel;
    clReleaseKernel: fn(cl_kernel) -> cl_int;
    clSetKernelArg: fn(cl_kernel, cl_uint, usize, *const c_void) -> cl_int;
    clEnqueueNDRangeKernel: fn(cl_command_queue, cl_kernel, cl_uint, *const usize, *const usize, *const usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueMarkerWithWaitList: fn(cl_command_queue, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clWaitForEvents: fn(cl_uint, *const cl_event) -> cl_int;
    clGetEventProfilingInfo: fn(cl_event, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clReleaseEvent: fn(cl_event) -> cl_int;
}

/// OpenCL's names for the error codes op2-rs is likely to meet.
pub fn err_name(e: cl_int) -> String {
    let n = match e {
        -1 => "CL_DEVICE_NOT_FOUND",
        -2 => "CL_DEVICE_NOT_AVAILABLE",
        -4 => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -7 => "CL_PROFILING_INFO_NOT_AVAILABLE",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -30 => "CL_INVALID_VALUE",
        -38 => "CL_INVALID_MEM_OBJECT",
        -42 => "CL_INVALID_BINARY",
        -46 => "CL_INVALID_KERNEL_NAME",
        -48 => "CL_INVALID_KERNEL",
        -49 => "CL_INVALID_ARG_INDEX",
        -50 => "CL_INVALID_ARG_VALUE",
        -51 => "CL_INVALID_ARG_SIZE",
        -52 => "CL_INVALID_KERNEL_ARGS",
        -54 => "CL_INVALID_WORK_GROUP_SIZE",
        -61 => "CL_INVALID_BUFFER_SIZE",
        -1001 => "CL_PLATFORM_NOT_FOUND_KHR",
        _ => return format!("OpenCL error {e}"),
    };
    n.to_string()
}
