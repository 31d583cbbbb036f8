/* Indirect calls (issue 14 §2): function-pointer tables with static callees, external callees and
 * both, under divergent control, with a uniform selector, returning a value or nothing. Compiled
 * with plain -O1 / -O2 by IndirectCallTest (clang keeps the tables as constant arrays and the calls
 * as indirect calls; the static callees keep the C calling convention because their address is
 * taken). */
extern void record(int);
extern void record2(int);
extern float ext_f(float);
extern float ext_g(float);
typedef float (*unop)(float);
typedef void (*hook)(int);

static float op_neg(float x) { record(1); return -x; }
static float op_sq(float x) { return x * x; }
static float op_half(float x) { return x * 0.5f; }
static float op_add1(float x) { record(4); return x + 1.0f; }

static unop ops[4] = { op_neg, op_sq, op_half, op_add1 };
static unop exts[2] = { ext_f, ext_g };
static unop mixed[4] = { op_neg, ext_f, op_sq, ext_g };
static hook hooks[2] = { record, record2 };

float dispatch(float x, int i) { return ops[i & 3](x); }
float dispatch_ext(float x, int i) { return exts[i & 1](x); }
float dispatch_mixed(float x, int i) { return mixed[i & 3](x); }
float dispatch_if(float x, int i) {
  if (x > 0.0f) return ops[i & 3](x) + 2.0f;
  return x;
}
float dispatch_loop(float x, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++) s += mixed[(k + n) & 3](x + (float) k);
  return s;
}
void notify(int x, int i) { hooks[i & 1](x * 3); }
