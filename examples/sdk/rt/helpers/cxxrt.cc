/* cxxrt.cc - the C++ runtime a freestanding kernel needs (C++14, -fno-exceptions -fno-rtti):
 * operator new/delete in every form forwarding to malloc/free (provided by the SDK's heap),
 * pure and deleted virtual calls, function-local static guards (one core, no threads),
 * and the registration of static destructors, which never run (a kernel does not exit).
 *
 * Failures that C++ reports with exceptions trap instead (BREAK 1, 15 through __builtin_trap):
 * a throwing operator new that cannot allocate, a call of a pure or deleted virtual function,
 * a bad array length, and a guarded initialisation that re-enters itself. */

typedef __SIZE_TYPE__ size_t;

extern "C" void *malloc(size_t size);
extern "C" void free(void *p);

namespace std {
struct nothrow_t {
	explicit nothrow_t() = default;
};
extern const nothrow_t nothrow;
const nothrow_t nothrow{};
} // namespace std

/* The SDK runtime's error path (PLATFORM.md "Runtime errors"), when the image has one: weak, so
 * programs without the custom-op runtime (bare-metal tests) trap instead. */
extern "C" void q7_fatal(int code, const char *fmt, ...) __attribute__((weak, noreturn));

namespace {
enum { ERR_OUT_OF_MEMORY = 5, ERR_ABORT = 7 };

[[noreturn]] void fail(int code, const char *what, size_t n = 0)
{
	if (q7_fatal)
		q7_fatal(code, what, (unsigned)n);
	__builtin_trap();
}

/* malloc(0) may return null; operator new must return a distinct object. */
void *allocate(size_t size) noexcept
{
	return malloc(size ? size : 1);
}

void *allocate_or_trap(size_t size) noexcept
{
	void *p = allocate(size);
	if (!p)
		fail(ERR_OUT_OF_MEMORY, "operator new: out of memory for %u bytes", size);
	return p;
}
} // namespace

void *operator new(size_t size)
{
	return allocate_or_trap(size);
}
void *operator new[](size_t size)
{
	return allocate_or_trap(size);
}
void *operator new(size_t size, const std::nothrow_t &) noexcept
{
	return allocate(size);
}
void *operator new[](size_t size, const std::nothrow_t &) noexcept
{
	return allocate(size);
}

void operator delete(void *p) noexcept
{
	free(p);
}
void operator delete[](void *p) noexcept
{
	free(p);
}
void operator delete(void *p, size_t) noexcept
{
	free(p);
}
void operator delete[](void *p, size_t) noexcept
{
	free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept
{
	free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept
{
	free(p);
}

extern "C" {

void __cxa_pure_virtual(void)
{
	fail(ERR_ABORT, "pure virtual function called");
}

void __cxa_deleted_virtual(void)
{
	fail(ERR_ABORT, "deleted virtual function called");
}

void __cxa_throw_bad_array_new_length(void)
{
	fail(ERR_ABORT, "new[]: bad array length");
}

/* The Itanium C++ ABI guard: byte 0 is nonzero once the object is initialised; byte 1 marks an
 * initialisation in progress. Acquire returns 1 when the caller must initialise. */
int __cxa_guard_acquire(unsigned long long *guard)
{
	unsigned char *g = reinterpret_cast<unsigned char *>(guard);
	if (g[0])
		return 0;
	if (g[1])
		__builtin_trap(); /* the initialiser re-entered itself */
	g[1] = 1;
	return 1;
}

void __cxa_guard_release(unsigned long long *guard)
{
	unsigned char *g = reinterpret_cast<unsigned char *>(guard);
	g[1] = 0;
	g[0] = 1;
}

void __cxa_guard_abort(unsigned long long *guard)
{
	reinterpret_cast<unsigned char *>(guard)[1] = 0;
}

/* Static destructors: registered (accepted) and never run. GCC's default for this target calls
 * atexit; with -fuse-cxa-atexit it calls __cxa_atexit with __dso_handle. */
void *__dso_handle = &__dso_handle;

int __cxa_atexit(void (*)(void *), void *, void *)
{
	return 0;
}

int atexit(void (*)(void))
{
	return 0;
}
}
