/*
 * meshgen -- write a NACA 0012 O-grid in the new_grid.dat text format.
 *
 *   meshgen [-o FILE] [--cells N | --ni A --nj B] [--radius R]
 *   meshgen --check FILE
 *
 * Options may also be written as --cells=N, --ni=A, --nj=B, --radius=R,
 * --out=FILE.  Defaults: -o new_grid.dat, --cells 20000, --radius 15.
 * --check reads an existing mesh file, runs the consistency checks and
 * reports the result (exit status 0 = mesh is fine).
 */
#include "cli_options.h"
#include "naca_mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [-o FILE] [--cells N | --ni A --nj B] [--radius R]\n"
          "       %s --check FILE\n",
          prog, prog);
}

/* Match "--name VALUE" or "--name=VALUE"; advances *i past a separate
 * value.  Returns the value string or NULL if argv[*i] is not this option. */
int main(int argc, char **argv) {
  const char *out = "new_grid.dat";
  const char *check = NULL;
  long cells = 20000;
  int ni = 0, nj = 0;
  double radius = NACA_MESH_DEFAULT_RADIUS;
  naca_mesh mesh;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(argv[0]);
      return 0;
    } else if ((v = option_value(argc, argv, &i, "-o")) != NULL ||
               (v = option_value(argc, argv, &i, "--out")) != NULL) {
      out = v;
    } else if ((v = option_value(argc, argv, &i, "--cells")) != NULL) {
      cells = parse_long(v, "cell count");
    } else if ((v = option_value(argc, argv, &i, "--ni")) != NULL) {
      ni = (int)parse_long(v, "ni");
    } else if ((v = option_value(argc, argv, &i, "--nj")) != NULL) {
      nj = (int)parse_long(v, "nj");
    } else if ((v = option_value(argc, argv, &i, "--radius")) != NULL) {
      char *end;
      radius = strtod(v, &end);
      if (*end != '\0' || !(radius > 2.0)) {
        fprintf(stderr, "invalid radius (must be > 2): %s\n", v);
        return 2;
      }
    } else if ((v = option_value(argc, argv, &i, "--check")) != NULL) {
      check = v;
    } else {
      fprintf(stderr, "unknown argument: %s\n", argv[i]);
      usage(argv[0]);
      return 2;
    }
  }

  if (check != NULL) {
    int problems;
    if (naca_mesh_read(check, &mesh) != 0)
      return 1;
    problems = naca_mesh_check(&mesh, stderr);
    printf("%s: %d nodes, %d cells, %d edges, %d boundary edges: %s\n", check,
           mesh.nnode, mesh.ncell, mesh.nedge, mesh.nbedge,
           problems ? "PROBLEMS FOUND" : "ok");
    naca_mesh_free(&mesh);
    return problems ? 1 : 0;
  }

  if ((ni > 0) != (nj > 0)) {
    fprintf(stderr, "--ni and --nj must be given together\n");
    return 2;
  }
  if (ni == 0)
    naca_mesh_dims_for_cells(cells, &ni, &nj);

  if (naca_mesh_generate(ni, nj, radius, &mesh) != 0)
    return 1;
  if (naca_mesh_write(out, &mesh) != 0) {
    naca_mesh_free(&mesh);
    return 1;
  }
  printf("wrote %s: O-grid %d x %d, %d nodes, %d cells, %d edges, "
         "%d boundary edges, far field at %g chords\n",
         out, ni % 2 ? ni + 1 : ni, nj, mesh.nnode, mesh.ncell, mesh.nedge,
         mesh.nbedge, radius);
  naca_mesh_free(&mesh);
  return 0;
}
