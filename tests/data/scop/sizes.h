#ifndef SIZES_H
#define SIZES_H
#ifndef LEN
# define LEN 32
#endif
typedef float real_t;
#define REAL real_t
#endif
