/* setjmp with a helper that calls longjmp: a second return of setjmp cannot be packetized. */
typedef long jmp_buf[25];
int setjmp(jmp_buf env);
int _setjmp(jmp_buf env);
void longjmp(jmp_buf env, int val) __attribute__((noreturn));

static jmp_buf env;

static __attribute__((noinline)) int check(int x) {
  if (x < 0) longjmp(env, 1);
  return x * 2;
}

int guarded(int x) {
  if (setjmp(env) != 0) return -1;
  return check(x) + 1;
}

/* the same through _setjmp, under a divergent branch */
int guarded2(int x) {
  int r = x;
  if (x > 10) {
    if (_setjmp(env) == 0) r = check(x - 20);
    else r = 0;
  }
  return r;
}

/* vfork is returns_twice too */
int vfork(void);
int forks(int x) {
  if (x == 12345) return vfork();
  return x;
}
