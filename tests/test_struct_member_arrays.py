"""An array of structs that a struct's member points to, as particle codes write it:
``s->pos[i].x += dt * s->vel[i].x`` (helper-66: refused, "not an array element or a
scalar"). ``s->pos`` is read as a variable of its own (as ``img->data`` is), then each
member of its elements as an array (as ``p[i].x`` is); the emitted code prints them
back as written. The oracle is execution: the original and the output compiled
alike, at sizes 0, 1, 2 and more, at 1 and 2 threads."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract

PARTICLES = r"""#include <stdio.h>
#include <stdlib.h>
typedef struct { double x, y, z; } vec3;
typedef struct { int n; vec3 *pos; vec3 *vel; double *mass; } system_t;
static double step(system_t *s, double dt) {
  double e = 0.0;
#pragma scop
  for (int i = 0; i < s->n; i++) {
    s->pos[i].x += dt * s->vel[i].x;
    s->pos[i].y += dt * s->vel[i].y;
    s->vel[i].z = s->vel[i].z * 0.5 + s->pos[i].z;
  }
  for (int i = 1; i < s->n; i++)
    s->pos[i].z = s->pos[i - 1].z + s->mass[i] * s->pos[i].x;
  for (int i = 0; i < s->n; i++)
    for (int j = i + 1; j < s->n; j++)
      e += s->mass[i] * s->mass[j] * (s->pos[i].x - s->pos[j].x);
#pragma endscop
  return e;
}
int main(int argc, char **argv) {
  system_t s;
  s.n = atoi(argv[1]);
  int cells = s.n > 0 ? s.n : 1;
  s.pos = malloc(sizeof(vec3) * cells); s.vel = malloc(sizeof(vec3) * cells);
  s.mass = malloc(sizeof(double) * cells);
  for (int i = 0; i < s.n; i++) {
    s.pos[i].x = i * 0.5; s.pos[i].y = i % 3; s.pos[i].z = 1.0 / (i + 1);
    s.vel[i].x = 0.25 * (i % 5); s.vel[i].y = -0.5; s.vel[i].z = i % 2; s.mass[i] = 1.0 + i % 4;
  }
  double e = step(&s, 0.125);
  double sum = 0;
  for (int i = 0; i < s.n; i++) sum += s.pos[i].x + 2 * s.pos[i].y + 3 * s.pos[i].z + 4 * s.vel[i].z;
  printf("%.17g %.17g\n", e, sum);
  return 0;
}
"""


def test_members_of_an_array_a_member_points_to_are_arrays():
    [scop] = extract(PARTICLES, filename="particles.c")
    texts = {a.c_text + a.member for a in scop.arrays.values() if a.member}
    assert {"s->pos.x", "s->pos.y", "s->pos.z", "s->vel.x", "s->vel.z"} <= texts, texts


@pytest.mark.parametrize("flags", [{}, {"tile": True, "parallel": True}, {"scheduler": "isl", "tile": True}])
def test_particles_run_like_the_original(flags, tmp_path):
    path = tmp_path / "particles.c"
    path.write_text(PARTICLES)
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    if flags.get("parallel"):
        assert "#pragma omp parallel for" in text
    sizes = [(0,), (1,), (2,), (7,), (150,)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(PARTICLES, tmp_path, "orig", sizes)


# Sizes and sums kept in a struct inside a struct, as image and solver code keeps them:
# img->size.w, cfg.grid.n, st->acc.total (session 50: refused, "struct member access
# in an affine expression"). Each is a variable of its own, printed back as written.
# (A member of a struct type defined inside another, struct { struct { int n; } g; },
# stays refused: the front end reads no nested definitions.)
NESTED = r"""#include <stdio.h>
#include <stdlib.h>
typedef struct { int w, h; } dims_t;
typedef struct { dims_t size; float *data; } image_t;
struct sum { double total; int count; };
struct stats { struct sum acc; };
typedef struct { int n; } grid_t;
struct config { grid_t grid; double k; };
static void kernel(image_t *img, struct config cfg, struct stats *st, float *out) {
#pragma scop
  for (int y = 1; y < img->size.h; y++)
    for (int x = 0; x < img->size.w; x++)
      img->data[y * img->size.w + x] += 0.5f * img->data[(y - 1) * img->size.w + x];
  for (int i = 0; i < cfg.grid.n; i++) {
    out[i] = out[i] * (float) cfg.k + img->data[i % 3];
    st->acc.total += out[i];
  }
#pragma endscop
}
int main(int argc, char **argv) {
  image_t img = {{atoi(argv[1]), atoi(argv[2])}, 0};
  struct config cfg = {{atoi(argv[3])}, 0.5};
  struct stats st = {{0.0, 0}};
  int cells = (img.size.w > 0 ? img.size.w : 0) * (img.size.h > 0 ? img.size.h : 0) + 4;
  int n = cfg.grid.n > 0 ? cfg.grid.n : 1;
  img.data = malloc(sizeof(float) * cells);
  float *out = malloc(sizeof(float) * n);
  for (int i = 0; i < cells; i++) img.data[i] = (float) (i % 9);
  for (int i = 0; i < n; i++) out[i] = (float) (i % 4);
  kernel(&img, cfg, &st, out);
  double sum = st.acc.total;
  for (int i = 0; i < cells; i++) sum += img.data[i] * (i % 7 + 1);
  for (int i = 0; i < n; i++) sum += out[i];
  printf("%.17g\n", sum);
  return 0;
}
"""


def test_members_of_a_struct_member_are_variables():
    [scop] = extract(NESTED, filename="nested.c")
    assert {"img__size__h", "img__size__w", "cfg__grid__n"} <= set(scop.parameters), scop.parameters
    texts = {a.c_text for a in scop.arrays.values()}
    assert {"img->data", "st->acc.total"} <= texts, texts


@pytest.mark.parametrize("flags", [{"tile": True, "parallel": True}, {"scheduler": "isl", "fuse": "max"}])
def test_members_of_a_struct_member_run_like_the_original(flags, tmp_path):
    path = tmp_path / "nested.c"
    path.write_text(NESTED)
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    assert "img->size.w" in text and "for (int c" in text
    sizes = [(0, 0, 0), (1, 1, 1), (5, 3, 0), (0, 4, 6), (9, 7, 20), (-2, 3, -1), (64, 33, 100)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(NESTED, tmp_path, "orig", sizes)
