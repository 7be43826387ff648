// op2-rs CUDA emulator: a CUDA driver (libcuda.so.1) that runs kernels on
// the host, for testing libop2_cuda's device path on machines without a
// GPU. Only the driver calls op2-rs makes (through cudarc) are here; every
// other entry point is absent, so cudarc's lazy loading fails loudly.
//
// One emulated device ("op2-rs CUDA emulator", compute capability 9.0).
// Device memory is host memory; cuMemAlloc puts 256 guard bytes before and
// after each allocation. Modules are shared objects made by the emulated
// NVRTC (libnvrtc_emu.cpp); anything else (a real cubin) is
// CUDA_ERROR_INVALID_IMAGE. A launch runs its blocks one after another, each
// block's threads as fibers on the calling thread, switching at
// __syncthreads(); each block's shared memory is fresh (0xFF bytes: NaN).
// Checked, with a line on stderr naming the call:
//  - transfers and memsets inside one allocation (or a module's global);
//  - dynamic shared memory within the default 48 KiB, or within what
//    cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) allowed (at most
//    227 KiB), and neither it nor a shared array written past (guard
//    bytes after each);
//  - every allocation's guard bytes after each launch (a kernel writing
//    outside its buffers: CUDA_ERROR_ILLEGAL_ADDRESS, sticky as on a GPU);
//  - __syncthreads() reached by all threads of a block, the same number of
//    times (else CUDA_ERROR_LAUNCH_FAILED).
// OP2EMU_ORDER=reverse runs a block's threads in reverse order between
// barriers (a missing barrier then shows up differently). OP2EMU_FAIL=NAME
// makes every launch of kernel NAME fail with CUDA_ERROR_LAUNCH_FAILED (to
// test what a library does then). OP2EMU_STATS=1 prints, at exit, how
// many times each kernel was launched and the most dynamic shared memory
// one launch of it had (one line on stderr: NAME=COUNT[/BYTES]), and how
// many times the program waited for the device (cuCtxSynchronize,
// cuStreamSynchronize: a second line, "synchronizations: N"), and how many
// times it waited for an event (cuEventSynchronize: "event waits: N").
// OP2EMU_TSAN=1: a race checker with ThreadSanitizer ("ThreadSanitizer"
// below). OP2EMU_SKIP=1 checks and counts each launch but runs no block:
// kernels take no time, so a program's time is the host's (the library's
// cost per loop, scripts/bench_device_host.sh); its answers are wrong.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <map>
#include <memory>
#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

#define OP2EMU_DRIVER
#include "prelude.h"

namespace {

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum : int {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NOT_INITIALIZED = 3,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  ILLEGAL_ADDRESS = 700,
  LAUNCH_FAILED = 719,
  NOT_SUPPORTED = 801,
};

const char *err_name(int e) {
  switch (e) {
  case SUCCESS: return "CUDA_SUCCESS";
  case INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
  case OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
  case NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
  case INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
  case INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
  case INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
  case INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
  case NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
  case ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
  case NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
  default: return nullptr;
  }
}

constexpr size_t GUARD = 256;
constexpr unsigned char GUARD_BYTE = 0xA5;
constexpr int DEFAULT_DYN_SHARED = 48 * 1024;
constexpr int MAX_DYN_SHARED = 227 * 1024;
constexpr size_t STACK = 256 * 1024;

struct Context {
  int device = 0;
};
struct Func;
struct Module {
  void *handle = nullptr;
  int fd = -1;
  std::map<std::string, std::unique_ptr<Func>> funcs;
};
struct Func {
  Module *module;
  std::string name;
  void (*launch)(void **);
  int max_dyn = DEFAULT_DYN_SHARED;
};

std::mutex lock;
std::atomic<bool> initialised{false}; // read without the lock by the query calls
int sticky = SUCCESS;
Context primary;
thread_local Context *current = nullptr;
// The driver's tables are never destroyed: a program may still call the
// driver from its own exit handlers, and print_stats runs after the
// library's static objects are gone.
std::map<uintptr_t, size_t> &allocs = *new std::map<uintptr_t, size_t>; // user pointer -> bytes
std::map<uintptr_t, std::pair<size_t, Module *>> &globals =               // module variables
    *new std::map<uintptr_t, std::pair<size_t, Module *>>;
std::vector<Module *> &modules = *new std::vector<Module *>;
// launches and most dynamic shared memory, by kernel name
std::map<std::string, std::pair<unsigned long, unsigned>> &launches =
    *new std::map<std::string, std::pair<unsigned long, unsigned>>;

// cuCtxSynchronize and cuStreamSynchronize calls
std::atomic<unsigned long> syncs{0};

// Events: a launch runs before it returns, so an event recorded after it
// holds the host's clock at that moment, as a GPU's event holds the time
// the device passed it. Waiting for one waits for nothing (counted in the
// stats: "event waits: N").
struct Event {
  bool recorded = false;
  std::chrono::steady_clock::time_point at;
};
typedef Event *CUevent;
std::set<Event *> &events = *new std::set<Event *>;
std::atomic<unsigned long> event_waits{0};

__attribute__((destructor)) void print_stats() {
  const char *v = getenv("OP2EMU_STATS");
  if (!v || strcmp(v, "1") != 0) return;
  std::string line = "op2-rs CUDA emulator: launches:";
  for (auto &l : launches) {
    line += " " + l.first + "=" + std::to_string(l.second.first);
    if (l.second.second) line += "/" + std::to_string(l.second.second);
  }
  fprintf(stderr, "%s\n", line.c_str());
  fprintf(stderr, "op2-rs CUDA emulator: synchronizations: %lu\n", syncs.load());
  fprintf(stderr, "op2-rs CUDA emulator: event waits: %lu\n", event_waits.load());
}

void say(const char *call, const std::string &what) {
  fprintf(stderr, "op2-rs CUDA emulator: %s: %s\n", call, what.c_str());
}

std::string hex(uintptr_t p) {
  char b[32];
  snprintf(b, sizeof b, "0x%llx", (unsigned long long)p);
  return b;
}

bool guards_intact(uintptr_t p, size_t n) {
  const unsigned char *lo = (const unsigned char *)(p - GUARD), *hi = (const unsigned char *)(p + n);
  for (size_t i = 0; i < GUARD; i++)
    if (lo[i] != GUARD_BYTE || hi[i] != GUARD_BYTE) return false;
  return true;
}

// [p, p + n) inside one allocation or one module variable?
bool inside(CUdeviceptr p, size_t n) {
  auto in = [&](const auto &m) {
    auto it = m.upper_bound((uintptr_t)p);
    if (it == m.begin()) return false;
    --it;
    size_t size;
    if constexpr (std::is_same_v<std::decay_t<decltype(it->second)>, size_t>)
      size = it->second;
    else
      size = it->second.first;
    return (uintptr_t)p + n <= it->first + size;
  };
  return in(allocs) || in(globals);
}

CUresult ready(const char *call) {
  if (!initialised) return NOT_INITIALIZED;
  if (!current) {
    say(call, "no current context");
    return INVALID_CONTEXT;
  }
  return sticky;
}

// ---- ThreadSanitizer ---------------------------------------------------------
// With OP2EMU_TSAN=1, in a program built with -fsanitize=thread (the
// emulated NVRTC then compiles kernels with it too), every thread of a
// block is a TSan fiber and the driver tells TSan what orders them on a
// GPU: the launch before a block's first instruction, __syncthreads()
// within a block, the end of the launch before what the host does next;
// nothing orders two blocks of one launch. TSan then reports two threads
// touching one location, one of them writing, with none of that between
// them: a missing barrier, or a colouring that lets two threads (or two
// blocks) of one launch write one value. Fibers are reused for the same
// thread index, so thread t of one block is ordered after thread t of an
// earlier block. Shared memory is never freed in this mode (a free would
// have to be ordered after the block's threads, which would order the
// blocks). Each block's threads are new TSan fibers on freshly mapped
// stacks (the top TSAN_STACK bytes: mapping them again clears what TSan
// knew of the previous block's use), so no thread of a block is ordered
// after a thread of an earlier block of the same launch.
struct Tsan {
  void *(*current)() = nullptr;
  void *(*create)(unsigned) = nullptr;
  void (*destroy)(void *) = nullptr;
  void (*to_fiber)(void *, unsigned) = nullptr;
  void (*acquire)(void *) = nullptr;
  void (*release)(void *) = nullptr;
  bool on = false;
  void *host = nullptr;       // the fiber the launch runs on
  char *start = nullptr;      // the block's start token (the host's release)
  std::vector<char *> phases; // the block's barrier k: token k
  char end;                   // the launch's end token
  // token of barrier k of this block (fresh for each block, never freed:
  // TSan keys its clocks by address)
  char *phase(unsigned k) {
    while (phases.size() <= k) phases.push_back(new char);
    return phases[k];
  }
};
Tsan tsan;
constexpr unsigned TSAN_NO_SYNC = 1; // __tsan_switch_to_fiber_no_sync
constexpr size_t TSAN_STACK = 64 * 1024;

void tsan_init() {
  static bool done = false;
  if (done) return;
  done = true;
  const char *v = getenv("OP2EMU_TSAN");
  if (!v || strcmp(v, "1") != 0) return;
  tsan.current = (void *(*)())dlsym(RTLD_DEFAULT, "__tsan_get_current_fiber");
  tsan.create = (void *(*)(unsigned))dlsym(RTLD_DEFAULT, "__tsan_create_fiber");
  tsan.destroy = (void (*)(void *))dlsym(RTLD_DEFAULT, "__tsan_destroy_fiber");
  tsan.to_fiber = (void (*)(void *, unsigned))dlsym(RTLD_DEFAULT, "__tsan_switch_to_fiber");
  tsan.acquire = (void (*)(void *))dlsym(RTLD_DEFAULT, "__tsan_acquire");
  tsan.release = (void (*)(void *))dlsym(RTLD_DEFAULT, "__tsan_release");
  tsan.on = tsan.current && tsan.create && tsan.destroy && tsan.to_fiber && tsan.acquire && tsan.release;
  if (!tsan.on)
    fprintf(stderr, "op2-rs CUDA emulator: OP2EMU_TSAN=1 but the program has no ThreadSanitizer "
                    "runtime (build it with -fsanitize=thread)\n");
}

// ---- fibers ----------------------------------------------------------------
// A block's threads are fibers switched by hand: on x86-64 a few
// instructions (callee-saved registers, the x87 and SSE control words, the
// stack pointer); elsewhere ucontext (which also saves the signal mask, a
// system call per switch).
enum State { READY, WAITING, DONE };
struct Fiber {
  void *stack = nullptr;
  State state = DONE;
  unsigned syncs = 0;
  void *tsan = nullptr;
#if defined(__x86_64__) && !defined(OP2EMU_UCONTEXT)
  void *sp = nullptr;
#else
  ucontext_t uc;
  bool made = false;
#endif
};
std::vector<Fiber> &fibers = *new std::vector<Fiber>;
int running = -1;
Func *launching = nullptr;
void **launch_params = nullptr;
op2emu_ctx block_ctx;

// What a fiber does before its first instruction, at each barrier (the
// k-th: each phase has its own token, as the fibers run one after another:
// a thread must not see another's arrival at a later barrier), and after
// its last (TSan's order; nothing without it).
void thread_begins() {
  if (tsan.on) tsan.acquire(tsan.start);
}
void thread_arrives(unsigned k) {
  if (tsan.on) tsan.release(tsan.phase(k));
}
void thread_departs(unsigned k) {
  if (tsan.on) tsan.acquire(tsan.phase(k));
}
void thread_ends() {
  if (tsan.on) tsan.release(&tsan.end);
}
void to_host() {
  if (tsan.on) tsan.to_fiber(tsan.host, TSAN_NO_SYNC);
}
void to_thread(Fiber &f) {
  if (tsan.on) tsan.to_fiber(f.tsan, TSAN_NO_SYNC);
}

// A thread's whole life on its fiber, up to the switch back to the host.
void thread_body(int t) {
  thread_begins();
  launching->launch(launch_params);
  thread_ends();
  fibers[t].state = DONE;
  to_host();
}

// Each way of switching gives fiber_init (a fiber that will run
// thread_body), switch_in (host to fiber) and switch_out (fiber to host).
#if defined(__x86_64__) && !defined(OP2EMU_UCONTEXT)
extern "C" void op2emu_switch(void **save_sp, void *to_sp);
// Saves the callee-saved state on the current stack, stores the stack
// pointer in *save_sp, and resumes the stack `to_sp` saved the same way.
asm(R"(
    .text
    .globl op2emu_switch
    .hidden op2emu_switch
    .type op2emu_switch,@function
    .p2align 4
op2emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $16, %rsp
    stmxcsr 8(%rsp)
    fnstcw (%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr 8(%rsp)
    fldcw (%rsp)
    addq $16, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size op2emu_switch,.-op2emu_switch
)");
void *scheduler_sp;

[[noreturn]] void fiber_start() {
  int t = running;
  thread_body(t);
  op2emu_switch(&fibers[t].sp, scheduler_sp);
  abort(); // a finished fiber is never resumed
}

void fiber_init(Fiber &f) {
  // the frame op2emu_switch pops: control words, six registers, then
  // fiber_start as the return address, entered with the stack as after a
  // call (rsp + 8 a multiple of 16)
  uintptr_t top = ((uintptr_t)f.stack + STACK) & ~(uintptr_t)15;
  uint64_t *p = (uint64_t *)(top - 8);
  *--p = (uint64_t)(uintptr_t)fiber_start;
  for (int i = 0; i < 6; i++) *--p = 0;
  *--p = 0x1F80;       // MXCSR as at start-up
  *--p = 0x037F;       // x87 control word as at start-up
  f.sp = p;
}
void switch_in(Fiber &f) { op2emu_switch(&scheduler_sp, f.sp); }
void switch_out(Fiber &f) { op2emu_switch(&f.sp, scheduler_sp); }
#else
ucontext_t scheduler;

void fiber_main(int t) {
  thread_body(t);
  // returns to `scheduler` through uc_link
}

void fiber_init(Fiber &f) {
  if (!f.made) { // one getcontext (a system call) per fiber stack
    getcontext(&f.uc);
    f.made = true;
  }
  f.uc.uc_stack.ss_sp = f.stack;
  f.uc.uc_stack.ss_size = STACK;
  f.uc.uc_link = &scheduler;
  makecontext(&f.uc, (void (*)())fiber_main, 1, (int)(&f - fibers.data()));
}
void switch_in(Fiber &f) { swapcontext(&scheduler, &f.uc); }
void switch_out(Fiber &f) { swapcontext(&f.uc, &scheduler); }
#endif

void fiber_resume(Fiber &f) {
  to_thread(f);
  switch_in(f);
}

// __syncthreads(): park until every thread of the block has arrived.
void fiber_sync() {
  Fiber &f = fibers[running];
  f.state = WAITING;
  unsigned k = f.syncs++;
  thread_arrives(k);
  to_host();
  switch_out(f);
  thread_departs(k);
}

// ---- shared memory ------------------------------------------------------------
// One block's shared memory, fresh for each block, in one buffer: the
// launch's dynamic shared memory, then the shared arrays the emulated NVRTC
// numbered, carved on first use (at most STATIC_SHARED bytes); each part
// starts as 0xFF bytes (a NaN as double or float) with guard bytes after it.
constexpr size_t STATIC_SHARED = 64 * 1024;
struct Arena {
  unsigned char *base = nullptr;
  size_t used = 0, cap = 0;
  std::vector<std::pair<size_t, size_t>> parts; // offset, bytes; [0] dynamic
  std::vector<long> by_id;                      // part of each array, or -1
  bool full = false;
};
Arena arena;

void *static_shared(int id, size_t bytes) {
  if (id < 0) abort();
  if (arena.by_id.size() <= (size_t)id) arena.by_id.resize((size_t)id + 1, -1);
  long &k = arena.by_id[(size_t)id];
  if (k < 0) {
    size_t at = (arena.used + 15) & ~(size_t)15;
    if (at + bytes + GUARD > arena.cap) {
      // reported after the block; the array lands at the start meanwhile
      arena.full = true;
      return arena.base;
    }
    // guard bytes by plain stores (the driver is not instrumented: TSan
    // does not see them)
    for (size_t i = 0; i < GUARD; i++) arena.base[at + bytes + i] = GUARD_BYTE;
    arena.parts.push_back({at, bytes});
    arena.used = at + bytes + GUARD;
    k = (long)arena.parts.size() - 1;
  }
  return arena.base + arena.parts[(size_t)k].first;
}

void open_arena(size_t dynamic) {
  arena.cap = dynamic + GUARD + STATIC_SHARED;
  arena.base = (unsigned char *)malloc(arena.cap);
  if (!arena.base) abort();
  memset(arena.base, 0xFF, arena.cap);
  memset(arena.base + dynamic, GUARD_BYTE, GUARD);
  arena.parts.assign(1, {0, dynamic});
  arena.by_id.clear();
  arena.used = dynamic + GUARD;
  arena.full = false;
  block_ctx.dyn_shared = arena.base;
}

// Ends the block's shared memory; "" or which part was written past.
std::string close_arena() {
  std::string why;
  if (arena.full) why = "more than " + std::to_string(STATIC_SHARED) + " bytes of shared arrays";
  for (size_t i = 0; i < arena.parts.size() && why.empty(); i++) {
    auto [at, n] = arena.parts[i];
    for (size_t k = 0; k < GUARD && why.empty(); k++)
      if (arena.base[at + n + k] != GUARD_BYTE)
        why = i == 0 ? "wrote past its " + std::to_string(n) + " bytes of dynamic shared memory"
                     : "wrote past a shared array of " + std::to_string(n) + " bytes";
  }
  if (!tsan.on) free(arena.base);
  arena.base = nullptr;
  return why;
}

// Runs one block; "" or why it failed.
std::string run_block(unsigned nthreads, bool reverse) {
  if (fibers.size() < nthreads) fibers.resize(nthreads);
  for (unsigned t = 0; t < nthreads; t++) {
    Fiber &f = fibers[t];
    if (!f.stack) {
      f.stack = mmap(nullptr, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
      if (f.stack == MAP_FAILED) {
        f.stack = nullptr;
        return "cannot map a fiber stack";
      }
    }
    if (tsan.on) {
      // a new TSan fiber on a fresh stack for each thread of each block
      void *top = (char *)f.stack + STACK - TSAN_STACK;
      if (mmap(top, TSAN_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != top)
        return "cannot map a fiber stack again";
      if (f.tsan) tsan.destroy(f.tsan);
      f.tsan = tsan.create(0);
    }
    fiber_init(f);
    f.state = READY;
    f.syncs = 0;
  }
  // the block's start, released by the host after preparing the block
  if (tsan.on) {
    tsan.start = new char;
    tsan.phases.clear();
    tsan.host = tsan.current();
    tsan.release(tsan.start);
  }
  const op2emu_dim3 bd = block_ctx.block_dim;
  std::string why;
  for (;;) {
    for (unsigned i = 0; i < nthreads; i++) {
      unsigned t = reverse ? nthreads - 1 - i : i;
      if (fibers[t].state != READY) continue;
      running = (int)t;
      block_ctx.thread_idx = {t % bd.x, (t / bd.x) % bd.y, t / (bd.x * bd.y)};
      fiber_resume(fibers[t]);
    }
    running = -1;
    unsigned waiting = 0, done = 0, lo = ~0u, hi = 0;
    for (unsigned t = 0; t < nthreads; t++) {
      if (fibers[t].state == WAITING) {
        waiting++;
        lo = std::min(lo, fibers[t].syncs);
        hi = std::max(hi, fibers[t].syncs);
      } else {
        done++;
      }
    }
    if (waiting == 0) break;
    if (done > 0) {
      why = "__syncthreads() reached by " + std::to_string(waiting) + " of " + std::to_string(nthreads) +
            " threads (the others returned)";
      break;
    }
    if (lo != hi) {
      why = "threads wait at different __syncthreads() (passed " + std::to_string(lo) + " and " +
            std::to_string(hi) + " barriers)";
      break;
    }
    for (unsigned t = 0; t < nthreads; t++) fibers[t].state = READY;
  }
  return why;
}

} // namespace

// ---- the driver API ---------------------------------------------------------
extern "C" {

typedef Context *CUcontext;
typedef Module *CUmodule;
typedef Func *CUfunction;
typedef void *CUstream;

CUresult cuGetErrorName(CUresult e, const char **s) {
  const char *n = err_name(e);
  if (!s) return INVALID_VALUE;
  *s = n;
  return n ? SUCCESS : INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult e, const char **s) { return cuGetErrorName(e, s); }

CUresult cuInit(unsigned flags) {
  std::lock_guard<std::mutex> g(lock);
  if (flags != 0) return INVALID_VALUE;
  tsan_init();
  initialised = true;
  return SUCCESS;
}

CUresult cuDriverGetVersion(int *v) {
  if (!v) return INVALID_VALUE;
  *v = 13000;
  return SUCCESS;
}

CUresult cuDeviceGetCount(int *n) {
  std::lock_guard<std::mutex> g(lock);
  if (!initialised) return NOT_INITIALIZED;
  if (!n) return INVALID_VALUE;
  *n = 1;
  return SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  std::lock_guard<std::mutex> g(lock);
  if (!initialised) return NOT_INITIALIZED;
  if (!d) return INVALID_VALUE;
  if (ordinal != 0) return INVALID_DEVICE;
  *d = 0;
  return SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  if (!initialised) return NOT_INITIALIZED;
  if (d != 0) return INVALID_DEVICE;
  if (!name || len <= 0) return INVALID_VALUE;
  snprintf(name, (size_t)len, "%s", "op2-rs CUDA emulator (host CPU)");
  return SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
  if (!initialised) return NOT_INITIALIZED;
  if (d != 0) return INVALID_DEVICE;
  if (!bytes) return INVALID_VALUE;
  *bytes = (size_t)16 << 30;
  return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
  if (!initialised) return NOT_INITIALIZED;
  if (d != 0) return INVALID_DEVICE;
  if (!v) return INVALID_VALUE;
  switch (attr) {
  case 1: *v = 1024; break;        // max threads per block
  case 2: case 3: *v = 1024; break; // max block dim x, y
  case 4: *v = 64; break;
  case 5: *v = 2147483647; break;  // max grid dim x
  case 6: case 7: *v = 65535; break;
  case 8: *v = DEFAULT_DYN_SHARED; break; // shared memory per block
  case 9: *v = 65536; break;       // constant memory
  case 10: *v = 32; break;         // warp size
  case 16: *v = 132; break;        // multiprocessors
  case 39: *v = 2048; break;       // threads per multiprocessor
  case 75: *v = 9; break;          // compute capability
  case 76: *v = 0; break;
  case 97: *v = MAX_DYN_SHARED; break; // shared memory per block, opt-in
  case 115: *v = 0; break;         // memory pools: no (synchronous allocation)
  default: *v = 0; break;
  }
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  std::lock_guard<std::mutex> g(lock);
  if (!initialised) return NOT_INITIALIZED;
  if (d != 0) return INVALID_DEVICE;
  if (!c) return INVALID_VALUE;
  *c = &primary;
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return d == 0 ? SUCCESS : INVALID_DEVICE; }

CUresult cuCtxGetCurrent(CUcontext *c) {
  if (!initialised) return NOT_INITIALIZED;
  if (!c) return INVALID_VALUE;
  *c = current;
  return SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c) {
  if (!initialised) return NOT_INITIALIZED;
  if (c && c != &primary) return INVALID_CONTEXT;
  current = c;
  return SUCCESS;
}

CUresult cuCtxSynchronize() {
  std::lock_guard<std::mutex> g(lock);
  syncs++;
  return ready("cuCtxSynchronize");
}

CUresult cuStreamSynchronize(CUstream) { return cuCtxSynchronize(); }

CUresult cuMemGetInfo_v2(size_t *free_, size_t *total) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuMemGetInfo")) return r;
  if (!free_ || !total) return INVALID_VALUE;
  size_t used = 0;
  for (auto &a : allocs) used += a.second;
  *total = (size_t)16 << 30;
  *free_ = *total > used ? *total - used : 0;
  return SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuMemAlloc")) return r;
  if (!p || bytes == 0) return INVALID_VALUE;
  size_t total = GUARD + ((bytes + 255) / 256) * 256 + GUARD;
  unsigned char *base = (unsigned char *)aligned_alloc(256, total);
  if (!base) return OUT_OF_MEMORY;
  memset(base, GUARD_BYTE, GUARD);
  memset(base + GUARD + bytes, GUARD_BYTE, total - GUARD - bytes);
  memset(base + GUARD, 0xCD, bytes); // cudaMalloc'd memory holds garbage
  uintptr_t u = (uintptr_t)(base + GUARD);
  allocs[u] = bytes;
  *p = u;
  return SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  std::lock_guard<std::mutex> g(lock);
  if (!initialised) return NOT_INITIALIZED;
  auto it = allocs.find((uintptr_t)p);
  if (it == allocs.end()) {
    say("cuMemFree", hex(p) + " is not an allocation");
    return INVALID_VALUE;
  }
  bool ok = guards_intact(it->first, it->second);
  if (!ok) say("cuMemFree", "the allocation at " + hex(p) + " was written outside its " +
                               std::to_string(it->second) + " bytes");
  free((void *)(it->first - GUARD));
  allocs.erase(it);
  return ok ? sticky : ILLEGAL_ADDRESS;
}

CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned) {
  if (!p) return INVALID_VALUE;
  *p = malloc(bytes ? bytes : 1);
  return *p ? SUCCESS : OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *p) {
  free(p);
  return SUCCESS;
}

static CUresult copy_check(const char *call, CUdeviceptr p, size_t n) {
  if (CUresult r = ready(call)) return r;
  if (n == 0) return SUCCESS;
  if (!inside(p, n)) {
    say(call, hex(p) + " + " + std::to_string(n) + " bytes is outside every allocation");
    return INVALID_VALUE;
  }
  return SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = copy_check("cuMemcpyHtoD", dst, n)) return r;
  if (n) memcpy((void *)dst, src, n);
  return SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = copy_check("cuMemcpyDtoH", src, n)) return r;
  if (n) memcpy(dst, (const void *)src, n);
  return SUCCESS;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = copy_check("cuMemcpyDtoD", src, n)) return r;
  if (CUresult r = copy_check("cuMemcpyDtoD", dst, n)) return r;
  if (n) memmove((void *)dst, (const void *)src, n);
  return SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = copy_check("cuMemsetD8", dst, n)) return r;
  if (n) memset((void *)dst, v, n);
  return SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuModuleLoadData")) return r;
  if (!m || !image) return INVALID_VALUE;
  const unsigned char *e = (const unsigned char *)image;
  if (memcmp(e, "\x7f" "ELF", 4) != 0 || e[4] != 2) return INVALID_IMAGE;
  uint16_t machine, shentsize, shnum;
  uint64_t shoff;
  memcpy(&machine, e + 0x12, 2);
  memcpy(&shoff, e + 0x28, 8);
  memcpy(&shentsize, e + 0x3A, 2);
  memcpy(&shnum, e + 0x3C, 2);
  if (machine != 62 /* EM_X86_64 */) {
    say("cuModuleLoadData", "not an image of the emulated NVRTC (ELF machine " + std::to_string(machine) + ")");
    return INVALID_IMAGE;
  }
  size_t size = shoff + (size_t)shentsize * shnum; // section headers end the image
  if (shoff < 64 || shnum == 0 || size > ((size_t)1 << 30)) return INVALID_IMAGE;
  int fd = memfd_create("op2emu-module", 0);
  if (fd < 0) return OUT_OF_MEMORY;
  if (write(fd, image, size) != (ssize_t)size) {
    close(fd);
    return OUT_OF_MEMORY;
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h || !dlsym(h, "op2emu_module_marker") || !dlsym(h, "op2emu_bind")) {
    say("cuModuleLoadData", h ? "no emulator marker in the image" : dlerror());
    if (h) dlclose(h);
    close(fd);
    return INVALID_IMAGE;
  }
  // the module reads the block being run through this pointer, set once
  ((void (*)(op2emu_ctx *))dlsym(h, "op2emu_bind"))(&block_ctx);
  Module *mod = new Module;
  mod->handle = h;
  mod->fd = fd;
  modules.push_back(mod);
  *m = mod;
  return SUCCESS;
}

CUresult cuModuleUnload(CUmodule m) {
  std::lock_guard<std::mutex> g(lock);
  auto it = std::find(modules.begin(), modules.end(), m);
  if (it == modules.end()) return INVALID_HANDLE;
  modules.erase(it);
  for (auto i = globals.begin(); i != globals.end();)
    i = i->second.second == m ? globals.erase(i) : std::next(i);
  dlclose(m->handle);
  close(m->fd);
  delete m;
  return SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuModuleGetFunction")) return r;
  if (!f || !name) return INVALID_VALUE;
  if (std::find(modules.begin(), modules.end(), m) == modules.end()) return INVALID_HANDLE;
  auto &slot = m->funcs[name];
  if (!slot) {
    void *s = dlsym(m->handle, ("op2emu_launch_" + std::string(name)).c_str());
    if (!s) {
      m->funcs.erase(name);
      return NOT_FOUND;
    }
    slot.reset(new Func{m, name, (void (*)(void **))s, DEFAULT_DYN_SHARED});
  }
  *f = slot.get();
  return SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuModuleGetGlobal")) return r;
  if (!name) return INVALID_VALUE;
  if (std::find(modules.begin(), modules.end(), m) == modules.end()) return INVALID_HANDLE;
  void *s = dlsym(m->handle, name);
  Dl_info info;
  const ElfW(Sym) *sym = nullptr;
  if (!s || !dladdr1(s, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym) return NOT_FOUND;
  globals[(uintptr_t)s] = {sym->st_size, m};
  if (p) *p = (uintptr_t)s;
  if (bytes) *bytes = sym->st_size;
  return SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, int attr, int v) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuFuncSetAttribute")) return r;
  if (!f) return INVALID_HANDLE;
  if (attr != 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */) return NOT_SUPPORTED;
  if (v < 0 || v > MAX_DYN_SHARED) {
    say("cuFuncSetAttribute", f->name + ": " + std::to_string(v) + " bytes of dynamic shared memory (at most " +
                                  std::to_string(MAX_DYN_SHARED) + ")");
    return INVALID_VALUE;
  }
  f->max_dyn = v;
  return SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void **params, void **extra) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuLaunchKernel")) return r;
  if (!f) return INVALID_HANDLE;
  const char *call = "cuLaunchKernel";
  unsigned long long threads = (unsigned long long)bx * by * bz;
  if (threads == 0 || threads > 1024 || bz > 64 || gx == 0 || gy == 0 || gz == 0 || gy > 65535 ||
      gz > 65535 || gx > 2147483647u) {
    say(call, f->name + ": grid " + std::to_string(gx) + "x" + std::to_string(gy) + "x" + std::to_string(gz) +
                  " of blocks " + std::to_string(bx) + "x" + std::to_string(by) + "x" + std::to_string(bz));
    return INVALID_VALUE;
  }
  if ((int)shared > f->max_dyn) {
    say(call, f->name + ": " + std::to_string(shared) + " bytes of dynamic shared memory, the function allows " +
                  std::to_string(f->max_dyn));
    return INVALID_VALUE;
  }
  if (extra || stream) return NOT_SUPPORTED;
  static const char *fail = getenv("OP2EMU_FAIL");
  if (fail && f->name == fail) {
    say(call, f->name + ": fails as OP2EMU_FAIL asks");
    sticky = LAUNCH_FAILED;
    return sticky;
  }
  auto &count = launches[f->name];
  count.first++;
  count.second = std::max(count.second, shared);
  static const bool skip = [] {
    const char *v = getenv("OP2EMU_SKIP");
    return v && strcmp(v, "1") == 0;
  }();
  if (skip) return SUCCESS;
  launching = f;
  launch_params = params;
  block_ctx.block_dim = {bx, by, bz};
  block_ctx.grid_dim = {gx, gy, gz};
  block_ctx.sync = fiber_sync;
  block_ctx.static_shared = static_shared;
  static const bool reverse = [] {
    const char *order = getenv("OP2EMU_ORDER");
    return order && strcmp(order, "reverse") == 0;
  }();
  for (unsigned z = 0; z < gz; z++)
    for (unsigned y = 0; y < gy; y++)
      for (unsigned x = 0; x < gx; x++) {
        open_arena(shared);
        block_ctx.block_idx = {x, y, z};
        std::string why = run_block((unsigned)threads, reverse);
        std::string past = close_arena();
        if (why.empty()) why = past;
        if (!why.empty()) {
          say(call, f->name + ": block " + std::to_string(x) + ": " + why);
          sticky = why.find("wrote past") != std::string::npos ? ILLEGAL_ADDRESS : LAUNCH_FAILED;
          return sticky;
        }
      }
  // the host goes on after every thread of the launch
  if (tsan.on) tsan.acquire(&tsan.end);
  for (auto &a : allocs)
    if (!guards_intact(a.first, a.second)) {
      say(call, f->name + " wrote outside the allocation at " + hex(a.first) + " (" +
                    std::to_string(a.second) + " bytes)");
      sticky = ILLEGAL_ADDRESS;
      return sticky;
    }
  return SUCCESS;
}

static CUresult live_event(const char *call, CUevent e) {
  if (CUresult r = ready(call)) return r;
  if (!events.count(e)) {
    say(call, "not an event");
    return INVALID_HANDLE;
  }
  return SUCCESS;
}

CUresult cuEventCreate(CUevent *e, unsigned flags) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = ready("cuEventCreate")) return r;
  if (!e || flags != 0) return INVALID_VALUE;
  *e = new Event;
  events.insert(*e);
  return SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream stream) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = live_event("cuEventRecord", e)) return r;
  if (stream) return INVALID_HANDLE;
  e->recorded = true;
  e->at = std::chrono::steady_clock::now();
  return SUCCESS;
}

CUresult cuEventSynchronize(CUevent e) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = live_event("cuEventSynchronize", e)) return r;
  event_waits++;
  return SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) {
  std::lock_guard<std::mutex> g(lock);
  if (CUresult r = live_event("cuEventElapsedTime", a)) return r;
  if (CUresult r = live_event("cuEventElapsedTime", b)) return r;
  if (!ms) return INVALID_VALUE;
  if (!a->recorded || !b->recorded) {
    say("cuEventElapsedTime", "an event not recorded");
    return INVALID_HANDLE;
  }
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent e) {
  std::lock_guard<std::mutex> g(lock);
  if (!initialised) return NOT_INITIALIZED;
  if (!events.erase(e)) return INVALID_HANDLE;
  delete e;
  return SUCCESS;
}

} // extern "C"
