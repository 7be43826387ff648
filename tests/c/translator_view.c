/*
 * translator_view: the loops of a C++ OP2 application as OP2's code
 * generator, translator-v2 (OP2-Common translator-v2/op2-translator/cpp),
 * sees them.  It parses the source with libclang and walks the tree the way
 * its parser.py does (parseLoops, parseLoop, parseArgDat, parseArgGbl,
 * parseArgIdx):
 *
 *   - the top-level cursors of the main file are collected, except macro
 *     definitions; macro instantiations are remembered by their (expansion)
 *     location;
 *   - every CALL_EXPR below the others, in pre-order, spelled op_par_loop is
 *     a loop: argument 0 is the kernel (its tokens), arguments 3... are
 *     calls spelled op_arg_dat, op_opt_arg_dat, op_arg_gbl, op_opt_arg_gbl
 *     or op_arg_idx;
 *   - an op_arg_dat's map argument is OP_ID (the argument is direct) when a
 *     macro instantiation named OP_ID sits at the map argument's location;
 *     otherwise the map is the tokens of that argument;
 *   - integers (idx, dim, access) are evaluated by clang_Cursor_Evaluate and
 *     must have type int; types are string literals under an unexposed
 *     expression.
 *
 * usage: translator_view SOURCE [clang arguments...]
 *
 * translator-v2 runs the libclang of PyPI, which finds no resource headers
 * of its own; `-nobuiltininc` does the same to a packaged libclang
 * (`-resource-dir` does not: libclang replaces it with its own directory).
 *
 * Prints one line per loop, in source order:
 *   loop KERNEL args N: ARG; ARG; ...
 * with ARG one of
 *   dat DAT idx I direct|map MAP dim D TYPE ACCESS     (op_arg_dat)
 *   optdat ...                                         (op_opt_arg_dat)
 *   gbl DATA dim D TYPE ACCESS, optgbl ...             (op_arg_gbl, op_opt_arg_gbl)
 *   idx I direct|map MAP                               (op_arg_idx)
 *   other SPELLING                                     (what translator-v2 rejects)
 * and a value it could not read as "?".  Diagnostics of error severity go to
 * stderr as "error: ..." lines.  Exit status 0 when the source parsed, 1 when
 * libclang gave no translation unit, 2 on bad usage.
 */
#include <clang-c/Index.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MACROS 4096
#define LINE_MAX_LEN 8192
#define TOKENS_LEN 256
#define ARG_LEN 2048

struct macro {
  unsigned line, column;
  char name[64];
};

struct state {
  CXTranslationUnit tu;
  char main_file[1024];
  struct macro macros[MAX_MACROS];
  int nmacros;
  CXCursor nodes[MAX_MACROS];
  int nnodes;
};

/* The expansion location of a cursor: file name, line, column. */
static void location(CXCursor c, char *file, size_t n, unsigned *line, unsigned *column) {
  CXFile f;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, line, column, NULL);
  file[0] = '\0';
  if (f) {
    CXString s = clang_getFileName(f);
    const char *p = clang_getCString(s);
    if (p)
      snprintf(file, n, "%s", p);
    clang_disposeString(s);
  }
}

static void append(char *out, size_t n, const char *text) {
  size_t used = strlen(out);
  if (used < n)
    snprintf(out + used, n - used, "%s", text);
}

/* parseIdentifier(raw=True): the cursor's tokens, joined. */
static void tokens(struct state *st, CXCursor c, char *out, size_t n) {
  CXToken *toks = NULL;
  unsigned ntoks = 0;
  out[0] = '\0';
  clang_tokenize(st->tu, clang_getCursorExtent(c), &toks, &ntoks);
  for (unsigned i = 0; i < ntoks; ++i) {
    CXString s = clang_getTokenSpelling(st->tu, toks[i]);
    append(out, n, clang_getCString(s));
    clang_disposeString(s);
  }
  if (toks)
    clang_disposeTokens(st->tu, toks, ntoks);
  if (!out[0])
    snprintf(out, n, "?");
}

/* parseIntExpression: an int-typed expression, evaluated. */
static void int_expr(CXCursor c, char *out, size_t n) {
  snprintf(out, n, "?");
  if (clang_getCursorType(c).kind != CXType_Int)
    return;
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (!r)
    return;
  if (clang_EvalResult_getKind(r) == CXEval_Int)
    snprintf(out, n, "%d", clang_EvalResult_getAsInt(r));
  clang_EvalResult_dispose(r);
}

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  *(CXCursor *)data = c;
  return CXChildVisit_Break;
}

/* parseStringLit: an unexposed expression over a string literal, unquoted. */
static void string_lit(CXCursor c, char *out, size_t n) {
  snprintf(out, n, "?");
  if (clang_getCursorKind(c) != CXCursor_UnexposedExpr)
    return;
  CXCursor child = clang_getNullCursor();
  clang_visitChildren(c, first_child, &child);
  if (clang_getCursorKind(child) != CXCursor_StringLiteral)
    return;
  CXString s = clang_getCursorSpelling(child);
  const char *p = clang_getCString(s);
  size_t len = p ? strlen(p) : 0;
  if (len >= 2)
    snprintf(out, n, "%.*s", (int)(len - 2), p + 1);
  clang_disposeString(s);
}

static const char *access_name(const char *value) {
  static const char *names[] = {"READ", "WRITE", "RW", "INC", "MIN", "MAX"};
  char *end;
  long v = strtol(value, &end, 10);
  if (*value && !*end && v >= 0 && v < 6)
    return names[v];
  return "?";
}

/* The map argument: direct when an OP_ID instantiation sits at its location. */
static void map_arg(struct state *st, CXCursor c, char *out, size_t n) {
  char file[1024];
  unsigned line, column;
  location(c, file, sizeof file, &line, &column);
  for (int i = 0; i < st->nmacros; ++i) {
    const struct macro *m = &st->macros[i];
    if (m->line == line && m->column == column && strcmp(file, st->main_file) == 0) {
      if (strcmp(m->name, "OP_ID") == 0) {
        snprintf(out, n, "direct");
        return;
      }
      break;
    }
  }
  char t[TOKENS_LEN];
  tokens(st, c, t, sizeof t);
  snprintf(out, n, "map %s", t);
}

/* One op_arg_* call, described as translator-v2's parser reads it. */
static void describe_arg(struct state *st, CXCursor arg, char *out, size_t n) {
  CXString s = clang_getCursorSpelling(arg);
  char name[128];
  snprintf(name, sizeof name, "%s", clang_getCString(s));
  clang_disposeString(s);
  int nargs = clang_Cursor_getNumArguments(arg);
  CXCursor a[8];
  for (int i = 0; i < nargs && i < 8; ++i)
    a[i] = clang_Cursor_getArgument(arg, (unsigned)i);
  char v0[TOKENS_LEN], v1[64], v2[TOKENS_LEN + 8], v3[64], v4[TOKENS_LEN];
  int opt = strncmp(name, "op_opt_", 7) == 0;
  if ((!strcmp(name, "op_arg_dat") && nargs == 6) || (!strcmp(name, "op_opt_arg_dat") && nargs == 7)) {
    CXCursor *d = a + opt;
    tokens(st, d[0], v0, sizeof v0);
    int_expr(d[1], v1, sizeof v1);
    map_arg(st, d[2], v2, sizeof v2);
    int_expr(d[3], v3, sizeof v3);
    string_lit(d[4], v4, sizeof v4);
    char acc[64];
    int_expr(d[5], acc, sizeof acc);
    snprintf(out, n, "%s %s idx %s %s dim %s %s %s", opt ? "optdat" : "dat", v0, v1, v2, v3, v4,
             access_name(acc));
  } else if ((!strcmp(name, "op_arg_gbl") && nargs == 4) ||
             (!strcmp(name, "op_opt_arg_gbl") && nargs == 5)) {
    /* parseArgGbl reads args[0..3] even for op_opt_arg_gbl, as here */
    tokens(st, a[0], v0, sizeof v0);
    int_expr(a[1], v1, sizeof v1);
    string_lit(a[2], v2, sizeof v2);
    int_expr(a[3], v3, sizeof v3);
    snprintf(out, n, "%s %s dim %s %s %s", opt ? "optgbl" : "gbl", v0, v1, v2, access_name(v3));
  } else if (!strcmp(name, "op_arg_idx") && nargs == 2) {
    int_expr(a[0], v1, sizeof v1);
    map_arg(st, a[1], v2, sizeof v2);
    snprintf(out, n, "idx %s %s", v1, v2);
  } else {
    snprintf(out, n, "other %s/%d", name[0] ? name : "?", nargs);
  }
}

/* parseLoop. */
static void print_loop(struct state *st, CXCursor call) {
  int nargs = clang_Cursor_getNumArguments(call);
  char line[LINE_MAX_LEN], kernel[TOKENS_LEN], arg[ARG_LEN];
  if (nargs < 3) {
    printf("loop ? args %d\n", nargs);
    return;
  }
  tokens(st, clang_Cursor_getArgument(call, 0), kernel, sizeof kernel);
  snprintf(line, sizeof line, "loop %s args %d:", kernel, nargs);
  for (int i = 3; i < nargs; ++i) {
    describe_arg(st, clang_Cursor_getArgument(call, (unsigned)i), arg, sizeof arg);
    append(line, sizeof line, i == 3 ? " " : "; ");
    append(line, sizeof line, arg);
  }
  printf("%s\n", line);
}

/* parseConst: an op_decl_const call, its argument count (translator-v2
   requires 3), the text of its data argument and its line. */
static void print_const(struct state *st, CXCursor c) {
  int nargs = clang_Cursor_getNumArguments(c);
  char data[256] = "?";
  if (nargs == 3)
    tokens(st, clang_Cursor_getArgument(c, 2), data, sizeof data);
  char file[1024];
  unsigned line, column;
  location(c, file, sizeof file, &line, &column);
  printf("const args %d: %s line %u\n", nargs, data, line);
}

/* walk_preorder over one top-level cursor: every CALL_EXPR spelled
   op_par_loop or op_decl_const. */
static void visit_call(struct state *st, CXCursor c) {
  if (clang_getCursorKind(c) != CXCursor_CallExpr)
    return;
  CXString s = clang_getCursorSpelling(c);
  int is_loop = strcmp(clang_getCString(s), "op_par_loop") == 0;
  int is_const = strcmp(clang_getCString(s), "op_decl_const") == 0;
  clang_disposeString(s);
  if (is_loop)
    print_loop(st, c);
  if (is_const)
    print_const(st, c);
}

static enum CXChildVisitResult preorder(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  visit_call((struct state *)data, c);
  return CXChildVisit_Recurse;
}

/* parseLoops: the top-level cursors of the main file. */
static enum CXChildVisitResult top_level(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct state *st = data;
  enum CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_MacroDefinition)
    return CXChildVisit_Continue;
  char file[1024];
  unsigned line, column;
  location(c, file, sizeof file, &line, &column);
  if (strcmp(file, st->main_file) != 0)
    return CXChildVisit_Continue;
  if (kind == CXCursor_MacroExpansion) {
    if (st->nmacros < MAX_MACROS) {
      struct macro *m = &st->macros[st->nmacros++];
      CXString s = clang_getCursorSpelling(c);
      m->line = line;
      m->column = column;
      snprintf(m->name, sizeof m->name, "%s", clang_getCString(s));
      clang_disposeString(s);
    }
    return CXChildVisit_Continue;
  }
  if (st->nnodes < MAX_MACROS)
    st->nodes[st->nnodes++] = c;
  return CXChildVisit_Continue;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: translator_view SOURCE [clang arguments...]\n");
    return 2;
  }
  static struct state st;
  CXIndex index = clang_createIndex(0, 0);
  st.tu = clang_parseTranslationUnit(index, argv[1], (const char *const *)(argv + 2), argc - 2,
                                     NULL, 0, CXTranslationUnit_DetailedPreprocessingRecord);
  if (!st.tu) {
    fprintf(stderr, "translator_view: libclang could not parse %s\n", argv[1]);
    clang_disposeIndex(index);
    return 1;
  }
  unsigned ndiag = clang_getNumDiagnostics(st.tu);
  for (unsigned i = 0; i < ndiag; ++i) {
    CXDiagnostic d = clang_getDiagnostic(st.tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      CXString s = clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions());
      fprintf(stderr, "error: %s\n", clang_getCString(s));
      clang_disposeString(s);
    }
    clang_disposeDiagnostic(d);
  }
  CXString spelling = clang_getTranslationUnitSpelling(st.tu);
  snprintf(st.main_file, sizeof st.main_file, "%s", clang_getCString(spelling));
  clang_disposeString(spelling);

  clang_visitChildren(clang_getTranslationUnitCursor(st.tu), top_level, &st);
  for (int i = 0; i < st.nnodes; ++i) {
    visit_call(&st, st.nodes[i]);
    clang_visitChildren(st.nodes[i], preorder, &st);
  }

  clang_disposeTranslationUnit(st.tu);
  clang_disposeIndex(index);
  return 0;
}
