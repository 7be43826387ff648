/* cli_options.h -- command-line helpers shared by the mesh generators
 * (meshgen, aero_meshgen).  Plain C99, also valid C++. */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of option `name` at argv[*i], given as "name=value" or as
 * "name value" (then *i moves past the value); NULL if argv[*i] is another
 * option.  A missing value stops the program with status 2. */
static inline const char *option_value(int argc, char **argv, int *i, const char *name) {
  size_t len = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, len) != 0)
    return NULL;
  if (a[len] == '=')
    return a + len + 1;
  if (a[len] != '\0')
    return NULL;
  if (*i + 1 >= argc) {
    fprintf(stderr, "missing value after %s\n", name);
    exit(2);
  }
  (*i)++;
  return argv[*i];
}

/* A positive integer; anything else stops the program with status 2. */
static inline long parse_long(const char *s, const char *what) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v <= 0) {
    fprintf(stderr, "invalid %s: %s\n", what, s);
    exit(2);
  }
  return v;
}

#endif
