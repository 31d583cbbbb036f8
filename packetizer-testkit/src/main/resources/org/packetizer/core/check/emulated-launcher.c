/*
 * The launcher of an emulated differential check (org.packetizer.core.check.QemuExecutor): runs
 * under qemu-user for the target and serves calls of the trampolines __pk_tramp_0 (the scalar
 * function) and __pk_tramp_1 (the packet function) compiled into the object it is linked with.
 *
 * Protocol (little-endian, on stdin/stdout):
 *   request:  u32 op (1 = call) | u32 fn | u64 argsSize | args | u64 resultSize
 *             | u32 regions | per region: u64 hostAddress | u64 size | bytes
 *   reply:    u32 status (0) | result bytes | per region: bytes
 *             | u32 records | u32 lost | records × i32 (the calls of record(int) the call made, in order)
 * Every region is mapped fresh for the call, page-aligned between two PROT_NONE guard pages, so an
 * access past the canary zone faults here as it does on the host. Pointers travel as the host's
 * addresses: every 8-byte word of the arguments and of the regions that points into a region (its end
 * included) is rewritten to the local copy before the call and back after it, in the result too.
 * No headers: the same source builds for every Linux target.
 */
typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned char u8;

long read(int fd, void *buf, u64 n);
long write(int fd, const void *buf, u64 n);
void *mmap(void *addr, u64 len, int prot, int flags, int fd, long off);
int mprotect(void *addr, u64 len, int prot);
int munmap(void *addr, u64 len);
void *malloc(u64 n);
void free(void *p);
void exit(int code);
long sysconf(int name);

extern void __pk_tramp_0(void *args, void *result);
extern void __pk_tramp_1(void *args, void *result);

#define PROT_NONE 0
#define PROT_RW 3
#define MAP_PRIVATE_ANON 0x22
#define MAX_REGIONS 4096

/*
 * record(int): the side effect some test kernels call (on the host a Java upcall logs it). Here it logs
 * its argument in call order; the reply carries the log of each call, which the host compares as it
 * compares the upcalls' log. A call beyond MAX_RECORDS is counted as lost (the host fails the check).
 */
#define MAX_RECORDS (1u << 20)
static int records[MAX_RECORDS];
static u32 nrecords, lost;

void record(int value) {
  if (nrecords < MAX_RECORDS) records[nrecords++] = value;
  else lost++;
}

static void get(void *p, u64 n) {
  u8 *b = p;
  while (n > 0) {
    long r = read(0, b, n);
    if (r <= 0) exit(r == 0 && b == (u8 *) p ? 0 : 3);
    b += r;
    n -= (u64) r;
  }
}

static void put(const void *p, u64 n) {
  const u8 *b = p;
  while (n > 0) {
    long r = write(1, b, n);
    if (r <= 0) exit(4);
    b += r;
    n -= (u64) r;
  }
}

static u64 from[MAX_REGIONS], to[MAX_REGIONS], size[MAX_REGIONS], mapped[MAX_REGIONS];
static u8 *local[MAX_REGIONS];
static u32 nregions;

static void translate(u8 *p, u64 n, const u64 *src, const u64 *dst) {
  for (u64 i = 0; i + 8 <= n; i += 8) {
    u64 v;
    __builtin_memcpy(&v, p + i, 8);
    for (u32 r = 0; r < nregions; r++) {
      if (v >= src[r] && v <= src[r] + size[r]) {
        v = dst[r] + (v - src[r]);
        __builtin_memcpy(p + i, &v, 8);
        break;
      }
    }
  }
}

int main(void) {
  u64 page = (u64) sysconf(30 /* _SC_PAGESIZE */);
  for (;;) {
    u32 op = 0, fn;
    get(&op, 4);
    if (op != 1) exit(5);
    get(&fn, 4);
    u64 argsSize, resultSize;
    get(&argsSize, 8);
    u8 *args = malloc(argsSize + 64);
    get(args, argsSize);
    get(&resultSize, 8);
    u8 *result = malloc(resultSize + 64);
    __builtin_memset(result, 0, resultSize + 64);
    get(&nregions, 4);
    if (nregions > MAX_REGIONS) exit(6);
    for (u32 r = 0; r < nregions; r++) {
      get(&from[r], 8);
      get(&size[r], 8);
      mapped[r] = (size[r] + page - 1) / page * page + 2 * page;
      u8 *m = mmap(0, mapped[r], PROT_NONE, MAP_PRIVATE_ANON, -1, 0);
      if (m == (u8 *) -1) exit(7);
      if (mprotect(m + page, mapped[r] - 2 * page, PROT_RW) != 0) exit(8);
      local[r] = m + page;
      to[r] = (u64) local[r];
      get(local[r], size[r]);
    }
    translate(args, argsSize, from, to);
    for (u32 r = 0; r < nregions; r++) translate(local[r], size[r], from, to);
    nrecords = 0;
    lost = 0;
    if (fn == 0) __pk_tramp_0(args, result);
    else __pk_tramp_1(args, result);
    translate(result, resultSize, to, from);
    for (u32 r = 0; r < nregions; r++) translate(local[r], size[r], to, from);
    u32 status = 0;
    put(&status, 4);
    put(result, resultSize);
    for (u32 r = 0; r < nregions; r++) {
      put(local[r], size[r]);
      munmap(local[r] - page, mapped[r]);
    }
    put(&nrecords, 4);
    put(&lost, 4);
    put(records, (u64) nrecords * 4);
    free(args);
    free(result);
  }
}
