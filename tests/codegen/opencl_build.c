/* Build an OpenCL C source with the first OpenCL device found (PoCL's CPU
 * device here) as OpenCL C 1.2, and create its kernel ENTRY: the compile
 * check of op2-rs's generated code (scripts/codegen_compile_check.sh).
 *
 *   opencl_build FILE ENTRY
 *
 * Prints "ok FILE (N warning lines)" and exits 0, or prints the build log
 * and exits 1. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s != NULL && fread(s, 1, (size_t)n, f) == (size_t)n)
    s[n] = '\0';
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s FILE ENTRY\n", argv[0]);
    return 2;
  }
  char *src = slurp(argv[1]);
  if (src == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  cl_platform_id platform;
  cl_device_id device;
  cl_int err = clGetPlatformIDs(1, &platform, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL device (error %d)\n", err);
    return 2;
  }
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  const char *srcs[1] = {src};
  cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, NULL, &err);
  cl_int built = clBuildProgram(prog, 1, &device, "-cl-std=CL1.2", NULL, NULL);
  size_t len = 0;
  clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
  char *log = calloc(len + 1, 1);
  clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
  int warnings = 0;
  for (const char *p = log; (p = strstr(p, "warning:")) != NULL; p++)
    warnings++;
  if (built != CL_SUCCESS) {
    printf("FAIL %s: clBuildProgram error %d\n%s\n", argv[1], built, log);
    return 1;
  }
  cl_kernel k = clCreateKernel(prog, argv[2], &err);
  if (err != CL_SUCCESS) {
    printf("FAIL %s: no kernel %s (error %d)\n", argv[1], argv[2], err);
    return 1;
  }
  if (warnings > 0)
    printf("%s\n", log);
  printf("ok %s (%d warning lines)\n", argv[1], warnings);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseContext(ctx);
  free(log);
  free(src);
  return 0;
}
