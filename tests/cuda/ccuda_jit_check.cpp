/* Compile the JIT form of a `c_cuda` kernel with NVRTC exactly as
 * op_f2c_helpers.h does at run time (prelude embedded with INCTXT, parameters
 * baked in as constants), without a GPU: used by scripts/ccuda_link_check.sh.
 *
 *   ccuda_jit_check ARCH KERNEL SRC_FILE [TYPE:NAME[:N]=VALUE]...
 *
 * TYPE is int or double; N > 0 makes an array of N copies of VALUE. Prints
 * "ok KERNEL BYTES" and exits 0 when a cubin with that kernel was produced. */
#define INCBIN_STYLE INCBIN_STYLE_SNAKE
#define INCBIN_PREFIX
#include <extern/incbin.h>
#define OP_F2C_PRELUDE op2_rs_jit_check_prelude
#define OP_F2C_PRELUDE_DATA op2_rs_jit_check_prelude_data
INCTXT(OP_F2C_PRELUDE, "op_f2c_prelude.h");

#include <op_f2c_helpers.h>

#include <deque>
#include <fstream>
#include <sstream>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ARCH KERNEL SRC_FILE [TYPE:NAME[:N]=VALUE]...\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[3]);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string kernel_src = ss.str();

  std::deque<std::vector<int>> ints; /* stable storage the params point to */
  std::deque<std::vector<double>> doubles;
  std::vector<op::f2c::JitParam> params;
  std::deque<std::string> names;
  for (int i = 4; i < argc; ++i) {
    std::string a = argv[i];
    size_t c1 = a.find(':'), eq = a.find('=');
    if (c1 == std::string::npos || eq == std::string::npos || eq < c1) {
      std::fprintf(stderr, "bad parameter %s\n", argv[i]);
      return 2;
    }
    std::string type = a.substr(0, c1), name = a.substr(c1 + 1, eq - c1 - 1), value = a.substr(eq + 1);
    size_t n = 0, c2 = name.find(':');
    if (c2 != std::string::npos) {
      n = std::stoul(name.substr(c2 + 1));
      name.resize(c2);
    }
    names.push_back(name);
    const size_t count = n == 0 ? 1 : n;
    if (type == "int") {
      ints.emplace_back(count, std::stoi(value));
      params.emplace_back(names.back().c_str(), ints.back().data(), count, n > 0, nullptr, nullptr);
    } else if (type == "double") {
      doubles.emplace_back(count, std::stod(value));
      params.emplace_back(names.back().c_str(), doubles.back().data(), count, n > 0, nullptr, nullptr);
    } else {
      std::fprintf(stderr, "unsupported type %s\n", type.c_str());
      return 2;
    }
  }

  std::string src, log;
  std::vector<char> cubin;
  if (!op::f2c::jit_source(params, kernel_src.c_str(), src)) {
    std::fprintf(stderr, "a parameter has no literal\n");
    return 1;
  }
  if (!op::f2c::detail::nvrtc_compile(src, argv[2], OP_F2C_PRELUDE_DATA, std::string("-arch=") + argv[1],
                                      cubin, log)) {
    std::fprintf(stderr, "NVRTC failed for %s:\n%s\n--- source ---\n%s\n", argv[2], log.c_str(), src.c_str());
    return 1;
  }
  const std::string bytes(cubin.begin(), cubin.end());
  if (bytes.compare(0, 4, "\177ELF") != 0 || bytes.find(argv[2]) == std::string::npos) {
    std::fprintf(stderr, "the cubin of %s is not an ELF image naming the kernel\n", argv[2]);
    return 1;
  }
  std::printf("ok %s %zu\n", argv[2], cubin.size());
  return 0;
}
