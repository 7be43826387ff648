/* Compile a CUDA C++ source with NVRTC for sm_90, as libop2_cuda will at
 * run time (-default-device: the application's kernel functions need no
 * __device__), and check the cubin holds ENTRY: the compile check of
 * op2-rs's generated code (scripts/codegen_compile_check.sh).
 *
 *   nvrtc_build FILE ENTRY
 *
 * Prints "ok FILE (cubin N bytes)" and exits 0, or the log and exits 1. */
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FILE ENTRY\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), argv[1], 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return 2;
  const char *opts[] = {"-default-device", "--gpu-architecture=sm_90", "-std=c++17"};
  nvrtcResult r = nvrtcCompileProgram(prog, 3, opts);
  size_t n = 0;
  nvrtcGetProgramLogSize(prog, &n);
  std::string log(n, '\0');
  nvrtcGetProgramLog(prog, &log[0]);
  if (r != NVRTC_SUCCESS) {
    std::printf("FAIL %s: %s\n%s\n", argv[1], nvrtcGetErrorString(r), log.c_str());
    return 1;
  }
  size_t cubin = 0;
  nvrtcGetCUBINSize(prog, &cubin);
  std::string bin(cubin, '\0');
  nvrtcGetCUBIN(prog, &bin[0]);
  const std::string entry(argv[2]);
  bool found = false;
  for (size_t i = 0; i + entry.size() < bin.size() && !found; i++)
    found = bin.compare(i, entry.size(), entry) == 0 && bin[i + entry.size()] == '\0';
  if (cubin == 0 || !found) {
    std::printf("FAIL %s: no %s in a cubin of %zu bytes\n", argv[1], argv[2], cubin);
    return 1;
  }
  if (log.size() > 1)
    std::printf("%s\n", log.c_str());
  std::printf("ok %s (cubin %zu bytes)\n", argv[1], cubin);
  nvrtcDestroyProgram(&prog);
  return 0;
}
