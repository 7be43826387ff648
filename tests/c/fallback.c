/*
 * fallback.c -- the calls translator-v2's fallback wrappers make
 * (op_check_whitelist, op_check_fallback_mode) and op_disable_device_execution,
 * driven by tests/tests/fallback.rs under different OP_WHITELIST /
 * OP_FALLBACK_MODE settings.
 *
 *   fallback query NAME...      op_init, then for each NAME the wrapper's
 *                               decision: "main NAME" or, after
 *                               op_check_fallback_mode(NAME), "fallback NAME"
 *   fallback early NAME...      the decisions before op_init ("early ..."),
 *                               then as query
 *   fallback disabled NAME...   op_init, op_disable_device_execution(true):
 *                               every NAME as query; then (false): again
 *   fallback null_name          op_check_whitelist(NULL) (an error)
 *   fallback null_mode          op_check_fallback_mode(NULL) (an error)
 *
 * Each wrapper decision prints BEFORE first and its line after, so a stop
 * inside op_check_fallback_mode leaves BEFORE without the line.
 */
#include <stdio.h>
#include <string.h>

#include "op_seq.h"

/* What a generated wrapper does for loop `name`; prints which version ran. */
static void wrapper(const char *tag, const char *name) {
  printf("BEFORE %s\n", name);
  if (op_check_whitelist(name)) {
    printf("%smain %s\n", tag, name);
  } else {
    op_check_fallback_mode(name);
    printf("%sfallback %s\n", tag, name);
  }
  fflush(stdout);
}

static void all(const char *tag, int n, char **names) {
  for (int i = 0; i < n; i++)
    wrapper(tag, names[i]);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CASE NAME...\n", argv[0]);
    return 2;
  }
  const char *c = argv[1];
  int n = argc - 2;
  char **names = argv + 2;

  if (strcmp(c, "early") == 0)
    all("early ", n, names);

  op_init(argc, argv, 1);
  fflush(stdout);

  if (strcmp(c, "query") == 0 || strcmp(c, "early") == 0) {
    all("", n, names);
  } else if (strcmp(c, "disabled") == 0) {
    op_disable_device_execution(true);
    all("disabled ", n, names);
    op_disable_device_execution(false);
    all("enabled ", n, names);
  } else if (strcmp(c, "null_name") == 0) {
    printf("BEFORE\n");
    fflush(stdout);
    bool r = op_check_whitelist(NULL);
    printf("UNREACHABLE %d\n", (int)r);
  } else if (strcmp(c, "null_mode") == 0) {
    printf("BEFORE\n");
    fflush(stdout);
    op_check_fallback_mode(NULL);
    printf("UNREACHABLE\n");
  } else {
    fprintf(stderr, "unknown case %s\n", c);
    return 2;
  }
  op_exit();
  return 0;
}
