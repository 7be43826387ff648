// op2-rs CUDA emulator: an NVRTC that compiles CUDA C++ for the emulated
// driver (libcuda_emu.cpp) with the host's C++ compiler. Only what op2-rs
// (through cudarc) calls. The "cubin" it returns is a shared object: the
// program with prelude.h before it, each `extern "C" __global__` kernel
// given a launch trampoline `op2emu_launch_NAME(params)`, `op2emu_bind(ctx)`
// (the driver's block context, set once at load), and a marker the
// emulated driver checks before loading it. OP2EMU_TSAN=1 compiles with
// -fsanitize=thread (for programs built with it: libcuda_emu.cpp).
//
// Options: --gpu-architecture=/-arch (sm_NN or compute_NN), -default-device,
// --fmad=false|true, -std=c++NN, -D, -I, -lineinfo, -G are understood;
// anything else is NVRTC_ERROR_INVALID_OPTION, as NVRTC would say.
// The host compiler is $OP2EMU_CXX (default g++), run with -O1
// -ffp-contract=off (--fmad=false is then what the compiler does anyway).
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef OP2EMU_PRELUDE
#error "build with -DOP2EMU_PRELUDE=\"/path/to/prelude.h\""
#endif

namespace {

enum nvrtcResult {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_OUT_OF_MEMORY = 1,
  NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  NVRTC_ERROR_INVALID_INPUT = 3,
  NVRTC_ERROR_INVALID_PROGRAM = 4,
  NVRTC_ERROR_INVALID_OPTION = 5,
  NVRTC_ERROR_COMPILATION = 6,
  NVRTC_ERROR_INTERNAL_ERROR = 11,
};

struct Program {
  std::string src, name, log;
  std::vector<char> image;
};

std::string quote(const std::string &s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

// The kernel source as host C++: dynamic shared arrays become pointers to
// the launch's dynamic shared memory; each extern "C" kernel gets its
// trampoline.
std::string host_source(const std::string &src) {
  static const std::regex dyn(
      R"(extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?([A-Za-z_][A-Za-z0-9_ ]*?)\s+([A-Za-z_]\w*)\s*\[\s*\]\s*;)");
  std::string out = std::regex_replace(src, dyn, "$1 *$2 = ($1 *)op2emu_cur->dyn_shared;");
  // one-dimensional shared arrays: the block's own copy, numbered
  static const std::regex fixed(
      R"(__shared__\s+([A-Za-z_][A-Za-z0-9_ ]*?)\s+([A-Za-z_]\w*)\s*\[([^\]\[;]+)\]\s*;)");
  std::string rest = out;
  out.clear();
  int id = 0;
  for (std::smatch m; std::regex_search(rest, m, fixed); rest = m.suffix()) {
    out += m.prefix().str() + m[1].str() + " *" + m[2].str() + " = (" + m[1].str() +
           " *)op2emu_cur->static_shared(" + std::to_string(id++) + ", sizeof(" + m[1].str() + ") * (" +
           m[3].str() + "));";
  }
  out += rest;
  static const std::regex kern(R"(extern\s+"C"\s+__global__\s+void\s+([A-Za-z_]\w*)\s*\()");
  out += "\n// ---- op2-rs CUDA emulator: launch trampolines ----\n";
  out += "extern \"C\" const int op2emu_module_marker = 1;\n";
  out += "extern \"C\" void op2emu_bind(op2emu_ctx *c) { op2emu_cur = c; }\n";
  for (std::sregex_iterator i(src.begin(), src.end(), kern), e; i != e; ++i) {
    std::string n = (*i)[1];
    out += "extern \"C\" void op2emu_launch_" + n +
           "(void **p) { op2emu_call(" + n + ", p); }\n";
  }
  return out;
}

bool read_file(const std::string &path, std::vector<char> &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

nvrtcResult compile(Program &p, int n, const char *const *opts) {
  std::string flags;
  for (int i = 0; i < n; i++) {
    std::string o = opts[i] ? opts[i] : "";
    if (o.rfind("--gpu-architecture=", 0) == 0 || o.rfind("-arch=", 0) == 0) {
      std::string a = o.substr(o.find('=') + 1);
      if (!std::regex_match(a, std::regex("(sm|compute)_[0-9]+a?"))) {
        p.log = "nvrtc: error: invalid value for --gpu-architecture (-arch)\n";
        return NVRTC_ERROR_INVALID_OPTION;
      }
    } else if (o == "-default-device" || o == "--device-as-default-execution-space" ||
               o == "-lineinfo" || o == "--generate-line-info" || o == "-G" ||
               o == "--fmad=false" || o == "--fmad=true" || o == "-fmad=false" ||
               o == "-fmad=true") {
    } else if (o.rfind("-std=", 0) == 0 || o.rfind("--std=", 0) == 0) {
      flags += " " + quote(o.substr(o.find("std=") - 1)); // -std=... for the host compiler
    } else if (o.rfind("-D", 0) == 0 || o.rfind("-I", 0) == 0) {
      flags += " " + quote(o);
    } else {
      p.log = "nvrtc: error: unrecognized option " + o + "\n";
      return NVRTC_ERROR_INVALID_OPTION;
    }
  }
  const char *tmp = getenv("TMPDIR");
  std::string base = std::string(tmp && *tmp ? tmp : "/tmp") + "/op2emu-nvrtc-XXXXXX";
  std::vector<char> tmpl(base.begin(), base.end());
  tmpl.push_back('\0');
  if (!mkdtemp(tmpl.data())) {
    p.log = "nvrtc (emulated): cannot make a directory " + base + ": " + strerror(errno) + "\n";
    return NVRTC_ERROR_INTERNAL_ERROR;
  }
  std::string d = tmpl.data();
  std::string src = d + "/program.cpp";
  std::string so = d + "/program.so", log = d + "/log.txt";
  {
    std::ofstream f(src);
    f << host_source(p.src);
  }
  const char *cxx = getenv("OP2EMU_CXX"), *tsan = getenv("OP2EMU_TSAN");
  if (tsan && strcmp(tsan, "1") == 0) flags += " -fsanitize=thread";
  std::string cmd = "LC_ALL=C " + std::string(cxx && *cxx ? cxx : "g++") +
                    " -std=c++17 -O1 -fPIC -shared -ffp-contract=off -w" + flags +
                    " -include " + quote(OP2EMU_PRELUDE) + " " + quote(src) + " -o " + quote(so) +
                    " > " + quote(log) + " 2>&1";
  int rc = system(cmd.c_str());
  std::vector<char> text;
  read_file(log, text);
  p.log.assign(text.begin(), text.end());
  // the compiler's messages name the program as NVRTC does, and an
  // undeclared name is worded as NVRTC words it (op2-rs reads that line
  // to find a helper function the kernel's file does not define)
  for (size_t at; (at = p.log.find(src)) != std::string::npos;) p.log.replace(at, src.size(), p.name);
  static const std::regex undeclared("error: '([A-Za-z_]\\w*)' was not declared in this scope");
  p.log = std::regex_replace(p.log, undeclared, "error: identifier \"$1\" is undefined");
  nvrtcResult r = NVRTC_SUCCESS;
  if (rc != 0 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0 || !read_file(so, p.image)) {
    if (p.log.empty()) p.log = "nvrtc (emulated): the host compiler failed: " + cmd + "\n";
    r = NVRTC_ERROR_COMPILATION;
  }
  unlink(src.c_str());
  unlink(so.c_str());
  unlink(log.c_str());
  rmdir(d.c_str());
  return r;
}

} // namespace

extern "C" {

typedef Program *nvrtcProgram;

const char *nvrtcGetErrorString(nvrtcResult r) {
  switch (r) {
  case NVRTC_SUCCESS: return "NVRTC_SUCCESS";
  case NVRTC_ERROR_OUT_OF_MEMORY: return "NVRTC_ERROR_OUT_OF_MEMORY";
  case NVRTC_ERROR_PROGRAM_CREATION_FAILURE: return "NVRTC_ERROR_PROGRAM_CREATION_FAILURE";
  case NVRTC_ERROR_INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
  case NVRTC_ERROR_INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
  case NVRTC_ERROR_INVALID_OPTION: return "NVRTC_ERROR_INVALID_OPTION";
  case NVRTC_ERROR_COMPILATION: return "NVRTC_ERROR_COMPILATION";
  default: return "NVRTC_ERROR_INTERNAL_ERROR";
  }
}

nvrtcResult nvrtcVersion(int *major, int *minor) {
  if (!major || !minor) return NVRTC_ERROR_INVALID_INPUT;
  *major = 13;
  *minor = 0;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name,
                               int num_headers, const char *const *, const char *const *) {
  if (!prog || !src || num_headers < 0) return NVRTC_ERROR_INVALID_INPUT;
  if (num_headers > 0) return NVRTC_ERROR_INVALID_INPUT; // not needed by op2-rs
  Program *p = new Program;
  p->src = src;
  p->name = name ? name : "default_program";
  *prog = p;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog) {
  if (!prog || !*prog) return NVRTC_ERROR_INVALID_PROGRAM;
  delete *prog;
  *prog = nullptr;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int n, const char *const *opts) {
  if (!prog) return NVRTC_ERROR_INVALID_PROGRAM;
  if (n < 0 || (n > 0 && !opts)) return NVRTC_ERROR_INVALID_INPUT;
  prog->image.clear();
  return compile(*prog, n, opts);
}

nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *n) {
  if (!prog || !n) return NVRTC_ERROR_INVALID_INPUT;
  *n = prog->log.size() + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log) {
  if (!prog || !log) return NVRTC_ERROR_INVALID_INPUT;
  memcpy(log, prog->log.c_str(), prog->log.size() + 1);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *n) {
  if (!prog || !n) return NVRTC_ERROR_INVALID_INPUT;
  if (prog->image.empty()) return NVRTC_ERROR_INVALID_PROGRAM;
  *n = prog->image.size();
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *out) {
  if (!prog || !out) return NVRTC_ERROR_INVALID_INPUT;
  if (prog->image.empty()) return NVRTC_ERROR_INVALID_PROGRAM;
  memcpy(out, prog->image.data(), prog->image.size());
  return NVRTC_SUCCESS;
}

// op2-rs asks for cubins only; PTX is not emulated.
nvrtcResult nvrtcGetPTXSize(nvrtcProgram, size_t *) { return NVRTC_ERROR_INVALID_INPUT; }
nvrtcResult nvrtcGetPTX(nvrtcProgram, char *) { return NVRTC_ERROR_INVALID_INPUT; }

} // extern "C"
