/* settings.h -- what the program's main file includes before the kernels:
   a macro the kernels' conditionals test (a #define a device library reads
   from here, not from the build line) */
#ifndef CONDITIONALS_SETTINGS_H
#define CONDITIONALS_SETTINGS_H
#define SHIFT_BY 5
#endif
