/* Checked code that misbehaves for some inputs: --check must report it, not die with it. */

/* reads through a wild pointer when x > 900 (SIGSEGV) */
int crashy(int x, int *p) {
  if (x > 900) p = (int *)(long)(x * 16);
  return *p + x;
}
