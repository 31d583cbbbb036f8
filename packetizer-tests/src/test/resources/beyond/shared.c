/* Memory at uniform addresses shared by the lanes (issue 14 §2): globals and uniform pointers,
 * written and read under divergent control flow. Semantics: W calls in lane order. */
int counter;
long long wide_counter;
unsigned hist_or;
float facc;
double dacc;
int last_id;
int scratch;
int unread;

/* a global counter incremented by each lane that takes the branch */
void count(int x) { if (x > 2) counter++; }
/* ... in a loop with a per-lane trip count, by a varying amount */
void count_loop(int n) { for (int k = 0; k < n; k++) wide_counter += k * 3 + 1; }
/* bit set by each lane */
void bits(int x) { if (x != 7) hist_or |= 1u << (x & 31); }
/* floating-point accumulation: once per call, in lane order */
void accumulate(float x) { if (x > 0.0f) facc += x * 0.5f; }
void accumulate_d(double x) { dacc -= x; }
/* the highest lane that writes has the last word */
void set_last(int x) { if (x & 1) last_id = x; }
void set_two(int x) { last_id = 1; if (x > 0) last_id = x * 2; }
/* stores in two blocks that different lanes run: the packet runs both blocks, the later one must
 * not overwrite a higher lane's value from the earlier one */
void set_paths(int *out, int x) {
  if (x > 0) {
    last_id = x;
    out[0] = x;
  } else {
    out[1] = x;
  }
  if (x < -3) last_id = -x;
}
/* a global written and read back by the same lane (out[0] may alias it, so the loads stay) */
int reread(int *out, int x) {
  scratch = x * 3;
  out[0] = x;
  if (x > 4) scratch = scratch + 7;
  out[1] = x + 1;
  return scratch;
}
/* through a uniform pointer */
void via_pointer(int *p, int x) { if (x < 0) *p += x; }
/* a lane reads what lower lanes wrote: a cross-lane race */
int ticket(int x) { int t = counter; counter = t + x; return t; }
