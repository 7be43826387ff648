/*
 * op2-rs: embed a file's bytes in the object being compiled, as the code OP2's
 * translator generates for its `c_cuda` target expects (it includes this file
 * as <extern/incbin.h> and uses INCTXT for the JIT prelude header).
 *
 *   INCTXT(NAME, "file")   defines  const char NAME_data[]  (the file's bytes
 *                          followed by one NUL) and  NAME_end  (just past the
 *                          NUL), as C symbols, preceded by INCBIN_PREFIX.
 *   INCBIN(NAME, "file")   the same without the NUL.
 *
 * Only the snake_case naming is provided (the generated code selects it with
 * INCBIN_STYLE INCBIN_STYLE_SNAKE and an empty INCBIN_PREFIX); `_size` symbols
 * are not defined. The bytes are pulled in by the assembler's .incbin, which
 * looks for the file in the current directory and in the -I directories (GCC
 * passes its -I options to the assembler; nvcc passes them to GCC). x86-64 and
 * aarch64 ELF only. Device compilation passes (__CUDA_ARCH__) see only the
 * declarations.
 */
#ifndef OP2_RS_EXTERN_INCBIN_H
#define OP2_RS_EXTERN_INCBIN_H

#define INCBIN_STYLE_CAMEL 0
#define INCBIN_STYLE_SNAKE 1

#ifndef INCBIN_PREFIX
#define INCBIN_PREFIX
#endif

#define OP2_RS_INCBIN_STR_(x) #x
#define OP2_RS_INCBIN_STR(x) OP2_RS_INCBIN_STR_(x)
#define OP2_RS_INCBIN_CAT_(a, b) a##b
#define OP2_RS_INCBIN_CAT(a, b) OP2_RS_INCBIN_CAT_(a, b)
/* INCBIN_PREFIX NAME suffix, with NAME already macro-expanded. */
#define OP2_RS_INCBIN_SYM(name, suffix) OP2_RS_INCBIN_CAT(OP2_RS_INCBIN_CAT(INCBIN_PREFIX, name), suffix)

#ifdef __cplusplus
#define OP2_RS_INCBIN_EXTERN extern "C"
#else
#define OP2_RS_INCBIN_EXTERN extern
#endif

#if defined(__CUDA_ARCH__)
#define OP2_RS_INCBIN_ASM(name, file, tail)
#else
/* The asm statement emits one read-only object named by the symbol string. */
#define OP2_RS_INCBIN_ASM(name, file, tail)                                                         \
  __asm__(".pushsection .rodata\n"                                                                \
          ".balign 16\n"                                                                          \
          ".globl " OP2_RS_INCBIN_STR(OP2_RS_INCBIN_SYM(name, _data)) "\n"                       \
          ".type " OP2_RS_INCBIN_STR(OP2_RS_INCBIN_SYM(name, _data)) ", %object\n"               \
          OP2_RS_INCBIN_STR(OP2_RS_INCBIN_SYM(name, _data)) ":\n"                                \
          ".incbin \"" file "\"\n" tail                                                           \
          ".globl " OP2_RS_INCBIN_STR(OP2_RS_INCBIN_SYM(name, _end)) "\n"                        \
          OP2_RS_INCBIN_STR(OP2_RS_INCBIN_SYM(name, _end)) ":\n"                                 \
          ".popsection\n");
#endif

/* Ends without ';': the caller's INCTXT(...); supplies it. */
#define OP2_RS_INCBIN_DEFINE(name, file, tail)                                                      \
  OP2_RS_INCBIN_ASM(name, file, tail)                                                               \
  OP2_RS_INCBIN_EXTERN const char OP2_RS_INCBIN_SYM(name, _data)[];                                 \
  OP2_RS_INCBIN_EXTERN const char OP2_RS_INCBIN_SYM(name, _end)[]

/* The extra level expands NAME (often itself a macro) before it is pasted. */
#define INCBIN(NAME, FILE) OP2_RS_INCBIN_DEFINE(NAME, FILE, "")
#define INCTXT(NAME, FILE) OP2_RS_INCBIN_DEFINE(NAME, FILE, ".byte 0\n")

#endif /* OP2_RS_EXTERN_INCBIN_H */
